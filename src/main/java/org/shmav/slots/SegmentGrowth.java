package org.shmav.slots;

import static org.shmav.shm.AvFileDescriptor.*;

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
 *   2 finish    segment n's table entry set: another grower prepared it; finish its publication (step 7)
 *   3 claim     CAS growthClaim to a new ticket for n ({@link GrowthClaim}); a claim for n that makes
 *               progress is waited for, one that stalls for 200 ms is taken over, one whose owner
 *               died (its attacher lock free) at once
 *   4 place     segment n starts where segment n - 1 ends (the view's published length t): the same
 *               range for every grower of n, so a taker goes on with the work of the claim it took over
 *   5 reserve   FI_ENOSPC if the file system has no room for what [t, end) still lacks; else append
 *               zeros until the file reaches end, raising the claim's progress after every step; a
 *               failed raise means taken over
 *   6 prepare   map the file to end; check what other growers left there, raising the progress
 *               after every 1 MiB; CAS each map_addr entry of the new slots from 0 to all ones;
 *               free-group marks
 *   7 publish   CAS segment n's slotsOffset from 0 to t, store its hashOffset, CAS segmentCount from
 *               n to n + 1; any writer that finds the entry set does these two
 *   8 move      the index into segment n's area 0 ({@link IndexMigration#moveInto}), other writers going on
 * </pre>
 *
 * Crash and freeze safety (layout 7): every write a grower makes is one that any number of growers of
 * segment n may make, in any order, at any time, even after the segment is published and in use. Its
 * zeros are appended (O_APPEND): the kernel puts them at the file's end as it is when the write runs,
 * so a grower that froze inside a write and wakes after another published the segment adds zeros past
 * it, never over it. Its map_addr stores are CAS from 0, and no entry of a segment past the first is 0
 * once prepared (all ones, or a VALID slot's non-zero fi_addr), so a late one changes nothing. Its marks
 * only set bits; its table entry CAS succeeds once, with the one value t; hashOffset follows from t. So
 * a frozen grower costs the others the 200 ms before its claim is taken over, a dead one about 1 ms,
 * and neither leaves a byte of the file unused: the taker finishes the same range. Until step 8 ends the
 * index stays in the old segment's area, which holds the new slots' entries too (a 26-bit slot field
 * fits any slot): a grower that dies or freezes there leaves it to the writers, whose crowding check,
 * or full area, moves it (the target of a migration is always the last segment's area once the active
 * one is older).
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
    /** Bytes per page touched by {@link #touchPages}: the smallest page size of the hosts shmav runs on. */
    private static final int PAGE = 4096;

    private SegmentGrowth()
    {
    }

    /** See {@link Region#grow}. */
    static Region grow(final Region view, final String name)
    {
        final AvFileChannel file = view.file();
        if (file == null || view.writer() == null)
        {
            throw new FabricException(FiErrno.EINVAL, "only a writer of a named AV grows it");
        }
        final Writer w = view.writer();
        w.releaseLeftLocks();
        final Memory m = view.memory();
        final int n = view.layout().segments();
        long seen = 0;
        long seenAt = 0;
        while (true)
        {
            final Region now = view.follow(name);
            if (now != view)
            {
                return now; // another process grew it
            }
            checkCanGrow(view.layout(), name);
            final long start = m.getLongVolatile(segmentOffset(n) + SEGMENT_SLOTS_OFFSET);
            if (start != 0)
            {
                publish(view, start, name); // step 2: prepared by another, finish its publication
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
                    final Region grown = build(view, mine, name);
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
                throw new FabricException(FiErrno.EAGAIN, "named AV '" + name + "' is being grown by another " +
                    "process, still at work after 5 s (very slow, or a very large segment): try again");
            }
            LockSupport.parkNanos(200_000);
        }
    }

    /** FI_ENOSPC at the AV's maxCount (SegmentFile.checkRoom asks the file system). */
    private static void checkCanGrow(final AvLayout layout, final String name)
    {
        if (!layout.canGrow())
        {
            throw new FabricException(FiErrno.ENOSPC, "named AV '" + name + "' is full at " +
                layout.capacity() + " entries, its maxCount (set when it was created): remove entries, or " +
                "create it with a larger AvAttr.maxCount");
        }
    }

    /**
     * Steps 4 to 7 under claim {@code mine}: the view with the new segment, or null when the claim was
     * taken over, or the segment published by another meanwhile (the caller looks again).
     */
    private static Region build(final Region view, final long mine, final String name)
    {
        final Memory m = view.memory();
        final AvLayout layout = view.layout();
        final int n = layout.segments();
        final long start = layout.fileLength(); // step 4: the one place of segment n
        final AvLayout bigger = layout.grownAt(start);
        final long end = bigger.fileLength();
        final Claim claim = new Claim(m, mine);
        if (end > MAX_FILE_LENGTH)
        {
            claim.release();
            throw new FabricException(FiErrno.ENOSPC, "named AV '" + name + "' is full at " +
                layout.capacity() + " entries: " + bigger.capacity() + " would need a " + end +
                "-byte file, more than one mapping holds (" + MAX_FILE_LENGTH + " bytes)");
        }
        try
        {
            final long found = SegmentFile.size(view.file(), name); // [start, found): left by others
            SegmentFile.checkRoom(view.file(), start, end, name, claim::advance);
            while (SegmentFile.appendZeros(view.file(), end, name) < end)
            {
                if (!claim.advance())
                {
                    return null;
                }
            }
            final Memory mapped = SegmentFile.map(view.file(), end, name);
            if (!checkLeftBytes(mapped, bigger, start, Math.min(found, end), name, claim::advance) ||
                !touchPages(mapped, start, bigger.hashArea(n, 1), claim::advance))
            {
                return null;
            }
            final Region grown = publishSegment(view, mapped, bigger, claim::advance);
            if (grown == null)
            {
                claim.release();
            }
            return grown;
        }
        catch (final FabricException e)
        {
            final boolean lost = claim.lost();
            claim.release();
            if (lost || m.getLongVolatile(segmentOffset(n) + SEGMENT_SLOTS_OFFSET) != 0)
            {
                return null; // e.g. no room left by the taker that finished this segment: follow it instead
            }
            throw e;
        }
        catch (final RuntimeException | Error e)
        {
            claim.release(); // the next grower need not wait for this claim to stall
            throw e;
        }
    }

    /** What {@link #touchPages} read, kept so that its loads are made; never used. */
    private static long touched;

    /**
     * Reads one word of every page of [from, to) (the new segment's slots, map_addr and the area the
     * index moves to; not the other area, used only by a later rebuild) through the new mapping,
     * before anything writes there. A page's first touch through a mapping faults; where the host
     * shadows page tables (a paravirtualized guest), a first touch that writes cost 22-30 us a page
     * against 11 us for one that reads, after which writes cost nothing more (docs/benchmarks.md,
     * Growth and lookup in CPU time). The AV's creator and attachers touch their whole mapping by
     * reading too ({@code FileOwnership.allocateEveryPage}). Reads only: harmless to anyone, at any time. The claim
     * advances every {@link SegmentFile#ZEROS_STEP} bytes, as in the appends, so that others see a
     * grower at work (a touch costs up to 30 us: a large segment takes longer than the 200 ms after
     * which a claim that stands still is taken over). False when it was taken over.
     */
    private static boolean touchPages(final Memory m, final long from, final long to, final BooleanSupplier stillMine)
    {
        long kept = 0;
        for (long at = from; at < to; at += PAGE)
        {
            kept ^= m.getLong((int)at);
            if (((at - from + PAGE) & (SegmentFile.ZEROS_STEP - 1)) == 0 && !stillMine.getAsBoolean())
            {
                touched ^= kept;
                return false;
            }
        }
        touched ^= kept;
        return true;
    }

    /**
     * FI_EIO unless the bytes [from, to) of the next segment of {@code bigger}, which were in the file
     * before this grower appended, are what growers leave there: zeros, and all ones in map_addr
     * entries (a grower of the segment that was taken over or died). Anything else was written by
     * another program, and growth never overwrites a byte (step 5), so it would become slot or bucket
     * contents. Bytes appended since need no look: appends write only zeros. The claim advances every
     * {@link SegmentFile#ZEROS_STEP} bytes checked, as in the appends: a taker of a claim whose zeros
     * were all appended reads up to a whole segment here, first touches included, and a check that stood
     * still for 200 ms would be taken over, its taker's check too, and so on. False when taken over.
     */
    private static boolean checkLeftBytes(final Memory m, final AvLayout bigger, final long from, final long to,
        final String name, final BooleanSupplier stillMine)
    {
        final int k = bigger.segments() - 1;
        final long mapFrom = bigger.map(bigger.segmentFirst(k));
        final long mapTo = bigger.map(bigger.segmentEnd(k) - 1) + 8L;
        for (long at = from; at < to; at += 8)
        {
            final long word = m.getLongVolatile((int)at); // only growers' CAS of map_addr may run meanwhile
            if (word != 0 && !(word == -1L && at >= mapFrom && at < mapTo))
            {
                if (m.getLongVolatile(segmentOffset(k) + SEGMENT_SLOTS_OFFSET) != 0)
                {
                    return true; // published meanwhile (and in use): not this grower's to judge any more
                }
                throw new FabricException(FiErrno.EIO, "named AV '" + name + "' is damaged: byte " + at +
                    " of its file, past its last segment where the next one goes, is not zero (written by another " +
                    "program?): growth never overwrites it; remove the AV with 'shmav rm' and create it again");
            }
            if (((at - from + 8) & (SegmentFile.ZEROS_STEP - 1)) == 0 && !stillMine.getAsBoolean())
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Steps 6 and 7 over {@code m}, a mapping that holds the reserved last segment of {@code bigger}
     * (zeros, or what other growers of it prepared), checking {@code stillMine} between steps: the view
     * that has it, or null when a step found the claim lost or the segment published by another. The
     * index is not moved yet (step 8). Package-private for jcstress, which runs it in process memory
     * against writers of older views and against a second grower of the same segment.
     */
    static Region publishSegment(final Region view, final Memory m, final AvLayout bigger,
        final BooleanSupplier stillMine)
    {
        final int k = bigger.segments() - 1;
        for (long i = bigger.segmentFirst(k); i < bigger.segmentEnd(k); i++)
        {
            m.compareAndSetLong(bigger.map(i), 0, -1L); // non-zero (prepared, or a VALID slot's fi_addr) stays
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
     * The entry is checked first, since a damaged file could hold anything there: a segment starts where
     * the one before ends.
     */
    private static void publish(final Region view, final long start, final String name)
    {
        final AvLayout layout = view.layout();
        if (start != layout.fileLength())
        {
            throw damaged(name, start);
        }
        final AvLayout bigger = layout.grownAt(start);
        if (bigger.fileLength() > MAX_FILE_LENGTH || bigger.fileLength() > SegmentFile.size(view.file(), name))
        {
            throw damaged(name, start);
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

    private static FabricException damaged(final String name, final long start)
    {
        return new FabricException(FiErrno.EIO, "named AV '" + name + "' is damaged: its next segment's " +
            "slotsOffset " + start + " is not the end of its last segment: remove it with 'shmav rm' and create it again");
    }

    /** A grower's claim, as it raises its progress. */
    private static final class Claim
    {
        private final Memory m;
        private long claim;

        Claim(final Memory m, final long claim)
        {
            this.m = m;
            this.claim = claim;
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

        /** True when the word holds another claim than this one (taken over, or given back). */
        boolean lost()
        {
            return m.getLongVolatile(GROWTH_CLAIM_OFFSET) != claim;
        }

        /** Gives the claim back if it is still the word: the next grower then claims without waiting. */
        void release()
        {
            m.compareAndSetLong(GROWTH_CLAIM_OFFSET, claim, GrowthClaim.released(claim));
        }
    }
}
