package org.shmav.slots;

import static org.shmav.shm.AttacherDescriptor.*;
import static org.shmav.shm.SlotDescriptor.*;

import org.shmav.FiErrno;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Memory;

/**
 * The end of an insert's claim, filled and indexed (layout 7, shm-layout.md, Slot states): its
 * owner's commit, CLAIMED(a,g) -> PUBLISHING(a,g), which counts the entry in the owner's journal; the
 * owner's publish, PUBLISHING -> VALID(1,g), which anyone else may have made first
 * ({@link KeyPlacer#helpPublish}: VALID(2,g)); and the give-back of a claim that will not be
 * committed, from the owner's claim word or from that word CANCELLED by an inserter of the same
 * address. Every CAS here is from a word the owner's own CAS wrote, so an owner whose claim was moved
 * on by someone else changes nothing. Thread-safe: no state of its own.
 */
final class ClaimCommit
{
    /** {@link #publish}: another inserter of the key cancelled the claim before its commit; it is given back. */
    static final long CANCELLED_CLAIM = -3_000_001L;

    /**
     * Tests only: how long a writer pauses between its commit and its publish, widening the window in
     * which readers meet a committed slot (linearizability checks on real handles). 0, the default, in
     * production: one plain load and a not-taken branch.
     */
    static long pauseAfterCommitNanos;

    private final Memory m;
    private final AvLayout layout;
    private final SlotRemover remover;

    ClaimCommit(final Memory m, final AvLayout layout, final SlotRemover remover)
    {
        this.m = m;
        this.layout = layout;
        this.remover = remover;
    }

    /**
     * Commits and publishes writer {@code w}'s claim of slot {@code index}, filled and indexed. The
     * slot; -EAGAIN when the claim was taken over (a recoverer judged this writer dead); CANCELLED_CLAIM
     * when another inserter of the key cancelled it first (the claim is given back: start over).
     * Package-private for jcstress.
     */
    long publish(final Writer w, final long index, final long mapBase)
    {
        if (state(w.claimWord) == CLAIMED) // else committed already (jcstress and tests commit apart)
        {
            final long committed = commit(w, index, mapBase);
            if (committed < 0)
            {
                return committed;
            }
            if (pauseAfterCommitNanos > 0)
            {
                java.util.concurrent.locks.LockSupport.parkNanos(pauseAfterCommitNanos);
            }
        }
        return complete(w, index);
    }

    /**
     * map_addr, journal OP_PUBLISH, then the CAS from the claim word to PUBLISHING(a,g), then the journal
     * counts it: from here the entry is real, whoever publishes it. {@code index}, -EAGAIN or
     * CANCELLED_CLAIM as {@link #publish}.
     */
    long commit(final Writer w, final long index, final long mapBase)
    {
        final int slot = layout.slot(index);
        m.setLongRelease(layout.map(index), mapBase + index); // before the commit: a helper publishes without writing it
        final long delta = w.delta();
        w.journal(journal(delta, OP_PUBLISH, index));
        final long claimed = w.claimWord;
        final long committed = word(PUBLISHING, w.index, generation(claimed));
        // CAS from the exact word our claim wrote: if anyone moved the slot on, we own nothing.
        if (!m.compareAndSetLong(slot + STATE_OFFSET, claimed, committed))
        {
            w.journal(journal(delta, OP_NONE, 0));
            final long cancelled = word(CANCELLED, w.index, generation(claimed));
            if (m.getLongVolatile(slot + STATE_OFFSET) == cancelled)
            {
                w.claimWord = cancelled;
                giveBack(w); // still ours to free: map_addr, our entries, then FREE(g+1)
                return CANCELLED_CLAIM;
            }
            w.released();
            return -FiErrno.EAGAIN;
        }
        w.journal(journal(delta + 1, OP_NONE, 0));
        w.claimWord = committed;
        return index;
    }

    /**
     * CAS PUBLISHING(a,g) -> VALID(1,g). A failure means an inserter of the same key published it first,
     * with our reference and its own (or a recoverer that judged us dead did, with ours): the entry is
     * valid and counted once, by our commit. {@code index}.
     */
    private long complete(final Writer w, final long index)
    {
        final long committed = w.claimWord;
        m.compareAndSetLong(layout.slot(index) + STATE_OFFSET, committed, word(VALID, 1, generation(committed)));
        w.released();
        ChangeCounters.published(m, w.entry); // this writer's own line: no insert writes a line others write
        return index;
    }

    /**
     * Undoes this writer's claim (a duplicate, a full index, EALREADY, a cancel), from the word its CAS
     * wrote, or from that claim CANCELLED by another inserter meanwhile (still ours to free).
     */
    void giveBack(final Writer w)
    {
        final long claimed = w.claimWord;
        remover.undoClaim(w.claimedSlot, claimed);
        if (state(claimed) == CLAIMED)
        {
            remover.undoClaim(w.claimedSlot, word(CANCELLED, w.index, generation(claimed))); // no-op unless cancelled
        }
        w.released();
    }
}
