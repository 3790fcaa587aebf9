package org.shmav.slots;

import static org.shmav.shm.AttacherDescriptor.*;
import static org.shmav.shm.SlotDescriptor.*;

import org.shmav.FiErrno;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Memory;

/**
 * Every way a slot goes back to FREE: dropping references, the removal of the last one, and the undo
 * of a claim that will not be published.
 *
 * <pre>
 *   VALID(refs,g) --CAS refs-1--> VALID(refs-1,g)
 *   VALID(1,g)    --CAS (journal OP_REMOVE first)--> REMOVING(a,g) --finish--> FREE(g+1)
 *   CLAIMED(a,g), CANCELLED(a,g)  --undo--> FREE(g+1)
 *   finish / undo: map_addr reset, bucket tombstoned, then the CAS to FREE, then the free hint
 * </pre>
 *
 * Invariants: every transition is a CAS from the exact word the writer itself wrote (its claim, its
 * REMOVING word), so a writer whose slot was moved on by someone else fails cleanly instead of
 * changing a slot it no longer owns; a slot leaves map_addr and the index before it is FREE, so nobody
 * finds a FREE slot through them; the generation grows on every freeing, so a reader's seqlock check and a stale claim
 * word both fail afterwards; the writer's journal names a removal before its CAS, so a recoverer can
 * tell whether the count already dropped. Nothing here waits for another process: a migration of the
 * index that meets a removal copies an entry at most once too often, and a dead entry is harmless
 * ({@link DedupIndex}). Thread-safe: it holds no state of its own.
 */
final class SlotRemover
{
    private final Memory m;
    private final AvLayout layout;
    private final DedupIndex index;
    private final FreeSlots free;

    SlotRemover(final Memory m, final AvLayout layout, final DedupIndex index, final FreeSlots free)
    {
        this.m = m;
        this.layout = layout;
        this.index = index;
        this.free = free;
    }

    /**
     * Drops one reference on slot {@code index}; 0, or -EINVAL when it is not an entry (a committed
     * slot is published first, {@link #publishCommitted}). The last reference
     * moves the slot to REMOVING(w) by CAS from the VALID word read, and the removal is finished from
     * exactly the REMOVING word that CAS wrote.
     */
    int release(final Writer w, final long index)
    {
        final int slot = layout.slot(index);
        while (true)
        {
            final long s = m.getLongVolatile(slot + STATE_OFFSET);
            if (publishCommitted(slot, s))
            {
                continue;
            }
            if (state(s) != VALID || payload(s) == 0)
            {
                return -FiErrno.EINVAL;
            }
            final long refs = payload(s);
            if (refs > 1)
            {
                if (m.compareAndSetLong(slot + STATE_OFFSET, s, word(VALID, refs - 1, generation(s))))
                {
                    return 0;
                }
                continue;
            }
            final long delta = w.delta();
            final long removing = word(REMOVING, w.index, generation(s));
            w.journal(journal(delta, OP_REMOVE, index));
            if (m.compareAndSetLong(slot + STATE_OFFSET, s, removing))
            {
                w.journal(journal(delta - 1, OP_COUNTED, index));
                finishRemoval(index, removing);
                w.journal(journal(delta - 1, OP_NONE, 0));
                return 0;
            }
            w.journal(journal(delta, OP_NONE, 0));
        }
    }

    /**
     * Sets the user id of a VALID slot: 0, or -EINVAL when it is not VALID, -EOVERFLOW when it holds
     * every reference. The slot is pinned by a reference while the user id is stored, so that it cannot
     * be removed and reused meanwhile (the store would then change the next entry's user id); the pin is
     * dropped like any reference, finishing the removal if the others went meanwhile.
     */
    int setUserId(final Writer w, final long index, final long userId)
    {
        final int slot = layout.slot(index);
        while (true)
        {
            final long s = m.getLongVolatile(slot + STATE_OFFSET);
            if (publishCommitted(slot, s))
            {
                continue;
            }
            if (state(s) != VALID || payload(s) == 0)
            {
                return -FiErrno.EINVAL;
            }
            if (payload(s) >= MAX_REFS)
            {
                return -FiErrno.EOVERFLOW;
            }
            if (m.compareAndSetLong(slot + STATE_OFFSET, s, word(VALID, payload(s) + 1, generation(s))))
            {
                break;
            }
        }
        m.setLongVolatile(slot + USER_ID_OFFSET, userId);
        return release(w, index);
    }

    /**
     * A committed slot is an entry to every reader (shm-layout.md, Count), so a removal or a user id
     * may meet one whose owner has not published it yet: it publishes it for the owner, with the
     * owner's one reference, as any writer may (the owner's CAS then fails harmlessly and it counts
     * its publish as usual). True when {@code s} was PUBLISHING: read the slot again.
     */
    private boolean publishCommitted(final int slot, final long s)
    {
        if (state(s) != PUBLISHING)
        {
            return false;
        }
        m.compareAndSetLong(slot + STATE_OFFSET, s, word(VALID, 1, generation(s)));
        return true;
    }

    /**
     * CLAIMED(a,g) or CANCELLED(a,g) -> FREE(g+1), from exactly {@code claimed}: a writer gives back its
     * own claim, a recoverer the claim word of a dead owner it read. map_addr and any bucket pointing at the slot go
     * first. Nothing happens when the slot no longer holds {@code claimed}.
     */
    void undoClaim(final long index, final long claimed)
    {
        final int slot = layout.slot(index);
        if (m.getLongVolatile(slot + STATE_OFFSET) != claimed || state(claimed) != CLAIMED && state(claimed) != CANCELLED)
        {
            return;
        }
        m.setLongRelease(layout.map(index), -1L); // the owner may have written it before its publishing CAS
        this.index.tombstone(index);
        if (m.compareAndSetLong(slot + STATE_OFFSET, claimed, word(FREE, 0, generation(claimed) + 1)))
        {
            free.freed(index);
        }
    }

    /**
     * REMOVING(a,g) -> FREE(g+1), from exactly {@code removing}: out of map_addr and the hash, then free,
     * then the hint and the counters. Nothing happens when the slot no longer holds {@code removing}.
     */
    void finishRemoval(final long index, final long removing)
    {
        final int slot = layout.slot(index);
        if (m.getLongVolatile(slot + STATE_OFFSET) != removing || state(removing) != REMOVING)
        {
            return;
        }
        m.setLongRelease(layout.map(index), -1L);
        this.index.tombstone(index);
        if (m.compareAndSetLong(slot + STATE_OFFSET, removing, word(FREE, 0, generation(removing) + 1)))
        {
            free.freed(index);
            // Counted on the remover's entry: its owner, or the recoverer holding a dead owner's lock,
            // is the one process that finishes this removal.
            final long owner = payload(removing);
            if (owner < layout.attachersCapacity())
            {
                ChangeCounters.removed(m, layout.attacher((int)owner));
            }
        }
    }
}
