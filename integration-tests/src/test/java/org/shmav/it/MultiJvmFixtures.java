package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.shmav.Rank;

/**
 * Rank bodies for {@link MultiJvmExtensionIT}, run in rank JVMs by {@code MultiJvmRun}: not tests
 * themselves. Each rank records its pid in the directory named by {@code -Dfixture.dir}, so that the
 * test can check that no rank survives the run.
 */
public class MultiJvmFixtures
{
    /** Rank 2 fails an assertion once the other ranks are up; the others would sleep for a minute. */
    void failsOnRankTwo(final Rank rank) throws Exception
    {
        final Path dir = recordPid(rank);
        rank.publish(new java.net.InetSocketAddress("127.0.0.1", 30_000 + rank.rank()));
        rank.awaitAll(Duration.ofSeconds(30));
        if (rank.rank() == 2)
        {
            awaitPidFiles(dir, rank.size());
            assertEquals(0, rank.rank(), "rank 2 disagrees");
        }
        Thread.sleep(60_000);
    }

    /** Never finishes within a short timeout. */
    void sleepsPastTheTimeout(final Rank rank) throws Exception
    {
        recordPid(rank);
        System.out.println("sleeping");
        Thread.sleep(60_000);
    }

    private static Path recordPid(final Rank rank) throws IOException
    {
        final Path dir = Path.of(System.getProperty("fixture.dir"));
        Files.writeString(dir.resolve("pid-" + rank.rank()), Long.toString(ProcessHandle.current().pid()));
        return dir;
    }

    private static void awaitPidFiles(final Path dir, final int n) throws Exception
    {
        final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (Files.list(dir).count() < n && System.nanoTime() < deadline)
        {
            Thread.sleep(10);
        }
    }
}
