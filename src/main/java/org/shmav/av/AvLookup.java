package org.shmav.av;

import static org.shmav.av.AvCallChecks.invalid;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.agrona.concurrent.BackoffIdleStrategy;

import org.shmav.AddrFormat;
import org.shmav.Addresses;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;
import org.shmav.shm.AddrShape;
import org.shmav.slots.Region;
import org.shmav.slots.SlotTable;
import org.shmav.slots.SlotView;

/**
 * The read side of one AV handle: fi_av_lookup, fi_av_straddr, reverse lookup, fi_av_user_id, the count and the
 * views of the valid entries that AV sets are built from. {@link #lookup} of a valid entry allocates
 * nothing. Reads take no lock (each reads the region once, a volatile read), so safe for use by many
 * threads.
 */
final class AvLookup
{
    private final AddressVectorImpl av;
    private final AddrFormat format;
    private final int addrlen;
    /** Addresses of varying length (FORMAT_UNSPEC with a maximum): one is the whole of a buffer's remaining bytes. */
    private final boolean varying;
    private final GrowableRegion regions;
    private final FiAddrCodec codec;
    private final AvFaults faults;

    AvLookup(final AddressVectorImpl av, final AddrShape shape, final GrowableRegion regions, final FiAddrCodec codec,
        final AvFaults faults)
    {
        this.av = av;
        this.format = shape.format();
        this.addrlen = shape.addrLen();
        this.varying = shape.varying();
        this.regions = regions;
        this.codec = codec;
        this.faults = faults;
    }

    /**
     * {@code fi_av_lookup}: copies the address into {@code addr}; returns its length.
     *
     * <p>The fast path reads the handle's lookup view and the slot, nothing else: the view is
     * {@link SlotView#NONE} once the handle is closed or its file found broken ({@link GrowableRegion#stopLookups}),
     * so the bound check that every index needs also sends those lookups to {@link #lookupChecked}, which
     * checks in the order the call always did. Each load here costs: the JIT loads every field again after each
     * fence of the slot's seqlock read, in every lookup of a loop.
     */
    int lookup(final long fiAddr, final ByteBuffer addr)
    {
        final SlotView v = regions.lookupView();
        final long index = codec.indexOf(fiAddr);
        if (index >= 0 && addr != null)
        {
            // segment 0 by address (a loop's usual case: one bound, no other branch); then the other
            // segments of a grown AV, and a view that reads through its buffer
            final int len = index < v.firstByAddress() ? v.lookupFirst(index, addr)
                : index < v.capacity() ? v.lookup(index, addr) : -1;
            if (len >= 0)
            {
                return len;
            }
        }
        return lookupChecked(fiAddr, addr);
    }

    // The checked path of lookup, out of line: the fast path stays small enough to inline into its caller's loop.

    /**
     * A lookup that missed the fast path: a broken file, a closed handle, a null buffer, an fi_addr past this
     * view (the AV may have grown) or not an entry, in that order; the slot is read again.
     */
    private int lookupChecked(final long fiAddr, final ByteBuffer addr)
    {
        faults.checkHealthy();
        if (av.isClosed() || addr == null)
        {
            throw invalid(av.isClosed() ? "AV is closed" : "addr is null");
        }
        final long index = codec.indexOf(fiAddr);
        SlotView v = regions.current().table().view();
        if (index >= v.capacity())
        {
            v = regions.follow().table().view();
        }
        final int len = index >= 0 && index < v.capacity() ? v.lookup(index, addr) : -1;
        if (len < 0)
        {
            throw invalid("fi_addr 0x" + Long.toHexString(fiAddr) + " is unset, removed or out of range");
        }
        return len;
    }

    /** The address {@code fiAddr} names, as text. */
    String lookupString(final long fiAddr)
    {
        final ByteBuffer b = ByteBuffer.allocate(addrlen);
        final int len = av.lookup(fiAddr, b);
        if (format == AddrFormat.ADDR_STR)
        {
            return new String(b.array(), 0, Math.max(0, Math.min(len, addrlen) - 1), StandardCharsets.UTF_8);
        }
        return Addresses.text(format, b.limit(Math.min(len, addrlen)));
    }

    /** {@code fi_av_straddr}: {@code addr} as text, or null for null. */
    String straddr(final ByteBuffer addr)
    {
        if (addr == null)
        {
            return null;
        }
        return Addresses.straddr(format, addr);
    }

    /** The fi_addr holding {@code addr}, or FI_ADDR_NOTAVAIL. */
    long reverseLookup(final ByteBuffer addr)
    {
        if (av.isClosed() || addr == null)
        {
            throw invalid(av.isClosed() ? "AV is closed" : "addr is null");
        }
        final int at = addr.position();
        final int len = format == AddrFormat.ADDR_STR ? Addresses.strLength(addr, at, addr.limit())
            : varying ? Math.min(addr.remaining(), addrlen + 1) : addrlen;
        if (len <= 0 || len > addr.remaining() || len > addrlen)
        {
            return Fi.ADDR_NOTAVAIL;
        }
        long index = regions.current().table().reverseLookup(addr, at, len, -1L);
        while (index == SlotTable.STALE_VIEW)
        {
            index = regions.follow().table().reverseLookup(addr, at, len, -1L);
        }
        return index < 0 ? Fi.ADDR_NOTAVAIL : codec.encode(index);
    }

    /** {@code fi_av_user_id}: the user id of the entry {@code fiAddr} names. */
    long userId(final long fiAddr)
    {
        av.checkOpen();
        final long index = av.indexOf(fiAddr);
        final long[] id = new long[1];
        if (index < 0 || !regions.current().table().userId(index, id))
        {
            throw invalid("fi_addr 0x" + Long.toHexString(fiAddr) + " is unset, removed or out of range");
        }
        return id[0];
    }

    /** True when {@code fiAddr} names a valid entry now. */
    boolean isValid(final long fiAddr)
    {
        final long index = av.indexOf(fiAddr);
        return index >= 0 && regions.current().table().isValid(index);
    }

    /** The plain fi_addr of the entry {@code fiAddr} names, or {@code fiAddr} itself when it names none. */
    long canonical(final long fiAddr)
    {
        final long index = av.indexOf(fiAddr);
        return index < 0 ? fiAddr : codec.encode(index);
    }

    /** The fi_addr of every valid entry, in index order. */
    long[] validFiAddrs()
    {
        final Region r = regions.follow();
        final long capacity = r.layout().capacity();
        long[] out = new long[(int)Math.min(capacity, 1024)];
        int n = 0;
        for (long i = 0; i < capacity; i++)
        {
            if (r.table().isValid(i))
            {
                if (n == out.length)
                {
                    out = java.util.Arrays.copyOf(out, (int)Math.min(capacity, (long)out.length * 2));
                }
                out[n++] = codec.encode(i);
            }
        }
        return java.util.Arrays.copyOf(out, n);
    }

    /** {@code AddressVector.count}: the valid entries now, in every segment, grown by any process. */
    long count()
    {
        av.checkOpen();
        long count = regions.current().table().count();
        while (count == SlotTable.STALE_VIEW) // a journal names a slot of a growth not mapped yet
        {
            count = regions.follow().table().count();
        }
        return count;
    }

    /** {@code AddressVector.awaitCount}: polls the count, backing off, until it reaches {@code n} or the timeout. */
    boolean awaitCount(final long n, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        final BackoffIdleStrategy idle = new BackoffIdleStrategy(100, 10, 1_000, 100_000);
        long count;
        while ((count = count()) < n)
        {
            if (av.isClosed())
            {
                throw invalid("AV is closed");
            }
            if (System.nanoTime() - deadline >= 0)
            {
                final String name = av.attr().name();
                throw new FabricException(FiErrno.ETIMEDOUT, "count " + count + " of " + n +
                    " after " + timeout.toMillis() + " ms" + (name != null ? " in AV '" + name + "'" : ""));
            }
            idle.idle();
        }
        return true;
    }
}
