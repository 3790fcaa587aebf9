package org.shmav.slots;

import static org.shmav.shm.AttacherDescriptor.*;
import static org.shmav.shm.SlotDescriptor.*;
import static org.shmav.shm.IndexWord.*;

import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;

import org.shmav.FiErrno;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Memory;
import org.shmav.shm.SlotDescriptor;

/**
 * The writer's insert: probe the index, claim the lowest FREE slot, fill it, place it in the index,
 * publish it.
 *
 * <pre>
 *   probe: key VALID at t? ---------------------------------------> CAS refs+1 on t, return t
 *          key PUBLISHING at t (committed)? ---------------------> CAS to VALID(2), return t
 *          key CLAIMED at t by a live writer? --> after 1 ms, CAS to CANCELLED: t counts as absent
 *   claim: FREE(g) --CAS--> CLAIMED(a,g)                       ({@link FreeSlots}, or slot i for insertAt)
 *   fill:  addrLen, address bytes, auth key, user id          (plain: nobody reads a CLAIMED payload)
 *   place: S = indexState; in S's active area (and its target, if a migration runs): first EMPTY
 *          bucket of the probe sequence --CAS--> entry, every bucket before it checked (the key turned
 *          up meanwhile: undo the claim, take a reference on the other slot)
 *   check: indexState still S? else place again under the new state
 *   commit:  map_addr (release), journal OP_PUBLISH, CAS CLAIMED(a,g) -> PUBLISHING(a,g), journal delta+1
 *            (CANCELLED meanwhile: journal back, undo the claim, start the insert over)
 *   publish: CAS PUBLISHING(a,g) -> VALID(1,g); failing, an inserter of the same key published it first
 * </pre>
 *
 * Invariants: a key is placed only after its bytes are written, so an inserter of the same key can
 * compare them; one slot per key across processes (the first-EMPTY rule, in the area every inserter
 * of the moment places in first: the active one); a slot is published only after its entry is in the
 * area indexState named before and after the placing, so the active area never misses a VALID slot
 * ({@link IndexMigration}); FI_AV_TABLE gets the lowest FREE slot; the journal names the publish before
 * its commit, so the count stays exact whatever instruction the writer dies at, and whoever publishes
 * a committed slot (this writer, a helper, a recoverer) changes no count. Nothing here waits on
 * another process: an uncommitted claim of the same key is cancelled after a grace of 1 ms. The one
 * exception is insertAt of a slot another live writer holds CLAIMED (bounded by the call's deadline).
 * The commit, publish and give-back of the claim are {@link ClaimCommit}'s. Thread-safe for distinct
 * writers; one {@link Writer} is used by one thread at a time.
 */
final class SlotInserter
{
    static final int NO_MATCH = KeyPlacer.NO_MATCH;
    /**
     * How long an insert into a full AV waits for other writers' claims to settle (one may be given
     * back) before FI_ENOSPC: a live writer settles in microseconds, and a frozen one must not stall
     * the others for long (it is not inserting their address).
     */
    static final long FULL_SETTLE_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(200);
    /** Migrations one insert runs or helps because its area was full before it reports FI_ENOSPC. */
    private static final int MAX_MIGRATIONS = 3;
    /** Placings after which an insert whose indexState keeps changing starts watching the call's deadline. */
    private static final int ROUNDS_BEFORE_DEADLINE = 64;
    static final long CANCELLED_CLAIM = ClaimCommit.CANCELLED_CLAIM;

    private final Memory m;
    private final AvLayout layout;
    private final long capacity;
    private final SlotReader reader;
    private final DedupIndex dedup;
    private final FreeSlots free;
    private final SlotRemover remover;
    private final Recovery recovery;
    private final IndexMigration migration;
    private final KeyPlacer placer;
    private final ClaimCommit claims;

    SlotInserter(final Memory m, final AvLayout layout, final SlotReader reader, final DedupIndex index,
        final FreeSlots free, final SlotRemover remover, final Recovery recovery, final IndexMigration migration,
        final ClaimCommit claims)
    {
        this.m = m;
        this.layout = layout;
        this.capacity = layout.capacity();
        this.reader = reader;
        this.dedup = index;
        this.free = free;
        this.remover = remover;
        this.recovery = recovery;
        this.migration = migration;
        this.placer = new KeyPlacer(m, layout, reader, index, recovery);
        this.claims = claims;
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
        return run(w, -1, src, off, len, authKey, userId, mapBase, hash);
    }

    /**
     * Inserts an address at slot {@code index}. Returns the slot, or -EADDRINUSE when it holds another
     * address, -EALREADY when the address is at another slot, -EAGAIN or -EOVERFLOW as {@link #insert}.
     */
    long insertAt(final Writer w, final long index, final ByteBuffer src, final int off, final int len,
        final long authKey, final long userId, final long mapBase)
    {
        return run(w, index, src, off, len, authKey, userId, mapBase, DedupIndex.hash(src, off, len, authKey));
    }

    /**
     * One insert (at {@code index}, or the lowest FREE slot when it is -1), inside the phase hint. An
     * Error or exception anywhere inside gives back what the writer holds before it propagates.
     */
    private long run(final Writer w, final long index, final ByteBuffer src, final int off,
        final int len, final long authKey, final long userId, final long mapBase, final long hash)
    {
        if (dedup.stale())
        {
            return SlotTable.STALE_VIEW;
        }
        migration.checkCrowded(w);
        w.phaseHint(1);
        try
        {
            return index < 0
                ? insertNew(w, src, off, len, authKey, userId, mapBase, hash)
                : insertAtIndex(w, index, src, off, len, authKey, userId, mapBase, hash);
        }
        catch (final Throwable t)
        {
            recovery.giveBack(w);
            throw t;
        }
        finally
        {
            w.phaseHint(0);
        }
    }

    private long insertNew(final Writer w, final ByteBuffer src, final int off, final int len,
        final long authKey, final long userId, final long mapBase, final long hash)
    {
        long deadline = Waits.NO_DEADLINE;
        boolean lastLook = false;
        boolean lookedForUnmarked = false;
        while (true)
        {
            final long existing = findExisting(w, src, off, len, authKey, hash, userId);
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
                final long r = fillIndexPublish(w, slot, src, off, len, authKey, userId, hash, mapBase);
                if (r != CANCELLED_CLAIM)
                {
                    return r;
                }
                continue; // another inserter of the key cancelled our claim: it is there now, or soon
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
                final long last = findExisting(w, src, off, len, authKey, hash, userId);
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
        return EntryCount.count(m, layout) < capacity && free.markUnmarkedFree() > 0;
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

    private long insertAtIndex(final Writer w, final long index, final ByteBuffer src, final int off, final int len,
        final long authKey, final long userId, final long mapBase, final long hash)
    {
        while (true)
        {
            final long r = claimAtIndex(w, index, src, off, len, authKey, userId, mapBase, hash);
            if (r != CANCELLED_CLAIM)
            {
                return r;
            }
        }
    }

    /** One attempt of {@link #insertAtIndex}; CANCELLED_CLAIM when its claim was cancelled before its commit. */
    private long claimAtIndex(final Writer w, final long index, final ByteBuffer src, final int off, final int len,
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
                final long taken = placer.takeReference(slot, s, userId, index);
                if (taken != KeyPlacer.RETRY)
                {
                    return taken;
                }
                continue;
            }
            if (st == PUBLISHING)
            {
                // Committed by another writer: its bytes are complete. The same key: publish it for its
                // owner and take our reference; another key: the slot is taken.
                final boolean equal = reader.keyEquals(index, src, off, len, authKey);
                VarHandle.acquireFence(); // the comparison is done before the state is read again
                if (m.getLong(slot + STATE_OFFSET) != s)
                {
                    continue;
                }
                if (!equal)
                {
                    return -FiErrno.EADDRINUSE;
                }
                final long helped = placer.helpPublish(slot, s, userId, index);
                if (helped != KeyPlacer.RETRY)
                {
                    return helped;
                }
                continue;
            }
            // CLAIMED, CANCELLED or REMOVING by another writer: its bytes may be half-written, and slot i
            // is the only one this call may take: wait for it (bounded), or recover a dead owner.
            if (!placer.waitForOwner(w, s, Waits.deadline(w)))
            {
                return -FiErrno.EAGAIN;
            }
        }
        final long state = dedup.indexState();
        w.seenState = state;
        if (!dedup.inView(state))
        {
            claims.giveBack(w);
            return dedup.outOfView(state);
        }
        if (dedup.probe(state, src, off, len, authKey, hash) >= 0)
        {
            claims.giveBack(w);
            return -FiErrno.EALREADY;
        }
        final long result = fillIndexPublish(w, index, src, off, len, authKey, userId, hash, mapBase);
        if (result == CANCELLED_CLAIM)
        {
            return result;
        }
        if (result >= 0 && result != index)
        {
            remover.release(w, result); // inserted elsewhere meanwhile: give back the reference taken on it
            return -FiErrno.EALREADY;
        }
        return result;
    }

    /**
     * Looks for the key in the active area: its VALID slot gets a reference and is returned, a
     * PUBLISHING one is published (with our reference too); a slot still CLAIMED by a live writer is
     * cancelled after a grace, one of a dead writer's recovered. NO_MATCH
     * when absent (not authoritative: {@link #placeAndPublish} decides), {@link SlotTable#STALE_VIEW},
     * or a negative errno.
     */
    private long findExisting(final Writer w, final ByteBuffer src, final int off, final int len,
        final long authKey, final long hash, final long userId)
    {
        for (int attempt = 0; attempt < ROUNDS_BEFORE_DEADLINE; attempt++)
        {
            final long state = dedup.indexState();
            w.seenState = state;
            if (!dedup.inView(state))
            {
                return dedup.outOfView(state);
            }
            final long r = placer.place(w, dedup.activeBase(state), dedup.activeMask(state), stamp(state), src, off, len,
                authKey, hash, -1, userId);
            if (r != KeyPlacer.RESTATE || dedup.indexState() == state)
            {
                // A stamp newer than an unchanged state is a damaged bucket: the placing decides then.
                return r == KeyPlacer.INSTALLED || r == KeyPlacer.AREA_FULL || r == KeyPlacer.RESTATE ? NO_MATCH : r;
            }
        }
        return NO_MATCH;
    }

    private long fillIndexPublish(final Writer w, final long index, final ByteBuffer src, final int off, final int len,
        final long authKey, final long userId, final long hash, final long mapBase)
    {
        final int slot = layout.slot(index);
        // Plain writes: nobody reads a CLAIMED slot's payload before the bucket CAS that places it.
        m.putInt(slot + ADDR_LEN_OFFSET, len);
        m.copyIn(slot + ADDR_OFFSET, src, off, len);
        m.putLong(slot + AUTH_KEY_OFFSET, authKey);
        m.putLong(slot + USER_ID_OFFSET, userId);
        return placeAndPublish(w, index, src, off, len, authKey, userId, hash, mapBase);
    }

    /**
     * Places the claimed, filled slot {@code index} in the area indexState names (and in the target of
     * a running migration), then publishes it if indexState did not change meanwhile; places again under
     * the new state if it did. The slot, the slot holding the key already (reference taken, claim given
     * back), a negative errno (claim given back), or CANCELLED_CLAIM (claim given back).
     */
    private long placeAndPublish(final Writer w, final long index, final ByteBuffer src, final int off,
        final int len, final long authKey, final long userId, final long hash, final long mapBase)
    {
        int migrations = 0;
        long state = w.seenState; // loaded by the probe before the claim: a later change shows at the check
        for (int round = 0; ; round++, state = dedup.indexState())
        {
            if (round >= ROUNDS_BEFORE_DEADLINE && Waits.passed(Waits.deadline(w)))
            {
                claims.giveBack(w);
                return -FiErrno.EAGAIN; // other writers kept moving the index all along: try again
            }
            if (!dedup.inView(state))
            {
                claims.giveBack(w);
                return dedup.outOfView(state);
            }
            long r = placer.place(w, dedup.activeBase(state), dedup.activeMask(state), stamp(state), src, off, len,
                authKey, hash, index, userId);
            if (r == KeyPlacer.INSTALLED && migrating(state))
            {
                r = placer.place(w, dedup.targetBase(state), dedup.targetMask(state), (stamp(state) + 1) & STAMP_MASK, src,
                    off, len, authKey, hash, index, userId);
            }
            if (r == KeyPlacer.INSTALLED)
            {
                if (dedup.indexState() == state)
                {
                    return claims.publish(w, index, mapBase);
                }
                continue; // the index moved while we placed: place under the new state too
            }
            if (r == KeyPlacer.RESTATE)
            {
                if (dedup.indexState() == state)
                {
                    claims.giveBack(w);
                    return -FiErrno.EIO; // a bucket stamped newer than the state itself: damaged (shm-layout.md, Limits)
                }
                continue;
            }
            if (r == KeyPlacer.AREA_FULL)
            {
                if (migrations++ < MAX_MIGRATIONS && migration.makeRoom(w, state))
                {
                    continue;
                }
                claims.giveBack(w);
                // Every bucket holds a live entry (cannot happen with 2 buckets per slot), or this view is stale.
                return dedup.stale() ? SlotTable.STALE_VIEW : -FiErrno.ENOSPC;
            }
            claims.giveBack(w);
            return r; // the key is in the AV at another slot (reference taken), or -errno
        }
    }
}
