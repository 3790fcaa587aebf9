package org.shmav.slots;

import static org.shmav.shm.AvFileDescriptor.FREE_HINT_OFFSET;
import static org.shmav.shm.SlotDescriptor.*;
import java.util.concurrent.ThreadLocalRandom;

import org.shmav.shm.AvLayout;
import org.shmav.shm.Memory;
import org.shmav.shm.AvFileDescriptor;

/**
 * Finds and claims the lowest FREE slot of a region, and hands freed slots back to that search.
 *
 * <p>Two words of the header guide the search; neither confers ownership, the CAS of a slot's state
 * word from FREE to CLAIMED does:
 * <ul>
 * <li>{@code freeHint}: no slot below its index is FREE, as of its epoch, which every freeing bumps.</li>
 * <li>Free-group marks: slots are grouped by index ({@link AvFileDescriptor#freeGroupShift}) and a
 * group's bit is set while it may hold a FREE slot. Whoever frees a slot marks its group; a claimer
 * that finds a marked group full clears the mark and then reads every state word of the group again,
 * marking it back if a slot is FREE. The freer's CAS and mark read and the claimer's mark clear and
 * state reads are all sequentially consistent, so a FREE slot's group is marked, except in the moment
 * between its freeing CAS and the mark.</li>
 * </ul>
 * So a claim visits only marked groups from the hint up, in a time that does not grow with the number
 * of entries, where a scan of every slot state from the hint would (remove-then-reinsert was
 * proportional to the distance between the hint and the freed slot).
 *
 * <p>A writer may spread its claims instead (AvAttr.lowestIndex false, {@link #claimSpread}): it keeps
 * a run of its own and never moves the hint, so the rule above holds for the other writers.
 *
 * <p>A slot freed by a writer that died between its freeing CAS and its mark is marked by the
 * recoverer of that writer's entry ({@link #markUnmarkedFree}), so a claim never reads the state words
 * of unmarked groups: finding an AV full costs a read of the marks (2 KiB at most), not of every slot.
 */
final class FreeSlots
{
    private static final long INDEX_MASK = 0xFFFF_FFFFL;
    /** Random places a spreading writer tries when its run met another (see {@link #claimSpread}). */
    static final int SPREAD_PROBES = 8;
    /** Most slots one run of a batch takes ({@link #reserveRun}). */
    static final int MAX_RUN = 64;

    private final Memory m;
    private final AvLayout layout;
    private final long capacity;
    private final int groupShift;
    private final long groupCount;

    FreeSlots(final Memory m, final AvLayout layout)
    {
        this.m = m;
        this.layout = layout;
        this.capacity = layout.capacity();
        this.groupShift = layout.freeGroupShift();
        this.groupCount = layout.freeGroups();
    }

    /**
     * Marks every group holding a slot of [first, end), slots that are all FREE: those of a new region
     * (plain stores, nobody else sees it yet), or those of a segment a grower is about to publish (an
     * atomic or, since other writers clear and set marks of the existing groups meanwhile). A mark is a
     * hint that may be set without a FREE slot, never the reverse, so setting one is always safe.
     */
    static void mark(final Memory m, final AvLayout layout, final long first, final long end)
    {
        final int shift = layout.freeGroupShift();
        for (long g = first >>> shift; g <= (end - 1) >>> shift; g++)
        {
            final int word = AvFileDescriptor.freeGroupWordOffset(g);
            if ((m.getLongVolatile(word) & (1L << g)) == 0)
            {
                m.getAndBitwiseOrLong(word, 1L << g);
            }
        }
    }

    /**
     * CASes the lowest FREE slot from FREE(g) to CLAIMED(w, g) and returns its index, or -1 when no
     * slot is FREE.
     *
     * <p>The search starts at the hint, or further up at the writer's own {@code nextFree} when no
     * freeing has bumped the hint's epoch since this writer's last claim set it (no slot below it was
     * FREE then, and none has been freed since). The shared hint is then moved only when a claim leaves
     * the hint's free group: a CAS on a line that every writer reads, once per 64 claims instead of
     * on every one; another writer starting from the older hint reads at most the rest of that group.
     * (The epoch has 32 bits: a writer idle for a multiple of 2^32 freeings would start too high,
     * which could only hand out a higher slot first, never one slot twice.)
     */
    long claimLowest(final Writer w)
    {
        if (w.spreadClaims)
        {
            final long slot = claimSpread(w);
            if (slot >= 0)
            {
                return slot;
            }
        }
        while (w.runNext < w.runEnd)
        {
            final long i = w.runNext++;
            if (m.getLong(layout.map(i)) == -1L && tryClaim(w, i))
            {
                return i; // a slot of the run that is not FREE (VALID above the old frontier, or taken) is passed
            }
        }
        final long slot = claimLowestFree(w);
        if (slot >= 0 && w.spreadClaims)
        {
            w.spreadNext = slot + 1; // a spreading writer's run goes on from the gap it found
        }
        else if (slot >= 0 && w.runWanted > 1)
        {
            reserveRun(w, slot);
        }
        return slot;
    }

    /**
     * A batch that claimed {@code slot} at the frontier takes the slots above it for its next claims:
     * it moves the shared hint past them with one CAS, so that other writers start above its run instead
     * of racing it slot by slot (two writers claiming at one frontier read each other's fresh claims on
     * every insert). The hint then has FREE slots below it, of this run only, which the claims of other
     * writers no longer look at first; the run's slots left FREE when the call ends are given back
     * ({@link #endRun}), those of a writer that died by its recoverer ({@link #markUnmarkedFree}).
     */
    private void reserveRun(final Writer w, final long slot)
    {
        final long hint = m.getLongVolatile(FREE_HINT_OFFSET);
        final long end = Math.min(capacity, slot + Math.min(w.runWanted, MAX_RUN));
        // Only while the epoch is the one of the search that found slot: no slot below it was freed
        // since, so none is FREE there but other runs' (a freeing lowers the hint with a new epoch).
        if ((hint >>> 32) == w.hintEpoch && (hint & INDEX_MASK) <= slot + 1 && end > slot + 1 &&
            m.compareAndSetLong(FREE_HINT_OFFSET, hint, (hint & ~INDEX_MASK) | end))
        {
            w.runNext = slot + 1;
            w.runEnd = end;
        }
    }

    /**
     * Ends {@code w}'s run, if it has one: lowers the hint to the run's first slot that is still FREE (as
     * a freeing does, new epoch), so that every writer's claims find it first again.
     */
    void endRun(final Writer w)
    {
        final long from = w.runNext;
        final long end = Math.min(w.runEnd, capacity);
        w.runNext = 0;
        w.runEnd = 0;
        w.runWanted = 0;
        for (long i = from; i < end; i++)
        {
            if (state(m.getLongVolatile(layout.slot(i) + STATE_OFFSET)) == FREE)
            {
                freed(i);
                return;
            }
        }
    }

    /** The lowest FREE slot, claimed (see {@link #claimLowest}); -1 when none is FREE. */
    private long claimLowestFree(final Writer w)
    {
        final long hint = m.getLongVolatile(FREE_HINT_OFFSET);
        final long shared = Math.min(hint & INDEX_MASK, capacity);
        final long epoch = hint >>> 32;
        final long start = epoch == w.hintEpoch ? Math.max(shared, Math.min(w.nextFree, capacity)) : shared;
        final long slot = claimMarked(w, start);
        if (slot >= 0)
        {
            // [start, slot) held no FREE slot when searched; while no freeing bumps the epoch, the
            // lowest FREE slot is above slot.
            w.hintEpoch = epoch;
            w.nextFree = slot + 1;
            if ((slot + 1) >>> groupShift != shared >>> groupShift)
            {
                m.compareAndSetLong(FREE_HINT_OFFSET, hint, (hint & ~INDEX_MASK) | (slot + 1));
            }
            return slot;
        }
        w.hintEpoch = -1;
        // The hint (or this writer's own start) is too high only after a writer died between freeing a
        // slot and lowering the hint: look at the marked groups from the first.
        return start > 0 ? claimMarked(w, 0) : -1;
    }

    /**
     * Marks the group of every FREE slot whose group is not marked, and lowers the hint to the lowest
     * FREE slot: what a writer that died between its freeing CAS and its mark did not do, or a batch
     * that died before it gave back the rest of its run. Reads every
     * state word (O(capacity)), so it runs only when a dead writer's entry was recovered. Returns the
     * slots found so.
     */
    int markUnmarkedFree()
    {
        int found = 0;
        long lowest = -1;
        for (long i = 0; i < capacity; i++)
        {
            if (state(m.getLongVolatile(layout.slot(i) + STATE_OFFSET)) != FREE)
            {
                continue;
            }
            lowest = lowest < 0 ? i : lowest;
            if ((m.getLongVolatile(AvFileDescriptor.freeGroupWordOffset(i >>> groupShift)) & (1L << (i >>> groupShift))) == 0)
            {
                freed(i);
                found++;
            }
        }
        if (lowest >= 0 && lowest < (m.getLongVolatile(FREE_HINT_OFFSET) & INDEX_MASK))
        {
            freed(lowest); // below the hint: a run that a dead batch did not use ({@link #reserveRun})
        }
        return found;
    }

    /**
     * The claim of a writer that spreads its claims (AvAttr.lowestIndex false): the slot where its own
     * run of claims goes on, if FREE. Two writers claiming at one frontier read each other's freshly
     * claimed slot on every claim, so a writer whose run meets a slot taken by another moves its run to
     * a random FREE slot whose predecessor is FREE too (inside a gap, not at another run's frontier),
     * trying {@link #SPREAD_PROBES} places. -1 when the run cannot go on and no place was found: the
     * caller claims the lowest FREE slot (which also finds the gaps that runs left), and this writer
     * stops looking for places until the AV grows. The shared hint is not moved: slots below a spread
     * claim may still be FREE.
     */
    private long claimSpread(final Writer w)
    {
        final long from = w.spreadNext > 0 ? w.spreadNext : m.getLongVolatile(FREE_HINT_OFFSET) & INDEX_MASK;
        if (from < capacity && claimFreeAt(w, from))
        {
            return from;
        }
        if (w.spreadGaveUpAt == capacity || capacity - from < 2)
        {
            return -1;
        }
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int probe = 0; probe < SPREAD_PROBES; probe++)
        {
            final long place = from + 1 + random.nextLong(capacity - from - 1);
            if (state(m.getLongVolatile(layout.slot(place - 1) + STATE_OFFSET)) == FREE && claimFreeAt(w, place))
            {
                return place;
            }
        }
        w.spreadGaveUpAt = capacity;
        return -1;
    }

    /** Claims slot {@code index} for a spreading writer if it is FREE; its run goes on above it. */
    private boolean claimFreeAt(final Writer w, final long index)
    {
        if (m.getLong(layout.map(index)) != -1L || !tryClaim(w, index))
        {
            return false;
        }
        w.spreadNext = index + 1;
        final long group = index >>> groupShift;
        final long end = Math.min(capacity, (group + 1) << groupShift);
        if (index == end - 1)
        {
            settle(group, group << groupShift, end, null); // a run filled a group: clear its mark
        }
        return true;
    }

    /**
     * Slot {@code index} has just become FREE: lower the hint to it with a new epoch, then mark its
     * group. The mark is written only when clear; a claimer that clears it afterwards sees the slot.
     */
    void freed(final long index)
    {
        while (true)
        {
            final long hint = m.getLongVolatile(FREE_HINT_OFFSET);
            final long low = Math.min(hint & INDEX_MASK, index);
            final long epoch = (hint >>> 32) + 1;
            if (m.compareAndSetLong(FREE_HINT_OFFSET, hint, (epoch << 32) | low))
            {
                break;
            }
        }
        final long group = index >>> groupShift;
        final long bit = 1L << group;
        if ((m.getLongVolatile(AvFileDescriptor.freeGroupWordOffset(group)) & bit) == 0)
        {
            m.getAndBitwiseOrLong(AvFileDescriptor.freeGroupWordOffset(group), bit);
        }
    }

    /** The lowest FREE slot at or above {@code from} in a marked group, claimed; or -1. */
    private long claimMarked(final Writer owner, final long from)
    {
        for (long group = nextMarked(from >>> groupShift); group >= 0; group = nextMarked(group + 1))
        {
            final long first = group << groupShift;
            final long end = Math.min(capacity, first + (1L << groupShift));
            long slot = claimIn(owner, Math.max(from, first), end);
            if (slot == end - 1)
            {
                settle(group, first, end, null); // filled the group up: clear its mark as we go
            }
            else if (slot < 0 && from <= first)
            {
                slot = settle(group, first, end, owner); // a stale mark: clear it
            }
            if (slot >= 0)
            {
                return slot;
            }
        }
        return -1;
    }

    /**
     * Claims the first FREE slot of [first, end), or returns -1. map_addr (8 bytes a slot, all ones
     * unless the slot is VALID, reset before every freeing) says which state words to read.
     */
    private long claimIn(final Writer owner, final long first, final long end)
    {
        for (long i = first; i < end; i++)
        {
            if (m.getLong(layout.map(i)) == -1L && tryClaim(owner, i))
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * Clears the mark of a group believed full, then reads every state word of the group: a slot freed
     * before the clear is FREE here (its freer either saw the mark still set before the clear, or sees
     * it cleared and sets it again). If one is, the mark is set back and, with an {@code owner}, the
     * slot claimed ({@code owner} null: only the mark is mended). Returns the slot claimed or -1.
     */
    private long settle(final long group, final long first, final long end, final Writer owner)
    {
        final int word = AvFileDescriptor.freeGroupWordOffset(group);
        final long bit = 1L << group;
        m.getAndBitwiseAndLong(word, ~bit);
        for (long i = first; i < end; i++)
        {
            if (state(m.getLongVolatile(layout.slot(i) + STATE_OFFSET)) == FREE)
            {
                m.getAndBitwiseOrLong(word, bit);
                if (owner == null)
                {
                    return -1;
                }
                if (tryClaim(owner, i))
                {
                    return i;
                }
            }
        }
        return -1;
    }

    /** CAS FREE(g) -> CLAIMED(owner, g); the claim word is recorded in the writer, which publishes or undoes from it. */
    private boolean tryClaim(final Writer owner, final long index)
    {
        final int offset = layout.slot(index) + STATE_OFFSET;
        final long s = m.getLongVolatile(offset);
        final long claimed = word(CLAIMED, owner.index, generation(s));
        if (state(s) == FREE && m.compareAndSetLong(offset, s, claimed))
        {
            owner.claimed(index, claimed);
            return true;
        }
        return false;
    }

    /** The first marked group at or above {@code group}, or -1. */
    private long nextMarked(final long group)
    {
        if (group >= groupCount)
        {
            return -1;
        }
        long word = group >>> 6;
        long bits = m.getLongVolatile(AvFileDescriptor.freeGroupWordOffset(group)) & (-1L << group);
        final long lastWord = (groupCount - 1) >>> 6;
        while (bits == 0)
        {
            if (++word > lastWord)
            {
                return -1;
            }
            bits = m.getLongVolatile(AvFileDescriptor.freeGroupWordOffset(word << 6));
        }
        final long found = (word << 6) + Long.numberOfTrailingZeros(bits);
        return found < groupCount ? found : -1; // bits past the last group: only in a corrupted file
    }

}
