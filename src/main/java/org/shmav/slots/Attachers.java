package org.shmav.slots;

import static org.shmav.shm.AttacherDescriptor.*;

import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Liveness;
import org.shmav.shm.Memory;
import org.shmav.shm.Processes;

/**
 * The attachers table: each writing process takes one entry, the owner named in its claims, and keeps
 * its journal there; the AV's count is the sum of the journals, with the operations in flight that
 * readers already see ({@link EntryCount}).
 *
 * <pre>
 *   entry: free (token 0, unlocked) --lock byte, then CAS token 0 -> t (attach)--> taken, locked
 *          taken, locked --CAS token t -> 0, then unlock (detach)--> free
 *          taken, locked --unlock, token kept (detach with repairs pending)--> taken, unlocked --recover--> free
 *          taken, locked --(owner dies: the kernel unlocks)--> taken, unlocked --recover--> free ({@link Recovery})
 *   attachersHighWater: raised by CAS to at least (entry + 1) after an entry is taken; never lowered
 * </pre>
 *
 * Invariants: an entry has one owner at a time (the lock, then the CAS from 0); an entry is locked
 * before its token is set and unlocked only after it is cleared, so a taken entry with a free lock is
 * always a dead owner's; readers sum the journals of the entries below the high-water mark, which
 * covers every entry ever taken; a detached entry keeps its journal delta for the next owner, so the
 * sum stays the count. Thread-safe.
 */
final class Attachers
{
    private final Memory m;
    private final AvLayout layout;
    private final Recovery recovery;
    private final Liveness liveness;

    Attachers(final Memory m, final AvLayout layout, final Recovery recovery, final Liveness liveness)
    {
        this.m = m;
        this.layout = layout;
        this.recovery = recovery;
        this.liveness = liveness;
    }

    /** See {@link SlotTable#attach}. */
    Writer attach()
    {
        for (int pass = 0; pass < 2; pass++)
        {
            for (int a = 0; a < layout.attachersCapacity(); a++)
            {
                final int entry = layout.attacher(a);
                if (m.getLongVolatile(entry + TOKEN_OFFSET) != 0 || !liveness.tryAcquire(a))
                {
                    continue;
                }
                if (m.compareAndSetLong(entry + TOKEN_OFFSET, 0L, Processes.SELF_TOKEN))
                {
                    m.putLong(entry + PID_OFFSET, Processes.SELF_PID);
                    m.putLong(entry + START_MILLIS_OFFSET, Processes.SELF_START_MILLIS);
                    m.setLongRelease(entry + ATTACHED_MILLIS_OFFSET, System.currentTimeMillis());
                    raiseHighWater(a + 1);
                    recovery.repairTaken(a, entry);
                    return new Writer(m, a, entry);
                }
                liveness.release(a); // taken by a dead owner meanwhile: recovered by the next pass
            }
            recovery.recoverDead();
        }
        return null;
    }

    /** Gives the entry back; its journal delta stays for the next owner. */
    void detach(final Writer w)
    {
        m.setLongVolatile(w.entry + PHASE_OFFSET, 0);
        m.compareAndSetLong(w.entry + TOKEN_OFFSET, Processes.SELF_TOKEN, 0L);
        liveness.release(w.index);
    }

    /**
     * Lets go of an entry whose repairs are still pending: the lock is released and the token kept, so
     * the entry reads as a dead owner's, and the next recoverer settles its journal and slots.
     */
    void leaveToRecovery(final Writer w)
    {
        // An entry that holds a claim or a removal reads as inside its phase, as a writer that died
        // mid-operation does: a claimer that finds no FREE slot waits for such work in flight.
        m.setLongVolatile(w.entry + PHASE_OFFSET, 1);
        liveness.release(w.index);
    }

    /** Entries now, by the readers' rule: see {@link EntryCount}. */
    long count()
    {
        return EntryCount.count(m, layout);
    }

    private void raiseHighWater(final long value)
    {
        while (true)
        {
            final long hw = m.getLongVolatile(AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET);
            if (hw >= value || m.compareAndSetLong(AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET, hw, value))
            {
                return;
            }
        }
    }
}
