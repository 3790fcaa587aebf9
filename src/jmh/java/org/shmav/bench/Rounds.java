package org.shmav.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs measurements in alternating rounds (A B, B A, A B): round 1 runs every step once, in order, then
 * round 2, in reverse order, and so on, so that neither side of a comparison always runs first (the P=1
 * control of the writer scaling, two identical configurations, measured 0.57x when one always ran first). shmav and
 * the peer it is compared with are then measured seconds apart, under
 * the same host load, and a ratio is taken round by round (round k of shmav with round k of the peer),
 * so a load that moves during the run moves both sides of a round ratio and shows in the spread.
 * Records each step's figures per round and the 1-minute load average before and after each step.
 * Not thread-safe: one driver thread.
 */
final class Rounds
{
    /** One measurement; returns its figures by key (e.g. "sockets.lookup" to nanoseconds). */
    interface Step
    {
        Map<String, Double> run() throws Exception;
    }

    /** The 1-minute load average around one step of one round. */
    record Load(int round, String step, double before, double after)
    {
    }

    /** Median and extremes of the round ratios of one comparison; a target passes on the lowest. */
    record Spread(double median, double low, double high, double[] perRound)
    {
        boolean passes(final double needed)
        {
            return perRound.length > 0 && low >= needed;
        }
    }

    private final String title;
    private final Map<String, List<Double>> values = new LinkedHashMap<>();
    private final List<Load> loads = new ArrayList<>();
    private final List<String> stepNames = new ArrayList<>();
    private int rounds;

    Rounds(final String title)
    {
        this.title = title;
    }

    /** Runs {@code count} rounds of {@code steps} (name to step): odd rounds in insertion order, even ones reversed. */
    Rounds run(final int count, final Map<String, Step> steps) throws Exception
    {
        stepNames.addAll(steps.keySet());
        for (int r = 1; r <= count; r++)
        {
            final List<Map.Entry<String, Step>> order = new ArrayList<>(steps.entrySet());
            if (r % 2 == 0)
            {
                Collections.reverse(order);
            }
            for (final Map.Entry<String, Step> s : order)
            {
                System.out.printf("## %s: round %d of %d, %s%n", title, r, count, s.getKey());
                final double before = Machine.load1();
                final Map<String, Double> figures = s.getValue().run();
                final double after = Machine.load1();
                loads.add(new Load(r, s.getKey(), before, after));
                for (final Map.Entry<String, Double> f : figures.entrySet())
                {
                    values.computeIfAbsent(f.getKey(), k -> new ArrayList<>()).add(f.getValue());
                }
            }
            rounds = r;
        }
        return this;
    }

    String title()
    {
        return title;
    }

    int rounds()
    {
        return rounds;
    }

    List<String> stepNames()
    {
        return stepNames;
    }

    List<Load> loads()
    {
        return loads;
    }

    /** The figure of every round for {@code key}; empty when no step reported it. */
    double[] perRound(final String key)
    {
        return values.getOrDefault(key, List.of()).stream().mapToDouble(Double::doubleValue).toArray();
    }

    Map<String, List<Double>> all()
    {
        return values;
    }

    double median(final String key)
    {
        return Results.median(perRound(key));
    }

    /**
     * Round ratios numerator_k / denominator_k: peer time over shmav time for a speed-up, shared over
     * separate throughput for an efficiency.
     */
    Spread ratio(final String numerator, final String denominator)
    {
        final double[] n = perRound(numerator);
        final double[] d = perRound(denominator);
        final double[] r = new double[Math.min(n.length, d.length)];
        double low = Double.NaN;
        double high = Double.NaN;
        for (int k = 0; k < r.length; k++)
        {
            r[k] = n[k] / d[k];
            low = k == 0 ? r[k] : Math.min(low, r[k]);
            high = k == 0 ? r[k] : Math.max(high, r[k]);
        }
        return new Spread(Results.median(r), low, high, r);
    }

    /** The load around every step, as "round: step before -> after" for the log. */
    @Override
    public String toString()
    {
        final StringBuilder s = new StringBuilder(title).append(" loads:\n");
        for (final Load l : loads)
        {
            s.append(String.format("  round %d %-22s %.2f -> %.2f%n", l.round(), l.step(), l.before(), l.after()));
        }
        return s.toString();
    }
}
