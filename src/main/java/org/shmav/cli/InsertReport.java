package org.shmav.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.shmav.AvType;
import org.shmav.FiErrno;

/** What {@code shmav insert} did with each address, printed as text or JSON. */
final class InsertReport
{
    /** What became of one address. */
    enum Result
    {
        inserted, present, failed
    }

    /** One address: where it was given ("line 3", or null for an argument), its text, and what happened. */
    private record Outcome(String where, String text, Result result, long fiAddr, int errno)
    {
    }

    private final String name;
    private final AvType type;
    private final List<Outcome> outcomes = new ArrayList<>();
    private final Map<Long, Long> refs = new LinkedHashMap<>();
    private long count;
    private int failed;
    private boolean full;

    InsertReport(final String name, final AvType type)
    {
        this.name = name;
        this.type = type;
    }

    void succeeded(final String where, final String text, final long fiAddr, final boolean present)
    {
        outcomes.add(new Outcome(where, text, present ? Result.present : Result.inserted, fiAddr, 0));
        refs.put(fiAddr, null);
    }

    void failed(final String where, final String text, final int errno)
    {
        outcomes.add(new Outcome(where, text, Result.failed, -1, errno));
        failed++;
        full |= errno == FiErrno.ENOSPC;
    }

    /** Reads the references each entry holds now, after the inserts (from {@code file}, read-only). */
    void readRefs(final Path file)
    {
        final long[] fiAddrs = refs.keySet().stream().mapToLong(Long::longValue).toArray();
        final AvSnapshot.Entry[] entries = EntriesAt.read(file, fiAddrs);
        for (int i = 0; i < fiAddrs.length; i++)
        {
            refs.put(fiAddrs[i], entries[i] == null ? null : entries[i].refs());
        }
    }

    void count(final long count)
    {
        this.count = count;
    }

    int failed()
    {
        return failed;
    }

    /** True when an address failed with FI_ENOSPC: the AV may not grow further, or its file system is full. */
    boolean full()
    {
        return full;
    }

    /** One line per address (only failures, at most {@code listed}, when {@code quiet}), then the summary. */
    void print(final PrintWriter out, final boolean quiet, final int listed)
    {
        int shown = 0;
        for (final Outcome o : outcomes)
        {
            if (quiet && (o.result() != Result.failed || shown++ >= listed))
            {
                continue;
            }
            out.println((o.where() != null ? o.where() + ": " : "") + o.text() + ": " + describe(o));
        }
        if (quiet && failed > listed)
        {
            out.println("... and " + (failed - listed) + " more failed");
        }
        out.printf("AV '%s': %d inserted, %d already present, %d failed (of %d address%s); count now %d%n", name,
            number(Result.inserted), number(Result.present), failed, outcomes.size(), outcomes.size() == 1 ? "" : "es",
            count);
    }

    private String describe(final Outcome o)
    {
        final String at = "at fi_addr " + EntriesAt.text(type, o.fiAddr());
        final Long r = refs.get(o.fiAddr());
        switch (o.result())
        {
            case inserted: return "inserted " + at;
            case present: return "already present " + at + (r != null ? ", refs " + r : "") + " (one more reference)";
            default: return "failed: " + FiErrno.name(o.errno()) + " (" + FiErrno.strerror(o.errno()) + ")";
        }
    }

    private long number(final Result result)
    {
        return outcomes.stream().filter(o -> o.result() == result).count();
    }

    /** The {@code insert --json} document (docs/cli.md, JSON output: one schema per command). */
    Map<String, Object> toJson(final Path directory)
    {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("av", name);
        m.put("directory", directory.toString());
        final List<Object> list = new ArrayList<>();
        for (final Outcome o : outcomes)
        {
            final Map<String, Object> a = new LinkedHashMap<>();
            a.put("input", o.text());
            a.put("line", o.where() != null ? Integer.valueOf(o.where().substring("line ".length())) : null);
            a.put("result", o.result().name());
            a.put("fiAddr", o.result() == Result.failed ? null : o.fiAddr());
            a.put("refs", o.result() == Result.failed ? null : refs.get(o.fiAddr()));
            a.put("error", o.result() == Result.failed ? FiErrno.name(o.errno()) : null);
            a.put("errno", o.result() == Result.failed ? o.errno() : null);
            list.add(a);
        }
        m.put("addresses", list);
        m.put("inserted", number(Result.inserted));
        m.put("present", number(Result.present));
        m.put("failed", failed);
        m.put("full", full);
        m.put("count", count);
        return m;
    }
}
