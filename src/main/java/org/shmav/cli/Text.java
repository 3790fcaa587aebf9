package org.shmav.cli;

import java.io.PrintWriter;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/** Plain-text output helpers: aligned tables, ages, sizes, times. */
final class Text
{
    private static final DateTimeFormatter TIME =
        DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneId.systemDefault());

    private Text()
    {
    }

    /** "42s", "5m", "3h", "2d": how long ago {@code millis} was. */
    static String age(final long millis, final long now)
    {
        final long s = Math.max(0, (now - millis) / 1000);
        if (s < 120)
        {
            return s + "s";
        }
        if (s < 2 * 3600)
        {
            return s / 60 + "m";
        }
        if (s < 2 * 86400)
        {
            return s / 3600 + "h";
        }
        return s / 86400 + "d";
    }

    /** {@code n} and the noun for it: "1 entry", "2 entries", "0 entries". */
    static String count(final long n, final String one, final String many)
    {
        return n + " " + (n == 1 ? one : many);
    }

    /** "81920" below 1 MiB, else "4.1M". */
    static String size(final long bytes)
    {
        return bytes < 1 << 20 ? Long.toString(bytes) : String.format("%.1fM", bytes / (double)(1 << 20));
    }

    /** Local date and time of {@code millis}, to the second; "-" for 0. */
    static String time(final long millis)
    {
        return millis == 0 ? "-" : TIME.format(Instant.ofEpochMilli(millis));
    }

    /** A table whose columns are padded to their widest cell; the last column is not padded. */
    static final class Table
    {
        private final List<String[]> rows = new ArrayList<>();

        Table(final String... header)
        {
            rows.add(header);
        }

        Table row(final Object... cells)
        {
            final String[] r = new String[cells.length];
            for (int i = 0; i < cells.length; i++)
            {
                r[i] = String.valueOf(cells[i]);
            }
            rows.add(r);
            return this;
        }

        void print(final PrintWriter out, final String indent)
        {
            final int columns = rows.get(0).length;
            final int[] width = new int[columns];
            for (final String[] r : rows)
            {
                // the last cell of a short row runs on to the end of the line and sets no width
                final int sized = r.length < columns ? r.length - 1 : columns;
                for (int c = 0; c < sized; c++)
                {
                    width[c] = Math.max(width[c], r[c].length());
                }
            }
            for (final String[] r : rows)
            {
                final StringBuilder line = new StringBuilder(indent);
                for (int c = 0; c < r.length; c++)
                {
                    line.append(c + 1 < r.length && c < columns ? pad(r[c], width[c]) + "  " : r[c]);
                }
                out.println(line.toString().stripTrailing());
            }
        }

        private static String pad(final String s, final int width)
        {
            return s.length() >= width ? s : s + " ".repeat(width - s.length());
        }
    }
}
