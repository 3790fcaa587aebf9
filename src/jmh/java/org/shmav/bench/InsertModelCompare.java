package org.shmav.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.shmav.AddressVector;
import org.shmav.Domain;
import org.shmav.shm.AvLayout;

/**
 * shmav's single insert against its model, {@code memory_limits insert-shmav} (the same atomics and
 * lines, docs/performance.md, Where an insert's time goes), in alternating rounds of one run, at each
 * AV size given, with the AV's pages fresh (first touched by the inserts, as in a new AV) and present
 * (touched through the handle's own mapping before the timing, {@link AvPages}; the model's pages
 * written before it):
 *
 * <pre>
 *   java ... org.shmav.bench.InsertModelCompare target/bench/memory_limits ROUNDS W [shared|private] N [N ...]
 * </pre>
 * With {@code private}, the AV is a private one and the model {@code --exclusive} (a private AV's CASes are
 * plain ordered stores under its handle's lock); a private AV's pages are written at its creation, so
 * its rows are the present ones only.
 * Each round, for each N: the model present, shmav present, the model present with W operations of
 * other work per insert (standing in for shmav's instructions), the model fresh (with W), shmav fresh;
 * one call per address into a shared AV created with count N. Times are the inserting thread's CPU time (the model's
 * too), so that other processes of a loaded machine count only through what they do to the caches.
 * Prints each row's lowest and median round in ns per insert, and shmav / model + W on the lowest rounds.
 */
public final class InsertModelCompare
{
    private InsertModelCompare()
    {
    }

    public static void main(final String[] args) throws IOException, InterruptedException
    {
        final String limits = args[0];
        final int rounds = Integer.parseInt(args[1]);
        final int work = Integer.parseInt(args[2]);
        final boolean kindGiven = !args[3].chars().allMatch(Character::isDigit);
        final String av = kindGiven ? args[3] : BenchAvs.SHARED;
        final boolean privateAv = BenchAvs.PRIVATE.equals(av);
        final int[] sizes = Arrays.stream(args, kindGiven ? 4 : 3, args.length).mapToInt(Integer::parseInt).toArray();
        // model present, shmav present, model fresh, shmav fresh, model present with work
        final double[][][] ns = new double[sizes.length][5][rounds];
        try (Domain domain = BenchAvs.domain())
        {
            warmUp(domain, av);
            for (int r = 0; r < rounds; r++)
            {
                for (int s = 0; s < sizes.length; s++)
                {
                    final int n = sizes[s];
                    ns[s][0][r] = model(limits, n, false, 0, privateAv);
                    ns[s][1][r] = shmav(domain, av, n, true);
                    ns[s][4][r] = model(limits, n, false, work, privateAv);
                    ns[s][2][r] = privateAv ? Double.NaN : model(limits, n, true, work, false);
                    ns[s][3][r] = privateAv ? Double.NaN : shmav(domain, av, n, false);
                    System.err.printf("round %d, N %d: model %.1f, model+work %.1f, shmav %.1f (present); model+work %.1f, "
                        + "shmav %.1f (fresh)%n", r, n, ns[s][0][r], ns[s][4][r], ns[s][1][r], ns[s][2][r], ns[s][3][r]);
                }
            }
        }
        System.out.println("| entries (hash), " + av + " AV | pages | model, atomics and lines only | model + " + work +
            " operations of other work | shmav | shmav / model + work |");
        System.out.println("|---|---|---|---|---|---|");
        for (int s = 0; s < sizes.length; s++)
        {
            System.out.printf("| %,d (%d MB) | present | %s | %s | %s | %.2f |%n", sizes[s], hashMegabytes(sizes[s]),
                cell(ns[s][0]), cell(ns[s][4]), cell(ns[s][1]), min(ns[s][1]) / min(ns[s][4]));
            if (privateAv)
            {
                continue;
            }
            System.out.printf("| %,d (%d MB) | fresh | - | %s | %s | %.2f |%n", sizes[s], hashMegabytes(sizes[s]),
                cell(ns[s][2]), cell(ns[s][3]), min(ns[s][3]) / min(ns[s][2]));
        }
    }

    private static String cell(final double[] rounds)
    {
        return String.format("%.0f ns (%.0f)", min(rounds), median(rounds));
    }

    private static long hashMegabytes(final int n)
    {
        return AvLayout.hashBucketsFor(n) * Long.BYTES >> 20;
    }

    /** A few small AVs first, so that the timed inserts run compiled. */
    private static void warmUp(final Domain domain, final String av)
    {
        for (int i = 0; i < 20; i++)
        {
            shmav(domain, av, 50_000, i % 2 == 0);
        }
    }

    /** ns of this thread's CPU time per insert, of {@code n} single inserts into a new AV ({@code av}) of count n. */
    private static double shmav(final Domain domain, final String av, final int n, final boolean present)
    {
        final ByteBuffer addrs = BenchAddresses.direct(0, n);
        final String name = BenchAvs.uniqueName("model-compare");
        final AddressVector vector = BenchAvs.open(domain, av, name, n);
        try
        {
            if (present && BenchAvs.SHARED.equals(av))
            {
                AvPages.touch(vector);
            }
            return BenchAvs.cpuNanosPerInsert(vector, addrs, n);
        }
        finally
        {
            BenchAvs.closeAndUnlink(domain, vector, av, name);
        }
    }

    /** The model's median pass, ns of CPU time per insert. */
    private static double model(final String limits, final int n, final boolean fresh, final int work,
        final boolean exclusive) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of(limits, "insert-shmav", Long.toString(hashMegabytes(n)),
            "--inserts", Integer.toString(n), "--work", Integer.toString(work), "--passes", "3"));
        if (fresh)
        {
            command.add("--fresh");
        }
        if (exclusive)
        {
            command.add("--exclusive");
        }
        final Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        double result = Double.NaN;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)))
        {
            for (String line = out.readLine(); line != null; line = out.readLine())
            {
                if (line.startsWith("result ") && line.split(" ")[1].endsWith("_cpu"))
                {
                    result = Double.parseDouble(line.split(" ")[2]);
                }
            }
        }
        if (p.waitFor() != 0 || Double.isNaN(result))
        {
            throw new IllegalStateException(String.join(" ", command) + " failed");
        }
        return result;
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
