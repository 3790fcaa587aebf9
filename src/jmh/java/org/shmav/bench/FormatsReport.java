package org.shmav.bench;

import java.util.Locale;

/**
 * The page's "Address formats" section: FormatsBench's lookup and one-call-per-address insert for
 * FI_SOCKADDR_IN (16 bytes), FI_ADDR_EFA (32) and opaque addresses of 256 bytes, private and shared,
 * with each format's time as a ratio of FI_SOCKADDR_IN's measured in the same JMH run. Stateless.
 */
final class FormatsReport
{
    /** The formats FormatsBench measures, as its {@code format} parameter names them, and their bytes and slot bytes. */
    private static final String[] FORMATS = {"in", "efa", "opaque256"};
    private static final String[] SHOWN = {"FI_SOCKADDR_IN, 16 B (64-byte slots)", "FI_ADDR_EFA, 32 B (64-byte slots)",
        "opaque, 256 B (320-byte slots)"};

    private FormatsReport()
    {
    }

    /** Appends the section; nothing when the run has no FormatsBench figures. */
    static void section(final Results r, final StringBuilder md)
    {
        if (Double.isNaN(r.get("shmav.lookup.shared.in")))
        {
            return;
        }
        md.append("\n### Address formats\n\n");
        md.append("The cost of an address's size (`FormatsBench`, 1,000,000 entries, one JMH run: the ratios compare\n")
            .append("figures taken minutes apart under the same load). The peers store socket addresses only\n")
            .append("(sockets and tcp take FI_SOCKADDR_IN and _IN6, Chronicle Map what it is given), so these rows have\n")
            .append("no peer. Goal: a 32-byte lookup within 1.2x of a 16-byte one, and cost growing with the bytes moved.\n\n");
        md.append("| operation | AV | ").append(String.join(" | ", SHOWN)).append(" | 32 B / 16 B | 256 B / 16 B |\n")
            .append("|---|---|---|---|---|---|---|\n");
        for (final String op : new String[] {"lookup", "insertOneByOne"})
        {
            for (final String av : new String[] {BenchAvs.PRIVATE, BenchAvs.SHARED})
            {
                md.append("| ").append(op.equals("lookup") ? "lookup (fi_addr -> address)" : "insert, one call per address, 1M")
                    .append(" | ").append(av).append(" |");
                final double in = r.get(key(op, av, "in"));
                for (final String f : FORMATS)
                {
                    md.append(' ').append(Report.time(r.get(key(op, av, f)))).append(" |");
                }
                md.append(' ').append(ratio(r.get(key(op, av, "efa")) / in)).append(" | ")
                    .append(ratio(r.get(key(op, av, "opaque256")) / in)).append(" |\n");
            }
        }
    }

    /** Jmh's key: method, then the parameters in name order (av, format). */
    private static String key(final String op, final String av, final String format)
    {
        return "shmav." + op + "." + av + "." + format;
    }

    private static String ratio(final double x)
    {
        return Double.isNaN(x) ? "-" : String.format(Locale.ROOT, "%.2fx", x);
    }
}
