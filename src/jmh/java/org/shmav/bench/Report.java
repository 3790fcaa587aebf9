package org.shmav.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.shmav.shm.AvLayout;

/** docs/benchmarks.md and its chart, from one run's results. */
final class Report
{
    private final Compare.Results r;
    private final List<String> commands;
    private final Machine.Load before;
    private final Machine.Load after;
    private final double minutes;
    private final boolean quick;
    private final Map<String, String> machine;
    private final String svgName;
    private final List<Target> targets = new ArrayList<>();

    /** One target of the issue: what is compared, the ratio measured, what it must reach. */
    record Target(String what, String shmav, String peer, double ratio, String needed, boolean pass)
    {
    }

    Report(final Compare.Results results, final List<String> commands, final Machine.Load before,
        final Machine.Load after, final double minutes, final boolean quick, final Map<String, String> machine,
        final String svgName)
    {
        this.r = results;
        this.commands = commands;
        this.before = before;
        this.after = after;
        this.minutes = minutes;
        this.quick = quick;
        this.machine = machine;
        this.svgName = svgName;
        evaluateTargets();
    }

    // --------------------------------------------------------------------------------------- targets

    private void evaluateTargets()
    {
        final double lookup = r.get("shmav.lookup.shared.1000000");
        final double socketsLookup = r.get("sockets.lookup");
        ratioTarget("lookup of a valid fi_addr, shared AV, 1M entries", lookup, "sockets named AV", socketsLookup, 1);

        final double insert = r.get("shmav.insertOneByOne.shared");
        final double socketsBatch = r.get("sockets.batch_insert");
        ratioTarget("single-address insert into a shared AV (1M inserts) vs sockets' batch insert per address",
            insert, "sockets named AV, batch of 1M", socketsBatch, 1);

        final double reinsert = r.get("shmav.removeThenReinsert.shared.1000000");
        ratioTarget("remove then reinsert, shared AV of 1M entries", reinsert, "sockets named AV (scans from 0)",
            r.get("sockets.remove_reinsert"), 100);

        final double a1k = r.get("shmav.attachReadOnly.1000");
        final double a100k = r.get("shmav.attachReadOnly.100000");
        final double a1m = r.get("shmav.attachReadOnly.1000000");
        final double spread = Math.max(a1k, Math.max(a100k, a1m)) / Math.min(a1k, Math.min(a100k, a1m));
        targets.add(new Target("FI_READ attach of a 1M-entry AV under 5 ms, independent of the entry count",
            String.format(Locale.ROOT, "%s (1k: %s, 100k: %s)", time(a1m), time(a1k), time(a100k)),
            "5 ms; slowest/fastest of 1k, 100k, 1M <= 2", 5e6 / a1m,
            "1M: < 5 ms; spread " + String.format(Locale.ROOT, "%.2f", spread) + " <= 2",
            a1m < 5e6 && spread <= 2));

        ratioTarget("insert vs Chronicle Map put (shared AV, 1M, one call per address)", insert,
            "Chronicle Map put", r.get("chronicle.put"), 3);
        ratioTarget("lookup vs Chronicle Map get (shared AV, 1M)", lookup, "Chronicle Map get (other JVM)",
            r.get("chronicle.get"), 3);

        final double allocLookup = Math.max(r.alloc("shmav.lookup.shared.1000000"), r.alloc("shmav.lookup.private.1000000"));
        final double allocInsert = Math.max(r.alloc("shmav.insertOneByOne.shared"), r.alloc("shmav.insertOneByOne.private"));
        targets.add(new Target("0 bytes allocated per lookup and per insert",
            String.format(Locale.ROOT, "lookup %s B/op; insert %s B/op (gc.alloc.rate.norm); insert loop: 0 bytes",
                bytes(allocLookup), bytes(allocInsert)),
            "gc.alloc.rate.norm < 0.05 B/op; InsertBench fails any iteration whose timed loop allocates", Double.NaN,
            "< 0.05 B/op", allocLookup < 0.05 && allocInsert < 0.05));
    }

    /** Size of the hash of a named AV of {@code entries} slots, as created now. */
    private static String hashMegabytes(final long entries)
    {
        return (AvLayout.hashBucketsFor(entries) * Long.BYTES >> 20) + " MB";
    }

    private void ratioTarget(final String what, final double shmavNs, final String peerName, final double peerNs,
        final double needed)
    {
        final double ratio = peerNs / shmavNs;
        targets.add(new Target(what, time(shmavNs), peerName + ": " + time(peerNs), ratio,
            needed == 1 ? ">= 1 (no slower)" : ">= " + (int)needed + "x", ratio >= needed));
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
        md.append("\nshmav is measured side by side with what a user would otherwise pick, in the same run on the same\n")
            .append("machine: libfabric's own AVs (the `sockets` provider's named AV, the only one libfabric can share\n")
            .append("between processes, and the `tcp;ofi_rxm` util AV) through a small C harness, and Chronicle Map, a\n")
            .append("map persisted in `/dev/shm` shared by two JVMs. Every figure is a median (see Method). Ratios are\n")
            .append("peer time / shmav time: above 1, shmav is faster.\n\n");

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
        md.append("| target | shmav | compared with | ratio | needed | result |\n|---|---|---|---|---|---|\n");
        for (final Target t : targets)
        {
            md.append("| ").append(t.what()).append(" | ").append(t.shmav()).append(" | ").append(t.peer()).append(" | ")
                .append(Double.isNaN(t.ratio()) ? "-" : String.format(Locale.ROOT, "%.2fx", t.ratio())).append(" | ")
                .append(t.needed()).append(" | ").append(t.pass() ? "PASS" : "**MISS**").append(" |\n");
        }

        final double small = r.get("shmav.insertOneByOne100k.shared");
        final double smallPeer = r.get("sockets_100000.batch_insert");
        md.append("\nThe single-insert target compares one `fi_av_insert` call per address with sockets inserting the\n")
            .append("same addresses in one batch call. Each shmav insert reads a bucket of its hash at a random place\n")
            .append("(").append(hashMegabytes(1_000_000)).append(" at 1,000,000 entries), to find an address already present and keep one entry per\n")
            .append("address, and makes seven atomic updates (handle lock, writer phase, claim, index, publish, change\n")
            .append("counter, free hint) so that several processes can insert at once and a SIGKILL at any instruction\n")
            .append("loses nothing. sockets keeps no index and its writers do not coordinate. At 100,000 entries (hash of\n")
            .append(hashMegabytes(100_000)).append(", in the cache) the same comparison gives ").append(time(small))
            .append(" for shmav (shared, one call per address) against ").append(time(smallPeer))
            .append(" for sockets' batch insert per address: ").append(String.format(Locale.ROOT, "%.2fx", smallPeer / small))
            .append(".\n");
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

        md.append("\n### Multi-process insert throughput\n\n");
        md.append("P writer JVMs insert 250,000 distinct addresses each, one call per address, into one named AV at once.\n\n");
        md.append("| writers P | inserts/s (median of runs) | check after the run |\n|---|---|---|\n");
        for (final int p : new int[] {1, 2, 4})
        {
            md.append("| ").append(p).append(" | ").append(String.format(Locale.ROOT, "%,.0f", r.get("multi.P" + p)))
                .append(" | ").append(r.notes.getOrDefault("multi.P" + p, "?")).append(" |\n");
        }

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
            .append("per iteration) that includes creating the AV, a few kilobytes spread over 1,000,000 inserts. The\n")
            .append("inserting thread's own counter, read around the timed loop, must be 0 bytes in every measurement\n")
            .append("iteration or InsertBench fails the run; this run passed that check.\n");

        md.append("\n## Chart\n\n![](").append(svgName).append(")\n\n");
        md.append("Time per operation, log scale, shorter is faster.\n");

        md.append("\n## Commands\n\n```\nscripts/bench-compare").append(quick ? " --quick" : "").append("\n```\n\n")
            .append("which builds the project and `benchmarks/c/fabric_av_bench.c`, then runs (`$CP`: target/test-classes,\n")
            .append("target/classes and the test classpath):\n\n```\n");
        for (final String c : commands)
        {
            md.append(c).append('\n');
        }
        md.append("```\n");

        md.append("\n## Method\n\n");
        md.append("* Addresses: `struct sockaddr_in`, address i = 10.1.x.y:(1024 + i % 50000), the same bytes on every side.\n")
            .append("* JMH (shmav): medians of the measurement iterations of all forks. Lookups and remove+reinsert are\n")
            .append("  average-time iterations of 1 s; inserts are single-shot iterations that each fill a fresh AV of\n")
            .append("  1,000,000 entries (the AV is created before the timer starts); attach iterations are 200 ms after a GC;\n")
            .append("  awaitCount is a ping-pong between this JVM and a child JVM through two named AVs, the time of one hop.\n")
            .append("* libfabric 1.17 (C harness): each run times a batch insert of 1M, 10 lookup passes over all entries\n")
            .append("  (median pass), remove+reinsert cycles on the full AV (median cycle), FI_READ opens of the named AV\n")
            .append("  (median of 20), and a fresh AV filled one call per address. Figures are medians of 3 runs.\n")
            .append("* Chronicle Map: a writer JVM puts 1M entries into a new map in /dev/shm (median of 10 chunks), a\n")
            .append("  reader JVM opens it and gets every entry (median of 5 passes); both warm up on a scratch map first.\n")
            .append("  Medians of 3 runs.\n")
            .append("* Multi-process: each writer warms up on a private AV, then all start when a go file appears;\n")
            .append("  inserts/s = P x 250,000 / (last end - first start), System.nanoTime of every process (CLOCK_MONOTONIC).\n");
        return md.toString();
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

    private static String bytes(final double b)
    {
        return Double.isNaN(b) ? "-" : b < 0.0005 ? "< 0.001" : String.format(Locale.ROOT, "%.3f", b);
    }

    String summary()
    {
        final StringBuilder s = new StringBuilder("targets:\n");
        for (final Target t : targets)
        {
            s.append(String.format(Locale.ROOT, "  %-5s %-95s %s%n", t.pass() ? "PASS" : "MISS", t.what(),
                Double.isNaN(t.ratio()) ? t.shmav() : String.format(Locale.ROOT, "%.2fx", t.ratio())));
        }
        return s.toString();
    }

    // ------------------------------------------------------------------------------------------ chart

    /** Grouped horizontal bars, log scale: one group per operation, one bar per system measured. */
    String svg()
    {
        final String[][] groups = {
            {"lookup, 1M", "shmav.lookup.shared.1000000", "shmav.lookup.private.1000000", "sockets.lookup", "tcp.lookup", null},
            {"address -> index, 1M", "shmav.reverseLookup.shared.1000000", "shmav.reverseLookup.private.1000000", null,
                null, "chronicle.get"},
            {"insert, one call each", "shmav.insertOneByOne.shared", "shmav.insertOneByOne.private",
                "sockets.single_insert", "tcp.single_insert", "chronicle.put"},
            {"insert, batch of 1M", "shmav.insertBatch.shared", "shmav.insertBatch.private", "sockets.batch_insert",
                "tcp.batch_insert", null},
            {"remove + reinsert, 1M", "shmav.removeThenReinsert.shared.1000000", "shmav.removeThenReinsert.private.1000000",
                "sockets.remove_reinsert", "tcp.remove_reinsert", null},
            {"FI_READ attach, 1M", "shmav.attachReadOnly.1000000", null, "sockets.attach_read", null, null},
        };
        final String[] series = {"shmav shared", "shmav private", "libfabric sockets (named)", "libfabric tcp (util)",
            "Chronicle Map"};
        final String[] colours = {"#1f77b4", "#9ecae1", "#d62728", "#ff9896", "#2ca02c"};
        final int left = 190;
        final int width = 900;
        final int plot = width - left - 90;
        final int bar = 13;
        double min = Double.MAX_VALUE;
        double max = 0;
        for (final String[] g : groups)
        {
            for (int i = 1; i < g.length; i++)
            {
                if (g[i] != null && !Double.isNaN(r.get(g[i])))
                {
                    min = Math.min(min, r.get(g[i]));
                    max = Math.max(max, r.get(g[i]));
                }
            }
        }
        final double lo = Math.pow(10, Math.floor(Math.log10(Math.max(min, 1))));
        final double hi = Math.pow(10, Math.ceil(Math.log10(Math.max(max, 10))));
        final StringBuilder body = new StringBuilder();
        int y = 40;
        for (final String[] g : groups)
        {
            body.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-weight=\"bold\">%s</text>%n",
                left - 8, y + 10, esc(g[0])));
            for (int i = 1; i < g.length; i++)
            {
                if (g[i] == null || Double.isNaN(r.get(g[i])))
                {
                    continue;
                }
                final double v = r.get(g[i]);
                final double w = Math.max(1, plot * (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)));
                body.append(String.format(Locale.ROOT,
                    "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s: %s</title></rect>%n",
                    left, y, w, bar - 2, colours[i - 1], esc(series[i - 1]), time(v)));
                body.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\">%s</text>%n",
                    left + w + 4, y + bar - 4, time(v)));
                y += bar;
            }
            y += 14;
        }
        final int axisY = y;
        final StringBuilder axis = new StringBuilder();
        for (double t = lo; t <= hi * 1.0001; t *= 10)
        {
            final double x = left + plot * (Math.log10(t) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo));
            axis.append(String.format(Locale.ROOT,
                "<line x1=\"%.1f\" y1=\"30\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>%n<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%s</text>%n",
                x, x, axisY, x, axisY + 14, time(t)));
        }
        final StringBuilder legend = new StringBuilder();
        int lx = left;
        for (int i = 0; i < series.length; i++)
        {
            legend.append(String.format(Locale.ROOT,
                "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>%n",
                lx, axisY + 26, colours[i], lx + 14, axisY + 35, esc(series[i])));
            lx += 14 + 7 * series[i].length() + 12;
        }
        final int height = axisY + 50;
        return String.format(Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">%n" +
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n" +
            "<text x=\"%d\" y=\"20\" font-size=\"14\">Time per operation (median, log scale; shorter is faster)</text>%n",
            width, height, left) + axis + body + legend + "</svg>\n";
    }

    private static String esc(final String s)
    {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
