package org.shmav.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.Arrays;

import org.shmav.AddressVector;
import org.shmav.Domain;

/**
 * {@link LookupBench#lookupLoop} in the thread's CPU time, for a host too busy for elapsed time: passes
 * of 1M lookups in fi_addr order over a full shared AV of 1M entries, one Java loop each, as
 * {@code memory_limits lookup 1000000 64} does in C (which prints its CPU time beside):
 *
 * <pre>
 *   java ... org.shmav.bench.LookupCpu PASSES
 * </pre>
 * Prints the lowest and the median pass in ns per lookup.
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
        final String name = BenchAvs.uniqueName("lookup-cpu");
        try (Domain domain = BenchAvs.domain())
        {
            final AddressVector av = BenchAvs.open(domain, BenchAvs.SHARED, name, N);
            try
            {
                final long[] fiAddr = new long[N];
                if (av.insert(BenchAddresses.direct(0, N), N, fiAddr, 0, null) != N)
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
                System.out.printf("lookup loop CPU time: lowest pass %.2f ns/op, median %.2f%n", sorted[0],
                    sorted[passes / 2]);
            }
            finally
            {
                BenchAvs.closeAndUnlink(domain, av, BenchAvs.SHARED, name);
            }
        }
    }

    /** CPU ns per lookup of one pass over every fi_addr, in order. */
    private static double pass(final AddressVector av, final long[] fiAddr, final ByteBuffer out)
    {
        long copied = 0;
        final long t0 = THREADS.getCurrentThreadCpuTime();
        for (int k = 0; k < N; k++)
        {
            copied += av.lookup(fiAddr[k], out);
        }
        final double ns = (THREADS.getCurrentThreadCpuTime() - t0) / (double)N;
        if (copied != (long)N * BenchAddresses.ADDRLEN)
        {
            throw new IllegalStateException("lookups copied " + copied + " bytes");
        }
        return ns;
    }
}
