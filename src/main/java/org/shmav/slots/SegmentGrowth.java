package org.shmav.slots;

import static org.shmav.shm.AvFileDescriptor.*;

import java.io.IOException;
import java.util.function.BooleanSupplier;
import java.util.concurrent.locks.LockSupport;

import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.shm.AvFileChannel;
import org.shmav.shm.AvLayout;
import org.shmav.shm.GrowthClaim;
import org.shmav.shm.Memory;
import org.shmav.shm.SegmentFile;
import org.shmav.shm.SharedAvFile;

/**
 * Growth of a named AV by one segment, so that its capacity doubles, or reaches its maximum when a
 * doubling would pass it (shm-layout.md, GROWTH). Nobody holds a lock; for segment n:
 *
 * <pre>
 *   1 look      segmentCount past n: another process grew; follow
 *   2 finish    segment n's table entry set: another grower's range won; finish its publication (step 7)
 *   3 claim     CAS growthClaim to a new ticket for n ({@link GrowthClaim}); a claim for n that makes
 *               progress is waited for, one that stalls for 200 ms is taken over, one whose owner
 *               died (its attacher lock free) at once
 *   4 range     CAS fileTop from t to t + the segment's length: [t, end) is this claim's alone, for good
 *   5 reserve   FI_ENOSPC if the file system has no room for it; else write zeros over it (tmpfs
 *               allocates every page now), raising the claim's progress after every step; a failed
 *               raise means taken over; a write that fails gives the range and the claim back
 *   6 prepare   map the file to end; map_addr of the new slots all ones; free-group marks
 *   7 publish   CAS segment n's slotsOffset from 0 to t (one range wins), store its hashOffset,
 *               CAS segmentCount from n to n + 1; any writer that finds the entry set does these two
 *   8 move      the index into segment n's area 0 ({@link IndexMigration#moveInto}), other writers going on
 * </pre>
 *
 * Crash and freeze safety: a grower writes only into its own range until its step-5 CAS, and that CAS
 * succeeds only while the entry is 0, so a grower that freezes anywhere and wakes after another
 * published the segment harms nothing: it fails a CAS, gives its range back if it is still the last
 * one, and follows. A dead or frozen grower's range stays in the file, unused (at most one segment per
 * takeover). Until step 8 ends the index stays in the old segment's area, which holds the new slots'
 * entries too (a 26-bit slot field fits any slot): a grower that dies or freezes there leaves it to the
 * writers, whose crowding check, or full area, moves it (the target of a migration is always the last
 * segment's area once the active one is older).
 */
final class SegmentGrowth
{
    /**
     * How long a claim stands still before its owner's attacher lock is probed (a system call): a
     * dead owner's claim is then taken over at once, not after {@link GrowthClaim#STALL_NANOS}.
     */
    private static final long OWNER_CHECK_NANOS = 1_000_000L;
    /** map_addr entries prepared between two progress marks. */
    private static final int PREPARE_STEP = 1 << 16;

    private SegmentGrowth()
    {
    }

    /** See {@link Region#grow}. */
    static Region grow(final Region view, final String call, final String name)
    {
        final AvFileChannel file = view.file();
        if (file == null || view.writer() == null)
        {
            throw new FabricException(call, FiErrno.EINVAL, "only a writer of a named AV grows it");
        }
        final Writer w = view.writer();
        w.releaseLeftLocks();
        final Memory m = view.memory();
        final int n = view.layout().segments();
        long seen = 0;
        long seenAt = 0;
        while (true)
        {
            final Region now = view.follow(call, name);
            if (now != view)
            {
                return now; // another process grew it
            }
            checkCanGrow(view.layout(), call, name);
            final long start = m.getLongVolatile(segmentOffset(n) + SEGMENT_SLOTS_OFFSET);
            if (start != 0)
            {
                publish(view, start, call, name); // step 2: prepared by another, finish its publication
                continue;
            }
            final long claim = m.getLongVolatile(GROWTH_CLAIM_OFFSET);
            final long time = System.nanoTime();
            if (claim != seen || seenAt == 0)
            {
                seen = claim;
                seenAt = time;
            }
            if (GrowthClaim.segment(claim) != n || time - seenAt > GrowthClaim.STALL_NANOS ||
                (time - seenAt > OWNER_CHECK_NANOS && !view.liveness().isHeld(GrowthClaim.owner(claim))))
            {
                final long mine = GrowthClaim.next(claim, n, w.index());
                if (m.compareAndSetLong(GROWTH_CLAIM_OFFSET, claim, mine))
                {
                    final Region grown = build(view, mine, call, name);
                    if (grown != null)
                    {
                        grown.table().moveIndexInto(w, n); // step 8: nobody waits for it
                        return grown;
                    }
                }
                continue;
            }
            if (Waits.passed(Waits.deadline(w)))
            {
                throw new FabricException(call, FiErrno.EAGAIN, "named AV '" + name + "' is being grown by another " +
                    "process, still at work after 5 s (very slow, or a very large segment): try again");
            }
            LockSupport.parkNanos(200_000);
        }
    }

    /** FI_ENOSPC at the AV's maxCount (SegmentFile.checkRoom asks the file system). */
    private static void checkCanGrow(final AvLayout layout, final String call, final String name)
    {
        if (!layout.canGrow())
        {
            throw new FabricException(call, FiErrno.ENOSPC, "named AV '" + name + "' is full at " +
                layout.capacity() + " entries, its maxCount (set when it was created): remove entries, or " +
                "create it with a larger AvAttr.maxCount");
        }
    }

    /**
     * Steps 4 to 7 under claim {@code mine}: the view with the new segment, or null when the claim was
     * taken over or another range was published first (the caller looks again).
     */
    private static Region build(final Region view, final long mine, final String call, final String name)
    {
        final Memory m = view.memory();
        final AvLayout layout = view.layout();
        long top;
        AvLayout bigger;
        do
        {
            top = m.getLongVolatile(FILE_TOP_OFFSET);
            if (top < layout.fileLength() || top > MAX_FILE_LENGTH || top != align(top, SECTION_ALIGNMENT))
            {
                release(m, mine);
                throw new FabricException(call, FiErrno.EIO, "named AV '" + name + "' is damaged: its fileTop " + top +
                    " is not past its last segment (" + layout.fileLength() + "): remove it with 'shmav rm' and create it again");
            }
            bigger = layout.grownAt(top);
            if (bigger.fileLength() > MAX_FILE_LENGTH)
            {
                release(m, mine);
                throw new FabricException(call, FiErrno.ENOSPC, "named AV '" + name + "' is full at " +
                    layout.capacity() + " entries: " + bigger.capacity() + " would need a " + bigger.fileLength() +
                    "-byte file, more than one mapping holds (" + MAX_FILE_LENGTH + " bytes)");
            }
        }
        while (!m.compareAndSetLong(FILE_TOP_OFFSET, top, bigger.fileLength())); // lost: a grower taken over took one
        final int n = layout.segments();
        final Range range = new Range(m, mine, top, bigger.fileLength());
        try
        {
            SegmentFile.checkRoom(view.file(), top, range.end, call, name);
            for (long at = top; at < range.end; )
            {
                at = SegmentFile.writeZeros(view.file(), at, range.end, call, name);
                if (!range.advance())
                {
                    range.giveBack(n);
                    return null;
                }
            }
            final Region grown = publishSegment(view, SegmentFile.map(view.file(), range.end, call, name), bigger,
                range::advance);
            if (grown == null)
            {
                range.giveBack(n);
            }
            return grown;
        }
        catch (final RuntimeException | Error e)
        {
            range.giveBack(n); // FI_ENOSPC, or an Error: the next grower need not wait for this claim to stall
            throw e;
        }
    }

    /**
     * Steps 6 and 7 over {@code m}, a mapping that holds the reserved last segment of {@code bigger}
     * (zeros), checking {@code stillMine} between steps: the view that has it, or null when a step found
     * the claim lost or another range published first. The index is not moved yet (step 8).
     * Package-private for jcstress, which runs it in process memory against writers of older views.
     */
    static Region publishSegment(final Region view, final Memory m, final AvLayout bigger,
        final BooleanSupplier stillMine)
    {
        final int k = bigger.segments() - 1;
        for (long i = bigger.segmentFirst(k); i < bigger.segmentEnd(k); i++)
        {
            m.putLong(bigger.map(i), -1L);
            if ((i & (PREPARE_STEP - 1)) == PREPARE_STEP - 1 && !stillMine.getAsBoolean())
            {
                return null;
            }
        }
        FreeSlots.mark(m, bigger, bigger.segmentFirst(k), bigger.segmentEnd(k)); // sets bits only: harmless late
        if (!m.compareAndSetLong(segmentOffset(k) + SEGMENT_SLOTS_OFFSET, 0, bigger.segmentSlotsOffset(k)))
        {
            return null;
        }
        finishPublication(m, bigger);
        return view.next(new SharedAvFile.Mapped(m, bigger, view.file()));
    }

    /**
     * Step 2: step 7 for a segment another writer prepared at {@code start}: its hashOffset, then segmentCount.
     * The entry is checked first, since a damaged file could hold anything there.
     */
    private static void publish(final Region view, final long start, final String call, final String name)
    {
        final AvLayout layout = view.layout();
        final AvLayout bigger;
        try
        {
            bigger = layout.grownAt(start);
        }
        catch (final IllegalArgumentException e)
        {
            throw damaged(name, call, start);
        }
        if (bigger.fileLength() > MAX_FILE_LENGTH || bigger.fileLength() > sizeOf(view.file(), call, name))
        {
            throw damaged(name, call, start);
        }
        finishPublication(view.memory(), bigger);
    }

    /**
     * The end of step 7, by the winner or any writer at step 2: the hashOffset of the last segment of
     * {@code bigger} (derived from its slotsOffset: the same value whoever stores it), then segmentCount
     * raised to it (a failed CAS: another writer did it).
     */
    private static void finishPublication(final Memory m, final AvLayout bigger)
    {
        final int k = bigger.segments() - 1;
        bigger.writeSegmentHash(m, k);
        m.compareAndSetInt(SEGMENT_COUNT_OFFSET, k, k + 1);
    }

    /** Gives claim {@code claim} back if it is still the word: the next grower then claims without waiting. */
    private static void release(final Memory m, final long claim)
    {
        m.compareAndSetLong(GROWTH_CLAIM_OFFSET, claim, GrowthClaim.released(claim));
    }

    private static long sizeOf(final AvFileChannel file, final String call, final String name)
    {
        try
        {
            return file.channelFor(false).size();
        }
        catch (final IOException e)
        {
            throw new FabricException(call, FiErrno.EIO, "cannot read the size of named AV '" + name + "': " +
                e.getMessage(), e);
        }
    }

    private static FabricException damaged(final String name, final String call, final long start)
    {
        return new FabricException(call, FiErrno.EIO, "named AV '" + name + "' is damaged: its next segment's " +
            "slotsOffset " + start + " is not a range past its last segment: remove it with 'shmav rm' and create it again");
    }

    /** A grower's range of the file and its claim. */
    private static final class Range
    {
        private final Memory m;
        private final long start;
        private final long end;
        private long claim;

        Range(final Memory m, final long claim, final long start, final long end)
        {
            this.m = m;
            this.claim = claim;
            this.start = start;
            this.end = end;
        }

        /** Marks progress; false when another writer took the claim over. */
        boolean advance()
        {
            final long next = GrowthClaim.advanced(claim);
            if (!m.compareAndSetLong(GROWTH_CLAIM_OFFSET, claim, next))
            {
                return false;
            }
            claim = next;
            return true;
        }

        /**
         * Gives the range back if it is still the last one taken and was not published (an entry, once
         * set, never changes), and the claim if it is still this one's.
         */
        void giveBack(final int segment)
        {
            if (m.getLongVolatile(segmentOffset(segment) + SEGMENT_SLOTS_OFFSET) != start)
            {
                m.compareAndSetLong(FILE_TOP_OFFSET, end, start);
            }
            release(m, claim);
        }
    }
}
