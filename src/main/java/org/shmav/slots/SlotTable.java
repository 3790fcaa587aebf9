package org.shmav.slots;

import static org.shmav.shm.AttacherDescriptor.*;

import java.nio.ByteBuffer;

import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Liveness;
import org.shmav.shm.Memory;
import org.shmav.shm.Processes;
import org.shmav.shm.SlotDescriptor;

/**
 * The slot protocol of one AV region, as the AV layer uses it: claim, publish, look up, remove and
 * recover, with compare-and-swap as the only coordination between writers. This class wires the
 * parts together; each part is one concern with its piece of the state diagram:
 * <ul>
 *   <li>{@link SlotReader}: seqlock reads of a slot (lookup, user id, auth key);</li>
 *   <li>{@link FreeSlots}: the search for and claim of the lowest FREE slot;</li>
 *   <li>{@link SlotInserter}: probe, claim, fill, index and publish;</li>
 *   <li>{@link SlotRemover}: references, removal, undo of a claim;</li>
 *   <li>{@link DedupIndex}: the address-to-slot hash (dedup, reverse lookup, tombstones);</li>
 *   <li>{@link IndexMigration}: moving the hash to another area while writers go on;</li>
 *   <li>{@link Recovery}: finishing or undoing what a dead writer left;</li>
 *   <li>{@link Attachers}: the table of writing processes and the count.</li>
 * </ul>
 * See {@link SlotDescriptor} for the slot state machine and shm-layout.md, CONCURRENCY, for the
 * argument.
 *
 * <p>Readers ({@link #lookup}, {@link #reverseLookup}, {@link #isValid}) are lock-free, allocation-free
 * and may run in any process at any time. Writer methods take the {@link Writer} (attacher entry) of
 * the calling process; one writer must not be used by two threads at once, which the AV handle
 * guarantees with a process-local lock.
 */
public final class SlotTable
{
    /** An EMPTY hash bucket. */
    public static final long EMPTY = DedupIndex.EMPTY;
    /** A hash bucket whose entry was removed. */
    public static final long TOMBSTONE = DedupIndex.TOMBSTONE;
    /**
     * Returned by writer methods and {@link #reverseLookup} when the AV grew past this view: the hash it
     * knows is no longer the one in use. Nothing was done; map the file again ({@link Region#follow})
     * and call again.
     */
    public static final int STALE_VIEW = -2_000_000;
    /** How long an inserter waits for a live writer that is publishing the same address. */
    public static final long CLAIM_WAIT_NANOS = Waits.CLAIM_WAIT_NANOS;

    private final Memory m;
    private final AvLayout layout;
    private final SlotReader reader;
    private final DedupIndex index;
    private final SlotRemover remover;
    private final ClaimCommit claims;
    private final Recovery recovery;
    private final IndexMigration migration;
    private final SlotInserter inserter;
    private final Attachers attachers;
    private final SlotView view;
    private final FreeSlots free;

    /** The slot table of a region whose writers' liveness {@code liveness} tells. */
    public SlotTable(final Memory m, final AvLayout layout, final Liveness liveness)
    {
        this(m, layout, liveness, FirstViews.of(m));
    }

    /** The slot table of a view {@code m} of a region that this process first mapped through {@code firstViews}. */
    SlotTable(final Memory m, final AvLayout layout, final Liveness liveness, final FirstViews firstViews)
    {
        this.m = m;
        this.layout = layout;
        this.reader = new SlotReader(m, layout);
        this.index = new DedupIndex(m, layout, reader);
        this.free = new FreeSlots(m, layout);
        this.remover = new SlotRemover(m, layout, index, free);
        this.recovery = new Recovery(m, layout, remover, free, liveness);
        this.migration = new IndexMigration(m, firstViews, layout, index, recovery);
        this.claims = new ClaimCommit(m, layout, remover);
        this.inserter = new SlotInserter(m, layout, reader, index, free, remover, recovery, migration, claims);
        this.attachers = new Attachers(m, layout, recovery, liveness);
        this.view = new SlotView(this, m.buffer(), layout);
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
        return layout.capacity();
    }

    // ---------------------------------------------------------------- readers

    /** The state word of slot {@code index}, acquire. */
    public long stateWord(final long index)
    {
        return reader.stateWord(index);
    }

    /** True when the AV grew past this view (its header counts more segments than this layout). */
    public boolean stale()
    {
        return index.stale();
    }

    /** Moves the index into segment {@code segment}, which a growth just published ({@link IndexMigration#moveInto}). */
    void moveIndexInto(final Writer w, final int segment)
    {
        migration.moveInto(w, segment);
    }

    /** True when slot {@code index} (in range) is an entry: committed, or VALID with at least one reference. */
    public boolean isValid(final long index)
    {
        return reader.isValid(index);
    }

    /**
     * Copies the address of slot {@code index} (in range) into {@code dst} at its position, at most
     * {@code dst.remaining()} bytes, and returns the stored length; -1 when the slot is not an entry
     * (committed or VALID).
     * Seqlock read: state and generation are read before and after the copy, and the copy retried if
     * the slot changed in between.
     */
    public int lookup(final long index, final ByteBuffer dst)
    {
        return reader.lookup(index, dst);
    }

    /** What a lookup reads of this table, for a handle to keep one field away ({@link SlotView}). */
    public SlotView view()
    {
        return view;
    }

    /** See {@link SlotReader#userId}: the user id of slot {@code index} in {@code into[0]}, or false when it is no entry. */
    public boolean userId(final long index, final long[] into)
    {
        return reader.userId(index, into);
    }

    /** The auth-key handle slot {@code index} is bound to, -1 for none, {@code Long.MIN_VALUE} when not VALID. */
    public long authKeyOf(final long index)
    {
        return reader.authKeyOf(index);
    }

    /**
     * The slot holding {@code len} address bytes at {@code src[off]} bound to {@code authKey}, or -1.
     * A slot found is always right (checked like a lookup). "Not found" is trusted only if indexState
     * did not change meanwhile; otherwise it looks again, and after three such tries scans the slots.
     * {@link #STALE_VIEW} when the AV grew past this view.
     */
    public long reverseLookup(final ByteBuffer src, final int off, final int len, final long authKey)
    {
        return index.reverseLookup(src, off, len, authKey);
    }

    /**
     * Reads the first hash bucket of {@code n} addresses of {@code len} bytes packed from {@code off},
     * one after another, so that a batch insert's cache misses on the hash overlap instead of each
     * stalling its own insert. Their hashes ({@link #hash} with auth key -1) are left in
     * {@code hashes[0..n)} for the inserts. Returns the buckets xor'ed together only so that the reads
     * are kept.
     */
    public long touchBuckets(final ByteBuffer src, final int off, final int len, final int n, final long[] hashes)
    {
        return index.touchBuckets(src, off, len, n, hashes);
    }

    /** Ends {@code w}'s run of claims, if its call took one, giving back what it left FREE ({@link FreeSlots#endRun}). */
    public void endRun(final Writer w)
    {
        if (w.runEnd != 0)
        {
            free.endRun(w);
        }
    }

    /**
     * Entries now (committed or VALID slots, shm-layout.md, Count): the journals' sum, with each
     * operation in flight that readers already see. {@link #STALE_VIEW} when a journal names a slot of a
     * growth this view has not mapped.
     */
    public long count()
    {
        return attachers.count();
    }

    /** The change counter: publishes and removals of every writer ever, summed over the attachers. */
    public long changes()
    {
        return ChangeCounters.changes(m, layout);
    }

    /** The map_addr entry of slot {@code index}: its fi_addr while VALID, else FI_ADDR_NOTAVAIL. */
    public long mapEntry(final long index)
    {
        return reader.mapEntry(index);
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
        return insert(w, src, off, len, authKey, userId, mapBase, DedupIndex.hash(src, off, len, authKey));
    }

    /**
     * {@link #insert} of an address whose {@link #hash} with {@code authKey} the caller computed already
     * (a batch hashes ahead, see {@link #touchBuckets}). A wrong hash would index the entry where no
     * probe finds it: pass exactly the hash of these bytes and this key.
     */
    public long insert(final Writer w, final ByteBuffer src, final int off, final int len,
        final long authKey, final long userId, final long mapBase, final long hash)
    {
        begin(w);
        final long result = inserter.insert(w, src, off, len, authKey, userId, mapBase, hash);
        w.needsRepair = false;
        return result;
    }

    /**
     * Inserts an address at slot {@code index}. Returns the slot, or -EADDRINUSE when it holds another
     * address, -EALREADY when the address is at another slot, -EAGAIN as {@link #insert}.
     */
    public long insertAt(final Writer w, final long index, final ByteBuffer src, final int off, final int len,
        final long authKey, final long userId, final long mapBase)
    {
        begin(w);
        final long result = inserter.insertAt(w, index, src, off, len, authKey, userId, mapBase);
        w.needsRepair = false;
        return result;
    }

    /** Drops one reference on slot {@code index}; returns 0, or -EINVAL when it is not VALID. */
    public int remove(final Writer w, final long index)
    {
        return removerCall(w, index, false, 0);
    }

    /**
     * Sets the user id of a VALID slot: 0, -EINVAL when it is not VALID, -EOVERFLOW when it holds every
     * reference.
     */
    public int setUserId(final Writer w, final long index, final long userId)
    {
        return removerCall(w, index, true, userId);
    }

    /** A removal, or ({@code setUserId}) a user id update (it may finish a removal), as one operation. */
    private int removerCall(final Writer w, final long index, final boolean setUserId, final long userId)
    {
        begin(w);
        w.phaseHint(1);
        final int result;
        try
        {
            result = setUserId ? remover.setUserId(w, index, userId) : remover.release(w, index);
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
        w.needsRepair = false;
        return result;
    }

    /**
     * Starts a writer operation: checks that this process still owns {@code w}, gives back what an
     * earlier operation left behind (below), then marks {@code w} as inside an operation.
     *
     * <p>Why the mark: an Error may cut an operation short where no handler can run, a
     * StackOverflowError in a {@code finally} or in the call to the give-back itself. The mark is a
     * plain field store, which cannot fail, set here and cleared by the operation's last statement, so
     * whatever such an Error left (a claim, a removal, the journal) is given back at the start of this
     * writer's next operation, in whichever thread uses the handle next.
     */
    private void begin(final Writer w)
    {
        checkOwned(w);
        w.releaseLeftLocks();
        if (w.needsRepair)
        {
            recovery.giveBack(w);
            if (w.needsRepair)
            {
                throw new StackOverflowError("the give-back of an operation cut short by an Error overflowed the " +
                    "stack again: call with more stack");
            }
        }
        w.needsRepair = true;
        w.beginOperation();
    }

    /**
     * Gives back what operations of {@code w} cut short by an Error left behind, for a caller that holds
     * the handle's lock and knows no operation of {@code w} is running (a watcher of handles whose thread
     * met the Error and may never call again). True when nothing is left; false when it must be tried
     * again later (the stack overflowed again).
     */
    public boolean giveBackLeftovers(final Writer w)
    {
        w.releaseLeftLocks();
        if (w.needsRepair)
        {
            recovery.giveBack(w);
        }
        return !w.hasLeftovers();
    }

    /**
     * FI_EIO when this process no longer owns its attacher entry: another process recovered it, which
     * happens only if the kernel dropped this JVM's lock on it, i.e. code outside shmav opened and closed
     * a descriptor of the AV file in this JVM (see AvFileChannel). Writing on would corrupt the count.
     */
    private void checkOwned(final Writer w)
    {
        if (m.getLong(w.entry + TOKEN_OFFSET) != Processes.SELF_TOKEN)
        {
            throw new FabricException(FiErrno.EIO, "this process lost its attacher entry " + w.index +
                " of the AV: its record lock was dropped, most likely because code outside shmav opened and closed " +
                "the AV file in this JVM; close this handle and open the AV again");
        }
    }

    // ---------------------------------------------------------------- recovery, attachers, migration

    /**
     * Recovers every attacher entry whose process is dead: finishes or undoes its slots, settles its
     * journal and frees the entry. Returns the number of slots repaired.
     */
    public int recoverDead()
    {
        return recovery.recoverDead();
    }

    /**
     * Repairs the slots held in the name of no writer (a free attacher entry, or none), which only a
     * damaged file has: reads every slot. Returns the number repaired.
     */
    public int repairOrphans()
    {
        return recovery.repairOrphans();
    }

    /**
     * Takes a free attacher entry for this process (recovering a dead one if none is free) and returns
     * its writer; null when every entry belongs to a live process.
     */
    public Writer attach()
    {
        return attachers.attach();
    }

    /** The writer of attacher entry {@code index}, which this process already holds (a private region after growth). */
    Writer writerAt(final int index)
    {
        return new Writer(m, index, layout.attacher(index));
    }

    /**
     * Gives the entry back; its journal delta stays for the next owner. What an operation cut short by
     * an Error left (a claim, a removal) is given back first; if that cannot be done
     * now (the view is stale, the stack overflows again), the entry is left to
     * recovery instead: its lock goes, its token stays, so that every other writer sees a dead owner and
     * repairs the entry as it would after this process died. Freeing the entry as it is would leave its
     * claims to nobody, for good.
     */
    public void detach(final Writer w)
    {
        w.releaseLeftLocks();
        if (w.needsRepair && !giveBackLeftovers(w))
        {
            attachers.leaveToRecovery(w);
            return;
        }
        attachers.detach(w);
    }

    /**
     * Moves the index to the other hash area of its segment, or helps the migration running to its
     * end, so that TOMBSTONEs left by removals become EMPTY buckets again; other writers go on meanwhile.
     * False when this view is stale (the AV grew past it).
     */
    public boolean migrateIndex(final Writer w)
    {
        return migration.makeRoom(w, index.indexState());
    }

    /**
     * Finishes a migration of the index whose migrator died (inserters meanwhile place into both
     * areas). True when one was finished.
     */
    public boolean finishOrphanedMigration(final Writer w)
    {
        return migration.finishOrphaned(w);
    }

    /** Indexes every VALID slot afresh: only for a region nobody else sees yet (a private AV's grown copy, tests). */
    void indexAll()
    {
        index.indexAll();
    }

    /**
     * The repair a recoverer of dead writer {@code a} makes of slot {@code index} from the word {@code read}
     * its scan saw, which may be stale by now (jcstress and tests).
     */
    void repairHeld(final long index, final long read, final int a)
    {
        recovery.repairHeld(index, read, a, layout.attacher(a));
    }

    /** Recovers attacher entry {@code a}, if its process is dead (jcstress and tests). */
    int recoverAttacher(final int a)
    {
        return recovery.recoverAttacher(a);
    }

    /**
     * The publishing step alone of writer {@code w}'s insert into the slot it holds CLAIMED (filled and
     * indexed) or PUBLISHING ({@link #commitClaim}), for jcstress and tests: the slot; -EAGAIN when its
     * claim was taken over; a negative value when another inserter cancelled it (given back).
     */
    long publishClaim(final Writer w, final long mapBase)
    {
        return claims.publish(w, w.claimedSlot, mapBase);
    }

    /**
     * The commit alone (CLAIMED -> PUBLISHING, counted) of writer {@code w}'s claim, filled and indexed
     * (jcstress and tests): the slot, or a negative value as {@link #publishClaim}.
     */
    long commitClaim(final Writer w, final long mapBase)
    {
        return claims.commit(w, w.claimedSlot, mapBase);
    }

    /** The hash of an address and its auth-key handle (shm-layout.md, HASH). */
    public static long hash(final ByteBuffer src, final int off, final int len, final long authKey)
    {
        return DedupIndex.hash(src, off, len, authKey);
    }
}
