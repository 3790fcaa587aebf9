package org.shmav.it;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

import org.shmav.Rank;

/**
 * A rank whose node's local rank 0 is SIGKILLed while it creates the node's AV, for {@code CrashedJobRerunIT}:
 * on the hosts listed in {@code CRASH_HOSTS}, local rank 0 starts a killer ({@code sh -c 'read x; kill -9 PID'})
 * before it opens, and a thread that wakes it the moment {@code CRASH_AT} appears in {@code /dev/shm}:
 * {@code job} (the job file, so the kill lands while the AV is being made) or {@code av} (the AV itself).
 * Every other rank opens, publishes and waits; the launcher ends them when the leader dies. The AV's
 * name is {@code SHMAV_AV}.
 */
public final class CrashingLeaderRank
{
    private CrashingLeaderRank()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String host = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
        final boolean leader = "0".equals(System.getenv("MPI_LOCALRANKID")) ||
            "0".equals(System.getenv("OMPI_COMM_WORLD_LOCAL_RANK"));
        final String name = System.getenv("SHMAV_AV");
        if (leader && Set.of(System.getenv().getOrDefault("CRASH_HOSTS", "").split(",")).contains(host))
        {
            final Path watched = Path.of("/dev/shm", "av".equals(System.getenv("CRASH_AT")) ? name : ".shmav-job." + name);
            final Process killer = new ProcessBuilder("sh", "-c", "read x; kill -9 " + ProcessHandle.current().pid())
                .redirectOutput(ProcessBuilder.Redirect.INHERIT).start();
            final OutputStream trigger = killer.getOutputStream();
            final Thread watcher = new Thread(() ->
            {
                final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (!Files.exists(watched) && System.nanoTime() - deadline < 0)
                {
                    Thread.onSpinWait();
                }
                try
                {
                    trigger.write("go\n".getBytes(StandardCharsets.US_ASCII));
                    trigger.flush();
                }
                catch (final java.io.IOException e)
                {
                    System.out.println("crash " + host + ": cannot wake the killer: " + e);
                }
            }, "crash-watcher");
            watcher.setDaemon(true);
            watcher.start();
        }
        try (Rank rank = Rank.fromEnvironment();
             ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress()))
        {
            rank.publish((InetSocketAddress)server.getLocalSocketAddress());
            rank.awaitAll(Duration.ofSeconds(30));
            System.out.println("survived " + rank.rank() + " on " + host);
            Thread.sleep(30_000); // a leader to be killed is killed meanwhile; the launcher ends the others
        }
    }
}
