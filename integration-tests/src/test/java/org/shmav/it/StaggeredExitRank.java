package org.shmav.it;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;

import org.shmav.Rank;

/**
 * A rank for {@link MpiLaunchersIT}: joins the job, waits for every rank, closes its {@code Rank};
 * then rank 0 exits at once and the others only after 1.5 s, each printing a line as it exits.
 */
public final class StaggeredExitRank
{
    private StaggeredExitRank()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int r;
        try (Rank rank = Rank.fromEnvironment();
             ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress()))
        {
            rank.publish((InetSocketAddress)server.getLocalSocketAddress());
            rank.awaitAll(Duration.ofSeconds(60));
            r = rank.rank();
        }
        if (r != 0)
        {
            Thread.sleep(1_500);
        }
        System.out.println("rank " + r + " exits");
    }
}
