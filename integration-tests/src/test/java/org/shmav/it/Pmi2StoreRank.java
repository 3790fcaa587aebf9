package org.shmav.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import org.shmav.store.JobStore;
import org.shmav.store.Pmi2Store;

/**
 * A rank for {@link Pmi2StoreIT}: a task of a Slurm step ({@code srun --mpi=pmi2}, or the test's own
 * PMI-2 server), its PMI-2 socket inherited as {@code PMI_FD}. Opens {@link Pmi2Store} and runs the
 * modes of {@link PmixStoreRank} ({@code every}, {@code missing}, {@code silent}) on it.
 */
public final class Pmi2StoreRank
{
    private Pmi2StoreRank()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String host = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
        final long t0 = System.nanoTime();
        final Optional<JobStore> opened = Pmi2Store.open(System.getenv());
        final long opening = System.nanoTime() - t0;
        if (opened.isEmpty())
        {
            System.out.println("rank ? FAILED: Pmi2Store.open found no PMI-2 launcher in the environment");
            return;
        }
        PmixStoreRank.run(opened.get(), args.length > 0 ? args[0] : "every", args.length > 1 ? Path.of(args[1]) : null, host,
            opening);
    }
}
