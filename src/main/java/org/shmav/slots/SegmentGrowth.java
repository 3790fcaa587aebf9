package org.shmav.slots;

import static org.shmav.shm.AvFileDescriptor.*;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.shm.AvFileChannel;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Memory;
import org.shmav.shm.SegmentFile;
import org.shmav.shm.SharedAvFile;

/**
 * Growth of a named AV by one segment, so that its capacity doubles, or reaches its maximum when a
 * doubling would pass it (shm-layout.md, GROWTH):
 *
 * <pre>
 *   1 lock      exclusive record lock on byte 3096 of the lock file (one grower; the kernel frees a dead one's)
 *   2 check     segmentCount (acquire) still n, as in the grower's view? else another process grew: follow
 *   3 reserve   cut the file to the end of segment n-1, write zeros to the end of segment n (tmpfs
 *               allocates every page now; a full file system is FI_ENOSPC here, the file cut back)
 *   4 prepare   map the new length; map_addr of the new slots all ones; segment table entry n;
 *               free-group marks of the new slots
 *   5 publish   segmentCount := n + 1 (release); nobody is waited for
 *   6 unlock
 *   7 move      the index into segment n's area 0 ({@link IndexMigration#moveInto}), other writers going on
 * </pre>
 *
 * Crash safety: nothing is visible before step 5's release store, so a grower that dies earlier leaves
 * the AV as it was (its reserved tail is cut by the next grower). Until step 7 ends the index stays in
 * the old segment's area, which holds the new slots' entries too (a 26-bit slot field fits any slot):
 * a grower that dies or freezes there leaves it to the writers, whose crowding check, or full area,
 * moves it (the target of a migration is always the last segment's area once the active one is
 * older). Writers of an older view place into the old area as before, and map the file again once
 * indexState names an area past their view, or a bucket a slot past it; readers likewise.
 */
final class SegmentGrowth
{
    /** How long a grower waits for another process's growth (a live one takes milliseconds). */
    static final long LOCK_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);

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
        final AvFileChannel locks = view.locks();
        w.releaseLeftLocks();
        lock(locks, w, call, name);
        w.growthLock = locks; // until the unlock below has run: an Error may strike that call (SlotTable#begin)
        final Region grown;
        try
        {
            final Region now = view.follow(call, name);
            if (now != view)
            {
                return now; // another process grew it meanwhile
            }
            final AvLayout layout = view.layout();
            if (!layout.canGrow())
            {
                throw new FabricException(call, FiErrno.ENOSPC, "named AV '" + name + "' is full at " +
                    layout.capacity() + " entries, its maxCount (set when it was created): remove entries, or " +
                    "create it with a larger AvAttr.maxCount");
            }
            final AvLayout bigger = layout.grown();
            if (bigger.fileLength() > MAX_FILE_LENGTH)
            {
                // Only a file written elsewhere gets here: an opener refuses a maxCount whose file cannot be mapped.
                throw new FabricException(call, FiErrno.ENOSPC, "named AV '" + name + "' is full at " +
                    layout.capacity() + " entries: " + bigger.capacity() + " would need a " + bigger.fileLength() +
                    "-byte file, more than one mapping holds (" + MAX_FILE_LENGTH + " bytes)");
            }
            SegmentFile.reserve(file, layout.fileLength(), bigger.fileLength(), call, name);
            grown = publishSegment(view, SegmentFile.map(file, bigger.fileLength(), call, name), bigger);
        }
        finally
        {
            locks.unlock(GROWTH_LOCK_OFFSET);
            w.growthLock = null;
        }
        grown.table().moveIndexInto(w, grown.layout().segments() - 1); // step 7, outside the lock: another grower need not wait for it
        return grown;
    }

    private static void lock(final AvFileChannel file, final Writer w, final String call, final String name)
    {
        final long deadline = Waits.within(w, LOCK_WAIT_NANOS);
        while (!file.tryLock(GROWTH_LOCK_OFFSET))
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new FabricException(call, FiErrno.EAGAIN, "named AV '" + name + "' is being grown by another " +
                    "process that has held its growth lock for 5 s (stopped, or very slow): try again");
            }
            LockSupport.parkNanos(200_000);
        }
    }

    /**
     * Steps 4 and 5 over {@code m}, a mapping that holds the reserved segment of {@code bigger} (zeros):
     * the segment prepared and published; the view that has it. The index is not moved yet (step 7).
     * Package-private for jcstress, which runs it in process memory against writers of older views.
     */
    static Region publishSegment(final Region view, final Memory m, final AvLayout bigger)
    {
        final int k = bigger.segments() - 1;
        for (long i = bigger.segmentFirst(k); i < bigger.segmentEnd(k); i++)
        {
            m.putLong(bigger.map(i), -1L);
        }
        bigger.writeSegmentEntry(m, k);
        FreeSlots.mark(m, bigger, bigger.segmentFirst(k), bigger.segmentEnd(k));
        final Region next = view.next(new SharedAvFile.Mapped(m, bigger, view.file()));
        m.setIntRelease(SEGMENT_COUNT_OFFSET, bigger.segments()); // step 5: nobody is waited for
        return next;
    }
}
