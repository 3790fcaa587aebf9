package org.shmav.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;

import org.shmav.AddressVector;
import org.shmav.Domain;

/**
 * What the size of an AV alone costs a writer in batches of 64: one writer inserts N addresses, 64 per
 * call, into a shared AV created with count N and into one created with count 2N (whose hash is twice
 * as large, as the one AV of two writers of N each is against an AV of their own each), in alternating
 * rounds; prints the writer thread's CPU time per insert, which other processes of a loaded machine
 * disturb only through the caches.
 *
 * <pre>
 *   java ... org.shmav.bench.BatchAvSizeCpu N ROUNDS
 * </pre>
 */
public final class BatchAvSizeCpu
{
    private static final int BATCH = 64;

    private BatchAvSizeCpu()
    {
    }

    public static void main(final String[] args)
    {
        final int n = Integer.parseInt(args[0]);
        final int rounds = Integer.parseInt(args[1]);
        final ByteBuffer addrs = BenchAddresses.direct(0, n);
        final ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        try (Domain domain = BenchAvs.domain())
        {
            for (int i = 0; i < 6; i++)
            {
                cpuPerInsert(domain, addrs, Math.min(n, 200_000), Math.min(n, 200_000), cpu); // compiled before the timing
            }
            for (int r = 0; r < rounds; r++)
            {
                for (final long count : new long[] {n, 2L * n})
                {
                    System.out.printf("round %d, count %d: %.1f ns of CPU time per insert%n", r, count,
                        cpuPerInsert(domain, addrs, n, count, cpu));
                }
            }
        }
    }

    private static double cpuPerInsert(final Domain domain, final ByteBuffer addrs, final int n, final long count,
        final ThreadMXBean cpu)
    {
        final long[] fiAddrs = new long[BATCH];
        final String name = BenchAvs.uniqueName("batch-size");
        final AddressVector av = BenchAvs.open(domain, BenchAvs.SHARED, name, count);
        try
        {
            final long t0 = cpu.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i += BATCH)
            {
                addrs.position(i * BenchAddresses.ADDRLEN);
                if (av.insert(addrs, Math.min(BATCH, n - i), fiAddrs, 0, null) != Math.min(BATCH, n - i))
                {
                    throw new IllegalStateException("a batch at " + i + " did not go in whole");
                }
            }
            return (cpu.getCurrentThreadCpuTime() - t0) / (double)n;
        }
        finally
        {
            BenchAvs.closeAndUnlink(domain, av, BenchAvs.SHARED, name);
        }
    }
}
