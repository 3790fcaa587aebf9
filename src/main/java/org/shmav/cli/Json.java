package org.shmav.cli;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The little JSON every command prints with {@code --json}: maps (in insertion order), lists,
 * strings, numbers, booleans and null. Enough for scripts and {@code jq}; no dependency for it.
 */
final class Json
{
    private Json()
    {
    }

    static String write(final Object value)
    {
        final StringBuilder b = new StringBuilder();
        write(b, value, "");
        return b.toString();
    }

    /** {@code value} on one line, for streams of JSON objects (JSON Lines). */
    static String writeLine(final Object value)
    {
        final StringBuilder b = new StringBuilder();
        write(b, value, null);
        return b.toString();
    }

    /** Writes {@code value}; {@code indent} null writes it all on one line. */
    private static void write(final StringBuilder b, final Object value, final String indent)
    {
        if (value == null)
        {
            b.append("null");
        }
        else if (value instanceof Map<?, ?> map)
        {
            writeMap(b, map, indent);
        }
        else if (value instanceof List<?> list)
        {
            writeList(b, list, indent);
        }
        else if (value instanceof Number || value instanceof Boolean)
        {
            b.append(value);
        }
        else
        {
            string(b, value.toString());
        }
    }

    private static void writeMap(final StringBuilder b, final Map<?, ?> map, final String indent)
    {
        if (map.isEmpty())
        {
            b.append("{}");
            return;
        }
        b.append(indent == null ? "{" : "{\n");
        final Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator();
        while (it.hasNext())
        {
            final Map.Entry<?, ?> e = it.next();
            b.append(indent == null ? "" : indent + "  ");
            string(b, String.valueOf(e.getKey()));
            b.append(": ");
            write(b, e.getValue(), indent == null ? null : indent + "  ");
            b.append(it.hasNext() ? (indent == null ? ", " : ",\n") : (indent == null ? "" : "\n"));
        }
        b.append(indent == null ? "" : indent).append('}');
    }

    private static void writeList(final StringBuilder b, final List<?> list, final String indent)
    {
        if (list.isEmpty())
        {
            b.append("[]");
            return;
        }
        b.append(indent == null ? "[" : "[\n");
        for (int i = 0; i < list.size(); i++)
        {
            b.append(indent == null ? "" : indent + "  ");
            write(b, list.get(i), indent == null ? null : indent + "  ");
            b.append(i + 1 < list.size() ? (indent == null ? ", " : ",\n") : (indent == null ? "" : "\n"));
        }
        b.append(indent == null ? "" : indent).append(']');
    }

    private static void string(final StringBuilder b, final String s)
    {
        b.append('"');
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            switch (c)
            {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                default:
                    if (c < 0x20)
                    {
                        b.append(String.format("\\u%04x", (int)c));
                    }
                    else
                    {
                        b.append(c);
                    }
            }
        }
        b.append('"');
    }
}
