package org.shmav.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.shmav.shm.SlotDescriptor;

/**
 * The parts of docs/benchmarks.md that come from alternating rounds: the targets and their verdicts
 * (each on the lowest round ratio), the round ratios, the load around every round, writer scaling and
 * growth. Ratios of times are peer / shmav (above 1, shmav is faster), where the peer may also be the C
 * seqlock read of the same slots (the physical limit), the shared AV (for the private one) or an AV
 * created at its full count (for a grown one); efficiencies are shared / separate.
 */
final class RoundsReport
{
    /** Largest time of 1M inserts into an AV created with count 1 (grown), against one created with count 1M. */
    static final double GROWTH_MAX_SLOWDOWN = 1.5;
    /** The growth rounds' figures: shmav's inserts into the flat and the grown AV, and the model's, ns per insert. */
    private static final String GROWTH_FLAT = "shmav.growthInsert.shared.1000000";
    private static final String GROWTH_GROWN = "shmav.growthInsert.shared.1";
    private static final String MODEL_FLAT = "model.insert_grow_first1000000";
    private static final String MODEL_GROWN = "model.insert_grow_first1";

    private final Rounds compared;
    private final Scaling scaling;
    private final GrowthRounds growth;
    private final Results r;
    private final List<Target> targets = new ArrayList<>();

    /** One target: what is compared, the figures, the round ratios (null if measured once), the verdict. */
    record Target(String what, String shmav, String peer, Rounds.Spread spread, double ratio, String needed, boolean pass)
    {
    }

    RoundsReport(final Rounds compared, final Scaling scaling, final GrowthRounds growth, final Results results)
    {
        this.compared = compared;
        this.scaling = scaling;
        this.growth = growth;
        this.r = results;
        evaluate();
    }

    /** The rounds of the comparisons. */
    int rounds()
    {
        return compared.rounds();
    }

    List<Target> targets()
    {
        return targets;
    }

    private void evaluate()
    {
        final String single = "shmav.insertOneByOne.shared";
        final String batch = "shmav.insertBatch.shared";
        final String lookup = "shmav.lookup.shared.1000000";
        final String lookupPrivate = "shmav.lookup.private.1000000";
        ratio("single insert, 1M into a shared AV, one call per address", single,
            "sockets named AV, one call per address", "sockets.single_insert", 1);
        ratio("batch insert, one call of 1M addresses (per address)", batch, "sockets named AV, batch of 1M",
            "sockets.batch_insert", 1.1);
        ratio("insert vs Chronicle Map put (shared AV, 1M, one call per address)", single, "Chronicle Map put",
            "chronicle.put", 3, insertModel(single));
        for (final String kind : new String[] {BenchAvs.SHARED, BenchAvs.PRIVATE})
        {
            final String key = "shmav.lookup." + kind + ".1000000";
            ratio("lookup of a valid fi_addr, " + kind + " AV, 1M entries, vs tcp", key, "tcp util AV", "tcp.lookup", 1);
            ratio("lookup of a valid fi_addr, " + kind + " AV, 1M entries, vs sockets", key, "sockets named AV",
                "sockets.lookup", 1.2);
            ratio("lookup, " + kind + " AV, 1M entries, vs the physical limit: a C loop doing only the seqlock read of " +
                "slots of the same size in /dev/shm (within 2x)", key, "C seqlock read, " + limitSlotBytes() + "-byte slots",
                limitKey(), 0.5);
            final String loop = "shmav.lookupLoop." + kind + ".1000000";
            ratio("lookup, " + kind + " AV, 1M entries, in the C loop's form (1M lookups in fi_addr order in one Java loop) " +
                "vs that C loop (within 2x)", loop, "C seqlock read, " + limitSlotBytes() + "-byte slots", limitKey(), 0.5,
                handleLoop(loop));
        }
        ratio("private-AV lookup no slower than shared-AV lookup (1M entries)", lookupPrivate, "shmav shared AV", lookup, 1);
        ratio("single-address insert (1M) vs sockets' batch insert per address", single, "sockets named AV, batch of 1M",
            "sockets.batch_insert", 1);
        ratio("remove then reinsert, shared AV of 1M entries", "shmav.removeThenReinsert.shared.1000000",
            "sockets named AV (scans from 0)", "sockets.remove_reinsert", 100);
        ratio("lookup vs Chronicle Map get (shared AV, 1M)", lookup, "Chronicle Map get (other JVM)", "chronicle.get", 3);

        final double a1k = r.get("shmav.attachReadOnly.1000");
        final double a100k = r.get("shmav.attachReadOnly.100000");
        final double a1m = r.get("shmav.attachReadOnly.1000000");
        final double spread = Math.max(a1k, Math.max(a100k, a1m)) / Math.min(a1k, Math.min(a100k, a1m));
        targets.add(new Target("FI_READ attach of a 1M-entry AV under 5 ms, independent of the entry count (measured once)",
            String.format(Locale.ROOT, "%s (1k: %s, 100k: %s)", Report.time(a1m), Report.time(a1k), Report.time(a100k)),
            "5 ms; slowest/fastest of 1k, 100k, 1M <= 2", null, 5e6 / a1m,
            "1M: < 5 ms; spread " + String.format(Locale.ROOT, "%.2f", spread) + " <= 2", a1m < 5e6 && spread <= 2));

        // Single-shot insert iterations create their AV in the iteration's setup, which gc.alloc.rate.norm
        // counts: the inserts' own share is the figure less the creation's bytes spread over the N inserts.
        final double allocLookup = Math.max(r.alloc(lookup), r.alloc("shmav.lookup.private.1000000"));
        final double allocInsert = Math.max(
            r.alloc(single) - r.get("alloc.create.shared") / Compare.N,
            r.alloc("shmav.insertOneByOne.private") - r.get("alloc.create.private") / Compare.N);
        targets.add(new Target("0 B/op on lookup and insert (JMH gc profiler; shared: highest of the rounds)",
            String.format(Locale.ROOT, "lookup %s B/op; insert %s B/op less the AV's creation (%s B/op with it); "
                    + "insert loop: 0 bytes", Report.bytes(allocLookup), Report.bytes(Math.max(0, allocInsert)),
                Report.bytes(r.alloc(single))),
            "gc.alloc.rate.norm < 0.05 B/op; InsertBench fails any iteration whose timed loop allocates", null, Double.NaN,
            "< 0.05 B/op", allocLookup < 0.05 && allocInsert < 0.05));

        growthTarget();

        final Rounds.Spread e2 = scaling.efficiency(2);
        targets.add(new Target("2 writer JVMs into one shared AV (default rule: lowest free index), one call per address, " +
            "vs into 2 separate AVs (efficiency)",
            rate(scaling.processes.median("proc.shared.P2")) + " inserts/s", "separate AVs: " +
            rate(scaling.processes.median("proc.separate.P2")) + " inserts/s" + model(Peers.WriterClaims.FRONTIER), e2, e2.median(),
            ">= " + Scaling.TARGET_EFFICIENCY, e2.passes(Scaling.TARGET_EFFICIENCY) && scaling.allChecksOk()));
        final Rounds.Spread s2 = scaling.spreadEfficiency(2);
        targets.add(new Target("2 writer JVMs into one shared AV, handles opened with lowestIndex(false) (claims spread out), " +
            "vs into 2 separate AVs (efficiency)",
            rate(scaling.processes.median("proc.spread.P2")) + " inserts/s", "separate AVs: " +
            rate(scaling.processes.median("proc.separate.P2")) + " inserts/s" + model(Peers.WriterClaims.SPREAD), s2, s2.median(),
            ">= " + Scaling.TARGET_EFFICIENCY, s2.passes(Scaling.TARGET_EFFICIENCY) && scaling.allChecksOk()));
        for (final int p : Scaling.BATCH_WRITERS)
        {
            final Rounds.Spread b = scaling.batchEfficiency(p);
            targets.add(new Target(p + " writer JVMs into one shared AV (default rule), " + Scaling.BATCH +
                " addresses per insert call, vs into " + p + " separate AVs with the same batches (efficiency)",
                rate(scaling.processes.median(Scaling.processKey(MultiWriter.Mode.SHARED, Scaling.BATCH, p))) + " inserts/s",
                "separate AVs: " + rate(scaling.processes.median(Scaling.processKey(MultiWriter.Mode.SEPARATE, Scaling.BATCH, p))) +
                    " inserts/s" + model(Peers.WriterClaims.RUNS_OF_64), b, b.median(), ">= " + Scaling.TARGET_EFFICIENCY,
                b.passes(Scaling.TARGET_EFFICIENCY) && scaling.allChecksOk()));
        }
    }

    /**
     * For a loop-form lookup target's "compared with": the C loop that also does a lookup call's loads and
     * checks ({@code memory_limits lookup --handle}), its time and what it takes of shmav's, in the same rounds.
     */
    private String handleLoop(final String shmavKey)
    {
        if (Double.isNaN(compared.median(HANDLE_KEY)))
        {
            return "";
        }
        return "; the same loop with a lookup call's loads and checks (--handle) in the same rounds: " +
            Report.time(compared.median(HANDLE_KEY)) + ", its time / shmav's " + spread(compared.ratio(HANDLE_KEY, shmavKey));
    }

    /**
     * For an insert target's "compared with": the insert model with a 1M-entry AV's hash (measured once, at the
     * start; Machine) and shmav's time against it, the figure issue 46 asks to be within 1.2x.
     */
    private String insertModel(final String shmavKey)
    {
        final double model = r.get(Peers.insertModelKey(Peers.RANDOM_MB));
        if (Double.isNaN(model))
        {
            return "";
        }
        return "; the insert model with a " + Peers.RANDOM_MB + " MB hash (measured at the start): " + Report.time(model) +
            ", shmav's time / its " + String.format(Locale.ROOT, "%.2fx", compared.median(shmavKey) / model);
    }

    /** The writer model's ratio in the same rounds, for a writer target's "compared with" (Writer scaling has the rows). */
    private String model(final Peers.WriterClaims claims)
    {
        final Rounds.Spread m = scaling.modelEfficiency(claims);
        return m.perRound().length == 0 ? "" : "; the writer model (the memory system alone), one region / one each in the same rounds: " +
            spread(m);
    }

    /**
     * Growth costs little: flat time / grown time, round by round, at least 1 / {@value #GROWTH_MAX_SLOWDOWN}
     * in the lowest round (the grown AV takes at most 1.5x the time).
     */
    private void growthTarget()
    {
        final String what = "insert 1M addresses, one call each, into a shared AV created with count 1 (grows to 1M) " +
            "vs one created with count 1M (time flat / time grown)";
        final String needed = String.format(Locale.ROOT, ">= %.2f (grown at most %.1fx the time)", 1 / GROWTH_MAX_SLOWDOWN,
            GROWTH_MAX_SLOWDOWN);
        if (!growth.ran())
        {
            targets.add(new Target(what, "not measured (named AVs do not grow here)", "-", null, Double.NaN, needed, false));
            return;
        }
        final Rounds.Spread s = growth.rounds.ratio(GROWTH_FLAT, GROWTH_GROWN);
        targets.add(new Target(what, "grown: " + Report.time(growth.rounds.median(GROWTH_GROWN)),
            "created with count 1M: " + Report.time(growth.rounds.median(GROWTH_FLAT)), s, s.median(), needed,
            s.passes(1 / GROWTH_MAX_SLOWDOWN)));
    }

    /** Bytes of one of shmav's slots for the benchmarks' 16-byte addresses. */
    static int shmavSlotBytes()
    {
        return SlotDescriptor.slotLength(BenchAddresses.ADDRLEN);
    }

    /** The C loop's slot size the limit targets use: shmav's own where the loop has it, else 64 (SlotDescriptor's). */
    static int limitSlotBytes()
    {
        for (final int slot : Peers.SLOT_BYTES)
        {
            if (slot == shmavSlotBytes())
            {
                return slot;
            }
        }
        return 64;
    }

    /** The figure of the C loop over 64-byte slots that also does a lookup call's loads and checks (--handle). */
    static final String HANDLE_KEY = "limit.lookup_64_handle";

    /** The figure of the C loop the limit targets use, e.g. "limit.lookup_64". */
    static String limitKey()
    {
        return "limit.lookup_" + limitSlotBytes();
    }

    private void ratio(final String what, final String shmavKey, final String peerName, final String peerKey,
        final double needed)
    {
        ratio(what, shmavKey, peerName, peerKey, needed, "");
    }

    /** {@link #ratio(String, String, String, String, double)}, {@code more} said after the peer's figure. */
    private void ratio(final String what, final String shmavKey, final String peerName, final String peerKey,
        final double needed, final String more)
    {
        final Rounds.Spread s = compared.ratio(peerKey, shmavKey);
        targets.add(new Target(what, Report.time(compared.median(shmavKey)),
            peerName + ": " + Report.time(compared.median(peerKey)) + more, s, s.median(), needed(needed), s.passes(needed)));
    }

    /** How a needed ratio reads: ">= 1 (no slower)", ">= 1.2x", ">= 0.5x (at most 2x the time)". */
    private static String needed(final double needed)
    {
        if (needed == 1)
        {
            return ">= 1 (no slower)";
        }
        final String x = ">= " + (needed == Math.rint(needed) ? Integer.toString((int)needed)
            : String.format(Locale.ROOT, "%.2f", needed).replaceAll("0+$", "")) + "x";
        return needed < 1 ? x + String.format(Locale.ROOT, " (at most %.0fx the time)", 1 / needed) : x;
    }

    void targetsTable(final StringBuilder md)
    {
        md.append("| target | shmav (median) | compared with (median) | ratio: median (lowest - highest) | needed | result |\n")
            .append("|---|---|---|---|---|---|\n");
        for (final Target t : targets)
        {
            md.append("| ").append(t.what()).append(" | ").append(t.shmav()).append(" | ").append(t.peer()).append(" | ")
                .append(t.spread() != null ? spread(t.spread())
                    : Double.isNaN(t.ratio()) ? "-" : String.format(Locale.ROOT, "%.2fx (once)", t.ratio()))
                .append(" | ").append(t.needed()).append(" | ").append(t.pass() ? "pass" : "**miss**").append(" |\n");
        }
    }

    /** Every round ratio of the compared figures, then the load around each step. */
    void roundsSection(final StringBuilder md)
    {
        md.append("\n## Rounds\n\n");
        md.append("Each round runs, in this order: ").append(String.join(", ", compared.stepNames()))
            .append(". A round ratio pairs round k of shmav with round k of the peer; the verdicts above use the lowest.\n\n");
        md.append("| comparison |");
        for (int k = 1; k <= compared.rounds(); k++)
        {
            md.append(" round ").append(k).append(" |");
        }
        md.append(" median | lowest | highest |\n|---|").append("---|".repeat(compared.rounds() + 3)).append('\n');
        for (final Target t : targets)
        {
            if (t.spread() == null)
            {
                continue;
            }
            md.append("| ").append(t.what()).append(" |");
            for (final double x : t.spread().perRound())
            {
                md.append(String.format(Locale.ROOT, " %.2f |", x));
            }
            md.append(String.format(Locale.ROOT, " %.2f | %.2f | %.2f |%n", t.spread().median(), t.spread().low(),
                t.spread().high()));
        }
        md.append("\n1-minute load average (/proc/loadavg) before -> after each step of each round:\n\n");
        loads(md, compared);
    }

    private static void loads(final StringBuilder md, final Rounds rounds)
    {
        md.append("| round |");
        rounds.stepNames().forEach(s -> md.append(' ').append(s).append(" |"));
        md.append("\n|---|").append("---|".repeat(rounds.stepNames().size()));
        int round = 0;
        for (final Rounds.Load l : rounds.loads())
        {
            if (l.round() != round)
            {
                round = l.round();
                md.append("\n| ").append(round).append(" |");
            }
            md.append(String.format(Locale.ROOT, " %.2f -> %.2f |", l.before(), l.after()));
        }
        md.append('\n');
    }

    private static String verdict(final Rounds.Spread efficiency)
    {
        return efficiency.passes(Scaling.TARGET_EFFICIENCY) ? "pass" : "**miss**";
    }

    void scalingSection(final StringBuilder md)
    {
        md.append("\n### Writer scaling\n\n");
        md.append("P writer JVMs insert ").append(String.format(Locale.ROOT, "%,d", scaling.perWriter))
            .append(" distinct addresses each, one insert call per address, started together (a go file all wait on),\n")
            .append("in rounds, each into new AVs: practice rounds (the writers meet, and the JIT recompiles the insert\n")
            .append("path's contended branches) until one passes with the writers' JIT all but idle (at most ")
            .append(MultiWriter.MAX_PRACTICE_ROUNDS).append("), then\n").append(MultiWriter.TIMED_ROUNDS)
            .append(" timed rounds, whose median is the run's figure (a late compilation of a rare path in one timed round\n")
            .append("took a tenth to a third of it); before each, every writer waits until its JIT has compiled nothing for a second, so that\n")
            .append("no compiler thread takes a core from a timed writer, and the timed loop is a method the warm-up compiled\n")
            .append("(`MultiWriter`):\n")
            .append("(a) all into one shared named AV, (a') the same through handles opened with `lowestIndex(false)`\n")
            .append("(claims spread out: the lowest-free-index rule given up), (b) each into a named AV of its own.\n")
            .append("Efficiency = (a) / (b) and (a') / (b) of the same round; ").append(scaling.processes.rounds())
            .append(" rounds, (a), (a') and (b) alternating. ")
            .append("Throughput = P x M / (last end - first start).\n\n");
        md.append("| writers P | (a) shared AV, inserts/s | (a') spread claims, inserts/s | (b) separate AVs, " +
            "inserts/s | efficiency (a)/(b): median (lowest - highest) | (a')/(b) | target | result (a); (a') | " +
            "check (a) | check (a') | check (b) |\n")
            .append("|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (final int p : Scaling.WRITERS)
        {
            final Rounds.Spread e = scaling.efficiency(p);
            final Rounds.Spread es = scaling.spreadEfficiency(p);
            final boolean target = p == 2;
            md.append("| ").append(p).append(" | ").append(rates(scaling.processes, "proc.shared.P" + p)).append(" | ")
                .append(rates(scaling.processes, "proc.spread.P" + p)).append(" | ")
                .append(rates(scaling.processes, "proc.separate.P" + p)).append(" | ").append(spread(e)).append(" | ")
                .append(spread(es)).append(" | ")
                .append(target ? ">= " + Scaling.TARGET_EFFICIENCY : "-").append(" | ")
                .append(target ? verdict(e) + "; " + verdict(es) : "-").append(" | ")
                .append(scaling.checks.getOrDefault("proc.shared.P" + p, "?")).append(" | ")
                .append(scaling.checks.getOrDefault("proc.spread.P" + p, "?")).append(" | ")
                .append(scaling.checks.getOrDefault("proc.separate.P" + p, "?")).append(" |\n");
        }
        md.append("\nAt P = ").append(joined(Scaling.BATCH_WRITERS)).append(" the same writers also insert ")
            .append(Scaling.BATCH).append(" addresses per insert call, (a64) into one shared AV with the default rule\n")
            .append("(lowest free index) and (b64) each into a named AV of its own; efficiency = (a64) / (b64) of the same round:\n\n");
        md.append("| writers P | (a64) shared AV, inserts/s | (b64) separate AVs, inserts/s | efficiency (a64)/(b64): " +
            "median (lowest - highest) | target | result | check (a64) | check (b64) |\n")
            .append("|---|---|---|---|---|---|---|---|\n");
        for (final int p : Scaling.BATCH_WRITERS)
        {
            final String shared = Scaling.processKey(MultiWriter.Mode.SHARED, Scaling.BATCH, p);
            final String separate = Scaling.processKey(MultiWriter.Mode.SEPARATE, Scaling.BATCH, p);
            final Rounds.Spread e = scaling.batchEfficiency(p);
            md.append("| ").append(p).append(" | ").append(rates(scaling.processes, shared)).append(" | ")
                .append(rates(scaling.processes, separate)).append(" | ").append(spread(e)).append(" | >= ")
                .append(Scaling.TARGET_EFFICIENCY).append(" | ").append(verdict(e)).append(" | ")
                .append(scaling.checks.getOrDefault(shared, "?")).append(" | ")
                .append(scaling.checks.getOrDefault(separate, "?")).append(" |\n");
        }
        md.append("\nThe writer model in the same rounds (`memory_limits insert-writers`, see Commands): two C processes of ")
            .append(String.format(Locale.ROOT, "%,d", scaling.perWriter)).append(" inserts each with the insert model's atomics and lines and ")
            .append(Peers.INSERT_MODEL_WORK).append(" operations of other work an insert,\n")
            .append("all into one region or each into a region of its own, claiming as the row's writers do; no JIT, no objects, no checks.\n")
            .append("Its ratio is what this host's memory allowed two writers sharing those lines at that moment; shmav / model\n")
            .append("below 1 is shmav's own loss:\n\n");
        md.append("| claims | model: one region, inserts/s | model: a region each, inserts/s | model one / each: median (lowest - highest) | " +
            "shmav's row (a)/(b) | shmav / model, round by round |\n")
            .append("|---|---|---|---|---|---|\n");
        for (final Peers.WriterClaims claims : Peers.WriterClaims.values())
        {
            final Rounds.Spread m = scaling.modelEfficiency(claims);
            final Rounds.Spread shmav = scaling.efficiencyClaiming(claims);
            md.append("| ").append(claimsLabel(claims)).append(" | ")
                .append(rates(scaling.processes, Peers.writersModelKey(claims, true))).append(" | ")
                .append(rates(scaling.processes, Peers.writersModelKey(claims, false))).append(" | ").append(spread(m))
                .append(" | ").append(spread(shmav)).append(" | ").append(perRound(shmav, m)).append(" |\n");
        }
        md.append("\nP threads of one JVM into one named AV, ").append(String.format(Locale.ROOT, "%,d", scaling.perWriter))
            .append(" addresses each, through one handle or through a handle each (no target):\n\n");
        md.append("| threads P | one handle, inserts/s | handle per thread, inserts/s | one / per thread: median (lowest - highest) | check |\n")
            .append("|---|---|---|---|---|\n");
        for (final int p : Scaling.WRITERS)
        {
            final String one = scaling.checks.getOrDefault("threads.one.P" + p, "?");
            final String per = scaling.checks.getOrDefault("threads.per-thread.P" + p, "?");
            md.append("| ").append(p).append(" | ").append(rates(scaling.threads, "threads.one.P" + p)).append(" | ")
                .append(rates(scaling.threads, "threads.per-thread.P" + p)).append(" | ").append(spread(scaling.oneHandleRatio(p)))
                .append(" | ").append(one.equals(per) ? one : "one handle: " + one + "; per thread: " + per).append(" |\n");
        }
        md.append("\nLoad before -> after each step, writer processes:\n\n");
        loads(md, scaling.processes);
        md.append("\nwriter threads:\n\n");
        loads(md, scaling.threads);
    }

    void growthSection(final StringBuilder md)
    {
        md.append("\n### Growth (issue 13 item 6)\n\n");
        md.append("| operation | created with count 1M | created with count 1, grown to 1M | time grown / flat (above " +
            "1: the grown AV is slower): median (lowest - highest) |\n")
            .append("|---|---|---|---|\n");
        if (!growth.ran())
        {
            md.append("| insert 1M addresses, one call each | needs growth (not on main yet) | needs growth (not on main yet) | - |\n")
                .append("| lookup, 1M entries | needs growth (not on main yet) | needs growth (not on main yet) | - |\n")
                .append("\nA named AV created with count 1 answered FI_ENOSPC before holding 4,096 addresses, so these rows did not run.\n");
            return;
        }
        final Rounds g = growth.rounds;
        growthRow(md, g, "insert 1M addresses, one call each (per address)", GROWTH_FLAT, GROWTH_GROWN);
        growthRow(md, g, "lookup, 1M entries", "shmav.growthLookup.1000000", "shmav.growthLookup.1");
        growthRow(md, g, "insert model, 1M inserts growing the same way (memory_limits insert-grow)",
            MODEL_FLAT, MODEL_GROWN);
        md.append("\nTarget: the grown AV's inserts take at most ").append(GROWTH_MAX_SLOWDOWN)
            .append("x the time of the flat AV's in the slowest round (the growth row of Targets, which gives flat / grown).\n");
        md.append("\nThe model row does the insert model's atomics and lines (with ").append(Peers.INSERT_MODEL_WORK)
            .append(" operations of other work an insert) into an AV that grows as a named AV does: a segment doubling the ")
            .append("capacity, written with zeros, then the index moved into it, each slot loaded 64 entries ahead. Run in ")
            .append("the same rounds, it gives what this host's memory allowed a grown AV at that moment: both pay for the ")
            .append("new segments' pages inside the timing, where the flat AV's were allocated before it.\n");
        growthCost(md, g);
        md.append("\n").append(g.rounds()).append(" rounds, flat and grown alternating. Load before -> after each step:\n\n");
        loads(md, g);
    }

    /**
     * What growth adds to an insert (grown - flat), shmav's and the model's, round by round, against what the
     * target leaves it: with grown at most {@value #GROWTH_MAX_SLOWDOWN}x flat, growth may add half the flat insert's time.
     * A model whose growth alone costs more than that says the target is out of reach at shmav's flat speed.
     */
    private static void growthCost(final StringBuilder md, final Rounds g)
    {
        final double[] flat = g.perRound(GROWTH_FLAT);
        final double[] grown = g.perRound(GROWTH_GROWN);
        final double[] modelFlat = g.perRound(MODEL_FLAT);
        final double[] modelGrown = g.perRound(MODEL_GROWN);
        final int n = Math.min(Math.min(flat.length, grown.length), Math.min(modelFlat.length, modelGrown.length));
        if (n == 0)
        {
            return;
        }
        final StringBuilder shmav = new StringBuilder();
        final StringBuilder model = new StringBuilder();
        final StringBuilder budget = new StringBuilder();
        for (int k = 0; k < n; k++)
        {
            final String sep = k == 0 ? "" : ", ";
            shmav.append(sep).append(Report.time(grown[k] - flat[k]));
            model.append(sep).append(Report.time(modelGrown[k] - modelFlat[k]));
            budget.append(sep).append(Report.time((GROWTH_MAX_SLOWDOWN - 1) * flat[k]));
        }
        md.append("\nWhat growth adds to an insert (grown - flat), round by round: shmav ").append(shmav)
            .append("; the model ").append(model).append(". The target leaves it ")
            .append(String.format(Locale.ROOT, "%.1f", GROWTH_MAX_SLOWDOWN - 1)).append(" x shmav's flat insert: ")
            .append(budget).append(". Where the model's growth alone costs more, no insert as fast as shmav's flat one ")
            .append("can grow within the target on this host.\n");
    }

    private static void growthRow(final StringBuilder md, final Rounds g, final String what, final String flat,
        final String grown)
    {
        md.append("| ").append(what).append(" | ").append(Report.time(g.median(flat))).append(" | ")
            .append(Report.time(g.median(grown))).append(" | ").append(spread(g.ratio(grown, flat))).append(" |\n");
    }

    private static String claimsLabel(final Peers.WriterClaims claims)
    {
        return switch (claims)
        {
            case FRONTIER -> "one frontier, one call per address (default rule)";
            case SPREAD -> "spread, one call per address (lowestIndex(false))";
            case RUNS_OF_64 -> "runs of " + Scaling.BATCH + " (default rule, batches of " + Scaling.BATCH + ")";
        };
    }

    /** a_k / b_k of two spreads of the same rounds, as "0.93, 1.10, ..." ("-" when either is empty). */
    private static String perRound(final Rounds.Spread a, final Rounds.Spread b)
    {
        final StringBuilder s = new StringBuilder();
        for (int k = 0; k < Math.min(a.perRound().length, b.perRound().length); k++)
        {
            s.append(k == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.2f", a.perRound()[k] / b.perRound()[k]));
        }
        return s.length() == 0 ? "-" : s.toString();
    }

    private static String joined(final int[] values)
    {
        final StringBuilder s = new StringBuilder();
        for (final int v : values)
        {
            s.append(s.length() == 0 ? "" : ", ").append(v);
        }
        return s.toString();
    }

    private static String rates(final Rounds rounds, final String key)
    {
        final double[] v = rounds.perRound(key);
        double lo = Double.MAX_VALUE;
        double hi = 0;
        for (final double x : v)
        {
            lo = Math.min(lo, x);
            hi = Math.max(hi, x);
        }
        return v.length == 0 ? "-" : rate(Results.median(v)) + " (" + rate(lo) + " - " + rate(hi) + ")";
    }

    private static String rate(final double perSecond)
    {
        return String.format(Locale.ROOT, "%,.0f", perSecond);
    }

    private static String spread(final Rounds.Spread s)
    {
        return s.perRound().length == 0 ? "-" : String.format(Locale.ROOT, "%.2fx (%.2f - %.2f)", s.median(), s.low(), s.high());
    }
}
