package org.shmav.bench;

import java.nio.ByteBuffer;
import java.util.Arrays;

import org.shmav.AddressVector;
import org.shmav.Domain;

/**
 * Tight loops over the public API, without JMH, for profiling (an agent on the command line sees only
 * shmav's frames and the loop) and for quick A/B runs of one change (docs/profiles.md):
 *
 * <pre>
 *   Loops lookup  private|shared [COUNT]  10 passes of 1M lookups in fi_addr order, 15 times
 *   Loops insert  private|shared [COUNT]  1M single inserts into an AV created with COUNT (default 1M), 12 times
 *   Loops batch   private|shared          one call of 1M addresses, 12 times
 * </pre>
 * Each prints ns per operation per repetition, then the median of the second half.
 */
public final class Loops
{
    /** Addresses per repetition: 1M, or -Dshmav.loops.entries (a small AV shows the insert without its cache misses). */
    private static final int N = Integer.getInteger("shmav.loops.entries", 1_000_000);

    private Loops()
    {
    }

    public static void main(final String[] args)
    {
        final String what = args[0];
        final String kind = args[1];
        final long count = args.length > 2 ? Long.parseLong(args[2]) : N;
        final ByteBuffer addrs = BenchAddresses.direct(0, N);
        final long[] fiAddr = new long[N];
        final int reps = Integer.getInteger("shmav.loops.reps", what.equals("lookup") ? 15 : 12);
        final double[] ns = new double[reps];
        try (Domain domain = BenchAvs.domain())
        {
            for (int rep = 0; rep < reps; rep++)
            {
                final String name = BenchAvs.uniqueName("loops");
                final AddressVector av = BenchAvs.open(domain, kind, name, what.equals("batch") ? N : count);
                try
                {
                    ns[rep] = what.equals("lookup") ? lookups(av, addrs, fiAddr) : inserts(av, addrs, what.equals("batch"));
                }
                finally
                {
                    addrs.position(0);
                    BenchAvs.closeAndUnlink(domain, av, kind, name);
                }
                System.out.printf("%s %s: %.1f ns per operation%n", what, kind, ns[rep]);
            }
        }
        final double[] late = Arrays.copyOfRange(ns, reps / 2, reps);
        Arrays.sort(late);
        System.out.printf("median %s %s: %.1f ns%n", what, kind, late[late.length / 2]);
    }

    private static double lookups(final AddressVector av, final ByteBuffer addrs, final long[] fiAddr)
    {
        if (av.insert(addrs, N, fiAddr, 0, null) != N)
        {
            throw new IllegalStateException("could not fill the AV");
        }
        final ByteBuffer out = ByteBuffer.allocateDirect(BenchAddresses.ADDRLEN);
        long sum = 0;
        final long t0 = System.nanoTime();
        for (int pass = 0; pass < 10; pass++)
        {
            for (int i = 0; i < N; i++)
            {
                sum += av.lookup(fiAddr[i], out);
            }
        }
        final long t = System.nanoTime() - t0;
        if (sum != 10L * N * BenchAddresses.ADDRLEN)
        {
            throw new IllegalStateException("lookups returned " + sum);
        }
        return t / (10.0 * N);
    }

    private static double inserts(final AddressVector av, final ByteBuffer addrs, final boolean batch)
    {
        final long[] one = new long[1];
        final long t0 = System.nanoTime();
        int inserted = 0;
        if (batch)
        {
            inserted = av.insert(addrs, N, null, 0, null);
        }
        else
        {
            for (int i = 0; i < N; i++)
            {
                addrs.position(i * BenchAddresses.ADDRLEN);
                inserted += av.insert(addrs, 1, one, 0, null);
            }
        }
        final long t = System.nanoTime() - t0;
        if (inserted != N)
        {
            throw new IllegalStateException("inserted " + inserted);
        }
        return t / (double)N;
    }
}
