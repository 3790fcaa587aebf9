package org.shmav.slots;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;
import org.shmav.AddrFormat;
import org.shmav.Addresses;
import org.shmav.AvType;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.IndexWord;
import org.shmav.shm.Memory;
import org.shmav.shm.SlotDescriptor;

/** The first-EMPTY walk of an inserter that places its entry. */
class KeyPlacerTest
{
    /**
     * A dead entry equal to the inserter's own (its slot's earlier incarnation held the same address)
     * lies before a live entry of the address at another slot, placed by an inserter that passed the
     * dead one while the slot was FREE. Taking the dead entry as "placed" skipped the rest of the walk:
     * the address ended at two slots (ChurnDedupTest saw it: "address 2 is at fi_addr 9 for 1
     * writer(s) and at 6 for another"). The walk must retire it and go on, and find the other slot.
     */
    @Test
    void shouldNotTakeADeadEntryLikeItsOwnAsPlaced()
    {
        final Region r = Region.allocatePrivate(AvLayout.compute(AddrFormat.SOCKADDR_IN, AvType.TABLE, 16, 4, 0, 0),
            1L << 32, 0, 0);
        final Memory m = r.memory();
        final AvLayout layout = r.layout();
        final ByteBuffer x = Addresses.toSockaddr(new InetSocketAddress("10.7.7.7", 7007));
        final long hash = SlotTable.hash(x, 0, 16, -1L);
        final long state = m.getLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET);
        final long stamp = IndexWord.stamp(state);
        final long base = layout.hashArea(0, IndexWord.activeArea(state));
        final long mask = layout.hashBuckets(0) - 1;
        // Slot 10: x, VALID (the other inserter published). Slot 9: claimed by this writer, filled with x.
        fill(m, layout, 10, x, SlotDescriptor.word(SlotDescriptor.VALID, 1, 0));
        final Writer w = r.writer();
        final long claim = SlotDescriptor.word(SlotDescriptor.CLAIMED, w.index(), 1);
        fill(m, layout, 9, x, claim);
        w.claimed(9, claim);
        // The dead entry of slot 9 first on x's probe sequence, then slot 10's.
        m.putLong((int)(base + 8 * (hash & mask)), IndexWord.entry(stamp, hash, 9));
        m.putLong((int)(base + 8 * ((hash + 1) & mask)), IndexWord.entry(stamp, hash, 10));

        final KeyPlacer placer = new KeyPlacer(m, layout, new SlotReader(m, layout),
            new DedupIndex(m, layout, new SlotReader(m, layout)), null);
        assertEquals(10, placer.place(w, base, mask, stamp, x, 0, 16, -1L, hash, 9, Long.MIN_VALUE),
            "x is at slot 10: a reference there, not a second slot");
        assertEquals(2, SlotDescriptor.payload(m.getLongVolatile(layout.slot(10) + SlotDescriptor.STATE_OFFSET)));
        assertEquals(IndexWord.tombstone(stamp), m.getLongVolatile((int)(base + 8 * (hash & mask))), "the dead entry retired");
    }

    private static void fill(final Memory m, final AvLayout layout, final long index, final ByteBuffer a, final long word)
    {
        final int slot = layout.slot(index);
        m.putInt(slot + SlotDescriptor.ADDR_LEN_OFFSET, 16);
        m.copyIn(slot + SlotDescriptor.ADDR_OFFSET, a, 0, 16);
        m.putLong(slot + SlotDescriptor.AUTH_KEY_OFFSET, -1L);
        m.setLongVolatile(slot + SlotDescriptor.STATE_OFFSET, word);
    }
}
