package org.shmav.slots;

import static org.shmav.shm.AttacherDescriptor.*;
import static org.shmav.shm.SlotDescriptor.*;

import org.shmav.shm.AttacherDescriptor;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Memory;
import org.shmav.shm.Processes;

/**
 * Recovery of dead writers: whatever a writer that died at any instruction left half-done is
 * finished or undone by whoever meets it, in any process.
 *
 * <pre>
 *   attacher token:  owner ----(owner dies)----> owner, dead --CAS--> RECOVERING|recoverer
 *                      --settle journal, repair slots, auth keys, phase--> 0 (free)
 *   slots of the dead owner a:  CLAIMED(a,g) --undo--> FREE(g+1);  REMOVING(a,g) --finish--> FREE(g+1)
 * </pre>
 *
 * Invariants: the journal is settled by one CAS that records whether the dead writer's publish or
 * removal in flight happened, before any slot is touched, so the count stays exact; every slot
 * repair is a CAS that only one recoverer wins; an entry is freed only once settled, so a new owner
 * never inherits a half-done step. Safe to run in several processes at once. Thread-safe: it holds
 * no state of its own.
 */
final class Recovery
{
    /** Token bit marking an attacher entry that a recoverer (the rest of the token) is settling. */
    static final long RECOVERING = AttacherDescriptor.TOKEN_RECOVERING;

    private final Memory m;
    private final AvLayout layout;
    private final SlotRemover remover;
    private final long capacity;

    Recovery(final Memory m, final AvLayout layout, final SlotRemover remover)
    {
        this.m = m;
        this.layout = layout;
        this.remover = remover;
        this.capacity = layout.capacity();
    }

    /** True when attacher entry {@code attacher} is taken by a live process (not being recovered). */
    boolean ownerAlive(final int attacher)
    {
        final long token = m.getLongVolatile(layout.attacher(attacher) + TOKEN_OFFSET);
        return token != 0 && (token & RECOVERING) == 0 && Processes.isAlive(token);
    }

    /** See {@link SlotTable#recoverDead}. */
    int recoverDead()
    {
        final long highWater = Math.min(m.getLongVolatile(AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET),
            layout.attachersCapacity());
        int repaired = 0;
        for (int a = 0; a < highWater; a++)
        {
            final long token = m.getLongVolatile(layout.attacher(a) + TOKEN_OFFSET);
            if (token != 0 && !Processes.isAlive(token & ~RECOVERING))
            {
                repaired += recoverAttacher(a);
            }
        }
        return repaired;
    }

    /**
     * Recovers attacher entry {@code a}, whose process is dead. Safe to run in several processes at
     * once: the journal is settled by one CAS that records the decision before any slot is touched,
     * and every slot repair is a CAS that only the first recoverer wins.
     */
    int recoverAttacher(final int a)
    {
        final int entry = layout.attacher(a);
        final long token = takeForRecovery(entry);
        if (token == 0)
        {
            return 0;
        }
        try
        {
            final int repaired = repair(a, entry);
            m.compareAndSetLong(entry + TOKEN_OFFSET, RECOVERING | Processes.SELF_TOKEN, 0L);
            return repaired;
        }
        catch (final RuntimeException e)
        {
            m.compareAndSetLong(entry + TOKEN_OFFSET, RECOVERING | Processes.SELF_TOKEN, token);
            throw e;
        }
    }

    /**
     * Marks a dead attacher entry as being recovered by this process, so that one recoverer works on
     * it at a time and nobody can take the entry before it is settled. A recoverer that died is
     * replaced the same way. Returns the token replaced, or 0 when there is nothing to do.
     */
    private long takeForRecovery(final int entry)
    {
        while (true)
        {
            final long t = m.getLongVolatile(entry + TOKEN_OFFSET);
            if (t == 0)
            {
                return 0;
            }
            final long holder = t & ~RECOVERING;
            if (holder == Processes.SELF_TOKEN || Processes.isAlive(holder))
            {
                return 0; // a live owner, or a live recoverer (perhaps another thread of ours)
            }
            if (m.compareAndSetLong(entry + TOKEN_OFFSET, t, RECOVERING | Processes.SELF_TOKEN))
            {
                return t;
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
            if (payload(s) != a)
            {
                continue;
            }
            if (state(s) == CLAIMED)
            {
                remover.undoClaim(i, a);
                repaired++;
            }
            else if (state(s) == REMOVING)
            {
                remover.finishRemoval(i, a);
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
                if (op == OP_PUBLISH && !(state(s) == CLAIMED && ours))
                {
                    settled = d + 1; // the publish CAS happened: the entry is real
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
