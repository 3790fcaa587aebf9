package org.shmav.slots;

import static org.shmav.shm.AvFileDescriptor.*;

import java.nio.ByteBuffer;
import org.shmav.shm.AttacherDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Memory;
import org.shmav.shm.SharedAvFile;

/**
 * One AV region as this process sees it: its memory, slot table, auth keys and, for a writable
 * region, this process's attacher entry. A private AV's region is plain process memory; a named AV's
 * is a mapped file ({@link SharedAvFile}).
 */
public final class Region
{
    private final Memory memory;
    private final AvLayout layout;
    private final SlotTable table;
    private final AuthKeyTable authKeys;
    private final SlotTable.Writer writer;

    Region(final Memory memory, final AvLayout layout, final boolean writable)
    {
        this.memory = memory;
        this.layout = layout;
        this.table = new SlotTable(memory, layout);
        this.authKeys = new AuthKeyTable(memory, layout);
        this.writer = writable ? table.attach() : null;
    }

    /** The region of a mapped AV file; {@code writable} takes an attacher entry for this process. */
    public static Region of(final SharedAvFile.Mapped file, final boolean writable)
    {
        return new Region(file.memory(), file.layout(), writable);
    }

    /** A new private region in process memory, ready to use. */
    public static Region allocatePrivate(final AvLayout layout, final long mapBase, final long avFlags, final int rxCtxBits)
    {
        final Memory m = new Memory(ByteBuffer.allocateDirect((int)layout.fileLength()));
        initialize(m, layout, mapBase, avFlags, rxCtxBits);
        return new Region(m, layout, true);
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
        FreeSlots.markAll(m, layout.capacity());
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
        final AvLayout bigger = AvLayout.compute(layout.addrFormat(), layout.avType(), capacity,
            layout.attachersCapacity(), layout.authKeySize(), layout.authKeysCapacity());
        final Memory m = new Memory(ByteBuffer.allocateDirect((int)bigger.fileLength()));
        initialize(m, bigger, memory.getLong(MAP_ADDR_BASE_OFFSET), memory.getLong(AV_FLAGS_OFFSET),
            memory.getInt(RX_CTX_BITS_OFFSET));
        copy(memory, layout.attachersOffset(), m, bigger.attachersOffset(),
            (long)layout.attachersCapacity() * AttacherDescriptor.LENGTH);
        copy(memory, layout.authKeysOffset(), m, bigger.authKeysOffset(),
            (long)layout.authKeysCapacity() * AvLayout.authKeyEntryLength(layout.authKeySize()));
        copy(memory, layout.slotsOffset(), m, bigger.slotsOffset(), layout.capacity() * layout.slotLength());
        copy(memory, layout.mapOffset(), m, bigger.mapOffset(), layout.capacity() * Long.BYTES);
        m.putLong(CHANGES_OFFSET, memory.getLong(CHANGES_OFFSET));
        m.putLong(FREE_HINT_OFFSET, memory.getLong(FREE_HINT_OFFSET) & 0xFFFF_FFFFL);
        m.putLong(ATTACHERS_HIGH_WATER_OFFSET, memory.getLong(ATTACHERS_HIGH_WATER_OFFSET));
        new SlotTable(m, bigger).rebuildBuckets(); // no other writer: the region is not published yet
        return new Region(m, bigger, writer);
    }

    private Region(final Memory memory, final AvLayout layout, final SlotTable.Writer writer)
    {
        this.memory = memory;
        this.layout = layout;
        this.table = new SlotTable(memory, layout);
        this.authKeys = new AuthKeyTable(memory, layout);
        this.writer = writer == null ? null : table.writerAt(writer.index());
    }

    private static void copy(final Memory from, final long fromOffset, final Memory to, final long toOffset, final long length)
    {
        to.buffer().put((int)toOffset, from.buffer(), (int)fromOffset, (int)length);
    }

    public Memory memory()
    {
        return memory;
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
    public SlotTable.Writer writer()
    {
        return writer;
    }

    /** The stored map_addr base. */
    public long storedMapBase()
    {
        return memory.getLong(MAP_ADDR_BASE_OFFSET);
    }

    /** Gives back this process's attacher entry. */
    public void detach()
    {
        if (writer != null)
        {
            table.detach(writer);
        }
    }
}
