package org.shmav.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.shmav.shm.AvLayout;

/** docs/benchmarks.md and its chart, from one run's results. */
final class Report
{
    private final Results r;
    private final List<String> commands;
    private final Machine.Load before;
    private final Machine.Load after;
    private final double minutes;
    private final boolean quick;
    private final Map<String, String> machine;
    private final String svgName;
    private final RoundsReport rounds;

    Report(final Results results, final List<String> commands, final Machine.Load before,
        final Machine.Load after, final double minutes, final boolean quick, final Map<String, String> machine,
        final String svgName, final RoundsReport rounds)
    {
        this.r = results;
        this.commands = commands;
        this.before = before;
        this.after = after;
        this.minutes = minutes;
        this.quick = quick;
        this.machine = machine;
        this.svgName = svgName;
        this.rounds = rounds;
    }

    /** Size of the hash of a named AV of {@code entries} slots, as created now. */
    private static String hashMegabytes(final long entries)
    {
        return (AvLayout.hashBucketsFor(entries) * Long.BYTES >> 20) + " MB";
    }

    // ------------------------------------------------------------------------------------- markdown

    String markdown()
    {
        final StringBuilder md = new StringBuilder();
        md.append("# Benchmarks\n\n");
        md.append("Written by `scripts/bench-compare` on ").append(Compare.now()).append(" (")
            .append(String.format(Locale.ROOT, "%.1f", minutes)).append(" minutes). Do not edit: run the script again.\n");
        if (quick)
        {
            md.append("\n**This is a --quick run: shortened, for trying the harness; its numbers are not the reference.**\n");
        }
        else
        {
            md.append("\nShortened to fit about 25 minutes on this 2-core host shared with other builds: ").append(rounds.rounds())
                .append(" rounds per comparison, one JMH fork per run, fewer iterations than the benchmarks' own (see Commands).\n");
        }
        md.append("\nshmav is measured side by side with what a user would otherwise pick, in the same run on the same\n")
            .append("machine: libfabric's own AVs (the `sockets` provider's named AV, the only one libfabric can share\n")
            .append("between processes, and the `tcp;ofi_rxm` util AV) through a small C harness, and Chronicle Map, a\n")
            .append("map persisted in `/dev/shm` shared by two JVMs. Lookup is also measured against its physical limit:\n")
            .append("a C loop that does only the seqlock read of the same slot layout (see Lookup against the memory system).\n")
            .append("Every figure is a median (see Method). Ratios are peer time / shmav time: above 1, shmav is faster.\n\n");

        md.append("## Machine\n\n");
        for (final Map.Entry<String, String> e : machine.entrySet())
        {
            md.append("* ").append(e.getKey()).append(": ").append(e.getValue()).append('\n');
        }
        md.append("* At the start: ").append(before.describe()).append('\n');
        md.append("* At the end: ").append(after.describe()).append('\n');
        md.append(before.quiet() && after.load1() < Machine.QUIET_LOAD * 2
            ? "* The machine was quiet (1-minute load under 1, no other JVM) when the run started.\n"
            : "* **The machine was not quiet** (1-minute load " + String.format(Locale.ROOT, "%.2f", before.load1()) +
              " at the start, other JVMs: " + before.otherJvms().size() + "): other work shared the " +
              machine.get("CPUs (nproc)") + " CPUs, so absolute figures are slower and noisier than on an idle " +
              "machine. Peers ran in the same conditions, interleaved in one run, so the ratios are the fairer reading.\n");

        md.append("\n## Targets\n\n");
        md.append("Each comparison is measured in ").append(rounds.rounds())
            .append(" alternating rounds (shmav then peer, peer then shmav, ...; see Rounds). The ratio column shows the\n")
            .append("median round ratio and its spread (lowest and highest round ratio); a target passes only when the\n")
            .append("**lowest** round ratio reaches what is needed.\n\n");
        rounds.targetsTable(md);

        final double small = r.get("shmav.insertOneByOne100k.shared");
        final double smallPeer = r.get("sockets_100000.batch_insert");
        md.append("\nThe lookup targets hold for both kinds of AV: the shared (named) AV in /dev/shm and the private AV\n")
            .append("in process memory, measured in the same JMH run of every round; the private AV, which no other\n")
            .append("process can change, must be no slower than the shared one (shared time / private time >= 1 in every\n")
            .append("round). The physical-limit rows compare each with a C loop doing nothing but one lookup's seqlock\n")
            .append("read over 1M slots of shmav's size and layout in a /dev/shm mapping, in the same fi_addr order: shmav's\n")
            .append("lookup passes when it takes at most twice the loop's time. Beside the loop-form rows, the same C loop\n")
            .append("doing also a lookup call's loads and checks, in the same rounds: what this API's work costs in C.\n")
            .append("The growth row times 1M inserts into an AV created with count 1, which grows all the way, against\n")
            .append("one created with count 1M (see Growth).\n")
            .append("The batched writer row runs 2 writer JVMs inserting 64 addresses per call into one AV under the\n")
            .append("default rule (lowest free index), against the same batches into separate AVs (see Writer scaling).\n");
        md.append("\nThe single-insert targets compare one `fi_av_insert` call per address with sockets doing the same,\n")
            .append("and (a row kept from earlier pages) with sockets inserting the same addresses in one batch call. " +
                "Each shmav insert reads a bucket of its hash at a random place\n")
            .append("(").append(hashMegabytes(1_000_000)).append(" at 1,000,000 entries), to find an address already " +
                "present and keep one entry per\n")
            .append("address, and makes four atomic updates (handle lock, claim, index, publish; layout 4.0 made a fifth,\n")
            .append("the writer phase, which layout 5.0 dropped) so that\n")
            .append("several processes can insert at once and a SIGKILL at any instruction\n")
            .append("loses nothing. sockets keeps no index and its writers do not coordinate. At 100,000 entries (hash of\n")
            .append(hashMegabytes(100_000)).append(", in the cache) the same comparison gives ").append(time(small))
            .append(" for shmav (shared, one call per address) against ").append(time(smallPeer))
            .append(" for sockets' batch insert per address: ").append(String.format(Locale.ROOT, "%.2fx", smallPeer / small))
            .append(".\n");
        md.append("\nProfiles of the targets that miss, and what they show: [profiles.md](profiles.md) (`scripts/profile`).\n");
        md.append("\n## Results (medians, time per operation)\n\n");
        md.append("| operation | shmav private | shmav shared | sockets named AV | tcp util AV | Chronicle Map |\n");
        md.append("|---|---|---|---|---|---|\n");
        row(md, "lookup (fi_addr -> address), 1M entries", "shmav.lookup.private.1000000", "shmav.lookup.shared.1000000",
            "sockets.lookup", "tcp.lookup", null);
        row(md, "reverse lookup (address -> fi_addr); Chronicle: get", "shmav.reverseLookup.private.1000000",
            "shmav.reverseLookup.shared.1000000", null, null, "chronicle.get");
        row(md, "insert, one call per address, 1M into an empty AV; Chronicle: put", "shmav.insertOneByOne.private",
            "shmav.insertOneByOne.shared", "sockets.single_insert", "tcp.single_insert", "chronicle.put");
        row(md, "insert, one call of 1M addresses (per address)", "shmav.insertBatch.private", "shmav.insertBatch.shared",
            "sockets.batch_insert", "tcp.batch_insert", null);
        row(md, "insert, one call per address, 100k into an empty AV", "shmav.insertOneByOne100k.private",
            "shmav.insertOneByOne100k.shared", "sockets_100000.single_insert", null, null);
        row(md, "insert, one call of 100k addresses (per address)", "shmav.insertBatch100k.private",
            "shmav.insertBatch100k.shared", "sockets_100000.batch_insert", null, null);
        row(md, "remove one entry then reinsert it, full AV of 1M", "shmav.removeThenReinsert.private.1000000",
            "shmav.removeThenReinsert.shared.1000000", "sockets.remove_reinsert", "tcp.remove_reinsert", null);
        row(md, "FI_READ attach (open + close), 1k entries", null, "shmav.attachReadOnly.1000", "sockets_1000.attach_read",
            null, null);
        row(md, "FI_READ attach (open + close), 100k entries", null, "shmav.attachReadOnly.100000",
            "sockets_100000.attach_read", null, null);
        row(md, "FI_READ attach (open + close), 1M entries", null, "shmav.attachReadOnly.1000000", "sockets.attach_read",
            null, null);
        row(md, "awaitCount wake-up across processes (one hop)", null, "shmav.pingPong", null, null, null);
        md.append("\nsockets' attach is the open alone: its close unlinks the AV's name, so readers are closed at the end.\n")
            .append("The libfabric peers' remove+reinsert cycles: sockets ").append(r.samples("sockets.remove_reinsert"))
            .append(" runs of 200 cycles (per-cycle median ").append(time(r.get("sockets.remove_reinsert")))
            .append("; mean reinsert alone ").append(time(r.get("sockets.reinsert_one")))
            .append(", mean remove alone ").append(time(r.get("sockets.remove_one"))).append("), tcp 20,000 cycles.\n");

        limitSection(md);
        FormatsReport.section(r, md);
        rounds.roundsSection(md);
        rounds.scalingSection(md);
        rounds.growthSection(md);

        md.append("\n### Allocation (JMH `-prof gc`, gc.alloc.rate.norm, bytes per operation)\n\n");
        md.append("| benchmark | private | shared |\n|---|---|---|\n");
        allocRow(md, "lookup", "shmav.lookup.private.1000000", "shmav.lookup.shared.1000000");
        allocRow(md, "reverse lookup", "shmav.reverseLookup.private.1000000", "shmav.reverseLookup.shared.1000000");
        allocRow(md, "insert, one call per address", "shmav.insertOneByOne.private", "shmav.insertOneByOne.shared");
        allocRow(md, "insert, one call of 1M", "shmav.insertBatch.private", "shmav.insertBatch.shared");
        allocRow(md, "insert, one call per address, 100k", "shmav.insertOneByOne100k.private",
            "shmav.insertOneByOne100k.shared");
        allocRow(md, "remove then reinsert", "shmav.removeThenReinsert.private.1000000",
            "shmav.removeThenReinsert.shared.1000000");
        md.append("\nJMH counts every allocation of the iteration: for the insert benchmarks (single-shot, a fresh AV\n")
            .append("per iteration) that includes creating the AV, which allocates ")
            .append(String.format(Locale.ROOT, "%,.0f", r.get("alloc.create.shared"))).append(" bytes for a shared AV of 1,000,000 entries\n")
            .append("and ").append(String.format(Locale.ROOT, "%,.0f", r.get("alloc.create.private")))
            .append(" bytes for a private one (measured apart, on this JVM's thread counter), spread over 1,000,000 inserts.\n")
            .append("The 0 B/op target takes the inserts' share, the figure less the creation. The inserting thread's own\n")
            .append("counter, read around the timed loop, must be 0 bytes in every measurement iteration or InsertBench\n")
            .append("fails the run; this run passed that check.\n");

        md.append("\n## Chart\n\n![](").append(svgName).append(")\n\n");
        md.append("Time per operation (medians), log scale, shorter is faster: per operation, shmav's private and shared\n")
            .append("AVs, then each peer measured on it; for lookup, also the C seqlock read of shmav's 64-byte and\n")
            .append("32-byte slots (the physical limit, a reference). The figure of the fastest of shmav and its peers\n")
            .append("is in bold.\n");

        md.append("\n## Commands\n\n```\nscripts/bench-compare").append(quick ? " --quick" : "").append("\n```\n\n")
            .append("which builds the project, `benchmarks/c/fabric_av_bench.c` and `benchmarks/c/memory_limits.c`, then runs\n")
            .append("(`$CP`: target/test-classes, target/classes and the test classpath):\n\n```\n");
        for (final String c : commands)
        {
            md.append(c).append('\n');
        }
        md.append("```\n");

        md.append("\n## Method\n\n");
        md.append("* Addresses: `struct sockaddr_in`, address i = 10.1.x.y:(1024 + i % 50000), the same bytes on every side.\n")
            .append("* Rounds: every compared figure is measured once per round, shmav and its peers alternating, and\n")
            .append("  even rounds in reverse order, so no side always runs first (see Rounds); a figure in the tables is\n")
            .append("  the median of its rounds, a ratio the median of the round ratios.\n")
            .append("* JMH (shmav): in each round, one short JMH run (one fork) per group of benchmarks; its figure is the\n")
            .append("  median of its measurement iterations. Lookups and remove+reinsert are average-time iterations of\n")
            .append("  ").append(quick ? "0.5" : "1").append(" s; inserts are single-shot iterations that each fill a fresh AV of 1,000,000\n")
            .append("  entries (the AV is created before the timer starts). Lookup runs on the shared and the private AV\n")
            .append("  in every round. Figures no target depends on (private inserts and remove+reinsert, 100k, reverse\n")
            .append("  lookup, attach, awaitCount) come from one JMH run each after the rounds; attach\n")
            .append("  iterations are 200 ms after a GC; awaitCount is a ping-pong between this JVM and a child JVM\n")
            .append("  through two named AVs, the time of one hop.\n")
            .append("* libfabric 1.17 (C harness): each run times a batch insert of 1M, 10 lookup passes over all entries\n")
            .append("  (median pass), remove+reinsert cycles on the full AV (median cycle), FI_READ opens of the named AV\n")
            .append("  (median of 20), and a fresh AV filled one call per address. One run per round.\n")
            .append("* Physical limit (benchmarks/c/memory_limits.c, gcc -O2): 1M slots in a file mapped MAP_SHARED from\n")
            .append("  /dev/shm, filled as VALID entries of one reference; 10 passes in fi_addr order (median pass), each\n")
            .append("  lookup: acquire load of the state word, check VALID and a non-zero reference count, read the u32\n")
            .append("  addrLen, copy 16 address bytes into a buffer the compiler must keep, acquire fence, load the state\n")
            .append("  word again and compare. 64-byte slots: SlotDescriptor's layout (addrLen at 24, address at 32);\n")
            .append("  32-byte slots: state word, addrLen at 8, address at 16. One run of each per round.\n")
            .append("* Memory system (memory_limits, once before the rounds): one core sums 256 MB of anonymous memory\n")
            .append("  with 32-byte vector loads (median of 5 passes, GB/s = 10^9 B/s); a pointer chase over the 64-byte\n")
            .append("  lines of a 16 MB /dev/shm mapping in one random cycle, 4M dependent loads per pass (median of 3).\n")
            .append("* Chronicle Map: a writer JVM puts 1M entries into a new map in /dev/shm (median of 10 chunks), a\n")
            .append("  reader JVM opens it and gets every entry (median of 5 passes); both warm up on a scratch map first.\n")
            .append("  One writer and one reader per round.\n")
            .append("* Writer scaling: each writer (JVM or thread) warms up on named AVs of its own, then all start together (a\n")
            .append("  go file, or a latch, every wait with a deadline); inserts/s = P x M / (last end - first start),\n")
            .append("  System.nanoTime of every process (CLOCK_MONOTONIC). After each run every AV is checked: it holds\n")
            .append("  exactly P x M (shared) or M (separate) entries, each address once at a distinct, valid fi_addr.\n")
            .append("  Writers insert one address per call, except the batched runs: ").append(Scaling.BATCH)
            .append(" consecutive addresses per call (the last call of a writer\n")
            .append("  takes what is left).\n")
            .append("* Growth: GrowthInsertBench fills a shared AV created with count 1 and one created with count 1M, one\n")
            .append("  call per address, in alternating rounds (single-shot iterations, as the inserts above).\n");
        return md.toString();
    }

    /**
     * Lookup against what the host's memory allows: the C seqlock read of 64- and 32-byte slots, the
     * bandwidth figure it implies, and shmav's lookups beside it.
     */
    private void limitSection(final StringBuilder md)
    {
        final double bandwidth = r.get("memory.stream_read");
        md.append("\n### Lookup against the memory system\n\n");
        md.append("The physical limit of a lookup in fi_addr order: a C loop (`benchmarks/c/memory_limits.c`) doing\n")
            .append("only the seqlock read of one slot per lookup over 1,000,000 slots of a /dev/shm mapping, as shmav's\n")
            .append("lookup does (see Method). The loop streams: each lookup reads one slot, so its time is bounded by\n")
            .append("the bytes per slot over the memory bandwidth; this host streamed ")
            .append(String.format(Locale.ROOT, "%.1f GB/s", bandwidth)).append(" through one core (Machine).\n\n");
        md.append("| lookup, 1M entries, fi_addr order | time per lookup (median of the rounds) | slot bytes / time | " +
            "vs shmav shared | vs shmav private |\n")
            .append("|---|---|---|---|---|\n");
        final double shared = r.get("shmav.lookup.shared.1000000");
        final double priv = r.get("shmav.lookup.private.1000000");
        for (final int slot : Peers.SLOT_BYTES)
        {
            limitRow(md, "C seqlock read, " + slot + "-byte slots" + (slot == 64 ? " (SlotDescriptor's layout)" : " (compact)"),
                slot, r.get("limit.lookup_" + slot), shared, priv);
        }
        final double handle = r.get(RoundsReport.HANDLE_KEY);
        if (!Double.isNaN(handle))
        {
            limitRow(md, "C seqlock read, 64-byte slots, with a lookup call's loads and checks (`--handle`)", 64, handle,
                shared, priv);
        }
        final int slot = RoundsReport.shmavSlotBytes();
        md.append("| shmav, shared AV (").append(slot).append("-byte slots) | ").append(time(shared)).append(" | ")
            .append(String.format(Locale.ROOT, "%.1f GB/s", slot / shared)).append(" | - | - |\n");
        md.append("| shmav, private AV (").append(slot).append("-byte slots) | ").append(time(priv)).append(" | ")
            .append(String.format(Locale.ROOT, "%.1f GB/s", slot / priv)).append(" | - | - |\n");
        md.append("\nThe limit targets compare shmav's lookup with the C loop over slots of shmav's own size, ")
            .append(RoundsReport.limitSlotBytes()).append(" bytes.\n")
            .append("The `--handle` row is that loop doing also what one lookup call loads and checks besides the slot\n")
            .append("(the handle's chain to its view, the fi_addr's decode and bound, the destination buffer's fields), as\n")
            .append("the JIT compiles it: shmav's work, in C.\n");
        md.append("\nOne 64-byte line at ").append(String.format(Locale.ROOT, "%.1f GB/s", bandwidth)).append(" takes ")
            .append(time(64 / bandwidth)).append("; a dependent read at a random place in 16 MB of /dev/shm (the hash of a\n")
            .append("1M-entry AV, which every insert probes once) took ").append(time(r.get("memory.random_read_16mb")))
            .append(" here.\n");
    }

    private void row(final StringBuilder md, final String what, final String priv, final String shared,
        final String sockets, final String tcp, final String chronicle)
    {
        md.append("| ").append(what).append(" | ").append(cell(priv)).append(" | ").append(cell(shared)).append(" | ")
            .append(cell(sockets)).append(" | ").append(cell(tcp)).append(" | ").append(cell(chronicle)).append(" |\n");
    }

    private String cell(final String key)
    {
        return key == null || Double.isNaN(r.get(key)) ? "-" : time(r.get(key));
    }

    private void allocRow(final StringBuilder md, final String what, final String priv, final String shared)
    {
        md.append("| ").append(what).append(" | ").append(bytes(r.alloc(priv))).append(" | ").append(bytes(r.alloc(shared)))
            .append(" |\n");
    }

    /** A row of Lookup against the memory system: a C loop's time over slots of {@code slot} bytes, and shmav's against it. */
    private static void limitRow(final StringBuilder md, final String what, final int slot, final double ns, final double shared,
        final double priv)
    {
        md.append("| ").append(what).append(" | ").append(time(ns)).append(" | ")
            .append(String.format(Locale.ROOT, "%.1f GB/s", slot / ns)).append(" | ")
            .append(String.format(Locale.ROOT, "%.2fx", shared / ns)).append(" the time | ")
            .append(String.format(Locale.ROOT, "%.2fx", priv / ns)).append(" the time |\n");
    }

    static String time(final double ns)
    {
        if (Double.isNaN(ns))
        {
            return "-";
        }
        if (ns >= 1e6)
        {
            return String.format(Locale.ROOT, "%.2f ms", ns / 1e6);
        }
        if (ns >= 1e4)
        {
            return String.format(Locale.ROOT, "%.1f us", ns / 1e3);
        }
        if (ns >= 1e3)
        {
            return String.format(Locale.ROOT, "%.2f us", ns / 1e3);
        }
        return String.format(Locale.ROOT, ns >= 100 ? "%.0f ns" : "%.1f ns", ns);
    }

    static String bytes(final double b)
    {
        return Double.isNaN(b) ? "-" : b < 0.0005 ? "< 0.001" : String.format(Locale.ROOT, "%.3f", b);
    }

    String summary()
    {
        final StringBuilder s = new StringBuilder("targets:\n");
        for (final RoundsReport.Target t : rounds.targets())
        {
            s.append(String.format(Locale.ROOT, "  %-5s %-90s %s%n", t.pass() ? "pass" : "miss", t.what(),
                t.spread() != null ? String.format(Locale.ROOT, "%.2fx (%.2f - %.2f)", t.ratio(), t.spread().low(),
                    t.spread().high()) : Double.isNaN(t.ratio()) ? t.shmav() : String.format(Locale.ROOT, "%.2fx", t.ratio())));
        }
        return s.toString();
    }
}
