package org.shmav.slots;

import static org.shmav.shm.AttacherDescriptor.*;
import static org.shmav.shm.SlotDescriptor.*;

import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Liveness;
import org.shmav.shm.Memory;

/**
 * Recovery of dead writers: whatever a writer that died at any instruction left half-done is
 * finished or undone by whoever meets it, in any process; and the same for what a live writer held
 * when an Error or exception cut its operation short ({@link #giveBack}).
 *
 * <pre>
 *   attacher entry a:  taken, lock held (alive) --(owner dies: the kernel drops the lock)--> taken, lock free
 *     --recoverer locks the byte--> settle journal, repair slots, auth keys, phase --> token 0, unlock
 *   slots of the dead owner a:  CLAIMED(a,g), CANCELLED(a,g) --undo--> FREE(g+1);
 *                               PUBLISHING(a,g) --publish--> VALID(1,g);  REMOVING(a,g) --finish--> FREE(g+1)
 * </pre>
 *
 * Invariants: an entry is recovered only when its lock is provably free ({@link Liveness}): a live
 * owner is never robbed, in any pid namespace, whatever the clocks; the recoverer holds the lock while
 * it works, so there is one recoverer at a time and others see the entry alive until it is free; the
 * journal is settled by one CAS that records whether the dead writer's publish or removal in flight
 * happened (for a publish: its commit to PUBLISHING), before any slot is touched, so the count stays exact; every slot repair is a CAS from the
 * word read, so a repair done twice (a recoverer that died half-way is replaced) changes nothing.
 * Thread-safe: it holds no state of its own.
 */
final class Recovery
{
    private final Memory m;
    private final AvLayout layout;
    private final SlotRemover remover;
    private final FreeSlots free;
    private final Liveness liveness;
    private final long capacity;

    Recovery(final Memory m, final AvLayout layout, final SlotRemover remover, final FreeSlots free,
        final Liveness liveness)
    {
        this.m = m;
        this.layout = layout;
        this.remover = remover;
        this.free = free;
        this.liveness = liveness;
        this.capacity = layout.capacity();
    }

    /** True when attacher entry {@code attacher} is taken and its lock held (by its owner or a recoverer). */
    boolean ownerAlive(final int attacher)
    {
        return m.getLongVolatile(layout.attacher(attacher) + TOKEN_OFFSET) != 0 && liveness.isHeld(attacher);
    }

    /** See {@link SlotTable#recoverDead}. */
    int recoverDead()
    {
        return recoverDead(false);
    }

    /**
     * Recovers every dead entry. Returns the slots repaired, plus, with {@code countMarked}, the FREE
     * slots whose group was found unmarked and marked (a claimer that found no slot asks for both: either
     * makes a claim worth trying again).
     */
    int recoverDead(final boolean countMarked)
    {
        final long highWater = Math.min(m.getLongVolatile(AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET),
            layout.attachersCapacity());
        int repaired = 0;
        for (int a = 0; a < highWater; a++)
        {
            if (m.getLongVolatile(layout.attacher(a) + TOKEN_OFFSET) != 0 && !liveness.isHeld(a))
            {
                repaired += recoverAttacher(a, countMarked);
            }
        }
        return repaired;
    }

    /**
     * Recovers attacher entry {@code a} if its process is dead: locks its byte (failing when the owner
     * or another recoverer holds it), settles it, frees it and unlocks. Returns the slots repaired.
     */
    int recoverAttacher(final int a)
    {
        return recoverAttacher(a, false);
    }

    private int recoverAttacher(final int a, final boolean countMarked)
    {
        if (!liveness.tryAcquire(a))
        {
            return 0;
        }
        try
        {
            final int entry = layout.attacher(a);
            final long token = m.getLongVolatile(entry + TOKEN_OFFSET);
            if (token == 0)
            {
                return 0; // freed meanwhile
            }
            if (!viewIsCurrent())
            {
                // The AV grew past this view, and the dead writer may hold a slot of the new segments
                // (read now, with its lock held, the count covers every slot it could have claimed):
                // leave the entry to a recoverer whose view is current.
                return 0;
            }
            // The dead writer may have freed a slot and died before marking its group: claims look at
            // marked groups only, so mark such slots now (once per dead writer).
            final int repaired = repair(a, entry);
            final int marked = free.markUnmarkedFree();
            m.compareAndSetLong(entry + TOKEN_OFFSET, token, 0L);
            return countMarked ? repaired + marked : repaired;
        }
        finally
        {
            liveness.release(a);
        }
    }

    /**
     * Gives back what writer {@code w} holds after an Error or exception cut its operation short: a
     * claim is undone, a removal finished, the journal settled as a recoverer would, so that the AV
     * stays usable while this process lives on. Clears the phase hint. Tried again if it overflows
     * the stack itself, and, if it still has not succeeded ({@code w.needsRepair} stays set), at the
     * start of the writer's next operation ({@link SlotTable#begin}).
     */
    void giveBack(final Writer w)
    {
        w.released(); // w.needsRepair is already set: every caller runs inside a marked operation
        for (int attempt = 0; attempt < 3; attempt++)
        {
            try
            {
                repair(w.index, w.entry);
                w.needsRepair = false;
                return;
            }
            catch (final StackOverflowError again)
            {
                // the handler runs on the little stack the failed operation left: the next try has more
            }
        }
    }

    private int repair(final int a, final int entry)
    {
        settleJournal(a, entry);
        int repaired = 0;
        for (long i = 0; i < capacity; i++)
        {
            final long s = m.getLongAcquire(layout.slot(i) + STATE_OFFSET);
            if (payload(s) == a && held(s))
            {
                repairHeld(i, s, a, entry);
                repaired++;
            }
        }
        repaired += AuthKeyTable.repair(m, layout, a);
        m.setLongVolatile(entry + PHASE_OFFSET, 0);
        final long j = m.getLongVolatile(entry + JOURNAL_OFFSET);
        if (op(j) == OP_COUNTED)
        {
            // The entry is freed next; its next owner inherits the settled delta, so the count stays exact.
            m.compareAndSetLong(entry + JOURNAL_OFFSET, j, journal(delta(j), OP_NONE, 0));
        }
        return repaired;
    }

    /**
     * {@link #repairSlot} from the word {@code read}, then from each word another process left there since,
     * for as long as the slot is still held in the name of dead writer {@code a}. An inserter of the same
     * address may cancel the claim (CLAIMED to CANCELLED) between this scan's read and its CAS, having seen
     * {@code a} alive (this recoverer holds its lock); the CAS from CLAIMED then fails, and only the owner
     * or its recoverer frees a CANCELLED slot: without a second look it would stay CANCELLED under an
     * entry about to be freed. Ends: while this recoverer holds {@code a}'s entry, nobody else claims in
     * its name, and every change of a held word leads to FREE or VALID.
     */
    void repairHeld(final long i, final long read, final int a, final int entry)
    {
        long s = read;
        while (true)
        {
            repairSlot(i, s, entry);
            final long now = m.getLongAcquire(layout.slot(i) + STATE_OFFSET);
            if (now == s || payload(now) != a || !held(now))
            {
                return;
            }
            s = now;
        }
    }

    /** True for the states a writer holds a slot in: its payload names the writer's attacher entry. */
    private static boolean held(final long s)
    {
        final int st = state(s);
        return st == CLAIMED || st == CANCELLED || st == PUBLISHING || st == REMOVING;
    }

    /**
     * Undoes or finishes slot {@code i}, held in word {@code s} by a writer that will not: what the owner
     * would have done, each by a CAS from {@code s}. {@code entry} is the owner's attacher entry, whose
     * counters it keeps, or -1 for none.
     */
    private void repairSlot(final long i, final long s, final int entry)
    {
        final int st = state(s);
        if (st == CLAIMED || st == CANCELLED)
        {
            remover.undoClaim(i, s);
        }
        else if (st == PUBLISHING)
        {
            // Committed and counted: publish it, as the owner would have (an inserter of the same
            // address may get there first, with two references: then there is nothing to do).
            if (m.compareAndSetLong(layout.slot(i) + STATE_OFFSET, s, word(VALID, 1, generation(s))) && entry >= 0)
            {
                ChangeCounters.published(m, entry);
            }
        }
        else
        {
            remover.finishRemoval(i, s);
        }
    }

    /**
     * Repairs the slots held in the name of an attacher entry that no writer holds: a free one (token 0)
     * or an index past the table. Writers take an entry before their first claim and free it only after
     * their last is settled, and recoverers free a dead one only after repairing its slots, so only a
     * damaged file, or a program that broke that rule, has such slots, and nobody else would ever give
     * them back. A word read while its entry's token is 0 cannot be a live writer's claim, and a later
     * claim of the slot has another generation, so each repair is the CAS a recoverer makes, from the
     * word read; the entry's lock is held meanwhile, so that no writer takes it (a free entry's
     * counters keep the count of what it finishes). Reads every slot: for {@code recover()} and
     * {@code shmav gc}, not for inserts. Returns the slots repaired.
     */
    int repairOrphans()
    {
        if (!viewIsCurrent())
        {
            return 0; // only a current view repairs (Recovery, step 2): the caller follows the growth first
        }
        int repaired = 0;
        for (long i = 0; i < capacity; i++)
        {
            final long s = m.getLongAcquire(layout.slot(i) + STATE_OFFSET);
            if (!held(s))
            {
                continue;
            }
            final long o = payload(s);
            if (o >= layout.attachersCapacity())
            {
                repairSlot(i, s, -1);
                repaired++;
            }
            else
            {
                final int entry = layout.attacher((int)o);
                if (m.getLongVolatile(entry + TOKEN_OFFSET) == 0 && liveness.tryAcquire((int)o))
                {
                    try
                    {
                        if (m.getLongVolatile(entry + TOKEN_OFFSET) == 0)
                        {
                            repairSlot(i, s, entry);
                            repaired++;
                        }
                    }
                    finally
                    {
                        liveness.release((int)o);
                    }
                }
            }
        }
        return repaired;
    }

    /**
     * Run by a writer that has just taken entry {@code a}: gives back whatever is still held in that
     * entry's name, as for a dead owner. Nothing is, unless the file was damaged (see {@link #repairOrphans});
     * left there, such claims would read as the new owner's own, which it walks past, and stay for good.
     */
    void repairTaken(final int a, final int entry)
    {
        if (viewIsCurrent())
        {
            repair(a, entry); // a view the AV grew past leaves it, as a recoverer does (step 2)
        }
    }

    /** False when the AV grew past this view: its slots are not all the slots a writer may hold. */
    private boolean viewIsCurrent()
    {
        return m.getIntAcquire(AvFileDescriptor.SEGMENT_COUNT_OFFSET) == layout.segments();
    }

    /** Decides, by one CAS, whether the dead writer's publish or removal in flight counts. */
    private void settleJournal(final int a, final int entry)
    {
        while (true)
        {
            final long j = m.getLongVolatile(entry + JOURNAL_OFFSET);
            final int op = op(j);
            if (op == OP_NONE || op == OP_COUNTED)
            {
                return;
            }
            final long slot = slot(j);
            final long d = delta(j);
            long settled = d;
            if (slot >= 0 && slot < capacity)
            {
                final long s = m.getLongAcquire(layout.slot(slot) + STATE_OFFSET);
                final boolean ours = payload(s) == a;
                if (op == OP_PUBLISH && !((state(s) == CLAIMED || state(s) == CANCELLED) && ours))
                {
                    settled = d + 1; // the commit CAS happened: the entry is real, whoever publishes it
                }
                else if (op == OP_REMOVE && state(s) == REMOVING && ours)
                {
                    settled = d - 1; // the removal CAS happened: the entry is gone
                }
            }
            if (m.compareAndSetLong(entry + JOURNAL_OFFSET, j, journal(settled, OP_COUNTED, Math.max(slot, 0))))
            {
                return;
            }
        }
    }
}
