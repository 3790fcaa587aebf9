package org.shmav.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * One JMH run of shmav's benchmarks, in forked JVMs, and its figures by key: "shmav." + method + "." +
 * each parameter value (e.g. shmav.lookup.shared.1000000), in nanoseconds per operation. Every
 * iteration has a deadline (JMH's iteration timeout), past which JMH stops the fork and fails the run.
 * A run that finds another JMH instance holding JMH's lock waits for it (at most {@link #LOCK_WAIT}),
 * rather than failing a long comparison or running two benchmarks at once.
 */
final class Jmh
{
    /** Median of the measurement iterations of all forks, their number, and gc.alloc.rate.norm (B/op). */
    record Score(double ns, int samples, double allocPerOp)
    {
    }

    /** How long a run waits for another JMH instance to release JMH's lock (/tmp/jmh.lock). */
    static final Duration LOCK_WAIT = Duration.ofMinutes(15);

    private final ChainedOptionsBuilder options;
    private final StringBuilder command;
    private double toNs = 1;

    private Jmh(final String benchmarks)
    {
        options = new OptionsBuilder()
            .include("^" + BenchAvs.class.getPackageName() + "\\." + benchmarks)
            .shouldFailOnError(true)
            .timeout(TimeValue.minutes(3));
        command = new StringBuilder("scripts/bench '^org.shmav.bench." + benchmarks + "'");
    }

    /** Benchmarks matching {@code benchmarks} (after the package, e.g. "LookupBench\\.lookup$"). */
    static Jmh of(final String benchmarks)
    {
        return new Jmh(benchmarks);
    }

    Jmh forks(final int forks)
    {
        options.forks(forks);
        command.append(" -f ").append(forks);
        return this;
    }

    /** Warmup and measurement iterations; 0 keeps the benchmark's own. */
    Jmh iterations(final int warmups, final int measurements)
    {
        if (measurements > 0)
        {
            options.warmupIterations(warmups).measurementIterations(measurements);
            command.append(" -wi ").append(warmups).append(" -i ").append(measurements);
        }
        return this;
    }

    /** The length of timed iterations (not single-shot ones), for shorter quick runs. */
    Jmh iterationTime(final TimeValue time)
    {
        options.warmupTime(time).measurementTime(time);
        command.append(" -w ").append(time).append(" -r ").append(time);
        return this;
    }

    Jmh param(final String name, final String... values)
    {
        options.param(name, values);
        command.append(" -p ").append(name).append('=').append(String.join(",", values));
        return this;
    }

    Jmh gc()
    {
        options.addProfiler(GCProfiler.class);
        command.append(" -prof gc");
        return this;
    }

    /** The benchmarks report microseconds. */
    Jmh micros()
    {
        toNs = 1000;
        return this;
    }

    String command()
    {
        return command.toString();
    }

    Map<String, Score> run() throws Exception
    {
        final Map<String, Score> scores = new LinkedHashMap<>();
        for (final RunResult run : runWhenUnlocked())
        {
            final String benchmark = run.getParams().getBenchmark();
            final StringBuilder key = new StringBuilder("shmav." + benchmark.substring(benchmark.lastIndexOf('.') + 1));
            for (final String p : run.getParams().getParamsKeys())
            {
                key.append('.').append(run.getParams().getParam(p));
            }
            final List<Double> times = new ArrayList<>();
            final List<Double> alloc = new ArrayList<>();
            for (final BenchmarkResult fork : run.getBenchmarkResults())
            {
                for (final IterationResult it : fork.getIterationResults())
                {
                    times.add(it.getPrimaryResult().getScore() * toNs);
                    final Result<?> a = it.getSecondaryResults().get("gc.alloc.rate.norm");
                    if (a != null)
                    {
                        alloc.add(a.getScore());
                    }
                }
            }
            scores.put(key.toString(), new Score(Results.median(times), times.size(),
                alloc.isEmpty() ? Double.NaN : Results.median(alloc)));
        }
        return scores;
    }

    /** Runs JMH, waiting every 10 s up to {@link #LOCK_WAIT} while another JMH instance holds its lock. */
    private Collection<RunResult> runWhenUnlocked() throws RunnerException, InterruptedException
    {
        final long deadline = System.nanoTime() + LOCK_WAIT.toNanos();
        while (true)
        {
            try
            {
                return new Runner(options.build()).run();
            }
            catch (final RunnerException e)
            {
                final boolean locked = String.valueOf(e.getMessage()).contains("Unable to acquire the JMH lock");
                if (!locked || System.nanoTime() - deadline > 0)
                {
                    throw e;
                }
                System.out.println("# another JMH instance holds its lock; waiting (at most " + LOCK_WAIT.toMinutes() +
                    " minutes in all)");
                Thread.sleep(10_000);
            }
        }
    }
}
