package org.shmav.slots;

import static org.shmav.shm.IndexWord.*;
import static org.shmav.shm.SlotDescriptor.*;

import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;

import org.shmav.FiErrno;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Memory;
import org.shmav.shm.SlotDescriptor;

/**
 * An inserter's walk of one key's probe sequence in one hash area: where it decides, by the
 * first-EMPTY rule, whether its key is new (its entry placed by CAS at the first EMPTY bucket, every
 * bucket before it checked) or present (a reference taken on the slot holding it). Two inserters of
 * one key that both place in an area: the later CAS comes after the earlier one's, so the later walk
 * passes the earlier entry (buckets before the first EMPTY never become EMPTY again under one stamp)
 * and meets it. A slot met so is never waited for (layout 7): VALID takes a reference; PUBLISHING
 * (committed) is published by this inserter, with the owner's reference and its own; CLAIMED by a live
 * writer is looked at again for a short grace ({@link #CANCEL_GRACE_NANOS}) and then CANCELLED, after
 * which it counts as absent and its owner gives it back when it runs again. See {@link SlotInserter}
 * for the insert around it. Thread-safe: no state of its own (the grace's clock is in the Writer).
 */
final class KeyPlacer
{
    static final int NO_MATCH = -1;
    static final int RETRY = -2;
    /** {@link #place}: the entry is in the area (or, looking only, an EMPTY bucket was reached). */
    static final long INSTALLED = -1_000_001L;
    /** {@link #place}: no EMPTY bucket on the probe sequence. */
    static final long AREA_FULL = -1_000_002L;
    /** {@link #place}: the area is in use under a newer stamp: load indexState again. */
    static final long RESTATE = -1_000_003L;
    /**
     * How long an inserter looks again at another live writer's uncommitted claim of its address before
     * it cancels it: a running owner commits within microseconds, so only a frozen or descheduled one is
     * cancelled (and then redoes its insert), and two live inserters of one address do not cancel each
     * other in turn.
     */
    static final long CANCEL_GRACE_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(1);

    private final Memory m;
    private final AvLayout layout;
    private final long capacity;
    private final SlotReader reader;
    private final DedupIndex dedup;
    private final Recovery recovery;

    KeyPlacer(final Memory m, final AvLayout layout, final SlotReader reader, final DedupIndex dedup,
        final Recovery recovery)
    {
        this.m = m;
        this.layout = layout;
        this.capacity = layout.capacity();
        this.reader = reader;
        this.dedup = dedup;
        this.recovery = recovery;
    }

    /**
     * Walks the key's probe sequence in one area under {@code stamp}. With {@code ownSlot >= 0} the
     * entry of that slot is placed at the first EMPTY bucket (by CAS from the value read), every bucket
     * before it checked: {@link #INSTALLED}; an entry equal to it met on the way is retired to a
     * TOMBSTONE first (below). With {@code ownSlot} -1 it only looks: {@link #INSTALLED} means "EMPTY
     * reached". A VALID slot of the key: reference taken, its index; {@link #AREA_FULL};
     * {@link #RESTATE}; or a negative errno.
     */
    long place(final Writer w, final long base, final long mask, final long stamp, final ByteBuffer src,
        final int off, final int len, final long authKey, final long hash, final long ownSlot, final long userId)
    {
        final long tag = tagOfHash(hash);
        final long own = ownSlot < 0 ? -1 : entry(stamp, hash, ownSlot);
        long bucket = hash & mask;
        long probes = 0;
        while (probes <= mask)
        {
            final int offset = (int)(base + bucket * Long.BYTES);
            final long b = m.getLongVolatile(offset);
            final int kind = DedupIndex.kind(b, stamp);
            if (kind == DedupIndex.EMPTY)
            {
                if (ownSlot < 0 || m.compareAndSetLong(offset, b, own))
                {
                    return INSTALLED;
                }
                continue; // lost the bucket to another writer: look at what it put there
            }
            if (kind == DedupIndex.NEWER)
            {
                return RESTATE;
            }
            if (kind == DedupIndex.ENTRY)
            {
                if (b == own)
                {
                    // An entry like ours that this walk did not place: a dead one of the slot's earlier
                    // incarnation (or our own of an earlier round, or a migration's copy of it). Taking it as
                    // placed would skip the CAS that orders this insert against other inserters of the key:
                    // one that passed it while the slot was FREE went on and placed further along, unseen.
                    // Retire it and place afresh at the first EMPTY bucket.
                    m.compareAndSetLong(offset, b, tombstone(stamp));
                    continue;
                }
                if (tag(b) == tag)
                {
                    final long result = examine(w, b, offset, src, off, len, authKey, userId);
                    if (result == RETRY)
                    {
                        continue;
                    }
                    if (result != NO_MATCH)
                    {
                        return result;
                    }
                }
            }
            probes++;
            bucket = (bucket + 1) & mask;
        }
        return AREA_FULL;
    }

    /** One bucket entry of the same tag: a match (slot, reference taken), NO_MATCH, RETRY or -errno. */
    private long examine(final Writer w, final long b, final int bucketOffset, final ByteBuffer src, final int off,
        final int len, final long authKey, final long userId)
    {
        final long other = slotField(b) - 1;
        if (other >= capacity)
        {
            return dedup.stale() ? SlotTable.STALE_VIEW : NO_MATCH; // a slot of a growth this view has not seen
        }
        final int slot = layout.slot(other);
        final long s = m.getLongAcquire(slot + STATE_OFFSET);
        final int st = state(s);
        if (st != VALID && st != CLAIMED && st != PUBLISHING)
        {
            return NO_MATCH; // FREE, REMOVING or CANCELLED: that incarnation of the key is going or gone
        }
        final boolean equal = reader.keyEquals(other, src, off, len, authKey);
        VarHandle.acquireFence();
        if (m.getLong(bucketOffset) != b || !sameIncarnation(s, m.getLong(slot + STATE_OFFSET)))
        {
            return RETRY; // the entry changed while we compared
        }
        if (!equal)
        {
            return NO_MATCH;
        }
        if (st == VALID)
        {
            return takeReference(slot, s, userId, other);
        }
        if (st == PUBLISHING)
        {
            return helpPublish(slot, s, userId, other);
        }
        if (payload(s) == w.index)
        {
            return NO_MATCH; // our own claim (insertAt): never reached, kept for safety
        }
        return cancelAfterGrace(w, slot, s);
    }

    /**
     * Publishes the committed word {@code s} (PUBLISHING) for its owner: CAS to VALID with two
     * references, the owner's and this inserter's. The owner counted the entry when it committed and
     * finds its own publish CAS failing on a VALID word of its generation: it returns the slot and
     * counts nothing more. {@code found}, or RETRY when the word changed.
     */
    long helpPublish(final int slot, final long s, final long userId, final long found)
    {
        if (!m.compareAndSetLong(slot + STATE_OFFSET, s, word(VALID, 2, generation(s))))
        {
            return RETRY;
        }
        if (userId != NO_USER_ID)
        {
            m.setLongVolatile(slot + USER_ID_OFFSET, userId);
        }
        return found;
    }

    /**
     * Another writer's uncommitted claim {@code s} (CLAIMED) of our key: a dead owner's is recovered; a
     * live one's is looked at again until it moves on (committed, given back) or, after
     * {@link Writer#cancelGraceNanos}, CANCELLED by CAS, so that it is never published and the walk goes
     * past it. RETRY in every case: the caller examines the bucket again.
     */
    private long cancelAfterGrace(final Writer w, final int slot, final long s)
    {
        final long now = System.nanoTime();
        if (w.seenClaimWord != s || w.seenClaimSlot != slot)
        {
            w.seenClaimWord = s;
            w.seenClaimSlot = slot;
            w.seenClaimSince = now;
            final long owner = payload(s);
            if (owner < layout.attachersCapacity() && !recovery.ownerAlive((int)owner))
            {
                recovery.recoverAttacher((int)owner);
                return RETRY;
            }
        }
        if (now - w.seenClaimSince >= w.cancelGraceNanos)
        {
            m.compareAndSetLong(slot + STATE_OFFSET, s, word(CANCELLED, payload(s), generation(s)));
            return RETRY; // cancelled, or the owner moved on first: either way look again
        }
        LockSupport.parkNanos(1_000); // let the owner run: it may be on this very core
        return RETRY;
    }

    /**
     * CAS refs+1 on the VALID word {@code s}: {@code found} on success, RETRY when the word changed,
     * -EOVERFLOW when the entry holds {@link SlotDescriptor#MAX_REFS} references already (it stays
     * valid, and is removed by as many removals as it has references).
     */
    long takeReference(final int slot, final long s, final long userId, final long found)
    {
        final long refs = payload(s);
        if (refs >= MAX_REFS)
        {
            return -FiErrno.EOVERFLOW;
        }
        if (refs == 0)
        {
            return NO_MATCH; // VALID with no reference: only a corrupted file has one, and it is no entry
        }
        if (!m.compareAndSetLong(slot + STATE_OFFSET, s, word(VALID, refs + 1, generation(s))))
        {
            return RETRY;
        }
        if (userId != NO_USER_ID)
        {
            m.setLongVolatile(slot + USER_ID_OFFSET, userId);
        }
        return found;
    }

    /**
     * A slot is CLAIMED or REMOVING by another writer: wait briefly for it, or recover it if its owner
     * is dead. False when the deadline passed.
     */
    boolean waitForOwner(final Writer w, final long s, final long deadline)
    {
        if (Waits.passed(deadline))
        {
            return false;
        }
        final long owner = payload(s);
        if (owner < layout.attachersCapacity() && !recovery.ownerAlive((int)owner))
        {
            recovery.recoverAttacher((int)owner);
        }
        LockSupport.parkNanos(1_000);
        return true;
    }

}
