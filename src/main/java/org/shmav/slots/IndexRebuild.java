package org.shmav.slots;

import static org.shmav.shm.AttacherDescriptor.*;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Memory;

/**
 * The writer phase and the index rebuild: tombstones left by removals become EMPTY buckets again
 * only while no writer is inside an insert or removal.
 *
 * <pre>
 *   hashEpoch:  epoch|0 --CAS (rebuilder a marks)--> epoch+1|a+1 --wait for phases 0, rebuild--> epoch+1|0
 *                                  \--(a died)--> CAS epoch+1|b+1 by a writer that takes the rebuild over
 *   phase (per attacher): 0 --volatile 1 (enter)--> 1 --release 0 (exit)--> 0
 * </pre>
 *
 * Invariants: a rebuilder sets the epoch word and then waits for every phase word to be 0; a writer
 * sets its phase word and then reads the epoch word; both are volatile (sequentially consistent), so
 * either the writer sees the rebuild and waits, or the rebuilder sees the writer. A rebuild whose
 * rebuilder died, or gave up after an Error ({@link #ABANDONED}), is finished by the next writer that
 * meets it. Readers that overlap a rebuild see the epoch change and fall back to scanning the slots.
 * A rebuilder waits for live writers' phases only {@link #PHASE_WAIT_NANOS}, and a handle whose
 * attempt failed backs off ({@link #rebuildCrowded}), so that a frozen writer does not stall the
 * others. Used by one writer thread of a handle at a time (its back-off is the handle's).
 */
final class IndexRebuild
{
    /**
     * How long a rebuilder waits for live writers to leave their phase. A live writer is inside for
     * microseconds; one that stays longer is frozen (SIGSTOP) or descheduled, and every other writer
     * waits for the rebuild meanwhile, so the rebuilder gives up soon and backs off instead.
     */
    static final long PHASE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Longest back-off between rebuild attempts of a crowded index that live writers kept from running. */
    static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** Rebuilder index + 1 of a rebuild whose rebuilder gave up after an Error: nobody's, so the next writer takes it over. */
    static final long ABANDONED = 0xFFFF_FFFFL;
    /** A writer checks whether the hash is crowded on one insert in at most this many. */
    static final int CROWD_CHECK_EVERY = 64;
    /** Results of {@link #enterPhase}. */
    static final int ENTERED = 0;
    static final int TIMED_OUT = 1;
    static final int STALE = 2;

    private final Memory m;
    private final AvLayout layout;
    private final DedupIndex index;
    private final Recovery recovery;
    /** The work of an index rebuild, made once rather than on every rebuild or takeover. */
    private final Runnable rebuildBuckets;
    /** Inserts of a writer between two crowding checks: the hash's buckets / 64, 1 to {@link #CROWD_CHECK_EVERY}. */
    private final int crowdCheckEvery;
    /** This handle's next rebuild attempt of a crowded index may start then (System.nanoTime), and its back-off. */
    private long nextAttempt;
    private long backoff;

    IndexRebuild(final Memory m, final AvLayout layout, final DedupIndex index, final Recovery recovery)
    {
        this.m = m;
        this.layout = layout;
        this.index = index;
        this.recovery = recovery;
        this.rebuildBuckets = index::rebuildBuckets;
        this.crowdCheckEvery = (int)Math.max(1, Math.min(CROWD_CHECK_EVERY, layout.hashBuckets() >>> 6));
    }

    /**
     * True when the hash may be running out of EMPTY buckets, checked on one insert of this writer in
     * {@code crowdCheckEvery} (1 in 64, fewer for a hash of fewer than 4096 buckets). Buckets never go back to EMPTY except by a rebuild, and a bucket is
     * taken by each publish, so {@code hashUsedBase} plus the attachers' {@code published} counters
     * (the entries the last rebuild indexed, plus publishes since) is about the buckets in use. Summing
     * the counters reads every writer's line, so a writer does it only now and then: P writers may
     * overshoot the threshold by P x buckets / 64, well within the quarter left, and an insert that finds no
     * EMPTY bucket asks for a rebuild itself (it also covers a bucket taken by an insert that then gave
     * its slot back to a duplicate).
     */
    boolean indexCrowded(final Writer w)
    {
        if (++w.insertsSinceCrowdCheck < crowdCheckEvery)
        {
            return false;
        }
        w.insertsSinceCrowdCheck = 0;
        final long used = ChangeCounters.published(m, layout) + m.getLongVolatile(AvFileDescriptor.HASH_USED_BASE_OFFSET);
        return used > (layout.hashBuckets() >>> 2) * 3;
    }

    /**
     * True when a growth published segments this view does not have: its hash is no longer the one
     * in use, so the view must not write (the caller maps the file again). A growth publishes only
     * while it holds the rebuild mark with every phase 0, so a writer inside its phase, or holding the
     * mark, that found its view current keeps it current until it leaves.
     */
    boolean stale()
    {
        return m.getIntAcquire(AvFileDescriptor.SEGMENT_COUNT_OFFSET) != layout.segments();
    }

    /**
     * Marks this writer as inside an insert, unless an index rebuild runs: then it waits for the
     * rebuild (taking it over if its rebuilder died). {@link #ENTERED}; {@link #TIMED_OUT} when a live
     * rebuilder kept going past the deadline; {@link #STALE} (outside the phase) when the AV grew past
     * this view. A writer sets its phase, then reads the epoch, then the segment count: a growth that
     * published reset the epoch after, so the writer sees the new count.
     */
    int enterPhase(final Writer w)
    {
        while (true)
        {
            m.setLongVolatile(w.entry + PHASE_OFFSET, 1);
            final long epoch = m.getLongVolatile(AvFileDescriptor.HASH_EPOCH_OFFSET);
            if ((epoch & 0xFFFF_FFFFL) == 0)
            {
                if (!stale())
                {
                    return ENTERED;
                }
                m.setLongRelease(w.entry + PHASE_OFFSET, 0);
                return STALE;
            }
            m.setLongVolatile(w.entry + PHASE_OFFSET, 0);
            if (stale())
            {
                return STALE;
            }
            if (!awaitRebuild(w, epoch, Waits.deadline(w)))
            {
                return TIMED_OUT;
            }
        }
    }

    void exitPhase(final Writer w)
    {
        m.setLongRelease(w.entry + PHASE_OFFSET, 0);
    }

    /**
     * True when the rebuild marked in {@code epoch} has a live rebuilder other than {@code w} (an index
     * out of range has none; a mark of {@code w}'s own, met outside its rebuild, was left by a rebuild
     * an Error cut short before it could mark it abandoned).
     */
    private boolean rebuilderAlive(final long epoch, final Writer w)
    {
        final long rebuilder = (epoch & 0xFFFF_FFFFL) - 1;
        return rebuilder >= 0 && rebuilder < layout.attachersCapacity() && rebuilder != w.index &&
            recovery.ownerAlive((int)rebuilder);
    }

    /** Waits for the rebuild marked in {@code epoch} to end; takes it over if its rebuilder died. */
    private boolean awaitRebuild(final Writer w, final long epoch, final long deadline)
    {
        while (m.getLongVolatile(AvFileDescriptor.HASH_EPOCH_OFFSET) == epoch)
        {
            if (!rebuilderAlive(epoch, w))
            {
                if (stale())
                {
                    return true; // only a view of the hash in use may rebuild it: the caller maps the file again
                }
                final long mine = (epoch & 0xFFFF_FFFF_0000_0000L) | (w.index + 1);
                if (!m.compareAndSetLong(AvFileDescriptor.HASH_EPOCH_OFFSET, epoch, mine) || rebuildAs(w, mine))
                {
                    return true; // finished by us, or taken over by another writer: look again
                }
                // Live writers kept the takeover from running: the rebuild is abandoned again, and taking
                // it over again is all a writer can do, until the deadline.
                return !Waits.passed(deadline);
            }
            if (Waits.passed(deadline))
            {
                return false;
            }
            LockSupport.parkNanos(10_000);
        }
        return true;
    }

    /** See {@link SlotTable#finishAbandonedRebuild}. */
    boolean finishAbandonedRebuild(final Writer w)
    {
        final long epoch = m.getLongVolatile(AvFileDescriptor.HASH_EPOCH_OFFSET);
        if ((epoch & 0xFFFF_FFFFL) == 0 || rebuilderAlive(epoch, w) || stale())
        {
            return false;
        }
        final long mine = (epoch & 0xFFFF_FFFF_0000_0000L) | (w.index + 1);
        return m.compareAndSetLong(AvFileDescriptor.HASH_EPOCH_OFFSET, epoch, mine) && rebuildAs(w, mine);
    }

    /**
     * Rebuilds a crowded index unless an attempt of this handle failed (live writers stayed inside
     * their phase) less than a back-off ago: inserts go on meanwhile, as a crowded index still has
     * EMPTY buckets. The back-off doubles with each failure, up to {@link #MAX_BACKOFF_NANOS}.
     */
    void rebuildCrowded(final Writer w)
    {
        if (backoff != 0 && System.nanoTime() - nextAttempt < 0)
        {
            return;
        }
        if (rebuildIndex(w))
        {
            backoff = 0;
            return;
        }
        backoff = Math.min(Math.max(backoff * 2, PHASE_WAIT_NANOS * 10), MAX_BACKOFF_NANOS);
        nextAttempt = System.nanoTime() + backoff;
    }

    /** See {@link SlotTable#rebuildIndex}. */
    boolean rebuildIndex(final Writer w)
    {
        return quiesce(w, rebuildBuckets);
    }

    /**
     * Runs {@code work} with the rebuild mark held and every other writer outside its phase, as a
     * rebuild does: the index rebuild itself, or a growth's indexing and publication of a segment.
     * False when another rebuild ran instead (waited for), live writers stayed inside their phase, or
     * this view is stale; {@code work} did not run then.
     */
    boolean quiesce(final Writer w, final Runnable work)
    {
        final long epoch = m.getLongVolatile(AvFileDescriptor.HASH_EPOCH_OFFSET);
        if ((epoch & 0xFFFF_FFFFL) != 0)
        {
            awaitRebuild(w, epoch, Waits.deadline(w));
            return false; // someone else rebuilt
        }
        if (stale())
        {
            return false;
        }
        final long mine = (((epoch >>> 32) + 1) << 32) | (w.index + 1);
        return m.compareAndSetLong(AvFileDescriptor.HASH_EPOCH_OFFSET, epoch, mine) && runAs(w, mine, work, false);
    }

    /** A rebuild taken over from a dead or failed rebuilder: the whole index, afresh. */
    private boolean rebuildAs(final Writer w, final long mine)
    {
        return runAs(w, mine, rebuildBuckets, true);
    }

    /**
     * The rebuild marked by {@code mine}: waits (bounded) for other writers to leave their phase,
     * recovering dead ones, then runs {@code work}. An Error or exception on the way, or a view found
     * stale (a taken-over rebuild may have left the hash in use half-built), marks the rebuild
     * {@link #ABANDONED}, so that the next writer with a current view takes it over. So does a
     * {@code takeover} that gives up waiting: the dead rebuilder may have cleared buckets already, and
     * an index declared done without the slots they held would let a present address be inserted
     * twice. Only a rebuild of our own that gave up before touching a bucket goes back to idle.
     */
    private boolean runAs(final Writer w, final long mine, final Runnable work, final boolean takeover)
    {
        final long idle = mine & 0xFFFF_FFFF_0000_0000L;
        try
        {
            if (!awaitPhasesZero(w))
            {
                m.compareAndSetLong(AvFileDescriptor.HASH_EPOCH_OFFSET, mine, takeover ? idle | ABANDONED : idle);
                return false;
            }
            if (stale())
            {
                m.compareAndSetLong(AvFileDescriptor.HASH_EPOCH_OFFSET, mine, idle | ABANDONED);
                return false;
            }
            work.run();
            m.setLongVolatile(AvFileDescriptor.HASH_EPOCH_OFFSET, idle);
            return true;
        }
        catch (final Throwable t)
        {
            m.compareAndSetLong(AvFileDescriptor.HASH_EPOCH_OFFSET, mine, idle | ABANDONED);
            throw t;
        }
    }

    /** True once no other writer is inside its phase; false when a live one stayed past {@link #PHASE_WAIT_NANOS}. */
    private boolean awaitPhasesZero(final Writer w)
    {
        final long deadline = Waits.within(w, PHASE_WAIT_NANOS);
        final long highWater = Math.min(m.getLongVolatile(AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET),
            layout.attachersCapacity());
        for (int a = 0; a < highWater; a++)
        {
            while (a != w.index && m.getLongVolatile(layout.attacher(a) + PHASE_OFFSET) != 0)
            {
                if (m.getLongVolatile(layout.attacher(a) + TOKEN_OFFSET) == 0)
                {
                    // No owner, so nobody inside an insert (only a corrupted file has such a phase word).
                    // Whoever takes the entry later sets its phase, then sees our mark and waits.
                    break;
                }
                if (!recovery.ownerAlive(a))
                {
                    recovery.recoverAttacher(a); // undoes its claims and clears its phase
                }
                if (Waits.passed(deadline))
                {
                    return false;
                }
                LockSupport.parkNanos(10_000);
            }
        }
        return true;
    }
}
