package org.shmav.slots;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;

import org.shmav.shm.AddressReads;
import org.shmav.shm.AvLayout;

/**
 * What {@code fi_av_lookup} reads of one region, held one field away from the handle.
 *
 * <p>A lookup is a few loads, and the JIT loads every field again after each of its ordered steps, so
 * the chain of objects between the handle and the mapped buffer (handle, region, slot table, reader,
 * memory, buffer) was most of its cost: about 7 of 17 ns per lookup at 1M entries. A handle keeps the
 * view of its current region and takes a new one when the region changes ({@link #table} tells which).
 * Immutable, so threads may share it through a plain field.
 */
public final class SlotView
{
    /** A view of no slots: every index is past it (a closed handle's, whose lookups fail on their checked path). */
    public static final SlotView NONE = new SlotView();

    private final SlotTable table;
    private final ByteBuffer memory;
    private final AvLayout layout;
    private final long capacity;
    private final int maxAddrLen;
    /** The memory's address for {@link AddressReads}, or 0 to read through the buffer. */
    private final long address;
    /** Segment 0's geometry, copied here: one hop less for every index below {@link AvLayout#firstCapacity()}. */
    private final long firstCapacity;
    private final long slotsOffset;
    private final int slotLength;
    /** Indexes below it are read by {@link #lookupFirst}: segment 0's when read by address, else 0. */
    private final long firstByAddress;
    /** The address of slot 0 (0 when read through the buffer). */
    private final long firstSlot;

    SlotView(final SlotTable table, final ByteBuffer memory, final AvLayout layout)
    {
        this.table = table;
        this.memory = memory;
        this.layout = layout;
        this.capacity = layout.capacity();
        this.maxAddrLen = layout.addrLen();
        this.address = AddressReads.addressOf(memory);
        this.firstCapacity = layout.firstCapacity();
        this.slotsOffset = layout.slotsOffset();
        this.slotLength = layout.slotLength();
        this.firstByAddress = address == 0 ? 0 : firstCapacity;
        this.firstSlot = address == 0 ? 0 : address + slotsOffset;
    }

    private SlotView()
    {
        this.table = null;
        this.memory = null;
        this.layout = null;
        this.capacity = 0;
        this.maxAddrLen = 0;
        this.address = 0;
        this.firstCapacity = 0;
        this.slotsOffset = 0;
        this.slotLength = 0;
        this.firstByAddress = 0;
        this.firstSlot = 0;
    }

    /** The slot table this view reads; null for {@link #NONE}. */
    public SlotTable table()
    {
        return table;
    }

    /** Slots this view covers. */
    public long capacity()
    {
        return capacity;
    }

    /**
     * Indexes in [0, this) may be looked up by {@link #lookupFirst}: segment 0, read by address; 0 when
     * the view reads through the buffer, or for {@link #NONE}.
     */
    public long firstByAddress()
    {
        return firstByAddress;
    }

    /**
     * {@link #lookup} of an index below {@link #firstByAddress()}: the fewest loads a lookup can make (slot 0's
     * address, the slot length, the address length), for a caller's loop.
     */
    public int lookupFirst(final long index, final ByteBuffer dst)
    {
        final int len = SlotReader.lookupAt(firstSlot + index * slotLength, maxAddrLen, dst);
        Reference.reachabilityFence(this); // this view holds the buffer that keeps the mapping
        return len;
    }

    /** {@link SlotTable#lookup}: slot {@code index} is below {@link #capacity()}. */
    public int lookup(final long index, final ByteBuffer dst)
    {
        final long slot = index < firstCapacity ? slotsOffset + index * slotLength : layout.slot(index);
        if (address == 0)
        {
            return SlotReader.lookup(memory, (int)slot, maxAddrLen, dst);
        }
        final int len = SlotReader.lookupAt(address + slot, maxAddrLen, dst);
        Reference.reachabilityFence(this); // this view holds the buffer that keeps the mapping
        return len;
    }
}
