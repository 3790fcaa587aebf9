package org.shmav.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import org.shmav.AvType;
import org.shmav.FabricException;
import org.shmav.slots.Region;
import org.shmav.shm.SlotDescriptor;
import org.shmav.slots.SlotTable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code shmav watch NAME}: prints inserts and removals as they happen. It polls the AV's change
 * counter (bumped by every publish and removal) through a read-only mapping and, when it moved, diffs
 * the slot table against what it saw last; a slot that was removed and reused between two polls has a
 * new generation, so it shows as a removal and an insert.
 */
@Command(name = "watch", description = "Prints inserts (+) and removals (-) of an AV as they happen, until " +
    "--duration passes, the AV is removed, or Ctrl-C.")
final class WatchCommand extends AvCommand implements Callable<Integer>
{
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

    @Parameters(paramLabel = "NAME", description = "the AV's name")
    private String name;

    @Option(names = "--duration", paramLabel = "S", description = "stop after S seconds (default: run until Ctrl-C)")
    private double durationSeconds;

    @Option(names = "--interval", paramLabel = "MS", description = "poll every MS milliseconds (default: ${DEFAULT-VALUE})")
    private long intervalMillis = 50;

    @Option(names = "--json", description = "print one JSON object per event and line (schema in docs/cli.md)")
    private boolean json;

    private final Map<Long, AvSnapshot.Entry> seen = new HashMap<>();

    @Override
    public Integer call() throws InterruptedException
    {
        if (intervalMillis < 1 || durationSeconds < 0)
        {
            throw new CliException(ExitCode.USAGE, "--interval must be >= 1 and --duration >= 0");
        }
        final AvDirectory dir = directory();
        final Path file = dir.existingFileOf(name);
        final Object fileKey = fileKey(file);
        Region region = AvDirectory.openReadOnly(file);
        try
        {
            return watch(file, fileKey, region);
        }
        finally
        {
            region.detach(); // once: the views that follow() makes share the first one's file use
        }
    }

    private int watch(final Path file, final Object fileKey, final Region first) throws InterruptedException
    {
        Region region = first;
        long changes = region.table().changes();
        long count = region.table().count();
        diff(region, false);
        if (json)
        {
            event("watching", Map.of("entries", seen.size(), "changes", changes));
        }
        else
        {
            out().printf("watching AV '%s': %s, change counter %d%s%n", name, Text.count(seen.size(), "entry", "entries"), changes,
                durationSeconds > 0 ? ", for " + durationSeconds + " s" : "; Ctrl-C stops");
        }
        out().flush();
        final long deadline = durationSeconds > 0 ? System.nanoTime() + (long)(durationSeconds * 1e9) : Long.MAX_VALUE;
        while (System.nanoTime() - deadline < 0)
        {
            Thread.sleep(intervalMillis);
            // Read before the scan: a change during it is seen next time. The count moves when readers see
            // an entry come or go; the change counter only when its writer counts it, which a writer
            // stopped right after its commit or its removal's CAS has not done yet.
            final long now = region.table().changes();
            final long entries = region.table().count();
            if (now != changes || entries != count)
            {
                changes = now;
                count = entries;
                try
                {
                    region = region.follow(name); // the AV may have grown: see its new segments
                }
                catch (final FabricException e)
                {
                    throw e.in("shmav watch");
                }
                diff(region, true);
            }
            if (!fileKey.equals(fileKey(file)))
            {
                if (json)
                {
                    event("removedAv", Map.of());
                }
                else
                {
                    out().println(clock() + " AV '" + name + "' was removed");
                }
                break;
            }
        }
        out().flush();
        return ExitCode.OK.code;
    }

    /** Compares every slot with what was seen last; prints the differences when {@code report}. */
    private void diff(final Region region, final boolean report)
    {
        final SlotTable table = region.table();
        final ByteBuffer addr = ByteBuffer.allocate(region.layout().addrLen());
        for (long i = 0; i < region.layout().capacity(); i++)
        {
            final long word = table.stateWord(i);
            final boolean valid = SlotDescriptor.isEntry(word); // committed or VALID: an entry to every reader
            final AvSnapshot.Entry before = seen.get(i);
            if (before != null && (!valid || before.generation() != SlotDescriptor.generation(word)))
            {
                seen.remove(i);
                print(report, "-", region, before);
            }
            if (valid && !seen.containsKey(i))
            {
                final AvSnapshot.Entry now = AvSnapshot.entry(region, i, word, addr);
                if (now != null)
                {
                    seen.put(i, now);
                    print(report, "+", region, now);
                }
            }
        }
        out().flush();
    }

    private void print(final boolean report, final String sign, final Region region, final AvSnapshot.Entry e)
    {
        if (report && json)
        {
            event(sign.equals("+") ? "insert" : "remove", Map.of("fiAddr", e.fiAddr(), "address", e.address()));
        }
        else if (report)
        {
            final String fiAddr = region.layout().avType() == AvType.MAP ? String.format("0x%x", e.fiAddr())
                : Long.toString(e.fiAddr());
            out().println(clock() + " " + sign + " fi_addr " + fiAddr + " " + e.address());
        }
    }

    /**
     * One line of {@code watch --json} (JSON Lines: one object per line, so that a consumer can act on
     * each event as it comes): {@code time}, {@code av}, {@code event} and the event's fields.
     */
    private void event(final String event, final Map<String, Object> fields)
    {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("time", java.time.Instant.now().toString());
        m.put("av", name);
        m.put("event", event);
        m.putAll(new java.util.TreeMap<>(fields));
        out().println(Json.writeLine(m));
    }

    private static String clock()
    {
        return CLOCK.format(LocalTime.now());
    }

    /** The file's identity (device and inode), or "gone": a new AV of the same name is another file. */
    private static Object fileKey(final Path file)
    {
        try
        {
            final Object key = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
            return key != null ? key : "unknown";
        }
        catch (final IOException e)
        {
            return "gone";
        }
    }
}
