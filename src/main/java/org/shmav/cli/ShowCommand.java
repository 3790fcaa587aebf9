package org.shmav.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import org.shmav.AvType;
import org.shmav.Fi;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code shmav show NAME}: one AV's header, attachers and entries, from a read-only mapping. */
@Command(name = "show", description = "Shows one AV: header, attachers, and every entry (fi_addr, address, " +
    "user id, references).")
final class ShowCommand extends AvCommand implements Callable<Integer>
{
    @Parameters(paramLabel = "NAME", description = "the AV's name")
    private String name;

    @Option(names = "--json", description = "print JSON (schema in docs/cli.md) instead of text")
    private boolean json;

    @Override
    public Integer call()
    {
        final AvDirectory dir = directory();
        final Path file = dir.existingFileOf(name);
        final AvSnapshot s = AvSnapshot.read(name, file, AvDirectory.openReadOnly(file));
        if (json)
        {
            out().println(Json.write(fullJson(s)));
        }
        else
        {
            print(s);
        }
        return ExitCode.OK.code;
    }

    private void print(final AvSnapshot s)
    {
        final long now = System.currentTimeMillis();
        out().printf("AV '%s' (%s)%n", s.name(), s.file());
        out().printf("  type %s (%s), format %s (%s, %s%d bytes), capacity %d, count %d%n", s.typeName(),
            s.layout().avType().fiName(), s.formatName(), s.layout().addrFormat().fiName(),
            s.layout().shape().varying() ? "up to " : "", s.layout().addrLen(), s.layout().capacity(), s.count());
        out().printf("  segments %d (created with %s, grows to at most %d)%n", s.layout().segments(),
            Text.count(s.layout().firstCapacity(), "slot", "slots"), s.layout().maxCapacity());
        out().printf("  layout %d.%d, %d bytes, created %s (%s ago) by pid %d, %s%s%n", s.version() >>> 16,
            s.version() & 0xFFFF, s.layout().fileLength(), Text.time(s.createdMillis()), Text.age(s.createdMillis(), now),
            s.creatorPid(), Text.count(s.changes(), "change", "changes"), s.layout().avType() == AvType.MAP ?
                String.format(", map_addr base 0x%x", s.mapAddrBase()) : "");
        out().printf("  attachers: %d live, %d dead%n", s.liveAttachers(), s.deadAttachers());
        out().printf("  this JVM's locks in lock files: %s%n", org.shmav.shm.AvFileChannel.lockKind());
        final Text.Table attachers = new Text.Table("ENTRY", "PID", "PROCESS", "ATTACHED");
        s.attachers().stream().filter(AvSnapshot.Attacher::occupied).forEach(a -> attachers.row(a.index(), a.pid(),
            a.alive() ? "live" : "dead", Text.time(a.attachedMillis())));
        if (s.liveAttachers() + s.deadAttachers() > 0)
        {
            attachers.print(out(), "    ");
        }
        s.inFlight().forEach(f -> out().printf("  slot %d is %s by attacher entry %d (an insert or removal in " +
            "progress, or abandoned: shmav gc repairs it)%n", f.index(), f.state(), f.owner()));
        if (s.entries().isEmpty())
        {
            out().println("  no entries");
            return;
        }
        // An AV with auth keys may hold one address once per key: the AUTH_KEY column tells them apart.
        final boolean keys = s.layout().authKeysCapacity() > 0;
        final Text.Table entries = keys ? new Text.Table("FI_ADDR", "ADDRESS", "AUTH_KEY", "USER_ID", "REFS")
            : new Text.Table("FI_ADDR", "ADDRESS", "USER_ID", "REFS");
        for (final AvSnapshot.Entry e : s.entries())
        {
            final String userId = e.userId() == Fi.ADDR_NOTAVAIL ? "-" : Long.toString(e.userId());
            if (keys)
            {
                entries.row(fiAddrText(s, e), e.address(), e.authKey() < 0 ? "-" : Long.toString(e.authKey()), userId,
                    e.refs());
            }
            else
            {
                entries.row(fiAddrText(s, e), e.address(), userId, e.refs());
            }
        }
        entries.print(out(), "");
    }

    private static String fiAddrText(final AvSnapshot s, final AvSnapshot.Entry e)
    {
        return s.layout().avType() == AvType.MAP ? String.format("0x%x", e.fiAddr()) : Long.toString(e.fiAddr());
    }

    /** The fields {@code ls --json} prints per AV. */
    static Map<String, Object> summaryJson(final AvSnapshot s)
    {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", s.name());
        m.put("valid", true);
        m.put("file", s.file().toString());
        m.put("type", s.typeName());
        m.put("format", s.formatName());
        m.put("capacity", s.layout().capacity());
        m.put("segments", s.layout().segments());
        m.put("maxCapacity", s.layout().maxCapacity());
        m.put("count", s.count());
        m.put("liveAttachers", s.liveAttachers());
        m.put("deadAttachers", s.deadAttachers());
        m.put("sizeBytes", s.layout().fileLength());
        m.put("createdMillis", s.createdMillis());
        m.put("ageSeconds", Math.max(0, (System.currentTimeMillis() - s.createdMillis()) / 1000));
        return m;
    }

    private static Map<String, Object> fullJson(final AvSnapshot s)
    {
        final Map<String, Object> m = summaryJson(s);
        m.put("layoutVersion", (s.version() >>> 16) + "." + (s.version() & 0xFFFF));
        m.put("mapAddrBase", s.mapAddrBase());
        m.put("creatorPid", s.creatorPid());
        m.put("changes", s.changes());
        final List<Object> attachers = new ArrayList<>();
        for (final AvSnapshot.Attacher a : s.attachers())
        {
            if (a.occupied())
            {
                final Map<String, Object> am = new LinkedHashMap<>();
                am.put("entry", a.index());
                am.put("pid", a.pid());
                am.put("alive", a.alive());
                am.put("attachedMillis", a.attachedMillis());
                attachers.add(am);
            }
        }
        m.put("attachers", attachers);
        final List<Object> entries = new ArrayList<>();
        for (final AvSnapshot.Entry e : s.entries())
        {
            final Map<String, Object> em = new LinkedHashMap<>();
            em.put("fiAddr", e.fiAddr());
            em.put("address", e.address());
            em.put("userId", e.userId() == Fi.ADDR_NOTAVAIL ? null : e.userId());
            em.put("authKey", e.authKey() < 0 ? null : e.authKey());
            em.put("refs", e.refs());
            entries.add(em);
        }
        m.put("entries", entries);
        final List<Object> inFlight = new ArrayList<>();
        s.inFlight().forEach(f -> inFlight.add(Map.of("slot", f.index(), "state", f.state(), "owner", f.owner())));
        m.put("inFlight", inFlight);
        return m;
    }
}
