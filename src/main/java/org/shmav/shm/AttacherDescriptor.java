package org.shmav.shm;

/**
 * One entry of the attachers table: a process that has the AV open for writing.
 *
 * <pre>
 *   0 | token: start time (42 bits, 10 ms units since the epoch) &lt;&lt; 22 | pid (22 bits); 0 = free |
 *   8 | journal: delta (i32, high 32) | slot + 1 (30 bits) | op (2 bits)                         |
 *  16 | pid                                                                                         |
 *  24 | start time, milliseconds since the epoch                                                    |
 *  32 | attached at, milliseconds since the epoch                                                   |
 *  40 | phase: 1 while the owner is inside an insert (probing or changing the hash), else 0          |
 *  48 | reserved (16 bytes); entries are 64 bytes so that journals never share a cache line          |
 * </pre>
 *
 * A writer takes a free entry by CAS of its token from 0. Its index in the table is the owner recorded
 * in the slots it claims. Its journal is written only by itself: {@code delta} is the net number of
 * entries this attacher entry has published minus removed, so the AV's count is the sum of all deltas;
 * {@code op} and {@code slot} name the one publish or removal in flight, so that a recoverer can
 * tell, after the writer died at any instruction, whether its delta already includes that step.
 * Bit 63 of a token ({@link #TOKEN_RECOVERING}) marks a dead entry being settled by a recoverer; start
 * times reach that bit only in the year 2667.
 */
public final class AttacherDescriptor
{
    /** Bytes per entry. */
    public static final int LENGTH = 64;
    /** u64: owner token, CAS'ed from 0 to take the entry. */
    public static final int TOKEN_OFFSET = 0;
    /** u64: the journal. */
    public static final int JOURNAL_OFFSET = 8;
    /** u64: pid, for people and tools. */
    public static final int PID_OFFSET = 16;
    /** u64: process start time in milliseconds, for people and tools. */
    public static final int START_MILLIS_OFFSET = 24;
    /** u64: when the entry was taken, in milliseconds. */
    public static final int ATTACHED_MILLIS_OFFSET = 32;
    /** u64: 1 while the owner reads or writes the hash (a rebuild waits for it), else 0. */
    public static final int PHASE_OFFSET = 40;

    /**
     * Token bit 63: the entry's process is dead and a recoverer is settling it; the other bits are the
     * recoverer's own token, so that a recoverer that dies too is replaced in turn.
     */
    public static final long TOKEN_RECOVERING = 1L << 63;

    /** Journal op: nothing in flight. */
    public static final int OP_NONE = 0;
    /** Journal op: publishing slot; delta does not include it yet. */
    public static final int OP_PUBLISH = 1;
    /** Journal op: removing slot; delta does not include it yet. */
    public static final int OP_REMOVE = 2;
    /** Journal op: delta is final; slot may still need finishing (a removal, or a recoverer's fix-up). */
    public static final int OP_COUNTED = 3;

    public static final int PID_BITS = 22;
    public static final long PID_MASK = (1L << PID_BITS) - 1;

    private AttacherDescriptor()
    {
    }

    public static long journal(final long delta, final int op, final long slot)
    {
        final long slotPlusOne = op == OP_NONE ? 0 : slot + 1;
        return (delta << 32) | (slotPlusOne << 2) | op;
    }

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

    /** The token of a process: its start time in 10 ms units and its pid. */
    public static long token(final long pid, final long startMillis)
    {
        return ((startMillis / 10) << PID_BITS) | (pid & PID_MASK);
    }

    public static long tokenPid(final long token)
    {
        return token & PID_MASK;
    }

    /** Start time of a token's process, in milliseconds (10 ms resolution). */
    public static long tokenStartMillis(final long token)
    {
        return (token >>> PID_BITS) * 10;
    }
}
