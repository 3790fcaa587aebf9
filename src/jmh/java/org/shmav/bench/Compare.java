package org.shmav.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * scripts/bench-compare's driver: runs shmav's JMH benchmarks, libfabric's AVs (the C harness), Chronicle
 * Map (two JVMs) and the multi-process writers, in that order and in one run, then writes
 * docs/benchmarks.md and the chart it embeds.
 *
 * <pre>
 *   Compare --harness PATH [--out FILE.md] [--quick] [--wait-quiet SECONDS]
 * </pre>
 *
 * Every figure is a median: of JMH measurement iterations (all forks), of the C harness's and Chronicle
 * Map's runs (each itself a median of passes), of the multi-writer runs. --quick shortens everything
 * (for trying the harness, never for the page that is committed) and writes target/bench/benchmarks-quick.md
 * unless --out is given; the default page is docs/benchmarks.md.
 */
public final class Compare
{
    /** The JVM flags Chronicle Map 2026.1 needs on Java 17 (see /work/shared/java-stack.md). */
    static final List<String> CHRONICLE_FLAGS = List.of(
        "--add-opens", "java.base/java.lang.reflect=ALL-UNNAMED",
        "--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
        "--add-opens", "java.base/java.lang=ALL-UNNAMED",
        "--add-exports", "jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
        "-Dchronicle.analytics.disable=true");

    static final int N = 1_000_000;

    private final Path harness;
    private final boolean quick;
    private final Results results = new Results();
    private final List<String> commands = new ArrayList<>();

    private Compare(final Path harness, final boolean quick)
    {
        this.harness = harness;
        this.quick = quick;
    }

    public static void main(final String[] args) throws Exception
    {
        Path harness = null;
        Path out = null;
        boolean quick = false;
        long waitQuiet = 0;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--harness" -> harness = Path.of(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--quick" -> quick = true;
                case "--wait-quiet" -> waitQuiet = Long.parseLong(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (out == null)
        {
            out = Path.of(quick ? "target/bench/benchmarks-quick.md" : "docs/benchmarks.md");
        }
        if (harness == null)
        {
            throw new IllegalArgumentException("--harness PATH (the compiled benchmarks/c/fabric_av_bench.c) is required");
        }
        BenchAvs.removeLeftovers();
        final Machine.Load before = Machine.waitForQuiet(waitQuiet);
        final long started = System.nanoTime();
        final Compare c = new Compare(harness, quick);
        c.runJmh();
        c.runLibfabric();
        c.runChronicle();
        c.runMultiWriter();
        final Machine.Load after = Machine.load();
        final double minutes = (System.nanoTime() - started) / 60e9;
        final Report report = new Report(c.results, c.commands, before, after, minutes, quick,
            Machine.describe(harness), out.getFileName().toString().replace(".md", ".svg"));
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, report.markdown(), StandardCharsets.UTF_8);
        Files.writeString(out.resolveSibling(out.getFileName().toString().replace(".md", ".svg")), report.svg(),
            StandardCharsets.UTF_8);
        System.out.println(report.summary());
        System.out.println("wrote " + out + " (" + String.format("%.1f", minutes) + " min)");
    }

    // ------------------------------------------------------------------------------------------ JMH

    private void runJmh() throws Exception
    {
        final int forks = quick ? 1 : 2;
        jmh("LookupBench", forks, true, "ns", quick ? 2 : 0);
        jmh("InsertBench", forks, true, "ns", quick ? 2 : 0);
        jmh("InsertBench100k", forks, true, "ns", quick ? 3 : 0);
        jmh("ReinsertBench", forks, true, "ns", quick ? 2 : 0);
        jmh("AttachBench", 1, false, "us", quick ? 3 : 0);
        jmh("AwaitCountBench", 1, false, "ns", quick ? 3 : 0);
    }

    private void jmh(final String bench, final int forks, final boolean gc, final String unit, final int iterations)
        throws Exception
    {
        final ChainedOptionsBuilder options = new OptionsBuilder()
            .include("^" + BenchAvs.class.getPackageName() + "\\." + bench + "\\.")
            .forks(forks)
            .shouldFailOnError(true);
        final StringBuilder command = new StringBuilder("scripts/bench '^org.shmav.bench." + bench + "\\.' -f " + forks);
        if (gc)
        {
            options.addProfiler(GCProfiler.class);
            command.append(" -prof gc");
        }
        if (iterations > 0)
        {
            options.measurementIterations(iterations).warmupIterations(1);
            command.append(" -i ").append(iterations).append(" -wi 1");
        }
        commands.add(command.toString());
        for (final RunResult run : new Runner(options.build()).run())
        {
            final String method = run.getParams().getBenchmark().substring(run.getParams().getBenchmark().lastIndexOf('.') + 1);
            final StringBuilder key = new StringBuilder("shmav." + method);
            for (final String p : run.getParams().getParamsKeys())
            {
                key.append('.').append(run.getParams().getParam(p));
            }
            final List<Double> scores = new ArrayList<>();
            final List<Double> alloc = new ArrayList<>();
            for (final BenchmarkResult fork : run.getBenchmarkResults())
            {
                for (final IterationResult it : fork.getIterationResults())
                {
                    scores.add(it.getPrimaryResult().getScore());
                    final Result<?> a = it.getSecondaryResults().get("gc.alloc.rate.norm");
                    if (a != null)
                    {
                        alloc.add(a.getScore());
                    }
                }
            }
            final double toNs = "us".equals(unit) ? 1000 : 1;
            results.put(key.toString(), median(scores) * toNs, scores.size(), alloc.isEmpty() ? Double.NaN : median(alloc));
        }
    }

    // ------------------------------------------------------------------------------------------ peers

    private void runLibfabric() throws Exception
    {
        final int runs = quick ? 1 : 3;
        // sockets: the named AV, the only libfabric AV shared between processes; its reinsert scans
        // linearly from index 0, so fewer cycles.
        peer("sockets", runs, harness.toString(), "sockets", Integer.toString(N), "--named", "--cycles", "200", "--attach", "20");
        peer("tcp", runs, harness.toString(), "tcp", Integer.toString(N), "--cycles", "20000");
        for (final int n : new int[] {1_000, 100_000})
        {
            peer("sockets_" + n, runs, harness.toString(), "sockets", Integer.toString(n), "--named", "--cycles", "10",
                "--attach", "20");
        }
    }

    private void runChronicle() throws Exception
    {
        final int runs = quick ? 1 : 3;
        final Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        final List<Double> puts = new ArrayList<>();
        final List<Double> gets = new ArrayList<>();
        for (int r = 0; r < runs; r++)
        {
            final Path file = BenchAvs.shmDirectory().resolve(BenchAvs.uniqueName("chronicle"));
            try
            {
                final List<String> base = new ArrayList<>(List.of(java.toString(), "-Xmx1g"));
                base.addAll(CHRONICLE_FLAGS);
                base.addAll(List.of("-cp", System.getProperty("java.class.path"), ChronicleMapPeer.class.getName()));
                final List<String> write = new ArrayList<>(base);
                write.addAll(List.of("write", file.toString(), Integer.toString(N)));
                final List<String> read = new ArrayList<>(base);
                read.addAll(List.of("read", file.toString(), Integer.toString(N), "5"));
                if (r == 0)
                {
                    commands.add(String.join(" ", write).replace(System.getProperty("java.class.path"), "$CP"));
                    commands.add(String.join(" ", read).replace(System.getProperty("java.class.path"), "$CP"));
                }
                puts.add(exec(write).get("put"));
                gets.add(exec(read).get("get"));
            }
            finally
            {
                Files.deleteIfExists(file);
            }
        }
        results.put("chronicle.put", median(puts), puts.size(), Double.NaN);
        results.put("chronicle.get", median(gets), gets.size(), Double.NaN);
    }

    private void runMultiWriter() throws Exception
    {
        final int runs = quick ? 1 : 3;
        final int perWriter = 250_000;
        commands.add("java -cp $CP org.shmav.bench.MultiWriter run P " + perWriter + "   (P = 1, 2, 4; " + runs + " runs each)");
        for (final int p : new int[] {1, 2, 4})
        {
            final List<Double> rates = new ArrayList<>();
            String check = "not run";
            boolean ok = true;
            for (int r = 0; r < runs; r++)
            {
                final MultiWriter.Result result = MultiWriter.run(p, perWriter);
                System.out.println(result);
                rates.add(result.insertsPerSecond());
                ok &= result.ok();
                check = result.check();
            }
            results.put("multi.P" + p, median(rates), rates.size(), Double.NaN);
            results.notes.put("multi.P" + p, (ok ? "OK: " : "FAILED: ") + check);
        }
    }

    /** Runs {@code command} {@code runs} times; stores the median of each "result" line under prefix.name. */
    private void peer(final String prefix, final int runs, final String... command) throws Exception
    {
        commands.add(String.join(" ", command) + "   (" + runs + " runs)");
        final Map<String, List<Double>> all = new LinkedHashMap<>();
        for (int r = 0; r < runs; r++)
        {
            for (final Map.Entry<String, Double> e : exec(List.of(command)).entrySet())
            {
                all.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(e.getValue());
            }
        }
        for (final Map.Entry<String, List<Double>> e : all.entrySet())
        {
            results.put(prefix + "." + e.getKey(), median(e.getValue()), e.getValue().size(), Double.NaN);
        }
    }

    /** Runs a child process to completion (bounded) and returns its "result NAME VALUE UNIT" lines. */
    static Map<String, Double> exec(final List<String> command) throws Exception
    {
        System.out.println("# " + String.join(" ", command).replace(System.getProperty("java.class.path"), "$CP"));
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        final Map<String, Double> found = new LinkedHashMap<>();
        final StringBuilder output = new StringBuilder();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                output.append(line).append('\n');
                System.out.println("  " + line);
                final String[] f = line.trim().split("\\s+");
                if (f.length >= 3 && "result".equals(f[0]))
                {
                    found.put(f[1], Double.parseDouble(f[2]));
                }
            }
        }
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0)
        {
            p.destroyForcibly();
            throw new IOException("failed (" + (p.isAlive() ? "timeout" : "exit " + p.exitValue()) + "): " +
                String.join(" ", command) + "\n" + output);
        }
        return found;
    }

    static double median(final List<Double> values)
    {
        if (values.isEmpty())
        {
            return Double.NaN;
        }
        final double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** Medians by key, with the number of samples behind each and the allocation per operation. */
    static final class Results
    {
        record Value(double median, int samples, double allocPerOp)
        {
        }

        final Map<String, Value> values = new LinkedHashMap<>();
        final Map<String, String> notes = new LinkedHashMap<>();

        void put(final String key, final double median, final int samples, final double allocPerOp)
        {
            values.put(key, new Value(median, samples, allocPerOp));
            System.out.printf("= %-45s %14.2f  (n=%d%s)%n", key, median, samples,
                Double.isNaN(allocPerOp) ? "" : String.format(", %.4f B/op", allocPerOp));
        }

        double get(final String key)
        {
            final Value v = values.get(key);
            return v == null ? Double.NaN : v.median();
        }

        double alloc(final String key)
        {
            final Value v = values.get(key);
            return v == null ? Double.NaN : v.allocPerOp();
        }

        int samples(final String key)
        {
            final Value v = values.get(key);
            return v == null ? 0 : v.samples();
        }
    }

    static String now()
    {
        return ZonedDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm z"));
    }
}
