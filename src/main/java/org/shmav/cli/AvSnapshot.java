package org.shmav.cli;

import static org.shmav.shm.AvFileDescriptor.*;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.shmav.Addresses;
import org.shmav.Fi;
import org.shmav.shm.AttacherDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Memory;
import org.shmav.shm.AvFileLocks;
import org.shmav.shm.Liveness;
import org.shmav.slots.Region;
import org.shmav.shm.SlotDescriptor;
import org.shmav.slots.SlotTable;

/**
 * What one AV file holds at one moment, read through a read-only mapping: its header, its attachers
 * (with whether each process still runs) and its entries. Entries are read with the slot table's
 * seqlock lookup, so each one is untorn; the snapshot as a whole is not atomic while writers run.
 */
record AvSnapshot(
    String name,
    Path file,
    AvLayout layout,
    int version,
    long mapAddrBase,
    long createdMillis,
    long creatorPid,
    long changes,
    long count,
    List<Attacher> attachers,
    List<Entry> entries,
    List<InFlight> inFlight,
    boolean readers)
{
    /** One used attacher entry: a process that has (or had) the AV open for writing. */
    record Attacher(int index, long pid, long startMillis, long attachedMillis, boolean occupied, boolean alive)
    {
    }

    /** One VALID slot. {@code userId} is {@link Fi#ADDR_NOTAVAIL} when unset. */
    record Entry(long index, long fiAddr, long generation, String address, long userId, long refs, long authKey)
    {
    }

    /** A slot in the middle of an insert or a removal, with the attacher entry that owns it. */
    record InFlight(long index, String state, int owner)
    {
    }

    /**
     * Reads {@code region} (mapped from {@code file}) now, then detaches it: a tool's region holds one
     * use of the JVM's open file, which a long-lived JVM running commands would otherwise keep forever.
     */
    static AvSnapshot read(final String name, final Path file, final Region region)
    {
        try
        {
            return snapshot(name, file, region);
        }
        finally
        {
            region.detach();
        }
    }

    private static AvSnapshot snapshot(final String name, final Path file, final Region region)
    {
        final Memory m = region.memory();
        final AvLayout layout = region.layout();
        final SlotTable table = region.table();
        final List<Entry> entries = new ArrayList<>();
        final List<InFlight> inFlight = new ArrayList<>();
        final ByteBuffer addr = ByteBuffer.allocate(layout.addrLen());
        for (long i = 0; i < layout.capacity(); i++)
        {
            final long word = table.stateWord(i);
            final int state = SlotDescriptor.state(word);
            if (state != SlotDescriptor.FREE && state != SlotDescriptor.VALID)
            {
                inFlight.add(new InFlight(i, SlotDescriptor.stateName(state), (int)SlotDescriptor.payload(word)));
            }
            if (!SlotDescriptor.isEntry(word)) // a committed slot is an entry, as to every reader and the count
            {
                continue;
            }
            final Entry e = entry(region, i, word, addr);
            if (e != null)
            {
                entries.add(e);
            }
        }
        return new AvSnapshot(name, file, layout, m.getIntAcquire(VERSION_OFFSET), m.getLong(MAP_ADDR_BASE_OFFSET),
            m.getLong(CREATED_MILLIS_OFFSET), m.getLong(CREATOR_PID_OFFSET), table.changes(), count(table, entries),
            attachers(m, layout, region.liveness()), entries, inFlight, readersPresent(region));
    }

    /** The count; a journal naming a slot of a growth this snapshot did not map: the entries it found. */
    private static long count(final SlotTable table, final List<Entry> entries)
    {
        final long count = table.count();
        return count == SlotTable.STALE_VIEW ? entries.size() : count;
    }

    /** The entry at slot {@code i} (committed or VALID), or null when it went away while being read. */
    static Entry entry(final Region region, final long i, final long word, final ByteBuffer addr)
    {
        final SlotTable table = region.table();
        addr.clear();
        final int len = table.lookup(i, addr);
        final long[] userId = new long[1];
        if (len < 0 || !table.userId(i, userId))
        {
            return null;
        }
        addr.limit(len);
        final String text = Addresses.text(region.layout().addrFormat(), addr);
        final long fiAddr = region.layout().avType() == org.shmav.AvType.MAP ? region.storedMapBase() + i : i;
        final long refs = SlotDescriptor.state(word) == SlotDescriptor.VALID ? SlotDescriptor.payload(word) : 1; // committed: its owner's
        final long authKey = table.authKeyOf(i); // the index of the auth key the entry is bound to, -1 for none
        return new Entry(i, fiAddr, SlotDescriptor.generation(word), text, userId[0], refs,
            authKey == Long.MIN_VALUE ? -1 : authKey);
    }

    private static List<Attacher> attachers(final Memory m, final AvLayout layout, final Liveness liveness)
    {
        final long highWater = Math.min(m.getLongAcquire(ATTACHERS_HIGH_WATER_OFFSET), layout.attachersCapacity());
        final List<Attacher> list = new ArrayList<>();
        for (int a = 0; a < highWater; a++)
        {
            final int at = layout.attacher(a);
            final long token = m.getLongAcquire(at + AttacherDescriptor.TOKEN_OFFSET);
            final boolean occupied = token != 0;
            // the kernel's answer: the owner (or a recoverer settling the entry) holds the entry's lock
            final boolean alive = occupied && liveness.isHeld(a);
            list.add(new Attacher(a, m.getLong(at + AttacherDescriptor.PID_OFFSET),
                m.getLong(at + AttacherDescriptor.START_MILLIS_OFFSET),
                m.getLong(at + AttacherDescriptor.ATTACHED_MILLIS_OFFSET), occupied, alive));
        }
        return list;
    }

    /**
     * Whether an FI_READ reader has the AV open: readers hold a shared lock on the readers' byte, and an
     * exclusive test lock fails while one does. True also when it cannot be told (no write access).
     */
    private static boolean readersPresent(final Region region)
    {
        return region.file() != null &&
            region.file().locks().probeExclusive(READERS_LOCK_OFFSET, 1) == AvFileLocks.Probe.HELD;
    }

    /** True while a live process (writer or FI_READ reader) has the AV open. */
    boolean inUse()
    {
        return liveAttachers() > 0 || readers;
    }

    /** Attacher entries held by running processes. */
    long liveAttachers()
    {
        return attachers.stream().filter(Attacher::alive).count();
    }

    /** Attacher entries still held by processes that are gone (recoverable by {@code shmav gc}). */
    long deadAttachers()
    {
        return attachers.stream().filter(a -> a.occupied() && !a.alive()).count();
    }

    /** Slots CLAIMED, PUBLISHING, CANCELLED or REMOVING by an attacher entry whose process is gone. */
    long abandonedSlots()
    {
        return inFlight.stream().filter(f -> f.owner() >= attachers.size() || !attachers.get(f.owner()).alive()).count();
    }

    /** The latest of the creation time and every attach time: when the AV was last joined. */
    long lastActivityMillis()
    {
        return attachers.stream().mapToLong(Attacher::attachedMillis).reduce(createdMillis, Math::max);
    }

    String typeName()
    {
        return CliNames.typeName(layout.avType());
    }

    String formatName()
    {
        return CliNames.formatName(layout.addrFormat());
    }
}
