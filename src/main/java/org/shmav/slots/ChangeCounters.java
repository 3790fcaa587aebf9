package org.shmav.slots;

import static org.shmav.shm.AttacherDescriptor.PUBLISHED_OFFSET;
import static org.shmav.shm.AttacherDescriptor.REMOVED_OFFSET;

import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Memory;

/**
 * The AV's change counters, kept per attacher entry ({@code published}, {@code removed}) so that an
 * insert or a removal writes only its own writer's cache line: readers (watchers, the crowding check)
 * sum them over the entries below the high-water mark, as count() sums the journals. Each entry has
 * one writer at a time, its owner (or the recoverer that holds a dead owner's lock), so a plain load
 * and a release store suffice. Stateless.
 */
final class ChangeCounters
{
    private ChangeCounters()
    {
    }

    /** A new entry was published by the owner of attacher entry {@code entry}. */
    static void published(final Memory m, final int entry)
    {
        m.setLongRelease(entry + PUBLISHED_OFFSET, m.getLong(entry + PUBLISHED_OFFSET) + 1);
    }

    /** A last reference was removed by the owner of entry {@code entry} (or its recoverer). */
    static void removed(final Memory m, final int entry)
    {
        m.setLongRelease(entry + REMOVED_OFFSET, m.getLong(entry + REMOVED_OFFSET) + 1);
    }

    /** Publishes and removals so far, every writer ever: bumped by each, never lowered (modulo 2^64). */
    static long changes(final Memory m, final AvLayout layout)
    {
        long sum = 0;
        for (int a = 0; a < highWater(m, layout); a++)
        {
            final int entry = layout.attacher(a);
            sum += m.getLongAcquire(entry + PUBLISHED_OFFSET) + m.getLongAcquire(entry + REMOVED_OFFSET);
        }
        return sum;
    }

    /** Publishes so far, every writer ever: each took a hash bucket. */
    static long published(final Memory m, final AvLayout layout)
    {
        long sum = 0;
        for (int a = 0; a < highWater(m, layout); a++)
        {
            sum += m.getLongAcquire(layout.attacher(a) + PUBLISHED_OFFSET);
        }
        return sum;
    }

    private static int highWater(final Memory m, final AvLayout layout)
    {
        return (int)Math.min(m.getLongVolatile(AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET), layout.attachersCapacity());
    }
}
