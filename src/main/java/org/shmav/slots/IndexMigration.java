package org.shmav.slots;

import static org.shmav.shm.IndexWord.*;
import static org.shmav.shm.SlotDescriptor.*;

import java.lang.invoke.VarHandle;
import java.lang.ref.Reference;
import java.util.Arrays;

import org.shmav.shm.AddressReads;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Memory;

/**
 * Moves the dedup index to another hash area while writers go on: to the segment's other area when
 * removals have left too many TOMBSTONEs, or to a grown AV's new segment. Nobody waits for anybody.
 *
 * <pre>
 *   indexState:  idle(A, a) --CAS (start)--> migrating(A, a -&gt; B) --CAS (switch, after a full copy)--> idle(B, a+1)
 *   copy:        every entry of A under a whose slot is CLAIMED or VALID, placed in B under a + 1
 *   sweep:       every bucket of B left by its earlier use (older stamp) --CAS--> 0
 * </pre>
 *
 * Invariants: the switch comes only after a full pass over A that began once the migration was
 * visible, so every entry an inserter placed in A before it (and checked indexState after) reaches B;
 * an inserter that finds a migration running places its entry in both areas before it publishes, and
 * one that finds indexState changed since it placed looks again under the new state, so no VALID slot
 * is missing from the area that becomes active. A migrator that is frozen or dies leaves the migration
 * running: inserters place into both areas, and a writer that needs it done (its area is full, its
 * crowding check fires with the migrator dead) does the copy and the switch itself; copies done twice
 * find their entry already placed. Thread-safe for distinct writers; the crowding count of a
 * {@link Writer} is used by one thread at a time.
 */
final class IndexMigration
{
    /** A writer checks whether the hash is crowded on one insert in at most this many. */
    static final int CROWD_CHECK_EVERY = 64;
    /** A copier looks at indexState once per this many buckets, and stops when someone else switched. */
    private static final int STATE_CHECK_EVERY = 4096;
    /** Buckets whose slots a copier loads together before copying them ({@link #touchSlots}); a power of two. */
    static final int TOUCH_AHEAD = 64;
    /** Results of {@link #copy} besides 0 and 1. */
    private static final int STOPPED = -1;
    private static final int TARGET_FULL = -2;
    private static final int STOPPED_STALE = -3;

    private final Memory m;
    /**
     * Where the copy reads the active area and the slots: through the mappings that first saw them, whose
     * pages are already in this process's page tables; the target, in the last segment, is written
     * through {@code m} ({@link FirstViews}).
     */
    private final FirstViews firstViews;
    /**
     * For each segment, the view of {@link #firstViews} that covers its slots: one array load for a slot,
     * where a search of the views took branches that mispredict at random slots (a copy reads its slots at
     * random), twice for each entry it moves.
     */
    private final Memory[] slotViews;
    /**
     * The address of each of {@link #slotViews}, when every one is read by address ({@link AddressReads});
     * else null, and {@link #touchSlots} reads through the views.
     */
    private final long[] slotViewAddresses;
    private final AvLayout layout;
    private final DedupIndex index;
    private final Recovery recovery;
    /** Inserts of a writer between two crowding checks: the hash's buckets / 64, 1 to {@link #CROWD_CHECK_EVERY}. */
    private final int crowdCheckEvery;
    /** What {@link #touchSlots} read, kept so that its loads are made; never used. */
    private long touched;

    IndexMigration(final Memory m, final FirstViews firstViews, final AvLayout layout, final DedupIndex index,
        final Recovery recovery)
    {
        this.m = m;
        this.firstViews = firstViews;
        this.layout = layout;
        this.slotViews = new Memory[layout.segments()];
        for (int k = 0; k < slotViews.length; k++)
        {
            final long slots = layout.segmentEnd(k) - layout.segmentFirst(k);
            slotViews[k] = firstViews.covering((int)layout.segmentSlotsOffset(k), (int)(slots * layout.slotLength()));
        }
        final long[] addresses = new long[slotViews.length];
        for (int k = 0; k < slotViews.length; k++)
        {
            addresses[k] = AddressReads.addressOf(slotViews[k].buffer());
        }
        this.slotViewAddresses = Arrays.stream(addresses).allMatch(x -> x != 0) ? addresses : null;
        this.index = index;
        this.recovery = recovery;
        this.crowdCheckEvery = (int)Math.max(1, Math.min(CROWD_CHECK_EVERY, layout.hashBuckets() >>> 6));
    }

    /**
     * Checked on one insert of this writer in {@code crowdCheckEvery}: when the active area may be
     * running out of EMPTY buckets, starts a migration to the other area and runs it, or finishes a
     * running one whose migrator died. Buckets go back to EMPTY only by a migration, and each publish
     * takes one, so {@code hashUsedBase} plus the attachers' {@code published} counters is about the
     * buckets in use (summing the counters reads every writer's line, hence not on every insert). An
     * insert that finds no EMPTY bucket at all migrates itself ({@link #makeRoom}).
     */
    void checkCrowded(final Writer w)
    {
        if (++w.insertsSinceCrowdCheck < crowdCheckEvery)
        {
            return;
        }
        w.insertsSinceCrowdCheck = 0;
        final long state = index.indexState();
        if (!index.inView(state))
        {
            return;
        }
        if (migrating(state))
        {
            if (orphaned(w, state))
            {
                finish(w, state);
            }
            return;
        }
        final long used = ChangeCounters.published(m, layout) + m.getLongVolatile(AvFileDescriptor.HASH_USED_BASE_OFFSET);
        if (used > (layout.hashBuckets(activeSegment(state)) >>> 2) * 3 || activeSegment(state) != layout.segments() - 1)
        {
            makeRoom(w, state);
        }
    }

    /** See {@link SlotTable#finishOrphanedMigration}. */
    boolean finishOrphaned(final Writer w)
    {
        final long state = index.indexState();
        return migrating(state) && index.inView(state) && orphaned(w, state) && finish(w, state);
    }

    /**
     * True when the migration {@code state} has no live migrator but perhaps {@code w} itself (one an
     * Error cut short): nobody else is copying, so a writer that helps only then loses no work.
     */
    private boolean orphaned(final Writer w, final long state)
    {
        final int migrator = migrator(state);
        return migrator == w.index || migrator < 0 || migrator >= layout.attachersCapacity() ||
            !recovery.ownerAlive(migrator);
    }

    /**
     * The index in {@code state} has no room for an insert (its area is full, or it is not yet in the
     * last segment of a grown AV): starts a migration, or helps the running one, to its end. False when
     * this view cannot (the AV grew past it).
     */
    boolean makeRoom(final Writer w, final long state)
    {
        if (!index.inView(state) || index.stale())
        {
            return false; // only a current view starts or helps a migration: the caller maps the file again
        }
        if (migrating(state))
        {
            return finish(w, state);
        }
        final int last = layout.segments() - 1;
        final int segment = activeSegment(state) < last ? last : activeSegment(state);
        final int area = activeSegment(state) < last ? 0 : 1 - activeArea(state);
        final long started = migrating(state, segment, area, w.index);
        if (!m.compareAndSetLong(AvFileDescriptor.INDEX_STATE_OFFSET, state, started))
        {
            return true; // someone else moved the index on: look again
        }
        return finish(w, started);
    }

    /**
     * Moves the index into segment {@code segment} (a growth that just published it): migrations until
     * the last segment's area is active; a running one is helped first. Each round ends a migration, by
     * this writer or another, so the rounds are bounded.
     */
    void moveInto(final Writer w, final int segment)
    {
        for (int round = 0; round < 8; round++)
        {
            final long state = index.indexState();
            if (!migrating(state) && activeSegment(state) == segment || !makeRoom(w, state))
            {
                return;
            }
        }
    }

    /**
     * Copies the migration {@code state}'s active area to its target, then switches indexState to the
     * target. True when the migration ended (by us or by someone else); false when this view cannot run
     * it, or the target filled up (only dead entries could fill it).
     */
    boolean finish(final Writer w, final long state)
    {
        if (!index.inView(state))
        {
            return false;
        }
        final long from = index.activeBase(state);
        final long fromMask = index.activeMask(state);
        final Memory source = firstViews.covering((int)from, (int)((fromMask + 1) * Long.BYTES));
        final long a = stamp(state);
        long copied = 0;
        for (long b = 0; b <= fromMask; b++)
        {
            if ((b & (STATE_CHECK_EVERY - 1)) == STATE_CHECK_EVERY - 1 && index.indexState() != state)
            {
                return true; // switched by another writer meanwhile
            }
            if ((b & (TOUCH_AHEAD - 1)) == 0)
            {
                touched ^= touchSlots(w.slotsAhead, source, from, a, b, Math.min(b + TOUCH_AHEAD, fromMask + 1));
            }
            final long v = source.getLongVolatile((int)(from + b * Long.BYTES));
            final int kind = DedupIndex.kind(v, a);
            if (kind == DedupIndex.NEWER)
            {
                return true; // the area is in use again: this migration ended long ago
            }
            if (kind != DedupIndex.ENTRY)
            {
                continue;
            }
            final int placed = copy(state, v);
            if (placed < 0)
            {
                return placed == STOPPED;
            }
            copied += placed;
        }
        if (targetSegment(state) == activeSegment(state) && !sweepTarget(state))
        {
            return true; // switched by another writer meanwhile
        }
        if (m.compareAndSetLong(AvFileDescriptor.INDEX_STATE_OFFSET, state, switched(state)))
        {
            m.setLongVolatile(AvFileDescriptor.HASH_USED_BASE_OFFSET, copied - ChangeCounters.published(m, layout));
        }
        return true;
    }

    /**
     * Reads the state word of the slot of every entry of stamp {@code a} in buckets [start, end) of the
     * active area at {@code from} (read through {@code source}), so that the copies of those entries
     * find their slots in the cache. Each copy reads its slot (a random place in the slot table) and
     * ends with a CAS, which lets no later load start before it: one miss at a time. Loaded here back
     * to back, the misses of a run of buckets overlap (growing from count 1 to 1M: 540-640 ns per
     * insert before, 430-490 after; see docs/profiles.md).
     *
     * <p>In two passes: the first finds the slots' addresses ({@code ahead}, the copier's own scratch)
     * from the buckets, which it reads in order, so they hit; the second only loads them, a few
     * instructions a load. The processor overlaps only the misses whose loads fit in its window of
     * instructions in flight: with the address arithmetic between the loads (one pass), runs of 16, 64
     * or 256 buckets cost the same; in a loop of their own, the loads of a run of 64 fit (a growth from
     * count 1 to 1M: 110-150 ns of migration per moved entry in one pass of 16, 64-78 in two of 64;
     * docs/performance.md, Growth). Returns a value to keep, so that the loads are made.
     */
    private long touchSlots(final long[] ahead, final Memory source, final long from, final long a, final long start,
        final long end)
    {
        long kept = 0;
        if (slotViewAddresses == null)
        {
            for (long b = start; b < end; b++)
            {
                final long i = liveSlotOf(source.getLong((int)(from + b * Long.BYTES)), a);
                if (i >= 0)
                {
                    kept ^= slotViews[layout.segment(i)].getLong(layout.slot(i) + STATE_OFFSET);
                }
            }
            return kept;
        }
        int n = 0;
        for (long b = start; b < end; b++)
        {
            final long i = liveSlotOf(source.getLong((int)(from + b * Long.BYTES)), a);
            if (i >= 0)
            {
                ahead[n++] = slotViewAddresses[layout.segment(i)] + layout.slot(i) + STATE_OFFSET;
            }
        }
        for (int k = 0; k < n; k++)
        {
            kept ^= AddressReads.getLong(ahead[k]);
        }
        Reference.reachabilityFence(slotViews); // the views hold the buffers that keep the mappings
        return kept;
    }

    /** The slot of bucket word {@code v} when it is an entry of stamp {@code a} for a slot of this view, else -1. */
    private long liveSlotOf(final long v, final long a)
    {
        final long i = slotField(v) - 1;
        return i >= 0 && i < layout.capacity() && DedupIndex.kind(v, a) == DedupIndex.ENTRY ? i : -1;
    }

    /**
     * Sets every bucket of the target that an earlier use of its area left (a stamp older than the
     * target's) to 0, by CAS from the value read, so that no bucket's stamp falls ever further behind
     * the area's (past 2^27 uses it would read as newer). A CAS that loses to an inserter's or a copy's
     * placement leaves that entry; a late sweeper only ever turns an EMPTY value into another. False
     * when indexState moved on meanwhile (someone else switched).
     *
     * <p>Only a rebuild (the other area of the active segment) sweeps: a growth's target, area 0 of a
     * segment no state named before, is in its first use, zeros from its grower, so there is nothing
     * to sweep (shm-layout.md, Migration step 3).
     */
    private boolean sweepTarget(final long state)
    {
        final long base = index.targetBase(state);
        final long mask = index.targetMask(state);
        final long stamp = (stamp(state) + 1) & STAMP_MASK;
        for (long b = 0; b <= mask; b++)
        {
            if ((b & (STATE_CHECK_EVERY - 1)) == STATE_CHECK_EVERY - 1 && index.indexState() != state)
            {
                return false;
            }
            final int offset = (int)(base + b * Long.BYTES);
            final long u = m.getLongVolatile(offset);
            if (slotField(u) != 0 && older(bucketStamp(u), stamp))
            {
                m.compareAndSetLong(offset, u, 0L);
            }
        }
        return true;
    }

    /**
     * Places entry {@code v} of the active area in the target, if its slot still holds the key it was
     * made for: 1 when it is there (placed now or before), 0 when it is dead, {@link #STOPPED} when the
     * target is in use under a newer stamp, {@link #STOPPED_STALE} when the AV grew past this view,
     * {@link #TARGET_FULL}.
     */
    private int copy(final long state, final long v)
    {
        final long i = slotField(v) - 1;
        if (i >= layout.capacity())
        {
            // A slot of a growth this view has not seen: its copy would be lost, so a stale view must not
            // switch. A current view meets one only in a damaged file (the placer learnt of the segment
            // before it placed, and we read its entry, so we see the segment count it saw).
            return index.stale() ? STOPPED_STALE : 0;
        }
        final int slot = layout.slot(i);
        final Memory sm = slotViews[layout.segment(i)];
        final long before = sm.getLongAcquire(slot + STATE_OFFSET);
        final int st = state(before);
        if (st != CLAIMED && st != PUBLISHING && !(st == VALID && payload(before) > 0))
        {
            return 0;
        }
        final int len = sm.getInt(slot + ADDR_LEN_OFFSET);
        if (len <= 0 || len > layout.addrLen())
        {
            return 0;
        }
        final long hash = DedupIndex.hash(sm.buffer(), slot + ADDR_OFFSET, len, sm.getLong(slot + AUTH_KEY_OFFSET));
        VarHandle.acquireFence(); // the bytes are read before the state is read again
        final long after = sm.getLong(slot + STATE_OFFSET);
        if (generation(after) != generation(before) || state(after) != CLAIMED && state(after) != PUBLISHING && state(after) != VALID ||
            tagOfHash(hash) != tag(v))
        {
            return 0; // another incarnation now: its inserter places its own entries
        }
        final long base = index.targetBase(state);
        final long mask = index.targetMask(state);
        final long stamp = (stamp(state) + 1) & STAMP_MASK;
        final long entry = entry(stamp, hash, i);
        long bucket = hash & mask;
        for (long probes = 0; probes <= mask; )
        {
            final int offset = (int)(base + bucket * Long.BYTES);
            final long u = m.getLongVolatile(offset);
            final int kind = DedupIndex.kind(u, stamp);
            if (kind == DedupIndex.EMPTY)
            {
                if (m.compareAndSetLong(offset, u, entry))
                {
                    return 1;
                }
                continue; // taken meanwhile: look at what it holds
            }
            if (kind == DedupIndex.NEWER)
            {
                return STOPPED;
            }
            if (u == entry)
            {
                return 1;
            }
            probes++;
            bucket = (bucket + 1) & mask;
        }
        return TARGET_FULL;
    }
}
