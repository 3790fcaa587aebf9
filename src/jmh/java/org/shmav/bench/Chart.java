package org.shmav.bench;

import java.util.Locale;

/**
 * docs/benchmarks.svg: the medians of the results table as grouped bars, log scale: one group per
 * operation, one bar per system measured on it (shmav private and shared, libfabric's sockets and tcp
 * AVs, Chronicle Map, and for lookup the C seqlock read of 64- and 32-byte slots), the figure of the
 * fastest of shmav and its peers in bold, so that one sees per operation who is faster (the C loops are
 * the physical limit, a reference rather than a contender).
 */
final class Chart
{
    private final Results r;

    Chart(final Results results)
    {
        this.r = results;
    }

    /** Grouped horizontal bars, log scale: one group per operation, one bar per system measured. */
    String svg()
    {
        // Per group: its label, then the key of each series (null: not measured for this operation).
        final String[][] groups = {
            {"lookup, 1M", "shmav.lookup.private.1000000", "shmav.lookup.shared.1000000", "sockets.lookup", "tcp.lookup", null,
                "limit.lookup_64", "limit.lookup_32"},
            {"address -> index, 1M", "shmav.reverseLookup.private.1000000", "shmav.reverseLookup.shared.1000000", null,
                null, "chronicle.get", null, null},
            {"insert, one call each", "shmav.insertOneByOne.private", "shmav.insertOneByOne.shared",
                "sockets.single_insert", "tcp.single_insert", "chronicle.put", null, null},
            {"insert, batch of 1M", "shmav.insertBatch.private", "shmav.insertBatch.shared", "sockets.batch_insert",
                "tcp.batch_insert", null, null, null},
            {"remove + reinsert, 1M", "shmav.removeThenReinsert.private.1000000", "shmav.removeThenReinsert.shared.1000000",
                "sockets.remove_reinsert", "tcp.remove_reinsert", null, null, null},
            {"FI_READ attach, 1M", null, "shmav.attachReadOnly.1000000", "sockets.attach_read", null, null, null, null},
        };
        final String[] series = {"shmav private", "shmav shared", "libfabric sockets (named)", "libfabric tcp (util)",
            "Chronicle Map", "C seqlock read, 64-byte slots", "C seqlock read, 32-byte slots"};
        final String[] colours = {"#9ecae1", "#1f77b4", "#d62728", "#ff9896", "#2ca02c", "#636363", "#bdbdbd"};
        final int firstReference = 6;  // series from this group column on are the physical limit, never "fastest"
        final int left = 190;
        final int width = 1000;
        final int plot = width - left - 240;  // room right of the longest bar for its figure and series name
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
            double fastest = Double.MAX_VALUE;
            for (int i = 1; i < firstReference; i++)
            {
                if (g[i] != null && !Double.isNaN(r.get(g[i])))
                {
                    fastest = Math.min(fastest, r.get(g[i]));
                }
            }
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
                    left, y, w, bar - 2, colours[i - 1], esc(series[i - 1]), Report.time(v)));
                body.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\"%s>%s %s</text>%n",
                    left + w + 4, y + bar - 4, i < firstReference && v == fastest ? " font-weight=\"bold\"" : "", Report.time(v),
                    esc(series[i - 1])));
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
                "<line x1=\"%.1f\" y1=\"30\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>%n<text x=\"%.1f\" y=\"%d\" " +
                    "font-size=\"10\" text-anchor=\"middle\">%s</text>%n",
                x, x, axisY, x, axisY + 14, Report.time(t)));
        }
        final StringBuilder legend = new StringBuilder();
        int lx = left;
        int ly = axisY + 26;
        for (int i = 0; i < series.length; i++)
        {
            final int length = 14 + 7 * series[i].length() + 12;
            if (lx + length > width && lx > left)
            {
                lx = left;
                ly += 16;
            }
            legend.append(String.format(Locale.ROOT,
                "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>%n",
                lx, ly, colours[i], lx + 14, ly + 9, esc(series[i])));
            lx += length;
        }
        final int height = ly + 24;
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
