package org.shmav.it;

import java.net.InetSocketAddress;
import java.time.Duration;

import org.shmav.Rank;

/**
 * A rank for {@link AvRunIT} of a job that fails after its wire-up: every rank publishes and waits for
 * the others; then the last rank calls {@code System.exit(3)} without closing its {@code Rank}, and the
 * others wait (as a ring rank waits for its token) until avrun stops them with SIGTERM. None of them
 * closes its {@code Rank} itself.
 */
public final class FailingJobRank
{
    private FailingJobRank()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Rank rank = Rank.fromEnvironment();
        rank.publish(new InetSocketAddress("127.0.0.1", 20_000 + rank.rank()));
        rank.awaitAll(Duration.ofSeconds(60));
        System.out.println("rank " + rank.rank() + " sees all " + rank.size());
        if (rank.rank() == rank.size() - 1)
        {
            System.exit(3);
        }
        Thread.sleep(60_000);
    }
}
