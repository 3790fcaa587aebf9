package org.shmav.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.Arrays;

import org.shmav.AddressVector;
import org.shmav.Domain;
import org.shmav.shm.AvLayout;
import org.shmav.shm.SlotDescriptor;

/**
 * What one growth costs per entry it migrates, against a sequential copy of the same bytes, in the
 * inserting thread's CPU time: a shared AV created with count N and filled, then the one insert that
 * grows it to 2N (append, map, prepare and publish segment 1, then the migration of the N entries into
 * its area), divided by N; beside it, in the same rounds, a copy of the bytes that migration reads (the
 * N slots and the old area) from one warm buffer into another:
 *
 * <pre>
 *   java ... org.shmav.bench.MigrationCost ROUNDS N
 * </pre>
 */
public final class MigrationCost
{
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private MigrationCost()
    {
    }

    public static void main(final String[] args)
    {
        final int rounds = Integer.parseInt(args[0]);
        final int n = Integer.parseInt(args[1]);
        final ByteBuffer addrs = BenchAddresses.direct(0, n + 1);
        final long bytes = (long)n * SlotDescriptor.slotLength(BenchAddresses.ADDRLEN) + AvLayout.hashBucketsFor(n) * Long.BYTES;
        final ByteBuffer from = ByteBuffer.allocateDirect(Math.toIntExact(bytes));
        final ByteBuffer to = ByteBuffer.allocateDirect(Math.toIntExact(bytes));
        final double[] growth = new double[rounds];
        final double[] copy = new double[rounds];
        try (Domain domain = BenchAvs.domain())
        {
            for (int i = 0; i < 3; i++)
            {
                growOnce(domain, addrs, Math.min(n, 65_536)); // compiled first
                copyOnce(from, to, n);
            }
            for (int r = 0; r < rounds; r++)
            {
                growth[r] = growOnce(domain, addrs, n);
                copy[r] = copyOnce(from, to, n);
                System.err.printf("round %d: growth %.1f, sequential copy %.2f ns per entry (CPU)%n", r, growth[r], copy[r]);
            }
        }
        final double g = Arrays.stream(growth).min().orElse(Double.NaN);
        final double c = Arrays.stream(copy).min().orElse(Double.NaN);
        System.out.printf("N %,d (%d bytes an entry): growth %.1f ns per migrated entry, sequential copy %.2f ns: %.0fx%n",
            n, bytes / n, g, c, g / c);
    }

    /** CPU ns per entry of the insert that grows a full AV of {@code n} entries. */
    private static double growOnce(final Domain domain, final ByteBuffer addrs, final int n)
    {
        final String name = BenchAvs.uniqueName("migration");
        final AddressVector av = BenchAvs.open(domain, BenchAvs.SHARED, name, n);
        try
        {
            BenchAvs.cpuNanosPerInsert(av, addrs, n);
            final long[] one = new long[1];
            addrs.position(n * BenchAddresses.ADDRLEN);
            final long t0 = THREADS.getCurrentThreadCpuTime();
            if (av.insert(addrs, 1, one, 0, null) != 1)
            {
                throw new IllegalStateException("the growing insert failed");
            }
            return (THREADS.getCurrentThreadCpuTime() - t0) / (double)n;
        }
        finally
        {
            BenchAvs.closeAndUnlink(domain, av, BenchAvs.SHARED, name);
        }
    }

    /** CPU ns per entry of one sequential copy of {@code from} into {@code to} (both touched before). */
    private static double copyOnce(final ByteBuffer from, final ByteBuffer to, final int n)
    {
        to.clear().put(from.clear()); // touches both
        final long t0 = THREADS.getCurrentThreadCpuTime();
        to.clear().put(from.clear());
        return (THREADS.getCurrentThreadCpuTime() - t0) / (double)n;
    }
}
