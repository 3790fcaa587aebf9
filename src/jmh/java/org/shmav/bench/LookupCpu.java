package org.shmav.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.Arrays;

import org.shmav.AddressVector;
import org.shmav.Domain;

/**
 * {@link LookupBench#lookupLoop} in the thread's CPU time, for a host too busy for elapsed time: passes
 * of 1M lookups in fi_addr order (wrapping) over a full shared AV of ENTRIES entries (default 1M), one
 * Java loop each, as {@code memory_limits lookup ENTRIES 64} does in C (which prints its CPU time beside):
 *
 * <pre>
 *   java ... org.shmav.bench.LookupCpu PASSES [ENTRIES]
 * </pre>
 * Prints the lowest and the median pass in ns per lookup. A small AV (slots in the cache) shows the
 * instructions per lookup alone; 1M entries (64 MB of slots) adds the memory's pace.
 */
public final class LookupCpu
{
    private static final int N = LookupBench.LOOP;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private LookupCpu()
    {
    }

    public static void main(final String[] args)
    {
        final int passes = Integer.parseInt(args[0]);
        final int entries = args.length > 1 ? Integer.parseInt(args[1]) : N;
        final String name = BenchAvs.uniqueName("lookup-cpu");
        try (Domain domain = BenchAvs.domain())
        {
            final AddressVector av = BenchAvs.open(domain, BenchAvs.SHARED, name, entries);
            try
            {
                final long[] fiAddr = new long[entries];
                if (av.insert(BenchAddresses.direct(0, entries), entries, fiAddr, 0, null) != entries)
                {
                    throw new IllegalStateException("could not fill the AV");
                }
                final ByteBuffer out = ByteBuffer.allocateDirect(BenchAddresses.ADDRLEN);
                for (int i = 0; i < 20; i++)
                {
                    pass(av, fiAddr, out); // compiled first
                }
                final double[] cpu = new double[passes];
                for (int p = 0; p < passes; p++)
                {
                    cpu[p] = pass(av, fiAddr, out);
                }
                final double[] sorted = cpu.clone();
                Arrays.sort(sorted);
                System.out.printf("%d entries: ", entries);
                System.out.printf("lookup loop CPU time: lowest pass %.2f ns/op, median %.2f%n", sorted[0],
                    sorted[passes / 2]);
            }
            finally
            {
                BenchAvs.closeAndUnlink(domain, av, BenchAvs.SHARED, name);
            }
        }
    }

    /** CPU ns per lookup of one pass of 1M lookups in fi_addr order, wrapping. */
    private static double pass(final AddressVector av, final long[] fiAddr, final ByteBuffer out)
    {
        long copied = 0;
        int i = 0;
        final long t0 = THREADS.getCurrentThreadCpuTime();
        for (int k = 0; k < N; k++)
        {
            copied += av.lookup(fiAddr[i], out);
            i = i + 1 == fiAddr.length ? 0 : i + 1;
        }
        final double ns = (THREADS.getCurrentThreadCpuTime() - t0) / (double)N;
        if (copied != (long)N * BenchAddresses.ADDRLEN)
        {
            throw new IllegalStateException("lookups copied " + copied + " bytes");
        }
        return ns;
    }
}
