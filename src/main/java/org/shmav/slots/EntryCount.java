package org.shmav.slots;

import static org.shmav.shm.AttacherDescriptor.*;
import static org.shmav.shm.SlotDescriptor.*;

import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Memory;

/**
 * The AV's count, by the readers' rule (layout 8, shm-layout.md, Count): the number of slots that are
 * entries ({@link org.shmav.shm.SlotDescriptor#isEntry}: committed or VALID), at every instant, whatever
 * state a writer stopped in.
 *
 * <p>Each attacher's journal delta counts its finished operations; an operation in flight counts from
 * the CAS that makes it visible to readers, which the journal names but cannot record in the same
 * store. So a journal that names a publish counts its slot unless that slot is still its owner's
 * uncommitted claim (CLAIMED or CANCELLED by it), and one that names a removal stops counting its slot
 * once the slot is REMOVING by its owner: exactly how a recoverer settles a dead owner's journal
 * ({@link Recovery}), applied by a reader that writes nothing. A writer stopped between its CAS and its
 * journal store thus moves the count when readers see the change, neither one early nor one late.
 * Allocation-free, read-only, O(attachers). Stateless.
 */
final class EntryCount
{
    /** Reads of a slot whose journal changed meanwhile, before the journal's settled delta is taken. */
    private static final int TRIES = 8;

    private EntryCount()
    {
    }

    /**
     * Entries now, modulo 2^32 and at least 0 (a sum caught between a removal and the insert it undoes);
     * {@link SlotTable#STALE_VIEW} when a journal names a slot of a growth this view has not mapped.
     */
    static long count(final Memory m, final AvLayout layout)
    {
        final long highWater = Math.min(m.getLongAcquire(AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET),
            layout.attachersCapacity());
        int count = 0;
        for (int a = 0; a < highWater; a++)
        {
            final long share = share(m, layout, a);
            if (share == SlotTable.STALE_VIEW)
            {
                return share;
            }
            count += (int)share;
        }
        return Math.max(count, 0);
    }

    /** Attacher {@code a}'s part of the count: its delta, and its operation in flight once readers see it. */
    private static long share(final Memory m, final AvLayout layout, final int a)
    {
        final int entry = layout.attacher(a);
        long j = m.getLongAcquire(entry + JOURNAL_OFFSET);
        for (int tries = 0; tries < TRIES; tries++)
        {
            final int op = op(j);
            if (op != OP_PUBLISH && op != OP_REMOVE)
            {
                return delta(j);
            }
            final long slot = slot(j);
            if (slot < 0 || slot >= layout.capacity())
            {
                // A slot past this view: a growth this process has not mapped, or a damaged journal.
                return m.getIntAcquire(AvFileDescriptor.SEGMENT_COUNT_OFFSET) != layout.segments()
                    ? SlotTable.STALE_VIEW : delta(j);
            }
            final long s = m.getLongAcquire(layout.slot(slot) + STATE_OFFSET);
            final long again = m.getLongAcquire(entry + JOURNAL_OFFSET);
            if (again == j) // the slot was read while the journal still named it
            {
                final boolean owners = payload(s) == a;
                if (op == OP_PUBLISH)
                {
                    final boolean uncommitted = owners && (state(s) == CLAIMED || state(s) == CANCELLED);
                    return delta(j) + (uncommitted ? 0 : 1);
                }
                return delta(j) - (owners && state(s) == REMOVING ? 1 : 0);
            }
            j = again;
        }
        // The owner keeps moving: its journal's delta alone is a value the count held moments ago.
        return delta(j);
    }
}
