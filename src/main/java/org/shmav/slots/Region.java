package org.shmav.slots;

import static org.shmav.shm.AvFileDescriptor.*;

import java.nio.ByteBuffer;
import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.shm.AttacherDescriptor;
import org.shmav.shm.AvFileChannel;
import org.shmav.shm.AvLayout;
import org.shmav.shm.AvLockFile;
import org.shmav.shm.Liveness;
import org.shmav.shm.Memory;
import org.shmav.shm.SegmentFile;
import org.shmav.shm.SharedAvFile;

/**
 * One AV region as this process sees it: its memory, slot table, auth keys, how this process tells
 * live writers from dead ones ({@link Liveness}), and, for a writable region, this process's attacher
 * entry. A private AV's region is plain process memory; a named AV's is a mapped file
 * ({@link SharedAvFile}), whose open file this region keeps until {@link #detach}.
 */
public final class Region
{
    /** What this process does with a named AV's region. */
    public enum Role
    {
        /** Inserts and removes: takes an attacher entry and keeps its lock. */
        WRITER,
        /** FI_READ: holds a shared lock on the readers' byte, so that tools see it. */
        READER,
        /** A tool that only reads (shmav ls, show, dump, watch): leaves no trace. */
        TOOL
    }

    private final Memory memory;
    /** Where this process first mapped each part of the file (a migration reads through them). */
    private final FirstViews firstViews;
    private final AvLayout layout;
    private final Liveness liveness;
    private final SlotTable table;
    private final AuthKeyTable authKeys;
    private final Writer writer;
    private final AvFileChannel file;
    /** This JVM's open lock file of a named AV ({@link AvLockFile}): writers' locks; null when it cannot be opened. */
    private final AvFileChannel locks;
    private final boolean reader;
    private final boolean readOnly;

    private Region(final Memory memory, final AvLayout layout, final Liveness liveness, final AvFileChannel file,
        final AvFileChannel locks, final Role role)
    {
        this.memory = memory;
        this.firstViews = FirstViews.of(memory);
        this.layout = layout;
        this.liveness = liveness;
        this.table = new SlotTable(memory, layout, liveness, firstViews);
        this.authKeys = new AuthKeyTable(memory, layout, liveness);
        this.file = file;
        this.locks = locks;
        this.writer = role == Role.WRITER ? table.attach() : null;
        this.reader = role == Role.READER && holdReaderLock(file);
        this.readOnly = role != Role.WRITER;
    }

    /** A later view of the same named AV: its segments as {@code mapped} has them, and what {@code was} holds. */
    private Region(final SharedAvFile.Mapped mapped, final Region was)
    {
        this.memory = mapped.memory();
        this.firstViews = was.firstViews.then(memory);
        this.layout = mapped.layout();
        this.liveness = was.liveness;
        this.table = new SlotTable(memory, layout, liveness, firstViews);
        this.authKeys = new AuthKeyTable(memory, layout, liveness);
        this.file = was.file;
        this.locks = was.locks;
        this.writer = was.writer; // one attacher entry, whatever the view: its state carries over
        this.reader = was.reader;
        this.readOnly = was.readOnly;
    }

    /**
     * This region, or, when the named AV grew past it (another process published segments), a view of
     * the AV as it is now: the file mapped again up to its last segment. The old view stays mapped for
     * whoever still reads it, and intact: segments never move.
     */
    public Region follow(final String name)
    {
        if (file == null || !table.stale())
        {
            return this;
        }
        return new Region(SegmentFile.current(memory, file, readOnly, name), this);
    }

    /**
     * Grows the named AV by one segment (or follows another process's growth) and returns the view of
     * it that has the new segment; see {@link SegmentGrowth}. FI_ENOSPC at the AV's maximum or on a full
     * file system, FI_EAGAIN when another process kept the growth from finishing.
     */
    public Region grow(final String name)
    {
        return SegmentGrowth.grow(this, name);
    }

    /** The view of a segment this process reserved and is about to publish. */
    Region next(final SharedAvFile.Mapped mapped)
    {
        return new Region(mapped, this);
    }

    /** A region of process memory used by this process alone (tests, jcstress), with one writer when {@code writable}. */
    Region(final Memory memory, final AvLayout layout, final boolean writable)
    {
        this(memory, layout, Liveness.local(), null, null, writable ? Role.WRITER : Role.TOOL);
    }

    /**
     * The region of a mapped AV file, used in {@code role}; {@link #detach} closes the file. A writer
     * opens the AV's lock file or fails (FI_EIO, FI_EACCES); a reader or tool opens it when it may, to
     * tell live writers from dead ones, and otherwise takes every writer for alive.
     */
    public static Region of(final SharedAvFile.Mapped file, final Role role)
    {
        final AvFileChannel locks;
        try
        {
            locks = role == Role.WRITER
                ? AvLockFile.openForWriter(file.file().path(), file.file().path().getFileName().toString(), file.memory())
                : AvLockFile.openForProbe(file.file().path());
        }
        catch (final FabricException e)
        {
            // Removed while it was opened: the lock file went with the AV (or a new AV's took its name).
            // That is no broken lock file, but an AV that is gone: the opener looks at the name again.
            final boolean removed = role == Role.WRITER && !file.file().isNamedBy(file.file().path());
            file.file().close();
            if (removed && (e.errno() == FiErrno.EIO || e.errno() == FiErrno.ENOENT))
            {
                throw new FabricException(FiErrno.ENOENT, "named AV '" + file.file().path().getFileName() +
                    "' was removed while it was opened", e);
            }
            throw e;
        }
        catch (final RuntimeException | Error e)
        {
            file.file().close();
            throw e;
        }
        final Liveness liveness = locks == null ? Liveness.unknown() : Liveness.of(locks, file.layout());
        return new Region(file.memory(), file.layout(), liveness, file.file(), locks, role);
    }

    /**
     * Takes the readers' shared lock; tries for a moment, since a tool's test of it holds it
     * exclusively for an instant. A reader that cannot take it still reads; tools just do not see it.
     */
    private static boolean holdReaderLock(final AvFileChannel file)
    {
        for (int attempt = 0; attempt < 100; attempt++)
        {
            if (file.locks().holdShared(READERS_LOCK_OFFSET))
            {
                return true;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
        return false;
    }

    /** A new private region in process memory, ready to use. */
    public static Region allocatePrivate(final AvLayout layout, final long mapBase, final long avFlags, final int rxCtxBits)
    {
        final Memory m = privateMemory(layout.fileLength());
        initialize(m, layout, mapBase, avFlags, rxCtxBits);
        return new Region(m, layout, true);
    }

    /**
     * Zeroed process memory for a private region, starting at a page boundary like a mapped file: from
     * the allocator's 16-byte alignment, every 64-byte slot would straddle two cache lines (a lookup in
     * a private AV measured 18 ns against 14 ns for the same AV in a file).
     */
    private static Memory privateMemory(final long length)
    {
        final int page = 4096;
        final ByteBuffer raw = ByteBuffer.allocateDirect(Math.toIntExact(length + page));
        final int skip = (page - raw.alignmentOffset(0, page)) % page;
        // Written under the handle's write lock only: a compare-and-set needs no locked instruction.
        return Memory.exclusive(raw.slice(skip, (int)length));
    }

    /**
     * Fills a zeroed region: header fields, map_addr all FI_ADDR_NOTAVAIL, every free group marked, then
     * the version word with a release store, after which the region is ready.
     */
    public static void initialize(final Memory m, final AvLayout layout, final long mapBase, final long avFlags, final int rxCtxBits)
    {
        layout.writeHeader(m, mapBase, avFlags, rxCtxBits);
        for (long i = 0; i < layout.capacity(); i++)
        {
            m.putLong(layout.map(i), -1L);
        }
        FreeSlots.mark(m, layout, 0, layout.capacity());
        m.setIntRelease(VERSION_OFFSET, VERSION);
    }

    /**
     * A private region twice as large (at least {@code minCapacity}) holding the same entries at the
     * same indices. Only for private regions, with every writer stopped: readers may go on reading
     * this region, which stays intact.
     */
    public Region grow(final long minCapacity)
    {
        final long capacity = Math.max(minCapacity, layout.capacity() * 2);
        final AvLayout bigger = AvLayout.compute(layout.shape(), layout.avType(), capacity,
            layout.attachersCapacity(), layout.authKeySize(), layout.authKeysCapacity());
        final Memory m = privateMemory(bigger.fileLength());
        initialize(m, bigger, memory.getLong(MAP_ADDR_BASE_OFFSET), memory.getLong(AV_FLAGS_OFFSET),
            memory.getInt(RX_CTX_BITS_OFFSET));
        copy(memory, layout.attachersOffset(), m, bigger.attachersOffset(),
            (long)layout.attachersCapacity() * AttacherDescriptor.LENGTH);
        copy(memory, layout.authKeysOffset(), m, bigger.authKeysOffset(),
            (long)layout.authKeysCapacity() * AvLayout.authKeyEntryLength(layout.authKeySize()));
        copy(memory, layout.slotsOffset(), m, bigger.slotsOffset(), layout.capacity() * layout.slotLength());
        copy(memory, layout.mapOffset(), m, bigger.mapOffset(), layout.capacity() * Long.BYTES);
        m.putLong(FREE_HINT_OFFSET, memory.getLong(FREE_HINT_OFFSET) & 0xFFFF_FFFFL);
        m.putLong(ATTACHERS_HIGH_WATER_OFFSET, memory.getLong(ATTACHERS_HIGH_WATER_OFFSET));
        new SlotTable(m, bigger, liveness).indexAll(); // no other writer: the region is not published yet
        return new Region(m, bigger, liveness, writer);
    }

    /** The grown copy of a private region: the same liveness, and the writer's entry, already locked. */
    private Region(final Memory memory, final AvLayout layout, final Liveness liveness, final Writer writer)
    {
        this.memory = memory;
        this.firstViews = FirstViews.of(memory);
        this.layout = layout;
        this.liveness = liveness;
        this.table = new SlotTable(memory, layout, liveness, firstViews);
        this.authKeys = new AuthKeyTable(memory, layout, liveness);
        this.file = null;
        this.locks = null;
        this.reader = false;
        this.readOnly = false;
        this.writer = writer == null ? null : table.writerAt(writer.index());
        if (writer != null)
        {
            this.writer.needsRepair = writer.needsRepair; // what an Error left in the old region was copied too
        }
    }

    private static void copy(final Memory from, final long fromOffset, final Memory to, final long toOffset, final long length)
    {
        to.buffer().put((int)toOffset, from.buffer(), (int)fromOffset, (int)length);
    }

    public Memory memory()
    {
        return memory;
    }

    /** Where this process first mapped each part of the file (package-private: migration, tests). */
    FirstViews firstViews()
    {
        return firstViews;
    }

    public AvLayout layout()
    {
        return layout;
    }

    public SlotTable table()
    {
        return table;
    }

    public AuthKeyTable authKeys()
    {
        return authKeys;
    }

    /** This process's attacher entry, or null for a read-only region (or no free entry). */
    public Writer writer()
    {
        return writer;
    }

    /** The stored map_addr base. */
    public long storedMapBase()
    {
        return memory.getLong(MAP_ADDR_BASE_OFFSET);
    }

    /** How this process tells live writers of the region from dead ones. */
    public Liveness liveness()
    {
        return liveness;
    }

    /** This JVM's open file of a named AV's region; null for a private one. */
    public AvFileChannel file()
    {
        return file;
    }

    /** This JVM's open lock file of a named AV, where writers take their locks; null for a private one. */
    public AvFileChannel locks()
    {
        return locks;
    }

    /** Gives back this process's attacher entry or reader lock, and its use of the files. Once. */
    public void detach()
    {
        if (writer != null)
        {
            table.detach(writer);
        }
        if (reader)
        {
            file.locks().unlock(READERS_LOCK_OFFSET);
        }
        if (locks != null)
        {
            locks.close();
        }
        if (file != null)
        {
            file.close();
        }
    }
}
