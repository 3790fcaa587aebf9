package org.shmav.it;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.shmav.Rank;

/**
 * A rank for {@link LauncherJobsIT}: publishes a real socket, waits for every rank, sends its job's tag
 * ({@code SHMAV_IT_TAG}) and rank to the next rank and reads what the previous rank sent, then waits
 * (at most 120 s) for the file named by its argument before it closes its {@code Rank}. Prints
 * {@code CROSSED} and exits 3 when the message came from another job.
 */
public final class JobTagRank
{
    private JobTagRank()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String tag = System.getenv("SHMAV_IT_TAG");
        final Path go = Path.of(args[0]);
        try (Rank rank = Rank.fromEnvironment();
             ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress()))
        {
            server.setSoTimeout(60_000);
            rank.publish((InetSocketAddress)server.getLocalSocketAddress());
            rank.awaitAll(Duration.ofSeconds(60));
            final String me = "job " + tag + " rank " + rank.rank();
            System.out.println(me + " ready in AV " + rank.av().attr().name());
            final InetSocketAddress next = rank.peer((rank.rank() + 1) % rank.size());
            try (Socket out = new Socket(next.getAddress(), next.getPort()))
            {
                new DataOutputStream(out.getOutputStream()).writeUTF(tag + " " + rank.rank());
            }
            final String got;
            try (Socket in = server.accept())
            {
                got = new DataInputStream(in.getInputStream()).readUTF();
            }
            System.out.println(me + " received '" + got + "'");
            if (!got.startsWith(tag + " "))
            {
                System.out.println("CROSSED: " + me + " received '" + got + "'");
                System.exit(3);
            }
            final long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (!Files.exists(go) && System.nanoTime() - deadline < 0)
            {
                Thread.sleep(20);
            }
            System.out.println(me + " done");
        }
    }
}
