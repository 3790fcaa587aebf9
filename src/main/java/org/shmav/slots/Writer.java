package org.shmav.slots;

import static org.shmav.shm.AttacherDescriptor.*;

import org.shmav.shm.AttacherDescriptor;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.Liveness;
import org.shmav.shm.Memory;

/** This process's attacher entry in one region: the owner of its claims and its journal. */
public final class Writer
{
    private final Memory m;
    final int index;
    final int entry;
    /**
     * Where this writer's next claim may start, valid while {@code freeHint}'s epoch is still
     * {@code hintEpoch}: see {@link FreeSlots#claimLowest}. -1: none (a search found no FREE slot).
     */
    long hintEpoch;
    long nextFree;
    /**
     * Claims spread out instead of taking the lowest FREE slot (AvAttr.lowestIndex false), and where this
     * writer's run of claims goes on: see {@link FreeSlots#claimLowest}.
     */
    boolean spreadClaims;
    long spreadNext;
    /** The capacity at which this spreading writer found no place for a run (it claims the lowest until the AV grows), or -1. */
    long spreadGaveUpAt = -1;
    /**
     * A batch's run ({@link FreeSlots#claimLowest}): the shared hint was moved past [runNext, runEnd)
     * for this writer's next claims; {@code runWanted} is how many addresses its call has left.
     */
    long runNext;
    long runEnd;
    int runWanted;
    /** The slot this writer holds CLAIMED, -1 for none, and the exact word its claim CAS wrote. */
    long claimedSlot = -1;
    long claimWord;
    /**
     * The indexState this writer's insert loaded when it probed for its key, before its claim: the
     * first placing uses it (a change since shows at the check after the placing).
     */
    long seenState;
    /**
     * Another writer's uncommitted claim of this writer's key, as first seen (its slot and word) and
     * when: after {@link #cancelGraceNanos} of the same word it is cancelled ({@link KeyPlacer}).
     */
    long seenClaimWord;
    int seenClaimSlot = -1;
    long seenClaimSince;
    /** {@link KeyPlacer#CANCEL_GRACE_NANOS}; jcstress sets 0 to race a cancel against a commit. */
    long cancelGraceNanos = KeyPlacer.CANCEL_GRACE_NANOS;
    /** The addresses of the slots a migration by this writer loads ahead ({@link IndexMigration}). */
    final long[] slotsAhead = new long[IndexMigration.TOUCH_AHEAD];
    /** Inserts since this writer last checked whether the hash is crowded; the first insert checks. */
    int insertsSinceCrowdCheck = IndexMigration.CROWD_CHECK_EVERY;
    /**
     * Inside an operation, or an operation was cut short by an Error and what it held is not given
     * back yet: see {@link SlotTable#begin}.
     */
    boolean needsRepair;
    /**
     * When the API call now running must stop waiting on other processes ({@link Waits#deadline}), or
     * {@link Waits#NO_DEADLINE} until its first wait: one bound for the whole call, however many
     * addresses it holds and however many waits they meet.
     */
    long callDeadline;
    /**
     * The API call now running found the AV full with no way to grow it (its maximum, the file
     * system): its other new addresses fail with FI_ENOSPC at once. A later call tries again.
     */
    boolean callFull;
    /** {@link #startCall} was called: the call's state spans operations until the next call starts. */
    private boolean inCall;
    /** Operations this writer began: lets a watcher tell an operation that is still running from one that ended. */
    long operations;
    /** The locks whose auth-key lock byte this writer holds (AuthKeyTable), or null. */
    Liveness authKeyLock;

    Writer(final Memory m, final int index, final int entry)
    {
        this.m = m;
        this.index = index;
        this.entry = entry;
        // The epoch now, with nextFree 0: the first claim starts at the hint, as with no epoch, but through
        // the branch every later claim takes (a first claim by a branch the JIT had never seen taken
        // threw away the compiled insert path of every handle opened after the warm-up).
        this.hintEpoch = m.getLongVolatile(AvFileDescriptor.FREE_HINT_OFFSET) >>> 32;
    }

    /**
     * Writes this entry's {@code attachedMillis}: a tool that attaches only to repair ({@code shmav gc})
     * writes back the AV's last join time before it detaches, so that its repair is not taken for a join
     * (which would start the AV's grace period again).
     */
    public void attachedAt(final long millis)
    {
        m.setLongRelease(entry + ATTACHED_MILLIS_OFFSET, millis);
    }

    public int index()
    {
        return index;
    }

    /**
     * Lets this writer's inserts of new addresses take a FREE slot above the lowest, so that writers in
     * several processes rarely claim neighbouring slots (AvAttr.lowestIndex false).
     */
    public void spreadClaims(final boolean spread)
    {
        spreadClaims = spread;
    }

    long delta()
    {
        return AttacherDescriptor.delta(m.getLong(entry + JOURNAL_OFFSET));
    }

    /**
     * Sets this writer's {@code phase} word: 1 inside an insert or removal, 0 outside. Only a hint, read
     * by an inserter that finds the AV full to let claims in flight settle (bounded): nobody waits on
     * it for safety, so plain stores do.
     */
    void phaseHint(final long inside)
    {
        m.putLong(entry + PHASE_OFFSET, inside); // a hint: the claim's CAS orders it well enough
    }

    void journal(final long value)
    {
        m.setLongRelease(entry + JOURNAL_OFFSET, value);
    }

    /**
     * True when an operation of this writer is running, or one was cut short by an Error and left
     * something to give back (a claim, a removal, a lock). Read by a thread that does not hold
     * the handle's lock only as a hint (plain fields), and again under it.
     */
    public boolean hasLeftovers()
    {
        return needsRepair || authKeyLock != null;
    }

    /**
     * Starts an API call (under the handle's lock): its waits on other processes share one deadline,
     * {@link Waits#CLAIM_WAIT_NANOS} after the first of them began, so that a batch returns within that
     * bound plus its own work, whatever other processes do; what it could not do by then fails with
     * FI_EAGAIN at once.
     */
    public void startCall()
    {
        callDeadline = Waits.NO_DEADLINE;
        callFull = false;
        inCall = true;
    }

    /**
     * How many addresses the running call has left to insert, this one included: a batch of more than one
     * lets this writer claim a run of slots at once ({@link FreeSlots#claimLowest}).
     */
    public void addressesLeft(final int n)
    {
        runWanted = n;
    }

    /**
     * Starts one operation: a writer that no API call started ({@link #startCall}; tests and tools that
     * use the slot table directly) makes each operation a call of its own.
     */
    void beginOperation()
    {
        if (!inCall)
        {
            callDeadline = Waits.NO_DEADLINE;
            callFull = false;
        }
        operations++;
    }

    /**
     * The AV could not grow for an insert of this call (FI_ENOSPC from the growth: its maximum, or a full
     * file system): the call's other new addresses fail with FI_ENOSPC without trying again.
     */
    public void noRoomThisCall()
    {
        callFull = true;
    }

    /** True once this call found the AV full with no room to grow (see {@link #noRoomThisCall}). */
    public boolean hasNoRoomThisCall()
    {
        return callFull;
    }

    /** See {@link #operations}. */
    public long operations()
    {
        return operations;
    }

    /** Gives back an auth-key lock that an Error kept this writer from unlocking. */
    void releaseLeftLocks()
    {
        if (authKeyLock != null)
        {
            authKeyLock.unlockAt(AvFileDescriptor.AUTH_KEY_LOCK_OFFSET);
            authKeyLock = null;
        }
    }

    /** Records the claim of slot {@code slot} by the CAS that wrote {@code word}. */
    void claimed(final long slot, final long word)
    {
        claimedSlot = slot;
        claimWord = word;
    }

    /** The claim was published or given back. */
    void released()
    {
        claimedSlot = -1;
    }
}
