package org.shmav.bench;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.openjdk.jmh.runner.options.TimeValue;
import org.shmav.AddressVector;
import org.shmav.Domain;

/**
 * Issue 13 item 6 in alternating rounds: 1M inserts into a named AV created with count 1 against one
 * created with count 1M ({@link GrowthInsertBench}), and lookup on the grown AV against the flat one
 * ({@link GrowthLookupBench}); beside them, in the same rounds, the insert model growing the same way
 * (memory_limits insert-grow), which says what the host's memory allows at that moment. Runs only when
 * named AVs grow past their count ({@link #growthSupported}); otherwise the page says so and the rest of
 * the run is unaffected.
 */
final class GrowthRounds
{
    /** Addresses the probe inserts into a named AV of count 1. */
    private static final int PROBE = 4096;

    /** Null when growth is not supported by the shmav under test. */
    final Rounds rounds;

    private GrowthRounds(final Rounds rounds)
    {
        this.rounds = rounds;
    }

    boolean ran()
    {
        return rounds != null;
    }

    static GrowthRounds run(final boolean quick, final List<String> commands, final Peers peers) throws Exception
    {
        if (!growthSupported())
        {
            System.out.println("# growth of named AVs: not supported here (FI_ENOSPC past count); growth rows skipped");
            return new GrowthRounds(null);
        }
        final int count = quick ? 2 : 3;
        final Map<String, Rounds.Step> steps = new LinkedHashMap<>();
        for (final String created : new String[] {"1000000", "1"})
        {
            final Jmh insert = Jmh.of("GrowthInsertBench\\.").forks(1).iterations(quick ? 1 : 2, quick ? 2 : 4)
                .param("av", BenchAvs.SHARED).param("created", created);
            final Jmh lookup = Jmh.of("GrowthLookupBench\\.").forks(1).iterations(quick ? 1 : 2, quick ? 2 : 3)
                .param("created", created);
            if (quick)
            {
                lookup.iterationTime(TimeValue.milliseconds(500));
            }
            steps.put("insert, count " + created, () -> ns(insert));
            steps.put("lookup, count " + created, () -> ns(lookup));
            steps.put("insert model, count " + created, () -> peers.growthModel(created));
            commands.add(insert.command() + "   (" + count + " rounds)");
            commands.add(lookup.command() + "   (" + count + " rounds)");
            commands.add(Peers.show(peers.growthModelCommand(created)) + "   (" + count + " rounds)");
        }
        return new GrowthRounds(new Rounds("growth").run(count, steps));
    }

    private static Map<String, Double> ns(final Jmh jmh) throws Exception
    {
        final Map<String, Double> ns = new LinkedHashMap<>();
        jmh.run().forEach((k, v) -> ns.put(k, v.ns()));
        return ns;
    }

    /** Whether a named AV created with count 1 takes {@value #PROBE} addresses, one call each. */
    static boolean growthSupported()
    {
        final String name = BenchAvs.uniqueName("growprobe");
        try (Domain domain = BenchAvs.domain())
        {
            try (AddressVector av = BenchAvs.open(domain, BenchAvs.SHARED, name, 1))
            {
                final ByteBuffer addrs = BenchAddresses.direct(0, PROBE);
                final long[] one = new long[1];
                for (int i = 0; i < PROBE; i++)
                {
                    addrs.position(i * BenchAddresses.ADDRLEN);
                    if (av.insert(addrs, 1, one, 0, null) != 1)
                    {
                        return false;
                    }
                }
                return av.count() == PROBE;
            }
            catch (final RuntimeException e)
            {
                System.out.println("# growth probe: " + e);
                return false;
            }
            finally
            {
                domain.unlinkAv(name);
            }
        }
    }
}
