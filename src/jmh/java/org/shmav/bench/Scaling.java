package org.shmav.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How insert throughput scales with writers, in alternating rounds: P writer JVMs (a) all into one
 * shared named AV, (a') the same through handles opened with {@code AvAttr.lowestIndex(false)}
 * (claims spread out), (b) each into a named AV of its own, all one insert call per address, and P threads
 * of one JVM (c) through one handle, (d) through a handle each of the same AV; P = 1, 2, 4. At P = 2 the
 * writer JVMs also insert {@value #BATCH} addresses per call, (a64) into one shared AV with the default
 * (lowest free index) rule and (b64) into separate AVs. Efficiency = (a) / (b) of the same round: what
 * sharing one AV costs against the same processes doing the same work without sharing. Every run is
 * checked (nothing lost or duplicated); a failed check is kept and shown on the page. In the same rounds
 * the writer model (memory_limits insert-writers: two C processes with the insert model's atomics and
 * lines, no JIT, no objects) claims as each of the three P = 2 rows does, one region against one each:
 * what the host's memory allowed two writers sharing those lines at that moment (on a 2-core VM its runs
 * of 64 measured between 0.69 and 1.02 from minute to minute).
 */
final class Scaling
{
    static final int[] WRITERS = {1, 2, 4};
    /** The efficiency (a)/(b) needed at P = 2, on the lowest round. */
    static final double TARGET_EFFICIENCY = 0.9;
    /** Addresses per insert call of the batched writer runs. */
    static final int BATCH = 64;
    /** Writer counts of the batched runs: 2, the target's. */
    static final int[] BATCH_WRITERS = {2};

    final Rounds processes;
    final Rounds threads;
    final int perWriter;
    /** Key (e.g. "proc.shared.P2") to the last check's text, or the first failed one. */
    final Map<String, String> checks = new LinkedHashMap<>();

    private Scaling(final Rounds processes, final Rounds threads, final int perWriter)
    {
        this.processes = processes;
        this.threads = threads;
        this.perWriter = perWriter;
    }

    static Scaling run(final boolean quick, final List<String> commands, final Peers peers) throws Exception
    {
        final int rounds = quick ? 2 : 3;
        // 250,000 took about 0.1 s a writer: the same run varied 4x; at 1,000,000 (0.15-0.3 s a writer) one
        // writer's time still moved by a third from run to run
        final int perWriter = quick ? 50_000 : 2_000_000;
        final Map<String, String> checks = new LinkedHashMap<>();
        final Map<String, Rounds.Step> procSteps = new LinkedHashMap<>();
        for (final int p : WRITERS)
        {
            procSteps.put("P=" + p + " shared", () -> processes(p, perWriter, MultiWriter.Mode.SHARED, checks));
            procSteps.put("P=" + p + " spread", () -> processes(p, perWriter, MultiWriter.Mode.SPREAD, checks));
            procSteps.put("P=" + p + " separate", () -> processes(p, perWriter, MultiWriter.Mode.SEPARATE, checks));
        }
        for (final int p : BATCH_WRITERS)
        {
            procSteps.put("P=" + p + " shared, batches of " + BATCH,
                () -> processes(p, perWriter, MultiWriter.Mode.SHARED, BATCH, checks));
            procSteps.put("P=" + p + " separate, batches of " + BATCH,
                () -> processes(p, perWriter, MultiWriter.Mode.SEPARATE, BATCH, checks));
        }
        for (final Peers.WriterClaims claims : Peers.WriterClaims.values())
        {
            procSteps.put("P=2 model, " + claims.name().toLowerCase(Locale.ROOT), () -> peers.writersModel(perWriter, claims));
            commands.add(Peers.show(peers.writersModelCommand(Integer.toString(perWriter), claims)) + "   (" + rounds +
                " rounds, alternating with the writer JVMs)");
        }
        commands.add("java -cp $CP org.shmav.bench.MultiWriter run P " + perWriter + " shared|spread|separate   (P = 1, 2, 4; " +
            rounds + " rounds, alternating with the next)");
        commands.add("java -cp $CP org.shmav.bench.MultiWriter run 2 " + perWriter + " shared|separate " + BATCH + "   (" +
            rounds + " rounds, alternating with the previous)");
        final Rounds proc = new Rounds("writer processes").run(rounds, procSteps);

        final Map<String, Rounds.Step> threadSteps = new LinkedHashMap<>();
        for (final int p : WRITERS)
        {
            threadSteps.put("P=" + p + " one handle", () -> threads(p, perWriter, "one", checks));
            threadSteps.put("P=" + p + " handle per thread", () -> threads(p, perWriter, "per-thread", checks));
        }
        commands.add(Peers.show(Peers.javaCommand(ThreadWriters.class, "P", Integer.toString(perWriter), "one|per-thread")) +
            "   (P = 1, 2, 4; " + rounds + " rounds, alternating)");
        final Rounds thr = new Rounds("writer threads").run(rounds, threadSteps);

        final Scaling s = new Scaling(proc, thr, perWriter);
        s.checks.putAll(checks);
        return s;
    }

    private static Map<String, Double> processes(final int p, final int perWriter, final MultiWriter.Mode mode,
        final Map<String, String> checks) throws Exception
    {
        return processes(p, perWriter, mode, 1, checks);
    }

    /** One writer-process run; its key is e.g. "proc.shared.P2", or "proc.shared.b64.P2" for batches of 64. */
    private static Map<String, Double> processes(final int p, final int perWriter, final MultiWriter.Mode mode,
        final int batch, final Map<String, String> checks) throws Exception
    {
        final MultiWriter.Result r = MultiWriter.run(p, perWriter, mode, batch);
        System.out.println(r);
        final String key = processKey(mode, batch, p);
        record(checks, key, r.ok(), r.check());
        return Map.of(key, r.insertsPerSecond());
    }

    private static Map<String, Double> threads(final int p, final int perThread, final String mode,
        final Map<String, String> checks) throws Exception
    {
        final Map<String, Double> out = Peers.exec(Peers.javaCommand(ThreadWriters.class, Integer.toString(p),
            Integer.toString(perThread), mode));
        final String key = "threads." + mode + ".P" + p;
        final boolean ok = out.getOrDefault("check_ok", 0.0) == 1.0;
        record(checks, key, ok, ok ? "count=" + (long)p * perThread + ", every address found once at a distinct fi_addr"
            : "FAILED (see the log)");
        return Map.of(key, out.get("threads"));
    }

    /** Keeps the first failure of a key, else its latest check. */
    private static void record(final Map<String, String> checks, final String key, final boolean ok, final String check)
    {
        if (!checks.getOrDefault(key, "").startsWith("FAILED"))
        {
            checks.put(key, ok ? "OK: " + check : check.startsWith("FAILED") ? check : "FAILED: " + check);
        }
    }

    boolean allChecksOk()
    {
        return checks.values().stream().noneMatch(c -> c.startsWith("FAILED"));
    }

    static String processKey(final MultiWriter.Mode mode, final int batch, final int p)
    {
        return "proc." + mode.name().toLowerCase(Locale.ROOT) + (batch > 1 ? ".b" + batch : "") + ".P" + p;
    }

    /**
     * Efficiency (a64)/(b64): writers inserting {@value #BATCH} addresses per call into one AV with the
     * default rule, against separate AVs.
     */
    Rounds.Spread batchEfficiency(final int p)
    {
        return processes.ratio(processKey(MultiWriter.Mode.SHARED, BATCH, p), processKey(MultiWriter.Mode.SEPARATE, BATCH, p));
    }

    /** Efficiency (a)/(b) of the processes at P writers, round by round. */
    Rounds.Spread efficiency(final int p)
    {
        return processes.ratio("proc.shared.P" + p, "proc.separate.P" + p);
    }

    /** The writer model's one region / a region each, claiming as {@code claims} says, round by round. */
    Rounds.Spread modelEfficiency(final Peers.WriterClaims claims)
    {
        return processes.ratio(Peers.writersModelKey(claims, true), Peers.writersModelKey(claims, false));
    }

    /** The efficiency of the P = 2 writer row that claims as {@code claims} says. */
    Rounds.Spread efficiencyClaiming(final Peers.WriterClaims claims)
    {
        return switch (claims)
        {
            case FRONTIER -> efficiency(2);
            case SPREAD -> spreadEfficiency(2);
            case RUNS_OF_64 -> batchEfficiency(2);
        };
    }

    /** Efficiency (a')/(b): writers that spread their claims into one AV, against separate AVs. */
    Rounds.Spread spreadEfficiency(final int p)
    {
        return processes.ratio("proc.spread.P" + p, "proc.separate.P" + p);
    }

    /** One handle / a handle per thread, round by round. */
    Rounds.Spread oneHandleRatio(final int p)
    {
        return threads.ratio("threads.one.P" + p, "threads.per-thread.P" + p);
    }

    String summary()
    {
        final StringBuilder s = new StringBuilder();
        for (final int p : WRITERS)
        {
            final Rounds.Spread e = efficiency(p);
            final Rounds.Spread es = spreadEfficiency(p);
            s.append(String.format(Locale.ROOT, "  P=%d efficiency shared/separate %.2f (%.2f-%.2f)%s, spread/separate %.2f (%.2f-%.2f)%s%n",
                p, e.median(), e.low(), e.high(), p == 2 ? (e.passes(TARGET_EFFICIENCY) ? " pass" : " miss") : "",
                es.median(), es.low(), es.high(), p == 2 ? (es.passes(TARGET_EFFICIENCY) ? " pass" : " miss") : ""));
        }
        for (final int p : BATCH_WRITERS)
        {
            final Rounds.Spread e = batchEfficiency(p);
            s.append(String.format(Locale.ROOT, "  P=%d batches of %d: efficiency shared/separate %.2f (%.2f-%.2f) %s%n",
                p, BATCH, e.median(), e.low(), e.high(), e.passes(TARGET_EFFICIENCY) ? "pass" : "miss"));
        }
        for (final Peers.WriterClaims claims : Peers.WriterClaims.values())
        {
            final Rounds.Spread m = modelEfficiency(claims);
            s.append(String.format(Locale.ROOT, "  P=2 writer model, %s: one region / one each %.2f (%.2f-%.2f)%n",
                claims.name().toLowerCase(Locale.ROOT), m.median(), m.low(), m.high()));
        }
        s.append(allChecksOk() ? "  checks: all OK\n" : "  checks: FAILED " + checks + "\n");
        return s.toString();
    }
}
