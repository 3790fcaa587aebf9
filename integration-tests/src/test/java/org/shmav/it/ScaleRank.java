package org.shmav.it;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.shmav.Rank;

/**
 * The JVM rank of a scale run (docs/jobs-across-nodes.md): each node's local rank 0, which fills the
 * node's AV for the job's light ranks ({@code integration-tests/nodes/light_rank.c}). Publishes
 * 127.0.0.1:(20000 + rank), waits for the whole job, checks every rank's entry, and prints
 * {@code scale RANK seen_ms EPOCH_MS av_bytes B lock_bytes L entries N}.
 */
public final class ScaleRank
{
    private ScaleRank()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        try (Rank rank = Rank.fromEnvironment())
        {
            rank.publish(new InetSocketAddress("127.0.0.1", 20000 + rank.rank()));
            rank.awaitAll(Duration.ofSeconds(300));
            final long seen = System.currentTimeMillis();
            for (int r = 0; r < rank.size(); r++)
            {
                if (rank.peer(r).getPort() != 20000 + r)
                {
                    throw new IllegalStateException("rank " + r + " is at " + rank.peer(r));
                }
            }
            final Path dir = Path.of(System.getenv().getOrDefault("SHMAV_DIR", "/dev/shm"));
            final String name = rank.av().attr().name();
            System.out.println("scale " + rank.rank() + " seen_ms " + seen + " av_bytes " + Files.size(dir.resolve(name)) +
                " lock_bytes " + Files.size(dir.resolve(".shmav-lock." + name)) + " entries " + rank.av().count());
        }
    }
}
