package org.shmav.slots;

import java.util.Arrays;

import org.shmav.shm.Memory;

/**
 * For each part of a named AV's file, the mapping through which this process first saw it: the view
 * it attached with for the segments it found, then, for each later segment, the view that first
 * mapped it (its own growth, or a follow of another's). All map the same file from offset 0 and the
 * same bytes, so any of them that covers an offset reads what the newest one reads.
 *
 * <p>Why keep them: each mapping's pages cost a page fault on their first touch through it (on a
 * host with shadow page tables, about 11 us a page), and every growth maps the whole file again. A
 * migration into a new segment reads the old area and every slot it indexes; read through the newest
 * view, it touched every page of the file afresh at each growth, which cost a count-1 AV more than
 * half its insert time on its way to 1M entries. Read through the view that first saw them (where
 * the inserts that wrote them already touched them), they fault once. The old views stay mapped as
 * long as a newer view of this process lives: address space of at most twice the file (segments
 * double), no memory (the pages are the file's).
 *
 * <p>Immutable: a later view makes a new instance with its new segments added.
 */
final class FirstViews
{
    /** The views, earliest first; each maps more of the file than the one before it. */
    private final Memory[] views;
    /** views[k].capacity(), for the search. */
    private final int[] ends;

    private FirstViews(final Memory[] views)
    {
        this.views = views;
        this.ends = new int[views.length];
        for (int k = 0; k < views.length; k++)
        {
            ends[k] = views[k].capacity();
        }
    }

    /** A view that is the first for all it maps (an attach, a creation, a private region). */
    static FirstViews of(final Memory m)
    {
        return new FirstViews(new Memory[] {m});
    }

    /** These views and {@code later}, first for what it maps past them; these alone when it maps no more. */
    FirstViews then(final Memory later)
    {
        if (later.capacity() <= ends[ends.length - 1])
        {
            return this;
        }
        final Memory[] more = Arrays.copyOf(views, views.length + 1);
        more[views.length] = later;
        return new FirstViews(more);
    }

    /** The earliest view that holds the {@code length} bytes at {@code offset} (the newest when none does: it will refuse them). */
    Memory covering(final int offset, final int length)
    {
        final long end = (long)offset + length;
        int lo = 0;
        int hi = ends.length - 1;
        while (lo < hi)
        {
            final int mid = (lo + hi) >>> 1;
            if (ends[mid] >= end)
            {
                hi = mid;
            }
            else
            {
                lo = mid + 1;
            }
        }
        return views[lo];
    }

    /** How many views are kept (for tests). */
    int count()
    {
        return views.length;
    }
}
