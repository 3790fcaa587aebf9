package org.shmav.av;

import java.util.Arrays;

import org.agrona.collections.LongHashSet;
import org.shmav.AvSet;
import org.shmav.AvSetAttr;
import org.shmav.AvType;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;

/**
 * The {@link AvSet}: the members twice, kept in step, an ordered {@code long[]} (the order
 * {@code fi_av_set(3)} defines) and an Agrona {@link LongHashSet} (membership in O(1)), so that union,
 * intersect and diff are linear in the sizes of the two sets and remove is one O(n) shift. The FNV-1a
 * state of the ordered members (see {@link AvSet#addr()}) is extended on every append and recomputed
 * by the operations that drop members, which are O(n) anyway, so {@link #addr()} is O(1).
 *
 * <p>Not thread-safe: a set, including one passed as {@code src}, must be used by one thread at a time.
 */
final class AvSetImpl implements AvSet
{
    /** The flags fi_av_set accepts: FI_UNIVERSE and the collective restrictions. */
    static final long SET_FLAGS = Fi.UNIVERSE | Fi.BARRIER_SET | Fi.BROADCAST_SET | Fi.ALLTOALL_SET |
        Fi.ALLREDUCE_SET | Fi.ALLGATHER_SET | Fi.REDUCE_SCATTER_SET | Fi.REDUCE_SET | Fi.SCATTER_SET | Fi.GATHER_SET;
    /** The only non-empty communication key size accepted ({@code comm_key_size}). */
    static final int COMM_KEY_SIZE = 8;
    static final long FNV_OFFSET_BASIS = 0xcbf29ce484222325L;
    static final long FNV_PRIME = 0x100000001b3L;

    private static final int MIN_CAPACITY = 16;

    private final AddressVectorImpl av;
    private final AvSetAttr attr;
    private final long maxMembers;
    private final LongHashSet index;
    private long[] members;
    private int size;
    private long fnv = FNV_OFFSET_BASIS;
    private boolean closed;

    AvSetImpl(final AddressVectorImpl av, final AvSetAttr attr)
    {
        final long[] initial = initialMembers(av, attr);
        this.av = av;
        this.attr = attr;
        this.maxMembers = universe(attr) ? 0 : attr.count(); // FI_UNIVERSE: as many as the AV holds
        this.members = new long[Math.max(initial.length, MIN_CAPACITY)];
        this.index = new LongHashSet(Math.max(initial.length * 2, MIN_CAPACITY));
        for (final long m : initial)
        {
            append(m);
        }
        av.retain();
    }

    // ---------------------------------------------------------------- fi_av_set attribute rules

    /**
     * Checks {@code attr} and returns the initial members: the valid entries of the universe or the range.
     * FI_UNIVERSE overrides the range, stride and count, as libfabric's cxi provider does (the set
     * begins with every valid entry and may hold every entry of the AV).
     */
    private static long[] initialMembers(final AddressVectorImpl av, final AvSetAttr attr)
    {
        checkAttr(attr);
        if (universe(attr))
        {
            return av.validFiAddrs();
        }
        final boolean hasStart = attr.startAddr() != Fi.ADDR_NOTAVAIL;
        if (hasStart != (attr.endAddr() != Fi.ADDR_NOTAVAIL))
        {
            throw invalid("start_addr=" + hex(attr.startAddr()) + " end_addr=" + hex(attr.endAddr()) +
                ": give both or neither (FI_ADDR_NOTAVAIL)");
        }
        if (hasStart)
        {
            return rangeMembers(av, attr);
        }
        if (Long.compareUnsigned(attr.stride(), 1) > 0)
        {
            throw invalid("stride=" + Long.toUnsignedString(attr.stride()) + " without a range");
        }
        return new long[0];
    }

    private static boolean universe(final AvSetAttr attr)
    {
        return (attr.flags() & Fi.UNIVERSE) != 0;
    }

    private static void checkAttr(final AvSetAttr attr)
    {
        if (attr == null)
        {
            throw invalid("attr is null");
        }
        if ((attr.flags() & ~SET_FLAGS) != 0)
        {
            throw invalid("unknown flags " + hex(attr.flags() & ~SET_FLAGS) +
                ": allowed are FI_UNIVERSE and FI_BARRIER_SET .. FI_GATHER_SET");
        }
        if (attr.count() < 0)
        {
            throw invalid("count=" + attr.count() + " must be >= 0");
        }
        final byte[] key = attr.commKey();
        if (key != null && key.length != 0 && key.length != COMM_KEY_SIZE)
        {
            throw invalid("comm_key_size=" + key.length + ": must be 0 or " + COMM_KEY_SIZE);
        }
    }

    /** The valid entries {@code start + stride * i <= end}, in index order, after the range rules. */
    private static long[] rangeMembers(final AddressVectorImpl av, final AvSetAttr attr)
    {
        final long start = attr.startAddr();
        final long end = attr.endAddr();
        final String range = "start_addr=" + start + " end_addr=" + end;
        if (av.type() != AvType.TABLE)
        {
            throw invalid(range + ": a range needs an FI_AV_TABLE AV, this one is " + av.type().fiName());
        }
        if (hasCommKey(attr))
        {
            throw invalid(range + ": a range cannot be combined with a comm key");
        }
        if (Long.compareUnsigned(start, end) > 0)
        {
            throw invalid(range + ": start after end");
        }
        final long stride = attr.stride() == 0 ? 1 : attr.stride();
        final long rangeSize = Long.divideUnsigned(end - start, stride) + 1; // end < 2^64 - 1: no wrap to 0
        if (attr.count() > 0 && Long.compareUnsigned(rangeSize, attr.count()) > 0)
        {
            throw invalid(range + " stride=" + Long.toUnsignedString(stride) + " spans " +
                Long.toUnsignedString(rangeSize) + " addresses, more than count=" + attr.count());
        }
        final long[] valid = av.validFiAddrs();
        int n = 0;
        for (final long a : valid)
        {
            if (Long.compareUnsigned(a, start) >= 0 && Long.compareUnsigned(a, end) <= 0 &&
                Long.remainderUnsigned(a - start, stride) == 0)
            {
                valid[n++] = a;
            }
        }
        return Arrays.copyOf(valid, n);
    }

    private static boolean hasCommKey(final AvSetAttr attr)
    {
        final byte[] key = attr.commKey();
        return key != null && key.length > 0;
    }

    // ---------------------------------------------------------------- set operations

    @Override
    public void union(final AvSet src)
    {
        try
        {
            final AvSetImpl s = source(src);
            int missing = 0;
            for (int i = 0; i < s.size; i++)
            {
                missing += index.contains(s.members[i]) ? 0 : 1;
            }
            if (maxMembers > 0 && size + missing > maxMembers)
            {
                throw new FabricException(FiErrno.ENOMEM, "members=" + size + " + missing=" + missing +
                    " exceeds count=" + maxMembers + "; the set is unchanged");
            }
            ensureCapacity(size + missing);
            final long[] from = s.members;
            final int n = s.size;
            for (int i = 0; i < n && missing > 0; i++)
            {
                if (!index.contains(from[i]))
                {
                    append(from[i]);
                    missing--;
                }
            }
        }
        catch (final FabricException e)
        {
            throw e.in("fi_av_set_union");
        }
    }

    @Override
    public void intersect(final AvSet src)
    {
        try
        {
            keepWhere(source(src).index, true);
        }
        catch (final FabricException e)
        {
            throw e.in("fi_av_set_intersect");
        }
    }

    @Override
    public void diff(final AvSet src)
    {
        try
        {
            keepWhere(source(src).index, false);
        }
        catch (final FabricException e)
        {
            throw e.in("fi_av_set_diff");
        }
    }

    @Override
    public void insert(final long addr)
    {
        try
        {
            checkOpen();
            final long fiAddr = av.canonical(addr); // rx-context or group bits: the same member
            if (!av.isValid(fiAddr))
            {
                throw invalid("fi_addr=" + hex(fiAddr) + " is not a valid entry of the AV");
            }
            if (index.contains(fiAddr))
            {
                throw invalid("fi_addr=" + hex(fiAddr) + " is already a member");
            }
            if (maxMembers > 0 && size >= maxMembers)
            {
                throw new FabricException(FiErrno.ENOMEM, "the set is full: count=" + maxMembers);
            }
            ensureCapacity(size + 1);
            append(fiAddr);
        }
        catch (final FabricException e)
        {
            throw e.in("fi_av_set_insert");
        }
    }

    @Override
    public void remove(final long addr)
    {
        try
        {
            checkOpen();
            final long fiAddr = av.canonical(addr);
            if (!index.remove(fiAddr))
            {
                throw invalid("fi_addr=" + hex(fiAddr) + " is not a member");
            }
            int at = 0;
            while (members[at] != fiAddr)
            {
                at++;
            }
            System.arraycopy(members, at + 1, members, at, size - at - 1);
            size--;
            fnv = digest(members, size);
        }
        catch (final FabricException e)
        {
            throw e.in("fi_av_set_remove");
        }
    }

    @Override
    public long addr()
    {
        try
        {
            checkOpen();
            return COLL_ADDR_TAG | (fnv >>> 2);
        }
        catch (final FabricException e)
        {
            throw e.in("fi_av_set_addr");
        }
    }

    @Override
    public long[] members()
    {
        try
        {
            checkOpen();
            return Arrays.copyOf(members, size);
        }
        catch (final FabricException e)
        {
            throw e.in("shmav_av_set_members");
        }
    }

    @Override
    public AvSetAttr attr()
    {
        try
        {
            checkOpen();
            return attr;
        }
        catch (final FabricException e)
        {
            throw e.in("shmav_av_set_attr");
        }
    }

    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            av.release();
        }
    }

    @Override
    public String toString()
    {
        return "AvSet{members=" + size + ", count=" + maxMembers + ", flags=" + hex(attr.flags()) +
            (closed ? ", closed" : "") + '}';
    }

    // ---------------------------------------------------------------- helpers

    /** Keeps, in order, the members whose presence in {@code other} is {@code present}; safe when other is ours. */
    private void keepWhere(final LongHashSet other, final boolean present)
    {
        int kept = 0;
        for (int i = 0; i < size; i++)
        {
            final long m = members[i];
            if (other.contains(m) == present)
            {
                members[kept++] = m;
            }
            else
            {
                index.remove(m);
            }
        }
        if (kept != size)
        {
            size = kept;
            fnv = digest(members, size);
        }
    }

    /** Appends a member known to be absent; the caller has ensured capacity. */
    private void append(final long m)
    {
        members[size++] = m;
        index.add(m);
        fnv = fnvStep(fnv, m);
    }

    private void ensureCapacity(final int needed)
    {
        if (needed > members.length)
        {
            members = Arrays.copyOf(members, Math.max(needed, members.length * 2));
        }
    }

    private AvSetImpl source(final AvSet src)
    {
        checkOpen();
        if (!(src instanceof AvSetImpl))
        {
            throw invalid(src == null ? "src is null" : "src is not a shmav AV set: " + src);
        }
        final AvSetImpl s = (AvSetImpl)src;
        if (s.closed)
        {
            throw invalid("src is closed");
        }
        if (s.av != av)
        {
            throw invalid("src belongs to another AV handle: sets of different AVs cannot be combined");
        }
        return s;
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw invalid("AV set is closed");
        }
    }

    /** FNV-1a-64 over {@code members[0..n)}, each as 8 bytes little-endian. */
    static long digest(final long[] members, final int n)
    {
        long h = FNV_OFFSET_BASIS;
        for (int i = 0; i < n; i++)
        {
            h = fnvStep(h, members[i]);
        }
        return h;
    }

    /** One member's 8 bytes, least significant first, into the FNV-1a state {@code h}. */
    static long fnvStep(final long h, final long member)
    {
        long x = h;
        for (int shift = 0; shift < Long.SIZE; shift += Byte.SIZE)
        {
            x = (x ^ ((member >>> shift) & 0xFF)) * FNV_PRIME;
        }
        return x;
    }

    private static String hex(final long v)
    {
        return "0x" + Long.toHexString(v);
    }

    /** FI_EINVAL; the call's name is added where the call is made. */
    private static FabricException invalid(final String detail)
    {
        return new FabricException(FiErrno.EINVAL, detail);
    }
}
