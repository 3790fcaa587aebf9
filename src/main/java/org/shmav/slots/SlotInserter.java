package org.shmav.slots;

import static org.shmav.shm.AttacherDescriptor.*;
import static org.shmav.shm.SlotDescriptor.*;
import static org.shmav.slots.DedupIndex.EMPTY;
import static org.shmav.slots.DedupIndex.TOMBSTONE;

import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;

import org.shmav.FiErrno;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Memory;
import org.shmav.shm.SlotDescriptor;

/**
 * The writer's insert: probe the index, claim the lowest FREE slot, fill it, index it, publish it.
 *
 * <pre>
 *   probe: key VALID at t? ---------------------------------------> CAS refs+1 on t, return t
 *          key CLAIMED at t by a live writer? --> wait (bounded), probe again; a dead one: recover t
 *   claim: FREE(g) --CAS--> CLAIMED(a,g)                       ({@link FreeSlots}, or slot i for insertAt)
 *   fill:  addrLen, address bytes, auth key, user id          (plain: nobody reads a CLAIMED payload)
 *   index: first EMPTY bucket of the probe sequence --CAS--> tag|slot+1, every bucket before it checked
 *          (the key turned up meanwhile: undo the claim, take a reference on the other slot)
 *   publish: map_addr (release), journal OP_PUBLISH, CAS CLAIMED(a,g) -> VALID(1,g), journal delta+1
 * </pre>
 *
 * Invariants: a key is indexed only after its bytes are written, so an inserter of the same key can
 * compare them; one slot per key across processes (the index's first-EMPTY rule); FI_AV_TABLE gets
 * the lowest FREE slot; the journal names the publish before its CAS, so the count stays exact
 * whatever instruction the writer dies at. Runs inside the writer phase ({@link IndexRebuild}).
 * Thread-safe for distinct writers; one {@link Writer} is used by one thread at a time.
 */
final class SlotInserter
{
    static final int NO_MATCH = -1;
    static final int RETRY = -2;
    /** No EMPTY bucket on the probe sequence: the index needs a rebuild. Never returned to callers. */
    static final long INDEX_FULL = -1_000_000L;
    /**
     * How long an insert into a full AV waits for other writers' claims to settle (one may be given
     * back) before FI_ENOSPC: a live writer settles in microseconds, and a frozen one must not stall
     * the others for long (it is not inserting their address).
     */
    static final long FULL_SETTLE_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(200);
    /** Index rebuilds one insert asks for before it reports FI_ENOSPC. */
    private static final int MAX_REBUILDS = 3;

    private final Memory m;
    private final AvLayout layout;
    private final long capacity;
    private final long bucketMask;
    private final SlotReader reader;
    private final DedupIndex dedup;
    private final FreeSlots free;
    private final SlotRemover remover;
    private final Recovery recovery;
    private final IndexRebuild rebuild;

    SlotInserter(final Memory m, final AvLayout layout, final SlotReader reader, final DedupIndex index,
        final FreeSlots free, final SlotRemover remover, final Recovery recovery, final IndexRebuild rebuild)
    {
        this.m = m;
        this.layout = layout;
        this.capacity = layout.capacity();
        this.bucketMask = index.bucketMask();
        this.reader = reader;
        this.dedup = index;
        this.free = free;
        this.remover = remover;
        this.recovery = recovery;
        this.rebuild = rebuild;
    }

    /**
     * Inserts an address at the lowest FREE slot, or takes a reference on the slot already holding it.
     * Returns the slot, or a negative errno: -ENOSPC when no slot (or no hash bucket) is free,
     * -EAGAIN when another live writer kept the same address half-published too long, -EOVERFLOW
     * when the entry already holds {@link SlotDescriptor#MAX_REFS} references.
     */
    long insert(final Writer w, final ByteBuffer src, final int off, final int len,
        final long authKey, final long userId, final long mapBase, final long hash)
    {
        return inPhase(w, -1, src, off, len, authKey, userId, mapBase, hash);
    }

    /**
     * Inserts an address at slot {@code index}. Returns the slot, or -EADDRINUSE when it holds another
     * address, -EALREADY when the address is at another slot, -EAGAIN or -EOVERFLOW as {@link #insert}.
     */
    long insertAt(final Writer w, final long index, final ByteBuffer src, final int off, final int len,
        final long authKey, final long userId, final long mapBase)
    {
        return inPhase(w, index, src, off, len, authKey, userId, mapBase, DedupIndex.hash(src, off, len, authKey));
    }

    /**
     * One insert (at {@code index}, or the lowest FREE slot when it is -1) inside the writer phase,
     * rebuilding the index first when it is crowded and again when it is full. An Error or exception
     * anywhere inside gives back what the writer holds before it propagates.
     */
    private long inPhase(final Writer w, final long index, final ByteBuffer src, final int off,
        final int len, final long authKey, final long userId, final long mapBase, final long hash)
    {
        boolean rebuilt = true;
        for (int attempt = 0; ; attempt++)
        {
            if (rebuild.stale())
            {
                return SlotTable.STALE_VIEW;
            }
            if (rebuild.indexCrowded(w))
            {
                rebuild.rebuildCrowded(w);
            }
            final int entered = rebuild.enterPhase(w);
            if (entered != IndexRebuild.ENTERED)
            {
                return entered == IndexRebuild.STALE ? SlotTable.STALE_VIEW : -FiErrno.EAGAIN;
            }
            final long result;
            try
            {
                result = index < 0
                    ? insertInPhase(w, src, off, len, authKey, userId, mapBase, hash)
                    : insertAtInPhase(w, index, src, off, len, authKey, userId, mapBase, hash);
            }
            catch (final Throwable t)
            {
                recovery.giveBack(w);
                throw t;
            }
            finally
            {
                rebuild.exitPhase(w);
            }
            if (result != INDEX_FULL)
            {
                return result;
            }
            if (attempt == MAX_REBUILDS)
            {
                // Every bucket holds a live entry (cannot happen with 2 buckets per slot), or live writers
                // kept the rebuild from running (one frozen inside its phase): the AV is not full then.
                return rebuilt ? -FiErrno.ENOSPC : -FiErrno.EAGAIN;
            }
            rebuilt = rebuild.rebuildIndex(w); // ours, or another writer's that we waited for: try again
        }
    }

    private long insertInPhase(final Writer w, final ByteBuffer src, final int off, final int len,
        final long authKey, final long userId, final long mapBase, final long hash)
    {
        long deadline = Waits.NO_DEADLINE;
        boolean lastLook = false;
        boolean lookedForUnmarked = false;
        while (true)
        {
            final long existing = findOrReference(w, src, off, len, authKey, hash, -1, userId);
            if (existing != NO_MATCH)
            {
                return existing;
            }
            if (w.callFull)
            {
                return -FiErrno.ENOSPC; // this call found the AV full already: a present address was all it could take
            }
            long slot = free.claimLowest(w);
            if (slot < 0 && recovery.recoverDead(true) > 0)
            {
                slot = free.claimLowest(w); // slots held by dead writers came back, or were found unmarked
            }
            if (slot < 0 && !lookedForUnmarked)
            {
                lookedForUnmarked = true; // it reads every state word: once per insert
                slot = unmarkedFreeFound() ? free.claimLowest(w) : -1;
            }
            if (slot >= 0)
            {
                return fillIndexPublish(w, slot, src, off, len, authKey, userId, hash, mapBase);
            }
            if (layout.canGrow())
            {
                return -FiErrno.ENOSPC; // the caller grows the AV: no need to wait for claims to settle
            }
            // Full, unless a claim in flight is about to be given back (its writer found its address
            // already present) or is this very address, not yet indexed: let the claims settle. Settled
            // once, look and claim again: a slot given back meanwhile may have been claimed at once by
            // a writer of this very address, so the AV is full only if the claims are settled again
            // after that attempt failed. Then look a last time: a writer that published this address
            // in between indexed it first.
            deadline = deadline != Waits.NO_DEADLINE ? deadline : Waits.within(w, FULL_SETTLE_NANOS);
            final boolean settled = !othersInPhase(w) || Waits.passed(deadline);
            if (settled && lastLook)
            {
                final long last = findOrReference(w, src, off, len, authKey, hash, -1, userId);
                if (last != NO_MATCH)
                {
                    return last;
                }
                w.callFull = true;
                return -FiErrno.ENOSPC;
            }
            lastLook = settled;
            if (!settled)
            {
                LockSupport.parkNanos(10_000);
            }
        }
    }

    /**
     * The marks said no slot is FREE. When the count says fewer entries than slots, some slots are
     * FREE in unmarked groups (a foreign or damaged file; a dead freer's are marked by its recoverer)
     * or in flight: read every state word once and mark what is FREE. A full AV's count equals its
     * capacity, so its FI_ENOSPC costs no such read.
     */
    private boolean unmarkedFreeFound()
    {
        return Attachers.count(m, layout) < capacity && free.markUnmarkedFree() > 0;
    }

    /**
     * True when a writer other than {@code w} is inside an insert or a removal: it may hold a claim it
     * is about to give back, or a slot it is about to free. Reads the attacher entries' phase words, not
     * the slots, so that finding a full AV full costs the same whatever its size. Only on the full-table
     * path.
     */
    private boolean othersInPhase(final Writer w)
    {
        final long highWater = Math.min(m.getLongVolatile(AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET),
            layout.attachersCapacity());
        for (int a = 0; a < highWater; a++)
        {
            if (a != w.index && m.getLongVolatile(layout.attacher(a) + PHASE_OFFSET) != 0)
            {
                return true;
            }
        }
        return false;
    }

    private long insertAtInPhase(final Writer w, final long index, final ByteBuffer src, final int off, final int len,
        final long authKey, final long userId, final long mapBase, final long hash)
    {
        final int slot = layout.slot(index);
        while (true)
        {
            final long s = m.getLongVolatile(slot + STATE_OFFSET);
            final int st = state(s);
            if (st == FREE)
            {
                final long claimed = word(CLAIMED, w.index, generation(s));
                if (m.compareAndSetLong(slot + STATE_OFFSET, s, claimed))
                {
                    w.claimed(index, claimed);
                    break;
                }
                continue;
            }
            if (st == VALID && payload(s) > 0)
            {
                final boolean equal = reader.keyEquals(index, src, off, len, authKey);
                VarHandle.acquireFence(); // the comparison is done before the state is read again
                if (m.getLong(slot + STATE_OFFSET) != s)
                {
                    continue; // the slot changed while we compared
                }
                if (!equal)
                {
                    return -FiErrno.EADDRINUSE;
                }
                final long taken = takeReference(slot, s, userId, index);
                if (taken != RETRY)
                {
                    return taken;
                }
                continue;
            }
            if (!waitForOwner(w, s, Waits.deadline(w)))
            {
                return -FiErrno.EAGAIN;
            }
        }
        if (dedup.probe(src, off, len, authKey, hash) >= 0)
        {
            giveBackClaim(w);
            return -FiErrno.EALREADY;
        }
        final long result = fillIndexPublish(w, index, src, off, len, authKey, userId, hash, mapBase);
        if (result >= 0 && result != index)
        {
            remover.release(w, result); // inserted elsewhere meanwhile: give back the reference taken on it
            return -FiErrno.EALREADY;
        }
        return result;
    }

    /**
     * Looks for {@code key} in the hash. A VALID entry gets a reference and its slot is returned; an
     * entry still CLAIMED by a live writer is waited for (bounded), one of a dead writer is recovered.
     * Returns NO_MATCH when absent, or a negative errno. With {@code ownSlot >= 0} the key is installed
     * for that slot at the first EMPTY bucket, and NO_MATCH means "installed".
     */
    private long findOrReference(final Writer w, final ByteBuffer src, final int off, final int len,
        final long authKey, final long hash, final long ownSlot, final long userId)
    {
        final int tag = (int)(hash >>> 32);
        final long entry = ((long)tag << 32) | (ownSlot + 1);
        long bucket = hash & bucketMask;
        long probes = 0;
        while (probes <= bucketMask)
        {
            final int bucketOffset = layout.bucket(bucket);
            final long b = m.getLongVolatile(bucketOffset);
            if (b == EMPTY)
            {
                if (ownSlot < 0 || m.compareAndSetLong(bucketOffset, EMPTY, entry))
                {
                    return NO_MATCH;
                }
                continue; // lost the bucket to another writer: look at what it put there
            }
            if (b != TOMBSTONE && (int)(b >>> 32) == tag)
            {
                final long result = examine(w, b, bucketOffset, src, off, len, authKey, userId);
                if (result == RETRY)
                {
                    continue;
                }
                if (result != NO_MATCH)
                {
                    return result;
                }
            }
            probes++;
            bucket = (bucket + 1) & bucketMask;
        }
        return INDEX_FULL;
    }

    /** One bucket entry of the same tag: a match (slot, reference taken), NO_MATCH, RETRY or -errno. */
    private long examine(final Writer w, final long b, final int bucketOffset, final ByteBuffer src, final int off,
        final int len, final long authKey, final long userId)
    {
        final long other = (b & 0xFFFF_FFFFL) - 1;
        if (other < 0 || other >= capacity)
        {
            return NO_MATCH;
        }
        final int slot = layout.slot(other);
        final long s = m.getLongAcquire(slot + STATE_OFFSET);
        final int st = state(s);
        if (st != VALID && st != CLAIMED)
        {
            return NO_MATCH; // FREE or REMOVING: that incarnation of the key is going or gone
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
        if (payload(s) == w.index)
        {
            return NO_MATCH; // our own claim (insertAt): never reached, kept for safety
        }
        return waitForOwner(w, s, Waits.deadline(w)) ? RETRY : -FiErrno.EAGAIN; // the clock starts at the first wait
    }

    /**
     * CAS refs+1 on the VALID word {@code s}: {@code found} on success, RETRY when the word changed,
     * -EOVERFLOW when the entry holds {@link SlotDescriptor#MAX_REFS} references already (it stays
     * valid, and is removed by as many removals as it has references).
     */
    private long takeReference(final int slot, final long s, final long userId, final long found)
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
        if (userId != Long.MIN_VALUE)
        {
            m.setLongVolatile(slot + USER_ID_OFFSET, userId);
        }
        return found;
    }

    /**
     * A slot is CLAIMED or REMOVING by another writer: wait briefly for it, or recover it if its owner
     * is dead. False when the deadline passed.
     */
    private boolean waitForOwner(final Writer w, final long s, final long deadline)
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

    private long fillIndexPublish(final Writer w, final long index, final ByteBuffer src, final int off, final int len,
        final long authKey, final long userId, final long hash, final long mapBase)
    {
        final int slot = layout.slot(index);
        // Plain writes: nobody reads a CLAIMED slot's payload before the bucket CAS below publishes it.
        m.putInt(slot + ADDR_LEN_OFFSET, len);
        m.copyIn(slot + ADDR_OFFSET, src, off, len);
        m.putLong(slot + AUTH_KEY_OFFSET, authKey);
        m.putLong(slot + USER_ID_OFFSET, userId == Long.MIN_VALUE ? -1L : userId);
        final long found = findOrReference(w, src, off, len, authKey, hash, index, userId);
        if (found != NO_MATCH)
        {
            giveBackClaim(w);
            return found; // the address was inserted meanwhile (reference taken), INDEX_FULL or -errno
        }
        return publish(w, index, mapBase);
    }

    /**
     * Publishes writer {@code w}'s claim of slot {@code index}, filled and indexed: map_addr, journal
     * OP_PUBLISH, then the CAS from the claim word. The slot, or -EAGAIN when the claim was taken over.
     * Package-private for jcstress, which races it against a takeover.
     */
    long publish(final Writer w, final long index, final long mapBase)
    {
        final int slot = layout.slot(index);
        m.setLongRelease(layout.map(index), mapBase + index);
        final long delta = w.delta();
        w.journal(journal(delta, OP_PUBLISH, index));
        final long claimed = w.claimWord;
        // CAS from the exact word our claim wrote: if anyone moved the slot on, we own nothing and fail.
        if (!m.compareAndSetLong(slot + STATE_OFFSET, claimed, word(VALID, 1, generation(claimed))))
        {
            w.journal(journal(delta, OP_NONE, 0));
            w.released();
            return -FiErrno.EAGAIN;
        }
        w.released();
        w.journal(journal(delta + 1, OP_NONE, 0));
        ChangeCounters.published(m, w.entry); // this writer's own line: no insert writes a line others write
        return index;
    }

    /** Undoes this writer's claim (a duplicate, a full index, EALREADY), from the word its CAS wrote. */
    private void giveBackClaim(final Writer w)
    {
        remover.undoClaim(w.claimedSlot, w.claimWord);
        w.released();
    }
}
