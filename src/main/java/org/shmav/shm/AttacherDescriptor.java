package org.shmav.shm;

/**
 * One entry of the attachers table: a process that has the AV open for writing.
 *
 * <pre>
 *   0 | token: non-zero while the entry is taken (a random number per process); 0 = free          |
 *   8 | journal: delta (i32, high 32) | slot + 1 (30 bits) | op (2 bits)                          |
 *  16 | pid, in the owner's pid namespace (for people and tools only)                              |
 *  24 | start time of the owner, milliseconds since the epoch (for people and tools only)          |
 *  32 | attached at, milliseconds since the epoch                                                  |
 *  40 | phase: 1 while the owner is inside an insert or removal, else 0 (a hint, layout 5)          |
 *  48 | published: new entries this entry's owners published (cumulative; only the owner writes it)  |
 *  56 | removed: last references this entry's owners removed (cumulative; the owner or its recoverer) |
 *      entries are 64 bytes, so that what one writer writes never shares a cache line with another's |
 * </pre>
 *
 * <b>Liveness.</b> The owner holds an exclusive record lock (fcntl {@code F_SETLK}, or an open file
 * description lock) on the entry's first byte, file offset {@code attachersOffset + 64 * index}, for
 * as long as it owns the entry. The kernel releases it when the process dies, so "taken, and the lock
 * is free" is the only proof of death: pid and start time are shown to people and never decide
 * anything (they are not comparable across pid namespaces, clock steps or a {@code /proc} mounted
 * with hidepid). A writer takes an entry by locking its byte first and then CASing the token from 0;
 * it gives it back by CASing the token to 0 and then unlocking. A recoverer locks the byte of a dead
 * entry and holds it while it settles the entry, so that others see the entry alive until it is free.
 *
 * <p>The index of the entry is the owner recorded in the slots it claims. Its journal is written only
 * by its owner (or by the recoverer holding its lock): {@code delta} is the net number of entries
 * published minus removed through this entry, a 32-bit two's-complement number that may wrap; the
 * AV's count is the sum of all deltas modulo 2^32 (the count itself stays below 2^31, as capacity
 * does). {@code op} and {@code slot} name the one publish or removal in flight, so that a recoverer
 * can tell, after the writer died at any instruction, whether its delta already includes that step.
 */
public final class AttacherDescriptor
{
    /** Bytes per entry. */
    public static final int LENGTH = 64;
    /** u64: non-zero while taken; CAS'ed from 0 by a writer that holds the entry's lock. */
    public static final int TOKEN_OFFSET = 0;
    /** u64: the journal. */
    public static final int JOURNAL_OFFSET = 8;
    /** u64: pid in the owner's pid namespace, for people and tools; never a liveness test. */
    public static final int PID_OFFSET = 16;
    /** u64: process start time in milliseconds, for people and tools; never a liveness test. */
    public static final int START_MILLIS_OFFSET = 24;
    /** u64: when the entry was taken, in milliseconds. */
    public static final int ATTACHED_MILLIS_OFFSET = 32;
    /** u64: 1 while the owner is inside an insert or removal, else 0: a hint (nobody waits on it for safety). */
    public static final int PHASE_OFFSET = 40;
    /**
     * u64: new entries published by the owners of this entry, summed over every owner it had: the AV's
     * change counter and the hash's crowding are sums over the attachers, so that no insert writes a
     * line another writer writes. Written only by the owner, plain load and release store.
     */
    public static final int PUBLISHED_OFFSET = 48;
    /**
     * u64: last references removed by the owners of this entry (or by a recoverer finishing a dead
     * owner's removal, holding its lock), summed over every owner it had. Release stores by the one
     * process that may write it.
     */
    public static final int REMOVED_OFFSET = 56;
    /** The byte of the entry that its owner keeps locked: the first. */
    public static final int LOCK_OFFSET = 0;

    /** Journal op: nothing in flight. */
    public static final int OP_NONE = 0;
    /** Journal op: publishing slot; delta does not include it yet. */
    public static final int OP_PUBLISH = 1;
    /** Journal op: removing slot; delta does not include it yet. */
    public static final int OP_REMOVE = 2;
    /** Journal op: delta is final; slot may still need finishing (a removal, or a recoverer's fix-up). */
    public static final int OP_COUNTED = 3;

    private AttacherDescriptor()
    {
    }

    public static long journal(final long delta, final int op, final long slot)
    {
        final long slotPlusOne = op == OP_NONE ? 0 : slot + 1;
        return (delta << 32) | (slotPlusOne << 2) | op;
    }

    /** The journal's delta, sign-extended from 32 bits: deltas wrap, and are summed modulo 2^32. */
    public static long delta(final long journal)
    {
        return journal >> 32;
    }

    public static int op(final long journal)
    {
        return (int)(journal & 3);
    }

    /** The slot named by the journal, or -1. */
    public static long slot(final long journal)
    {
        return ((journal & 0xFFFF_FFFFL) >>> 2) - 1;
    }
}
