package org.shmav.bench;

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
import java.util.stream.Collectors;

import org.openjdk.jmh.runner.options.TimeValue;

/**
 * scripts/bench-compare's driver: measures shmav side by side with libfabric's AVs (the C harness),
 * Chronicle Map and the physical limit of its lookup (a C loop doing only the seqlock read of the same
 * slot layout), then multi-writer scaling and growth, in one run, and writes docs/benchmarks.md and
 * the chart it embeds.
 *
 * <pre>
 *   Compare --harness PATH --limits PATH [--out FILE.md] [--quick] [--wait-quiet SECONDS]
 * </pre>
 *
 * The host's memory bandwidth and random-read latency are measured first (memory_limits). Every compared
 * figure is measured in alternating {@link Rounds} (shmav, its peers, shmav, its peers, ...), each round
 * a short JMH run or one peer run, so that a target's verdict comes from the lowest round ratio rather
 * than from two runs minutes apart. Figures no target depends on (private inserts, 100k entries,
 * attach, awaitCount) are measured once, after the rounds. --quick runs fewer and shorter
 * rounds (for trying the harness, never for the committed page) and writes
 * target/bench/benchmarks-quick.md unless --out is given.
 */
public final class Compare
{
    static final int N = 1_000_000;

    private final Peers peers;
    private final boolean quick;
    private final Results results = new Results();
    private final List<String> commands = new ArrayList<>();
    private final Map<String, Double> roundAlloc = new LinkedHashMap<>();

    private Compare(final Path harness, final Path limits, final boolean quick)
    {
        this.peers = new Peers(harness, limits);
        this.quick = quick;
    }

    public static void main(final String[] args) throws Exception
    {
        Path harness = null;
        Path limits = null;
        Path out = null;
        boolean quick = false;
        long waitQuiet = 0;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--harness" -> harness = Path.of(args[++i]);
                case "--limits" -> limits = Path.of(args[++i]);
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
        if (harness == null || limits == null)
        {
            throw new IllegalArgumentException("--harness PATH and --limits PATH (the compiled benchmarks/c/fabric_av_bench.c "
                + "and benchmarks/c/memory_limits.c) are required");
        }
        BenchAvs.removeLeftovers();
        final Machine.Load before = Machine.waitForQuiet(waitQuiet);
        final long started = System.nanoTime();
        final Compare c = new Compare(harness, limits, quick);
        final Map<String, Double> memory = c.measureMemory();
        final Rounds compared = c.compareInRounds();
        c.measureOnce();
        final Scaling scaling = Scaling.run(quick, c.commands, c.peers);
        final GrowthRounds growth = GrowthRounds.run(quick, c.commands, c.peers);
        final Machine.Load after = Machine.load();
        final double minutes = (System.nanoTime() - started) / 60e9;
        final String svgName = out.getFileName().toString().replace(".md", ".svg");
        final Report report = new Report(c.results, c.commands, before, after, minutes, quick,
            Machine.describe(harness, limits, memory), svgName, new RoundsReport(compared, scaling, growth, c.results));
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, report.markdown(), StandardCharsets.UTF_8);
        Files.writeString(out.resolveSibling(svgName), new Chart(c.results).svg(), StandardCharsets.UTF_8);
        System.out.println(compared);
        System.out.println(report.summary());
        System.out.println("wrote " + out + " (" + String.format("%.1f", minutes) + " min)");
    }

    /**
     * The memory system of this host, before anything else runs: streaming bandwidth of one core and the
     * latency of a dependent random read in a mapping the size of the hash of a 1M-entry AV, and what a
     * random bucket CAS adds to a model of one insert's memory traffic.
     */
    private Map<String, Double> measureMemory() throws Exception
    {
        commands.add(Peers.show(peers.bandwidthCommand()) + "   (once, before the rounds)");
        commands.add(Peers.show(peers.latencyCommand()) + "   (once, before the rounds)");
        commands.add(Peers.show(peers.insertModelCommand("MB")) + "   (MB = " +
            Arrays.stream(Peers.INSERT_MODEL_MB).mapToObj(Integer::toString).collect(Collectors.joining(", ")) +
            "; once, before the rounds)");
        final Map<String, Double> memory = peers.memory();
        memory.forEach((k, v) -> results.put(k, v, 1, Double.NaN));
        return memory;
    }

    /** Rounds of the compared figures; their medians also go into the results table. */
    private Rounds compareInRounds() throws Exception
    {
        final int rounds = quick ? 2 : 3;
        // two warm-up passes in a quick run too: after one, a measured pass allocated 72-472 bytes once in 3 forks of
        // about 30 (the loop's check failed the run): one-time work of a path first taken there, such as the method
        // handle links of a tag collision's key compare, which JFR showed late in the first pass
        final Jmh insert = Jmh.of("InsertBench\\.").forks(1).iterations(2, quick ? 2 : 4)
            .param("av", BenchAvs.SHARED).gc();
        // Lookup on both kinds of AV in every round: the targets hold for each, and the private AV must be
        // no slower than the shared one round by round. JMH runs the values in the order given: the rounds
        // alternate it, as they alternate the steps.
        final Jmh lookup = lookupBench(BenchAvs.SHARED, BenchAvs.PRIVATE);
        final Jmh lookupReversed = lookupBench(BenchAvs.PRIVATE, BenchAvs.SHARED);
        final int[] lookups = {0};
        final Jmh reinsert = Jmh.of("ReinsertBench\\.removeThenReinsert$").forks(1)
            .iterations(quick ? 1 : 2, quick ? 2 : 3).param("av", BenchAvs.SHARED).gc();
        if (quick)
        {
            reinsert.iterationTime(TimeValue.milliseconds(500));
        }
        final Map<String, Rounds.Step> steps = new LinkedHashMap<>();
        steps.put("shmav insert", () -> jmhStep(insert));
        steps.put("sockets", () -> peers.sockets("sockets", N, 200, 20));
        steps.put("Chronicle Map", () -> peers.chronicle(N));
        steps.put("shmav lookup, reinsert", () ->
        {
            final Map<String, Double> ns = jmhStep(lookups[0]++ % 2 == 0 ? lookup : lookupReversed);
            ns.putAll(jmhStep(reinsert));
            return ns;
        });
        steps.put("tcp", () -> peers.tcp(N, 20000));
        steps.put("C seqlock read", () -> peers.limitLookup(N));
        final String each = "   (each round, " + rounds + " rounds)";
        commands.add(insert.command() + each);
        commands.add(Peers.show(peers.socketsCommand(N, 200, 20)) + each);
        commands.add(Peers.show(Peers.chronicleCommand("write", Path.of("/dev/shm/shmav-bench-chronicle-PID-K"), N)) + each);
        commands.add(Peers.show(Peers.chronicleCommand("read", Path.of("/dev/shm/shmav-bench-chronicle-PID-K"), N)) + each);
        commands.add(lookup.command() + each + "; the av values in reverse order in even rounds");
        commands.add(reinsert.command() + each);
        commands.add(Peers.show(peers.tcpCommand(N, 20000)) + each);
        for (final int slot : Peers.SLOT_BYTES)
        {
            commands.add(Peers.show(peers.limitLookupCommand(N, slot)) + each);
        }
        commands.add(Peers.show(peers.handleLookupCommand(N)) + each);
        final Rounds r = new Rounds("comparisons").run(rounds, steps);
        for (final Map.Entry<String, List<Double>> e : r.all().entrySet())
        {
            results.put(e.getKey(), Results.median(e.getValue()), e.getValue().size(),
                roundAlloc.getOrDefault(e.getKey(), Double.NaN));
        }
        return r;
    }

    /**
     * LookupBench.lookup (one JMH call per lookup) and lookupLoop (1M lookups in one loop, the C loop's
     * form) on 1M entries of the kinds of AV {@code avs}, in that order.
     */
    private Jmh lookupBench(final String... avs)
    {
        final Jmh lookup = Jmh.of("LookupBench\\.lookup(Loop)?$").forks(1).iterations(quick ? 1 : 2, quick ? 2 : 3)
            .param("av", avs).gc();
        if (quick)
        {
            lookup.iterationTime(TimeValue.milliseconds(500));
        }
        return lookup;
    }

    /** One JMH run as a round step; keeps the highest allocation per operation of any round. */
    private Map<String, Double> jmhStep(final Jmh jmh) throws Exception
    {
        final Map<String, Double> ns = new LinkedHashMap<>();
        for (final Map.Entry<String, Jmh.Score> e : jmh.run().entrySet())
        {
            ns.put(e.getKey(), e.getValue().ns());
            roundAlloc.merge(e.getKey(), e.getValue().allocPerOp(), Math::max);
        }
        return ns;
    }

    /** The figures of the results table that no round ratio depends on. */
    private void measureOnce() throws Exception
    {
        // Full runs use fewer iterations than the benchmarks' own so the whole page fits in ~25 minutes on 2 shared cores.
        final int forks = 1;
        final int iterations = quick ? 2 : 4;
        once(Jmh.of("LookupBench\\.reverseLookup$").forks(forks).iterations(quick ? 1 : 2, iterations).gc());
        once(Jmh.of("InsertBench\\.").forks(forks).iterations(quick ? 1 : 2, iterations).param("av", BenchAvs.PRIVATE).gc());
        // 100k inserts take milliseconds: quick needs more warmups than one before C2 settles (the loop's
        // own allocation check, AbstractInsertBench, counts what a compile inside the loop allocates).
        once(Jmh.of("InsertBench100k\\.").forks(forks).iterations(8, quick ? 3 : 10).gc());
        once(Jmh.of("ReinsertBench\\.").forks(forks).iterations(quick ? 1 : 2, iterations).param("av", BenchAvs.PRIVATE).gc());
        once(Jmh.of("AttachBench\\.").forks(1).iterations(1, quick ? 3 : 5).micros());
        once(Jmh.of("AwaitCountBench\\.").forks(1).iterations(1, quick ? 3 : 5));
        once(Jmh.of("FormatsBench\\.").forks(1).iterations(quick ? 1 : 2, quick ? 2 : 5));
        measureCreation();
        final int runs = quick ? 1 : 3;
        for (final int n : new int[] {1_000, 100_000})
        {
            commands.add(Peers.show(peers.socketsCommand(n, 10, 20)) + "   (" + runs + " runs)");
            final Map<String, List<Double>> all = new LinkedHashMap<>();
            for (int r = 0; r < runs; r++)
            {
                peers.sockets("sockets_" + n, n, 10, 20).forEach((k, v) -> all.computeIfAbsent(k, x -> new ArrayList<>()).add(v));
            }
            all.forEach((k, v) -> results.put(k, Results.median(v), v.size(), Double.NaN));
        }
    }

    /**
     * Bytes this thread allocates to create an AV of N entries (private and shared), stored as
     * "alloc.create.KIND": InsertBench's single-shot iterations create their AV in the iteration's setup,
     * which JMH's gc.alloc.rate.norm counts, so the allocation row shows it apart from the inserts.
     */
    private void measureCreation()
    {
        try (org.shmav.Domain domain = BenchAvs.domain())
        {
            for (final String kind : new String[] {BenchAvs.PRIVATE, BenchAvs.SHARED})
            {
                long bytes = 0;
                for (int i = 0; i < 3; i++)   // the last of three: the first ones also load classes
                {
                    final String name = BenchAvs.uniqueName("create");
                    final long before = Allocation.ofThisThread();
                    final org.shmav.AddressVector av = BenchAvs.open(domain, kind, name, N);
                    bytes = Allocation.ofThisThread() - before;
                    BenchAvs.closeAndUnlink(domain, av, kind, name);
                }
                results.put("alloc.create." + kind, bytes, 1, Double.NaN);
            }
        }
    }

    private void once(final Jmh jmh) throws Exception
    {
        commands.add(jmh.command());
        for (final Map.Entry<String, Jmh.Score> e : jmh.run().entrySet())
        {
            final Jmh.Score s = e.getValue();
            results.put(e.getKey(), s.ns(), s.samples(), s.allocPerOp());
        }
    }

    static String now()
    {
        return ZonedDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm z"));
    }
}
