package org.shmav.bench;

import java.nio.ByteBuffer;
import java.util.Arrays;

import org.shmav.AddressVector;
import org.shmav.Domain;

/**
 * The growth row in the inserting thread's CPU time, for a machine too busy for elapsed time: N single
 * inserts into a shared AV created with count N (flat) and into one created with count 1 (grown by
 * every growth and index migration on the way), in alternating rounds:
 *
 * <pre>
 *   java ... org.shmav.bench.GrowthCpu ROUNDS N
 * </pre>
 * Prints each kind's lowest and median round in ns per insert, and flat / grown on the lowest rounds.
 */
public final class GrowthCpu
{
    private GrowthCpu()
    {
    }

    public static void main(final String[] args)
    {
        final int rounds = Integer.parseInt(args[0]);
        final int n = Integer.parseInt(args[1]);
        final double[] flat = new double[rounds];
        final double[] grown = new double[rounds];
        final ByteBuffer addrs = BenchAddresses.direct(0, n);
        try (Domain domain = BenchAvs.domain())
        {
            for (int i = 0; i < 6; i++)
            {
                fill(domain, addrs, Math.min(n, 100_000), i % 2 == 0 ? 1 : Math.min(n, 100_000)); // compiled first
            }
            for (int r = 0; r < rounds; r++)
            {
                flat[r] = fill(domain, addrs, n, n);
                grown[r] = fill(domain, addrs, n, 1);
                System.err.printf("round %d: flat %.1f, grown %.1f ns per insert (CPU)%n", r, flat[r], grown[r]);
            }
        }
        System.out.printf("N %,d: flat %.0f ns (median %.0f), grown %.0f ns (median %.0f), flat / grown %.2f%n", n,
            min(flat), median(flat), min(grown), median(grown), min(flat) / min(grown));
    }

    /** CPU ns per insert of {@code n} single inserts into a new shared AV created with {@code count}. */
    private static double fill(final Domain domain, final ByteBuffer addrs, final int n, final long count)
    {
        final String name = BenchAvs.uniqueName("growth-cpu");
        final AddressVector av = BenchAvs.open(domain, BenchAvs.SHARED, name, count);
        try
        {
            return BenchAvs.cpuNanosPerInsert(av, addrs, n);
        }
        finally
        {
            BenchAvs.closeAndUnlink(domain, av, BenchAvs.SHARED, name);
        }
    }

    private static double min(final double[] v)
    {
        return Arrays.stream(v).min().orElse(Double.NaN);
    }

    private static double median(final double[] v)
    {
        final double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
