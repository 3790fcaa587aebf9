package org.shmav.it;

import java.time.Duration;
import java.util.Optional;

import org.shmav.store.JobStore;
import org.shmav.store.Pmi2Store;

/**
 * A rank for {@link Pmi2StoreIT}: a task of a (test) Slurm step, its PMI-2 socket inherited as
 * {@code PMI_FD}. Publishes {@code rank-R}, exchanges, fetches every rank's value and prints
 * {@code rank R of N sees every rank: ...}, or a line with {@code FAILED}.
 */
public final class Pmi2StoreRank
{
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private Pmi2StoreRank()
    {
    }

    public static void main(final String[] args)
    {
        final Optional<JobStore> opened = Pmi2Store.open(System.getenv());
        if (opened.isEmpty())
        {
            System.out.println("rank ? FAILED: Pmi2Store.open found no PMI-2 launcher in the environment");
            return;
        }
        try (JobStore store = opened.get())
        {
            store.publish("addr", "rank-" + store.rank());
            store.exchange(TIMEOUT);
            final StringBuilder seen = new StringBuilder();
            for (int r = 0; r < store.size(); r++)
            {
                seen.append(' ').append(store.fetch(r, "addr", TIMEOUT));
            }
            System.out.println("rank " + store.rank() + " of " + store.size() + " sees every rank:" + seen + " (" +
                store.describe() + ")");
        }
    }
}
