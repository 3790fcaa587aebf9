package org.shmav.slots;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.shmav.FiErrno;

/**
 * A recorded history of AV operations on keys 0..{@value #KEYS}-1 (key k is address k at index k,
 * as ranks publish) and its linearizability check against a sequential map of references per key,
 * by Wing and Gong's search: some order of the operations that keeps real time (an operation that
 * returned before another was invoked comes first) must give every recorded result when run on the
 * model, one operation at a time. Failed (linearized set, model state) pairs are remembered, so a
 * history of a few dozen operations is checked in microseconds.
 *
 * <p>{@code entries()} is weakly consistent by contract (AddressVector#entries: it scans the indexes
 * one after another; an entry present throughout is listed once, one inserted or removed meanwhile may
 * or may not be), so it is checked as one observation per key, each taking effect at its own point
 * within the call: a key listed was present at some point of it, a key left out was absent at some
 * point of it. Every other operation is atomic. Not thread-safe: each thread records into its own
 * list, merged once the threads have stopped.
 */
final class AvHistory
{
    /** Keys of one history; the model keeps 8 bits of references per key in one long. */
    static final int KEYS = 3;
    /** Operations of one history (the linearized set is a bit mask). */
    static final int MAX_OPS = 63;

    /** What an operation was. */
    enum Kind
    {
        /** {@code insertAt(k, address k)}: result the index, or -errno. */
        INSERT_AT,
        /** {@code remove(k)}: 0, or -errno. */
        REMOVE,
        /** {@code count()}. */
        COUNT,
        /** {@code lookup(k)}: 1 when it answered address k, 2 for another address, or -errno. */
        LOOKUP,
        /** {@code reverseLookup(address k)}: the fi_addr, or -1 for FI_ADDR_NOTAVAIL. */
        REVERSE_LOOKUP,
        /** {@code entries()}: bit k set for each fi_addr k listed; bit 63 for one outside the keys or listed twice. */
        ENTRIES,
        /** One key's part of an {@code entries()} ({@link #expand}): 1 listed, 0 not. */
        ENTRY
    }

    /** One completed operation: who, what, its result, and when it was invoked and returned (System.nanoTime). */
    record Op(int thread, Kind kind, int key, long result, long invoked, long returned)
    {
        @Override
        public String toString()
        {
            return "t" + thread + " " + kind + (kind == Kind.COUNT || kind == Kind.ENTRIES ? "" : "(" + key + ")") + " -> " +
                (kind == Kind.ENTRIES ? Long.toBinaryString(result) : Long.toString(result));
        }
    }

    private AvHistory()
    {
    }

    /** The result the model gives {@code op} in {@code state}. */
    private static long expected(final long state, final Op op)
    {
        final int refs = refs(state, op.key());
        return switch (op.kind())
        {
            case INSERT_AT -> op.key();
            case REMOVE -> refs > 0 ? 0 : -FiErrno.EINVAL;
            case COUNT -> Long.bitCount(present(state));
            case LOOKUP -> refs > 0 ? 1 : -FiErrno.EINVAL;
            case REVERSE_LOOKUP -> refs > 0 ? op.key() : -1;
            case ENTRIES -> present(state);
            case ENTRY -> refs > 0 ? 1 : 0;
        };
    }

    /** The model's state after {@code op}, which gave its expected result. */
    private static long after(final long state, final Op op)
    {
        final int refs = refs(state, op.key());
        return switch (op.kind())
        {
            case INSERT_AT -> withRefs(state, op.key(), refs + 1);
            case REMOVE -> refs > 0 ? withRefs(state, op.key(), refs - 1) : state;
            default -> state;
        };
    }

    private static int refs(final long state, final int key)
    {
        return (int)(state >>> (8 * key)) & 0xff;
    }

    private static long withRefs(final long state, final int key, final int refs)
    {
        return state & ~(0xffL << (8 * key)) | (long)refs << (8 * key);
    }

    /** Bit k set for each key with a reference. */
    private static long present(final long state)
    {
        long bits = 0;
        for (int k = 0; k < KEYS; k++)
        {
            bits |= refs(state, k) > 0 ? 1L << k : 0;
        }
        return bits;
    }

    /** True when some real-time-respecting order of {@code ops}, from an empty map, gives every result. */
    static boolean linearizable(final List<Op> ops)
    {
        final List<Op> atomic = new ArrayList<>();
        for (final Op op : ops)
        {
            if (op.kind() != Kind.ENTRIES)
            {
                atomic.add(op);
                continue;
            }
            if ((op.result() & -(1L << KEYS)) != 0)
            {
                return false; // an fi_addr no insert made, or one listed twice
            }
            for (int k = 0; k < KEYS; k++)
            {
                atomic.add(new Op(op.thread(), Kind.ENTRY, k, op.result() >>> k & 1, op.invoked(), op.returned()));
            }
        }
        if (atomic.size() > MAX_OPS)
        {
            throw new IllegalArgumentException(atomic.size() + " atomic operations, more than " + MAX_OPS);
        }
        return search(atomic, 0L, 0L, new HashSet<>());
    }

    private static boolean search(final List<Op> ops, final long done, final long state, final Set<List<Long>> failed)
    {
        final int n = ops.size();
        if (done == (1L << n) - 1)
        {
            return true;
        }
        final List<Long> key = List.of(done, state);
        if (failed.contains(key))
        {
            return false;
        }
        long firstReturn = Long.MAX_VALUE;
        for (int i = 0; i < n; i++)
        {
            if ((done & 1L << i) == 0)
            {
                firstReturn = Math.min(firstReturn, ops.get(i).returned());
            }
        }
        for (int i = 0; i < n; i++)
        {
            final Op op = ops.get(i);
            // op may take effect next only if no pending operation returned before it was invoked
            if ((done & 1L << i) == 0 && op.invoked() <= firstReturn && op.result() == expected(state, op) &&
                search(ops, done | 1L << i, after(state, op), failed))
            {
                return true;
            }
        }
        failed.add(key);
        return false;
    }

    /** The history in invocation order, each operation with its interval in microseconds from the first invocation. */
    static String describe(final List<Op> ops)
    {
        final List<Op> sorted = new ArrayList<>(ops);
        sorted.sort(Comparator.comparingLong(Op::invoked));
        final long t0 = sorted.isEmpty() ? 0 : sorted.get(0).invoked();
        final StringBuilder b = new StringBuilder();
        for (final Op op : sorted)
        {
            b.append(String.format("  [%8.1f, %8.1f] us  %s%n", (op.invoked() - t0) / 1e3, (op.returned() - t0) / 1e3, op));
        }
        return b.toString();
    }
}
