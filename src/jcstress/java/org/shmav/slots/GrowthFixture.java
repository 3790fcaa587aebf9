package org.shmav.slots;

import java.nio.ByteBuffer;

import org.shmav.AddrFormat;
import org.shmav.AvType;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.IndexWord;
import org.shmav.shm.Memory;
import org.shmav.shm.SlotDescriptor;

/**
 * A growable AV region in process memory for one jcstress iteration: segment 0 of {@code count} slots,
 * the first {@code filled} of them taken, in a buffer already long enough for segment 1, so that a grower
 * can run the real publication ({@link SegmentGrowth#publishSegment}) and the move of the index into the
 * new segment ({@link SlotTable#moveIndexInto}) while another writer works through its own, older view,
 * as a process that has not yet seen the growth would.
 */
final class GrowthFixture
{
    final Memory memory;
    final AvLayout small;
    final AvLayout bigger;
    /** The grower's view (writer w1) and the other writer's older view (writer w2), over the same memory. */
    final Region growerView;
    final SlotTable olderView;
    final Writer w2;
    final ByteBuffer[] present;

    GrowthFixture(final int count, final int filled)
    {
        small = AvLayout.compute(AddrFormat.SOCKADDR_IN6, AvType.TABLE, count, 4, 0, 0).growingTo(64);
        bigger = small.grown();
        memory = new Memory(ByteBuffer.allocate((int)bigger.fileLength()));
        Region.initialize(memory, small, 1L << 32, 0, 0);
        growerView = new Region(memory, small, true);
        olderView = new SlotTable(memory, small, growerView.liveness());
        w2 = olderView.attach();
        present = new ByteBuffer[filled];
        for (int i = 0; i < filled; i++)
        {
            present[i] = Fixture.address(50 + i);
            growerView.table().insert(growerView.writer(), present[i], 0, Fixture.LEN, -1L, Long.MIN_VALUE, 0);
        }
    }

    /**
     * The grower's growth (steps 4, 5 and 7 of {@link SegmentGrowth}): the segment published, then the
     * index moved into it by the grower's writer while other writers go on; returns its view of the grown AV.
     */
    Region grow()
    {
        final Region next = SegmentGrowth.publishSegment(growerView, memory, bigger, () -> true);
        next.table().moveIndexInto(next.writer(), bigger.segments() - 1);
        return next;
    }

    /** 1 when indexState names no migration and area 0 of the grown AV's last segment as the active one, else 0. */
    long indexMoved()
    {
        final long state = memory.getLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET);
        return !IndexWord.migrating(state) && IndexWord.activeSegment(state) == bigger.segments() - 1 &&
            IndexWord.activeArea(state) == 0 ? 1 : 0;
    }

    /** A view of the grown AV for writer w2, as its process would map once it sees the growth. */
    SlotTable grownView()
    {
        return new SlotTable(memory, bigger, growerView.liveness());
    }

    /** Waits (spinning, at most 10 s: a growth that gave up never publishes) until the growth is published. */
    void awaitPublished()
    {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (memory.getIntAcquire(AvFileDescriptor.SEGMENT_COUNT_OFFSET) != bigger.segments())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException("the growth was not published within 10 s");
            }
            Thread.onSpinWait();
        }
    }

    /** count() when it agrees with the VALID slots of the grown AV, else -100 - count(). */
    long checkedCount(final SlotTable table)
    {
        long valid = 0;
        for (long i = 0; i < table.capacity(); i++)
        {
            if (SlotDescriptor.state(table.stateWord(i)) == SlotDescriptor.VALID)
            {
                valid++;
            }
        }
        return table.count() == valid ? valid : -100 - table.count();
    }

    /** 1 when every address of segment 0 that should be present is found at its slot by reverse lookup, else 0. */
    long presentIndexed(final SlotTable table, final int except)
    {
        for (int i = 0; i < present.length; i++)
        {
            final long at = table.reverseLookup(present[i], 0, Fixture.LEN, -1L);
            if (at != (i == except ? -1 : i))
            {
                return 0;
            }
        }
        return 1;
    }
}
