package org.shmav.slots;

import static org.shmav.shm.AttacherDescriptor.*;
import static org.shmav.shm.SlotDescriptor.*;

import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.shmav.FiErrno;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Memory;
import org.shmav.shm.Processes;
import org.shmav.shm.AttacherDescriptor;

/**
 * The slot protocol of an AV region: claim, publish, look up, remove and recover, with
 * compare-and-swap as the only coordination between writers (see {@link SlotDescriptor} for the state
 * machine and shm-layout.md, CONCURRENCY, for the argument).
 *
 * <p>Readers ({@link #lookup}, {@link #reverseLookup}, {@link #isValid}) are lock-free, allocation-free
 * and may run in any process at any time. Writer methods take the {@link Writer} (attacher entry) of
 * the calling process; one writer must not be used by two threads at once, which the AV handle
 * guarantees with a process-local lock.
 *
 * <p>The hash section maps an address (and its auth-key handle) to the slot holding it. A bucket is
 * EMPTY (0), a TOMBSTONE, or {@code tag << 32 | slot + 1}. Buckets go from EMPTY to an entry by CAS and
 * never back to EMPTY, so every entry of a key lies before the first EMPTY bucket of its probe
 * sequence; an inserter installs only into an EMPTY bucket after checking every bucket before it,
 * which is what makes two inserters of one address agree on one slot.
 */
public final class SlotTable
{
    static final long EMPTY = 0L;
    static final long TOMBSTONE = 0xFFFF_FFFFL;
    /** How long an inserter waits for a live writer that is publishing the same address. */
    public static final long CLAIM_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);

    /** Token bit marking an attacher entry that a recoverer (the rest of the token) is settling. */
    static final long RECOVERING = AttacherDescriptor.TOKEN_RECOVERING;

    /** A deadline not started yet: the clock is read only once a wait may begin (a read costs ~20 ns). */
    private static final long NO_DEADLINE = 0;
    private static final int NO_MATCH = -1;
    private static final int RETRY = -2;
    /** Index rebuilds one insert asks for before it reports FI_ENOSPC. */
    private static final int MAX_REBUILDS = 3;
    /** No EMPTY bucket on the probe sequence: the index needs a rebuild. Never returned to callers. */
    private static final long INDEX_FULL = -1_000_000L;

    private final Memory m;
    private final AvLayout layout;
    private final long capacity;
    private final long bucketMask;
    private final FreeSlots free;

    public SlotTable(final Memory m, final AvLayout layout)
    {
        this.m = m;
        this.layout = layout;
        this.capacity = layout.capacity();
        this.bucketMask = layout.hashBuckets() - 1;
        this.free = new FreeSlots(m, layout);
    }

    public AvLayout layout()
    {
        return layout;
    }

    public Memory memory()
    {
        return m;
    }

    public long capacity()
    {
        return capacity;
    }

    // ---------------------------------------------------------------- readers

    /** The state word of slot {@code index}, acquire. */
    public long stateWord(final long index)
    {
        return m.getLongAcquire(layout.slot(index) + STATE_OFFSET);
    }

    /** True when slot {@code index} (in range) is VALID with at least one reference. */
    public boolean isValid(final long index)
    {
        final long s = stateWord(index);
        return state(s) == VALID && payload(s) > 0;
    }

    /**
     * Copies the address of slot {@code index} (in range) into {@code dst} at its position, at most
     * {@code dst.remaining()} bytes, and returns the stored length; -1 when the slot is not VALID.
     * Seqlock read: state and generation are read before and after the copy, and the copy retried if
     * the slot changed in between.
     */
    public int lookup(final long index, final ByteBuffer dst)
    {
        final int slot = layout.slot(index);
        while (true)
        {
            final long before = m.getLongAcquire(slot + STATE_OFFSET);
            if (state(before) != VALID || payload(before) == 0)
            {
                return -1;
            }
            final int len = m.getInt(slot + ADDR_LEN_OFFSET);
            if (len <= 0 || len > layout.addrLen())
            {
                return -1;
            }
            m.copyOut(slot + ADDR_OFFSET, dst, Math.min(len, dst.remaining()));
            VarHandle.acquireFence(); // the copy above is complete before the state is read again
            final long after = m.getLong(slot + STATE_OFFSET);
            if (sameIncarnation(before, after))
            {
                return len;
            }
        }
    }

    /** The user id of slot {@code index}, or {@code Long.MIN_VALUE} when the slot is not VALID. */
    public long userId(final long index)
    {
        final int slot = layout.slot(index);
        while (true)
        {
            final long before = m.getLongAcquire(slot + STATE_OFFSET);
            if (state(before) != VALID)
            {
                return Long.MIN_VALUE;
            }
            final long userId = m.getLongVolatile(slot + USER_ID_OFFSET);
            if (sameIncarnation(before, m.getLongAcquire(slot + STATE_OFFSET)))
            {
                return userId;
            }
        }
    }

    /** The auth-key handle slot {@code index} is bound to, -1 for none, {@code Long.MIN_VALUE} when not VALID. */
    public long authKeyOf(final long index)
    {
        final int slot = layout.slot(index);
        while (true)
        {
            final long before = m.getLongAcquire(slot + STATE_OFFSET);
            if (state(before) != VALID)
            {
                return Long.MIN_VALUE;
            }
            final long key = m.getLong(slot + AUTH_KEY_OFFSET);
            VarHandle.acquireFence();
            if (sameIncarnation(before, m.getLong(slot + STATE_OFFSET)))
            {
                return key;
            }
        }
    }

    /**
     * The slot holding {@code len} address bytes at {@code src[off]} bound to {@code authKey}, or -1.
     * A slot found is always right (checked like a lookup). "Not found" is trusted only if no index
     * rebuild started or ran meanwhile; otherwise the slots are scanned (rare: rebuilds are).
     */
    public long reverseLookup(final ByteBuffer src, final int off, final int len, final long authKey)
    {
        final long epoch = m.getLongAcquire(AvFileDescriptor.HASH_EPOCH_OFFSET);
        if ((epoch & 0xFFFF_FFFFL) == 0)
        {
            final long slot = probe(src, off, len, authKey, hash(src, off, len, authKey));
            VarHandle.acquireFence();
            if (slot >= 0 || m.getLong(AvFileDescriptor.HASH_EPOCH_OFFSET) == epoch)
            {
                return slot;
            }
        }
        return scan(src, off, len, authKey);
    }

    /** Probes the hash for a VALID slot holding the key; -1 when none is indexed. */
    private long probe(final ByteBuffer src, final int off, final int len, final long authKey, final long hash)
    {
        final int tag = (int)(hash >>> 32);
        long bucket = hash & bucketMask;
        for (long probes = 0; probes <= bucketMask; probes++, bucket = (bucket + 1) & bucketMask)
        {
            final long w = m.getLongAcquire(layout.bucket(bucket));
            if (w == EMPTY)
            {
                return -1;
            }
            if (w == TOMBSTONE || (int)(w >>> 32) != tag)
            {
                continue;
            }
            final long slot = (w & 0xFFFF_FFFFL) - 1;
            if (slot >= 0 && slot < capacity && isValidWithKey(slot, src, off, len, authKey))
            {
                return slot;
            }
        }
        return -1;
    }

    /** Every slot, in order: the answer of a reverse lookup that raced an index rebuild. */
    private long scan(final ByteBuffer src, final int off, final int len, final long authKey)
    {
        for (long slot = 0; slot < capacity; slot++)
        {
            if (isValidWithKey(slot, src, off, len, authKey))
            {
                return slot;
            }
        }
        return -1;
    }

    private boolean isValidWithKey(final long slot, final ByteBuffer src, final int off, final int len, final long authKey)
    {
        final long s = stateWord(slot);
        if (state(s) != VALID || payload(s) == 0 || !keyEquals(slot, src, off, len, authKey))
        {
            return false;
        }
        VarHandle.acquireFence();
        return sameIncarnation(s, m.getLong(layout.slot(slot) + STATE_OFFSET));
    }

    /**
     * Reads the first hash bucket of {@code n} addresses of {@code len} bytes packed from {@code off},
     * one after another, so that a batch insert's cache misses on the hash overlap instead of each
     * stalling its own insert. Returns the buckets xor'ed together only so that the reads are kept.
     */
    public long touchBuckets(final ByteBuffer src, final int off, final int len, final int n)
    {
        long sink = 0;
        for (int i = 0; i < n; i++)
        {
            sink ^= m.getLong(layout.bucket(hash(src, off + i * len, len, -1L) & bucketMask));
        }
        return sink;
    }

    /** Entries valid now: the sum of every attacher entry's journal delta. */
    public long count()
    {
        final long highWater = Math.min(m.getLongAcquire(AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET),
            layout.attachersCapacity());
        long count = 0;
        for (int a = 0; a < highWater; a++)
        {
            count += delta(m.getLongAcquire(layout.attacher(a) + JOURNAL_OFFSET));
        }
        return count;
    }

    /** The change counter: bumped after every publish and removal. */
    public long changes()
    {
        return m.getLongAcquire(AvFileDescriptor.CHANGES_OFFSET);
    }

    /** The map_addr entry of slot {@code index}: its fi_addr while VALID, else FI_ADDR_NOTAVAIL. */
    public long mapEntry(final long index)
    {
        return m.getLongAcquire(layout.map(index));
    }

    // ---------------------------------------------------------------- writers

    /**
     * Inserts an address at the lowest FREE slot, or takes a reference on the slot already holding it.
     * Returns the slot, or a negative errno: -ENOSPC when no slot (or no hash bucket) is free,
     * -EAGAIN when another live writer kept the same address half-published too long.
     */
    public long insert(final Writer w, final ByteBuffer src, final int off, final int len,
        final long authKey, final long userId, final long mapBase)
    {
        final long hash = hash(src, off, len, authKey);
        for (int attempt = 0; ; attempt++)
        {
            if (indexCrowded())
            {
                rebuildIndex(w);
            }
            if (!enterPhase(w))
            {
                return -FiErrno.EAGAIN;
            }
            final long result;
            try
            {
                result = insertInPhase(w, src, off, len, authKey, userId, mapBase, hash);
            }
            finally
            {
                exitPhase(w);
            }
            if (result != INDEX_FULL)
            {
                return result;
            }
            if (attempt == MAX_REBUILDS)
            {
                return -FiErrno.ENOSPC; // every bucket holds a live entry: cannot happen with 2 buckets per slot
            }
            rebuildIndex(w); // ours, or another writer's that we waited for: either way, try again
        }
    }

    private long insertInPhase(final Writer w, final ByteBuffer src, final int off, final int len,
        final long authKey, final long userId, final long mapBase, final long hash)
    {
        long deadline = NO_DEADLINE;
        boolean lastLook = false;
        while (true)
        {
            final long existing = findOrReference(w, src, off, len, authKey, hash, -1, userId);
            if (existing != NO_MATCH)
            {
                return existing;
            }
            long slot = free.claimLowest(w);
            if (slot < 0 && recoverDead() > 0)
            {
                slot = free.claimLowest(w); // slots held by dead writers came back
            }
            if (slot >= 0)
            {
                return fillIndexPublish(w, slot, src, off, len, authKey, userId, hash, mapBase);
            }
            // Full, unless a claim in flight is about to be given back (its writer found its address
            // already present) or is this very address, not yet indexed: let the claims settle. Settled
            // once, look and claim again: a slot given back meanwhile may have been claimed at once by
            // a writer of this very address, so the AV is full only if the claims are settled again
            // after that attempt failed. Then look a last time: a writer that published this address
            // in between indexed it first.
            deadline = startWaiting(deadline);
            final boolean settled = !claimsInFlight(w) || System.nanoTime() - deadline > 0;
            if (settled && lastLook)
            {
                final long last = findOrReference(w, src, off, len, authKey, hash, -1, userId);
                return last != NO_MATCH ? last : -FiErrno.ENOSPC;
            }
            lastLook = settled;
            if (!settled)
            {
                LockSupport.parkNanos(10_000);
            }
        }
    }

    /**
     * True when a writer other than {@code w} holds a slot CLAIMED, or any slot is REMOVING (a removal,
     * perhaps a dead writer's being finished by a recoverer, is about to free it). Only on the
     * full-table path.
     */
    private boolean claimsInFlight(final Writer w)
    {
        for (long i = 0; i < capacity; i++)
        {
            final long s = stateWord(i);
            if ((state(s) == CLAIMED && payload(s) != w.index) || state(s) == REMOVING)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Inserts an address at slot {@code index}. Returns the slot, or -EADDRINUSE when it holds another
     * address, -EALREADY when the address is at another slot, -EAGAIN as {@link #insert}.
     */
    public long insertAt(final Writer w, final long index, final ByteBuffer src, final int off, final int len,
        final long authKey, final long userId, final long mapBase)
    {
        final long hash = hash(src, off, len, authKey);
        for (int attempt = 0; ; attempt++)
        {
            if (indexCrowded())
            {
                rebuildIndex(w);
            }
            if (!enterPhase(w))
            {
                return -FiErrno.EAGAIN;
            }
            final long result;
            try
            {
                result = insertAtInPhase(w, index, src, off, len, authKey, userId, mapBase, hash);
            }
            finally
            {
                exitPhase(w);
            }
            if (result != INDEX_FULL)
            {
                return result;
            }
            if (attempt == MAX_REBUILDS)
            {
                return -FiErrno.ENOSPC;
            }
            rebuildIndex(w);
        }
    }

    private long insertAtInPhase(final Writer w, final long index, final ByteBuffer src, final int off, final int len,
        final long authKey, final long userId, final long mapBase, final long hash)
    {
        final int slot = layout.slot(index);
        long deadline = NO_DEADLINE;
        while (true)
        {
            final long s = m.getLongVolatile(slot + STATE_OFFSET);
            final int st = state(s);
            if (st == FREE)
            {
                if (m.compareAndSetLong(slot + STATE_OFFSET, s, word(CLAIMED, w.index, generation(s))))
                {
                    break;
                }
                continue;
            }
            if (st == VALID && payload(s) > 0)
            {
                if (!keyEquals(index, src, off, len, authKey))
                {
                    return -FiErrno.EADDRINUSE;
                }
                if (takeReference(slot, s, userId))
                {
                    return index;
                }
                continue;
            }
            deadline = startWaiting(deadline);
            if (!waitForOwner(w, s, deadline))
            {
                return -FiErrno.EAGAIN;
            }
        }
        if (probe(src, off, len, authKey, hash) >= 0)
        {
            undoClaim(index, w.index);
            return -FiErrno.EALREADY;
        }
        final long result = fillIndexPublish(w, index, src, off, len, authKey, userId, hash, mapBase);
        if (result >= 0 && result != index)
        {
            release(w, result); // inserted elsewhere meanwhile: give back the reference taken on it
            return -FiErrno.EALREADY;
        }
        return result;
    }

    /**
     * Drops one reference on slot {@code index}; returns 0, or -EINVAL when it is not VALID, or -EAGAIN
     * when an index rebuild kept going past the deadline. Runs inside the writer's phase like an insert:
     * a rebuild must never see a slot go from VALID to REMOVING, or it could index a slot whose bucket
     * the remover then fails to find.
     */
    public int remove(final Writer w, final long index)
    {
        if (!enterPhase(w))
        {
            return -FiErrno.EAGAIN;
        }
        try
        {
            return release(w, index);
        }
        finally
        {
            exitPhase(w);
        }
    }

    /** Sets the user id of a VALID slot; false when it is not VALID. */
    public boolean setUserId(final long index, final long userId)
    {
        final int slot = layout.slot(index);
        final long before = m.getLongAcquire(slot + STATE_OFFSET);
        if (state(before) != VALID)
        {
            return false;
        }
        m.setLongVolatile(slot + USER_ID_OFFSET, userId);
        return sameIncarnation(before, m.getLongVolatile(slot + STATE_OFFSET));
    }

    private int release(final Writer w, final long index)
    {
        final int slot = layout.slot(index);
        while (true)
        {
            final long s = m.getLongVolatile(slot + STATE_OFFSET);
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
            w.journal(journal(delta, OP_REMOVE, index));
            if (m.compareAndSetLong(slot + STATE_OFFSET, s, word(REMOVING, w.index, generation(s))))
            {
                w.journal(journal(delta - 1, OP_COUNTED, index));
                finishRemoval(index, w.index);
                w.journal(journal(delta - 1, OP_NONE, 0));
                return 0;
            }
        }
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
        long deadline = NO_DEADLINE;
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
                deadline = startWaiting(deadline);
                final long result = examine(w, b, bucketOffset, src, off, len, authKey, userId, deadline);
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
        final int len, final long authKey, final long userId, final long deadline)
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
        final boolean equal = keyEquals(other, src, off, len, authKey);
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
            return takeReference(slot, s, userId) ? other : RETRY;
        }
        if (payload(s) == w.index)
        {
            return NO_MATCH; // our own claim (insertAt): never reached, kept for safety
        }
        return waitForOwner(w, s, deadline) ? RETRY : -FiErrno.EAGAIN;
    }

    private boolean takeReference(final int slot, final long s, final long userId)
    {
        final long refs = payload(s);
        if (refs == 0 || refs >= MAX_REFS)
        {
            return false;
        }
        if (!m.compareAndSetLong(slot + STATE_OFFSET, s, word(VALID, refs + 1, generation(s))))
        {
            return false;
        }
        if (userId != Long.MIN_VALUE)
        {
            m.setLongVolatile(slot + USER_ID_OFFSET, userId);
        }
        return true;
    }

    /**
     * A slot is CLAIMED or REMOVING by another writer: wait briefly for it, or recover it if its owner
     * is dead. False when the deadline passed.
     */
    private boolean waitForOwner(final Writer w, final long s, final long deadline)
    {
        if (System.nanoTime() - deadline > 0)
        {
            return false;
        }
        final long owner = payload(s);
        if (owner < layout.attachersCapacity() && !ownerAlive((int)owner))
        {
            recoverAttacher((int)owner);
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
            undoClaim(index, w.index);
            return found; // the address was inserted meanwhile (reference taken), INDEX_FULL or -errno
        }
        m.setLongRelease(layout.map(index), mapBase + index);
        final long delta = w.delta();
        w.journal(journal(delta, OP_PUBLISH, index));
        final long claimed = m.getLong(slot + STATE_OFFSET);
        // CAS, not a store: a recoverer that wrongly judged us dead would have moved the slot on.
        if (!m.compareAndSetLong(slot + STATE_OFFSET, claimed, word(VALID, 1, generation(claimed))))
        {
            w.journal(journal(delta, OP_NONE, 0));
            return -FiErrno.EAGAIN;
        }
        w.journal(journal(delta + 1, OP_NONE, 0));
        m.getAndAddLong(AvFileDescriptor.CHANGES_OFFSET, 1);
        return index;
    }

    /** CLAIMED(owner) -> FREE(g+1), removing any bucket that points at the slot first. */
    private void undoClaim(final long index, final int owner)
    {
        final int slot = layout.slot(index);
        final long s = m.getLongVolatile(slot + STATE_OFFSET);
        if (state(s) != CLAIMED || payload(s) != owner)
        {
            return;
        }
        m.setLongRelease(layout.map(index), -1L); // a dead owner may have written it before its publishing CAS
        tombstone(index);
        if (m.compareAndSetLong(slot + STATE_OFFSET, s, word(FREE, 0, generation(s) + 1)))
        {
            free.freed(index);
        }
    }

    /** REMOVING(owner) -> FREE(g+1): out of map_addr and the hash, then free, then the hint. */
    private void finishRemoval(final long index, final int owner)
    {
        final int slot = layout.slot(index);
        final long s = m.getLongVolatile(slot + STATE_OFFSET);
        if (state(s) != REMOVING || payload(s) != owner)
        {
            return;
        }
        m.setLongRelease(layout.map(index), -1L);
        tombstone(index);
        if (m.compareAndSetLong(slot + STATE_OFFSET, s, word(FREE, 0, generation(s) + 1)))
        {
            free.freed(index);
            m.getAndAddLong(AvFileDescriptor.CHANGES_OFFSET, 1);
            // A removal takes no bucket: keep changes + hashUsedBase at the buckets taken, so that churn
            // does not ask for rebuilds twice as often as it uses buckets up.
            m.getAndAddLong(AvFileDescriptor.HASH_USED_BASE_OFFSET, -1);
        }
    }

    /** Replaces the bucket pointing at {@code index} (if any) with a TOMBSTONE. */
    private void tombstone(final long index)
    {
        final int slot = layout.slot(index);
        final int len = m.getInt(slot + ADDR_LEN_OFFSET);
        if (len <= 0 || len > layout.addrLen())
        {
            return; // never filled: never indexed
        }
        final long hash = hash(m.buffer(), slot + ADDR_OFFSET, len, m.getLong(slot + AUTH_KEY_OFFSET));
        final int tag = (int)(hash >>> 32);
        final long entry = ((long)tag << 32) | (index + 1);
        long bucket = hash & bucketMask;
        for (long probes = 0; probes <= bucketMask; probes++, bucket = (bucket + 1) & bucketMask)
        {
            final int offset = layout.bucket(bucket);
            final long b = m.getLongVolatile(offset);
            if (b == EMPTY)
            {
                return;
            }
            if (b == entry)
            {
                m.compareAndSetLong(offset, entry, TOMBSTONE);
                return;
            }
        }
    }

    private boolean keyEquals(final long index, final ByteBuffer src, final int off, final int len, final long authKey)
    {
        final int slot = layout.slot(index);
        return m.getInt(slot + ADDR_LEN_OFFSET) == len
            && m.getLong(slot + AUTH_KEY_OFFSET) == authKey
            && m.bytesEqual(slot + ADDR_OFFSET, src, off, len);
    }

    // ---------------------------------------------------------------- recovery

    private boolean ownerAlive(final int attacher)
    {
        final long token = m.getLongVolatile(layout.attacher(attacher) + TOKEN_OFFSET);
        return token != 0 && (token & RECOVERING) == 0 && Processes.isAlive(token);
    }

    /**
     * Recovers every attacher entry whose process is dead: finishes or undoes its slots, settles its
     * journal and frees the entry. Returns the number of slots repaired.
     */
    public int recoverDead()
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
        while (true)
        {
            final long j = m.getLongVolatile(entry + JOURNAL_OFFSET);
            final int op = op(j);
            if (op == OP_NONE || op == OP_COUNTED)
            {
                break;
            }
            final long slot = slot(j);
            final long d = delta(j);
            long settled = d;
            if (slot >= 0 && slot < capacity)
            {
                final long s = stateWord(slot);
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
                break;
            }
        }
        int repaired = 0;
        for (long i = 0; i < capacity; i++)
        {
            final long s = stateWord(i);
            if (payload(s) != a)
            {
                continue;
            }
            if (state(s) == CLAIMED)
            {
                undoClaim(i, a);
                repaired++;
            }
            else if (state(s) == REMOVING)
            {
                finishRemoval(i, a);
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

    // ---------------------------------------------------------------- attachers

    /**
     * Takes a free attacher entry for this process (recovering a dead one if none is free) and returns
     * its writer; null when every entry belongs to a live process.
     */
    public Writer attach()
    {
        for (int pass = 0; pass < 2; pass++)
        {
            for (int a = 0; a < layout.attachersCapacity(); a++)
            {
                final int entry = layout.attacher(a);
                if (m.getLongVolatile(entry + TOKEN_OFFSET) == 0 &&
                    m.compareAndSetLong(entry + TOKEN_OFFSET, 0L, Processes.SELF_TOKEN))
                {
                    m.putLong(entry + PID_OFFSET, Processes.SELF_PID);
                    m.putLong(entry + START_MILLIS_OFFSET, Processes.SELF_START_MILLIS);
                    m.setLongRelease(entry + ATTACHED_MILLIS_OFFSET, System.currentTimeMillis());
                    raiseHighWater(a + 1);
                    return new Writer(m, a, entry);
                }
            }
            recoverDead();
        }
        return null;
    }

    /** The writer of attacher entry {@code index}, which this process already holds (a private region after growth). */
    Writer writerAt(final int index)
    {
        return new Writer(m, index, layout.attacher(index));
    }

    // ---------------------------------------------------------------- index rebuild

    /**
     * True when the hash may be running out of EMPTY buckets. Buckets never go back to EMPTY except
     * by a rebuild, and a bucket is taken by each publish, so {@code changes + hashUsedBase} (the
     * entries the last rebuild indexed, plus publishes since: a removal adds 1 to one and subtracts 1
     * from the other) is about the buckets in use. It misses a bucket taken by an insert that then gave
     * its slot back to a duplicate; an insert that finds no EMPTY bucket asks for a rebuild itself.
     */
    private boolean indexCrowded()
    {
        final long used = m.getLongVolatile(AvFileDescriptor.CHANGES_OFFSET) +
            m.getLongVolatile(AvFileDescriptor.HASH_USED_BASE_OFFSET);
        return used > (layout.hashBuckets() >>> 2) * 3;
    }

    /**
     * Marks this writer as inside an insert, unless an index rebuild runs: then it waits for the
     * rebuild (taking it over if its rebuilder died). A rebuilder sets the epoch word and then waits
     * for every phase word to be 0; a writer sets its phase word and then reads the epoch word. Both
     * are volatile (sequentially consistent), so either the writer sees the rebuild or the rebuilder
     * sees the writer. False when a live rebuilder kept going past the deadline.
     */
    private boolean enterPhase(final Writer w)
    {
        long deadline = NO_DEADLINE;
        while (true)
        {
            m.setLongVolatile(w.entry + PHASE_OFFSET, 1);
            final long epoch = m.getLongVolatile(AvFileDescriptor.HASH_EPOCH_OFFSET);
            if ((epoch & 0xFFFF_FFFFL) == 0)
            {
                return true;
            }
            m.setLongVolatile(w.entry + PHASE_OFFSET, 0);
            deadline = startWaiting(deadline);
            if (!awaitRebuild(w, epoch, deadline))
            {
                return false;
            }
        }
    }

    /** {@code deadline}, or one {@link #CLAIM_WAIT_NANOS} from now when it is {@link #NO_DEADLINE}. */
    private static long startWaiting(final long deadline)
    {
        return deadline != NO_DEADLINE ? deadline : System.nanoTime() + CLAIM_WAIT_NANOS;
    }

    private void exitPhase(final Writer w)
    {
        m.setLongRelease(w.entry + PHASE_OFFSET, 0);
    }

    /** True when the rebuild marked in {@code epoch} has a live rebuilder (an index out of range has none). */
    private boolean rebuilderAlive(final long epoch)
    {
        final long rebuilder = (epoch & 0xFFFF_FFFFL) - 1;
        return rebuilder >= 0 && rebuilder < layout.attachersCapacity() && ownerAlive((int)rebuilder);
    }

    /** Waits for the rebuild marked in {@code epoch} to end; takes it over if its rebuilder died. */
    private boolean awaitRebuild(final Writer w, final long epoch, final long deadline)
    {
        while (m.getLongVolatile(AvFileDescriptor.HASH_EPOCH_OFFSET) == epoch)
        {
            if (!rebuilderAlive(epoch))
            {
                final long mine = (epoch & 0xFFFF_FFFF_0000_0000L) | (w.index + 1);
                if (m.compareAndSetLong(AvFileDescriptor.HASH_EPOCH_OFFSET, epoch, mine))
                {
                    rebuildAs(w, mine);
                }
                return true;
            }
            if (System.nanoTime() - deadline > 0)
            {
                return false;
            }
            LockSupport.parkNanos(10_000);
        }
        return true;
    }

    /**
     * Finishes an index rebuild whose rebuilder died (readers meanwhile confirm every miss by a scan).
     * True when one was finished.
     */
    public boolean finishAbandonedRebuild(final Writer w)
    {
        final long epoch = m.getLongVolatile(AvFileDescriptor.HASH_EPOCH_OFFSET);
        if ((epoch & 0xFFFF_FFFFL) == 0 || rebuilderAlive(epoch))
        {
            return false;
        }
        final long mine = (epoch & 0xFFFF_FFFF_0000_0000L) | (w.index + 1);
        return m.compareAndSetLong(AvFileDescriptor.HASH_EPOCH_OFFSET, epoch, mine) && rebuildAs(w, mine);
    }

    /**
     * Rebuilds the hash from the slot table, so that tombstones left by removals become EMPTY
     * buckets again. Must be called outside an insert. Marks the rebuild in the epoch word (a new
     * epoch, this writer as rebuilder), waits (bounded) until no other writer is inside an insert,
     * recovering dead ones, then indexes every VALID slot afresh. Readers that overlap it see the
     * epoch change and fall back to scanning. False when another rebuild ran instead, or live writers
     * stayed inside an insert past the deadline (the rebuild is then abandoned without changes).
     */
    public boolean rebuildIndex(final Writer w)
    {
        final long epoch = m.getLongVolatile(AvFileDescriptor.HASH_EPOCH_OFFSET);
        if ((epoch & 0xFFFF_FFFFL) != 0)
        {
            awaitRebuild(w, epoch, System.nanoTime() + CLAIM_WAIT_NANOS);
            return false; // someone else rebuilt
        }
        final long mine = (((epoch >>> 32) + 1) << 32) | (w.index + 1);
        return m.compareAndSetLong(AvFileDescriptor.HASH_EPOCH_OFFSET, epoch, mine) && rebuildAs(w, mine);
    }

    private boolean rebuildAs(final Writer w, final long mine)
    {
        final long idle = mine & 0xFFFF_FFFF_0000_0000L;
        final long deadline = System.nanoTime() + CLAIM_WAIT_NANOS;
        final long highWater = Math.min(m.getLongVolatile(AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET),
            layout.attachersCapacity());
        for (int a = 0; a < highWater; a++)
        {
            while (a != w.index && m.getLongVolatile(layout.attacher(a) + PHASE_OFFSET) != 0)
            {
                if (m.getLongVolatile(layout.attacher(a) + TOKEN_OFFSET) == 0)
                {
                    // No owner, so nobody inside an insert (only a corrupted file has such a phase word).
                    // Whoever takes the entry later sets its phase, then sees our mark and waits.
                    break;
                }
                if (!ownerAlive(a))
                {
                    recoverAttacher(a); // undoes its claims and clears its phase
                }
                if (System.nanoTime() - deadline > 0)
                {
                    m.compareAndSetLong(AvFileDescriptor.HASH_EPOCH_OFFSET, mine, idle);
                    return false;
                }
                LockSupport.parkNanos(10_000);
            }
        }
        rebuildBuckets();
        m.setLongVolatile(AvFileDescriptor.HASH_EPOCH_OFFSET, idle);
        return true;
    }

    /** Every bucket EMPTY, then one entry per VALID slot. Only while no writer is inside an insert. */
    void rebuildBuckets()
    {
        for (long b = 0; b <= bucketMask; b++)
        {
            m.putLong(layout.bucket(b), EMPTY);
        }
        long entries = 0;
        for (long i = 0; i < capacity; i++)
        {
            final int slot = layout.slot(i);
            if (state(m.getLongVolatile(slot + STATE_OFFSET)) != VALID)
            {
                continue;
            }
            final int len = m.getInt(slot + ADDR_LEN_OFFSET);
            if (len <= 0 || len > layout.addrLen())
            {
                continue; // a corrupted slot: lookups refuse it too
            }
            final long hash = hash(m.buffer(), slot + ADDR_OFFSET, len, m.getLong(slot + AUTH_KEY_OFFSET));
            long bucket = hash & bucketMask;
            while (m.getLong(layout.bucket(bucket)) != EMPTY)
            {
                bucket = (bucket + 1) & bucketMask;
            }
            m.putLong(layout.bucket(bucket), ((hash >>> 32) << 32) | (i + 1));
            entries++;
        }
        m.setLongVolatile(AvFileDescriptor.HASH_USED_BASE_OFFSET, entries - m.getLongVolatile(AvFileDescriptor.CHANGES_OFFSET));
    }

    /** Gives the entry back; its journal delta stays for the next owner. */
    public void detach(final Writer w)
    {
        m.compareAndSetLong(w.entry + TOKEN_OFFSET, Processes.SELF_TOKEN, 0L);
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

    // ---------------------------------------------------------------- hashing

    /**
     * The hash of an address and its auth-key handle (shm-layout.md, HASH): 8-byte little-endian
     * chunks (the last one zero-padded) mixed by multiply and xor-shift. Bucket = hash mod buckets,
     * tag = high 32 bits.
     */
    public static long hash(final ByteBuffer src, final int off, final int len, final long authKey)
    {
        long h = 0x9E37_79B9_7F4A_7C15L ^ len;
        int i = 0;
        for (; i + 8 <= len; i += 8)
        {
            h = mix(h, littleEndianLong(src, off + i));
        }
        if (i < len)
        {
            long tail = 0;
            for (int k = 0; i + k < len; k++)
            {
                tail |= (src.get(off + i + k) & 0xFFL) << (8 * k);
            }
            h = mix(h, tail);
        }
        h = mix(h, authKey);
        h ^= h >>> 31;
        h *= 0xBF58_476D_1CE4_E5B9L;
        return h ^ (h >>> 29);
    }

    private static long mix(final long h, final long v)
    {
        final long x = (h ^ v) * 0x9E37_79B9_7F4A_7C15L;
        return x ^ (x >>> 32);
    }

    private static long littleEndianLong(final ByteBuffer src, final int at)
    {
        final long v = src.getLong(at);
        return src.order() == java.nio.ByteOrder.LITTLE_ENDIAN ? v : Long.reverseBytes(v);
    }

    /** This process's attacher entry in one region: the owner of its claims and its journal. */
    public static final class Writer
    {
        private final Memory m;
        final int index;
        final int entry;
        /**
         * Where this writer's next claim may start, valid while {@code freeHint}'s epoch is still
         * {@code hintEpoch}: see {@link FreeSlots#claimLowest}. -1: none yet.
         */
        long hintEpoch = -1;
        long nextFree;

        Writer(final Memory m, final int index, final int entry)
        {
            this.m = m;
            this.index = index;
            this.entry = entry;
        }

        public int index()
        {
            return index;
        }

        long delta()
        {
            return AttacherDescriptor.delta(m.getLong(entry + JOURNAL_OFFSET));
        }

        void journal(final long value)
        {
            m.setLongRelease(entry + JOURNAL_OFFSET, value);
        }
    }
}
