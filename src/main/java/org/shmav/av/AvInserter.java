package org.shmav.av;

import static org.shmav.av.AvCallChecks.invalid;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.shmav.AddrFormat;
import org.shmav.Addresses;
import org.shmav.EqErrEntry;
import org.shmav.EqEvent;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;
import org.shmav.shm.AddrShape;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.SlotDescriptor;
import org.shmav.slots.Region;
import org.shmav.slots.SlotTable;
import org.shmav.slots.Writer;

/**
 * The insert path of one AV handle: fi_av_insert of packed and string addresses and shmav_av_insert_at.
 * Per-address failures are results, as in {@code fi_av(3)}: FI_ADDR_NOTAVAIL in fiAddr, the errno in the
 * FI_SYNC_ERR context, or one {@link EqErrEntry} each before the FI_AV_COMPLETE event of a bound event
 * queue. A full private AV grows. The success path of a packed insert without an event queue allocates
 * nothing. Writes run under the handle's write lock, so safe for use by many threads.
 */
final class AvInserter
{
    /** Addresses of a batch insert whose first hash buckets are read ahead together (a power of two). */
    static final int PREFETCH_WINDOW = 16;

    private final AddressVectorImpl av;
    private final AddrFormat format;
    private final int addrlen;
    /** FORMAT_UNSPEC of varying length: one address per call, the buffer's remaining bytes. */
    private final boolean varying;
    private final GrowableRegion regions;
    private final FiAddrCodec codec;
    private final AvAuthKeys authKeys;
    private final HandleLock writeLock;
    /** Where {@link org.shmav.slots.SlotTable#touchBuckets} results go, so that its reads are kept; never read. */
    @SuppressWarnings("unused")
    private long touched;
    /**
     * The hashes of the batch's current prefetch window, computed once by {@code touchBuckets} and used
     * again by the inserts (touched under the write lock only).
     */
    private final long[] windowHashes = new long[PREFETCH_WINDOW];

    AvInserter(final AddressVectorImpl av, final AddrShape shape, final GrowableRegion regions, final FiAddrCodec codec,
        final AvAuthKeys authKeys, final HandleLock writeLock)
    {
        this.av = av;
        this.format = shape.format();
        this.addrlen = shape.addrLen();
        this.varying = shape.varying();
        this.regions = regions;
        this.codec = codec;
        this.authKeys = authKeys;
        this.writeLock = writeLock;
    }

    /** {@code fi_av_insert} of {@code count} packed addresses from {@code addrs}' position. */
    int insert(final ByteBuffer addrs, final int count, final long[] fiAddr, final long flags, final Object ctx)
    {
        final int[] syncErr = AvCallChecks.checkInsert(av, count, fiAddr, flags, ctx);
        if (count > 0 && addrs == null)
        {
            throw invalid("addrs is null");
        }
        final int[] offsets = stringOffsetsOrCheckLength(addrs, count);
        final EventQueueImpl queue = av.boundEq();
        final Object[] events = queue == null ? null : new Object[count + 1];
        final int inserted;
        writeLock.lock();
        try
        {
            regions.startCall();
            av.checkOpen();
            try
            {
                inserted = insertLocked(addrs, count, offsets, fiAddr, flags, ctx, syncErr, events);
            }
            finally
            {
                regions.endCall();
            }
        }
        finally
        {
            writeLock.unlock();
        }
        if (queue != null)
        {
            final int errors = count - inserted; // every address either went in or has an error entry
            events[errors] = new EqEvent(EqEvent.AV_COMPLETE, av, ctx, inserted);
            queue.post(events, errors + 1);
            return 0;
        }
        return inserted;
    }

    /**
     * Inserts every address, reporting each failure in {@code fiAddr}, {@code syncErr} and {@code events}
     * (each when not null); returns how many went in. The caller holds the write lock.
     */
    private int insertLocked(final ByteBuffer addrs, final int count, final int[] offsets, final long[] fiAddr,
        final long flags, final Object ctx, final int[] syncErr, final Object[] events)
    {
        int inserted = 0;
        final int base = count > 0 ? addrs.position() : 0;
        final boolean prefetch = offsets == null && count > 1 && (flags & Fi.AUTH_KEY) == 0;
        for (int i = 0; i < count; i++)
        {
            if (prefetch && (i & (PREFETCH_WINDOW - 1)) == 0)
            {
                touched = regions.current().table().touchBuckets(addrs, base + i * addrlen, addrlen,
                    Math.min(PREFETCH_WINDOW, count - i), windowHashes);
            }
            final int off = offsets == null ? base + i * addrlen : offsets[i];
            final int len = offsets == null ? addrlen : offsets[i + 1] - off;
            final Writer w = regions.current().writer();
            if (w != null)
            {
                w.addressesLeft(count - i); // more than one: the claims may take a run of slots
            }
            final long result = insertOne(addrs, off, len, fiAddr, i, flags, prefetch);
            if (result >= 0)
            {
                inserted++;
                if (fiAddr != null)
                {
                    fiAddr[i] = codec.encode(result);
                }
                continue;
            }
            if (fiAddr != null)
            {
                fiAddr[i] = Fi.ADDR_NOTAVAIL;
            }
            if (syncErr != null)
            {
                syncErr[i] = (int)-result;
            }
            if (events != null)
            {
                events[i - inserted] = new EqErrEntry(av, ctx, i, (int)-result); // i - inserted: failures so far
            }
        }
        return inserted;
    }

    /**
     * For FI_ADDR_STR, where each of {@code count} packed strings starts, and (last) where the last one
     * ends; for fixed-length addresses null, after checking that {@code addrs} holds {@code count} of them.
     */
    private int[] stringOffsetsOrCheckLength(final ByteBuffer addrs, final int count)
    {
        if (format == AddrFormat.ADDR_STR && count > 0)
        {
            return stringOffsets(addrs, count);
        }
        if (varying && count > 0)
        {
            if (count > 1)
            {
                throw invalid("this AV's addresses have lengths of their own (maxAddrLen=" + addrlen +
                    "), so one call inserts one: count=" + count + " must be 1, the address the buffer's remaining bytes");
            }
            return new int[] {addrs.position(), addrs.limit()}; // its length is checked as the address's own failure
        }
        if (count > 0 && (long)count * addrlen > addrs.remaining())
        {
            throw invalid("addrs holds " + addrs.remaining() + " bytes, fewer than count=" + count +
                " x addrlen=" + addrlen);
        }
        return null;
    }

    /**
     * Where each packed FI_ADDR_STR address starts, and where the last ends. A string longer than
     * {@value AddrFormat#MAX_STR_LEN} bytes ends at its NUL all the same and fails alone (FI_EADDRNOTAVAIL,
     * as any invalid address); only a string with no NUL before the buffer's limit, after which nothing can
     * be found, fails the call.
     */
    private static int[] stringOffsets(final ByteBuffer addrs, final int count)
    {
        final int[] offsets = new int[count + 1];
        int at = addrs.position();
        for (int i = 0; i < count; i++)
        {
            offsets[i] = at;
            while (at < addrs.limit() && addrs.get(at) != 0)
            {
                at++;
            }
            if (at == addrs.limit())
            {
                throw invalid("FI_ADDR_STR address " + i + " of count=" + count + " has no NUL before the buffer's limit");
            }
            at++;
        }
        offsets[count] = at;
        return offsets;
    }

    /**
     * {@code fi_av_insert} of strings: packs them NUL-terminated and inserts them. A string that cannot be
     * packed as itself (null, or holding a NUL, which would end it early and move every later string to
     * another index) is packed as "", so that it fails alone with FI_EADDRNOTAVAIL.
     */
    int insert(final String[] addrs, final long[] fiAddr, final long flags, final Object ctx)
    {
        if (addrs == null)
        {
            throw invalid("addrs is null");
        }
        if (format != AddrFormat.ADDR_STR)
        {
            throw invalid("string addresses need an FI_ADDR_STR domain; this one is " + format.fiName());
        }
        int total = 0;
        final byte[][] utf8 = new byte[addrs.length][];
        for (int i = 0; i < addrs.length; i++)
        {
            utf8[i] = addrs[i] == null || addrs[i].indexOf('\0') >= 0 ? new byte[0] : addrs[i].getBytes(StandardCharsets.UTF_8);
            total += utf8[i].length + 1;
        }
        final ByteBuffer packed = ByteBuffer.allocate(total);
        for (final byte[] s : utf8)
        {
            packed.put(s).put((byte)0);
        }
        return insert(packed.flip(), addrs.length, fiAddr, flags, ctx);
    }

    /**
     * Validates address {@code i} and inserts it: the slot index, or a negative errno (a per-address
     * failure). {@code prefetched}: its hash is in {@link #windowHashes} (no FI_AUTH_KEY, so its auth key
     * is -1, as {@code touchBuckets} hashed it).
     */
    private long insertOne(final ByteBuffer src, final int off, final int len, final long[] fiAddr,
        final int i, final long flags, final boolean prefetched)
    {
        final int invalidAddress = len > addrlen ? FiErrno.EADDRNOTAVAIL : Addresses.validate(format, src, off, len);
        if (invalidAddress != 0)
        {
            return -invalidAddress;
        }
        final long userId = (flags & Fi.AV_USER_ID) != 0 ? fiAddr[i] : SlotDescriptor.NO_USER_ID;
        long authKey = -1L;
        if ((flags & Fi.AUTH_KEY) != 0)
        {
            authKey = authKeys.indexOf(fiAddr[i]);
            if (authKey < 0)
            {
                return -FiErrno.EINVAL;
            }
        }
        final long hash = prefetched ? windowHashes[i & (PREFETCH_WINDOW - 1)] : SlotTable.hash(src, off, len, authKey);
        while (true)
        {
            final Region r = regions.current();
            final long result = r.table().insert(r.writer(), src, off, len, authKey, userId, codec.mapArrayBase(r), hash);
            if (result == SlotTable.STALE_VIEW)
            {
                regions.follow(); // another process grew the AV: insert into the view that has it all
                continue;
            }
            if (result != -FiErrno.ENOSPC)
            {
                return result;
            }
            if (regions.growable())
            {
                regions.grow(r.layout().capacity() + 1);
                continue;
            }
            if (!r.layout().canGrow() || r.writer().hasNoRoomThisCall())
            {
                return result; // at its maximum, or this call already failed to grow it: no second try
            }
            try
            {
                regions.growShared();
            }
            catch (final FabricException e)
            {
                if (e.errno() == FiErrno.ENOSPC)
                {
                    // The maximum, or a full file system: the call's other new addresses fail at once
                    // instead of each trying to grow it again (a later call tries).
                    r.writer().noRoomThisCall();
                }
                return -e.errno(); // a per-address failure, as a full AV's FI_ENOSPC is
            }
        }
    }

    /** {@code shmav_av_insert_at}: the address at slot {@code index} (a private AV grows to hold it). */
    long insertAt(final long index, final ByteBuffer addr)
    {
        av.checkOpen();
        av.checkWritable();
        if (addr == null)
        {
            throw invalid("addr is null");
        }
        final int at = addr.position();
        final int len = format == AddrFormat.ADDR_STR ? Addresses.strLength(addr, at, addr.limit())
            : varying ? addr.remaining() : addrlen;
        if (len <= 0 || len > addr.remaining() || len > addrlen || Addresses.validate(format, addr, at, len) != 0)
        {
            throw invalid("not a valid " + format.fiName() + " destination address");
        }
        writeLock.lock();
        try
        {
            regions.startCall();
            long result;
            do
            {
                ensureIndex(index);
                final Region r = regions.current();
                result = r.table().insertAt(r.writer(), index, addr, at, len, -1L, SlotDescriptor.NO_USER_ID,
                    codec.mapArrayBase(r));
            }
            while (result == SlotTable.STALE_VIEW);
            if (result == -FiErrno.EADDRINUSE)
            {
                throw new FabricException(FiErrno.EADDRINUSE, "index=" + index +
                    " already holds another address");
            }
            if (result == -FiErrno.EALREADY)
            {
                throw new FabricException(FiErrno.EALREADY, "the address is already at fi_addr " +
                    av.reverseLookup(addr) + ", not at index=" + index);
            }
            if (result < 0)
            {
                throw new FabricException((int)-result, "index=" + index);
            }
            return codec.encode(result);
        }
        finally
        {
            writeLock.unlock();
        }
    }

    /**
     * Grows the AV to hold slot {@code index}: a private AV by a copy, a named one by segments up to its
     * maximum; FI_EINVAL when it cannot. Under the write lock.
     */
    private void ensureIndex(final long index)
    {
        Region r = regions.follow();
        if (!regions.growable())
        {
            while (index >= r.layout().capacity() && r.layout().canGrow() && index < r.layout().maxCapacity())
            {
                r = regions.growShared();
            }
        }
        final long capacity = r.layout().capacity();
        if (index < 0 || index >= capacity)
        {
            if (!regions.growable() || index < 0 || index >= AvFileDescriptor.MAX_CAPACITY)
            {
                throw invalid("index=" + index + " is outside 0.." + (capacity - 1) +
                    (regions.growable() ? "" : ", and the AV grows to at most " + r.layout().maxCapacity()));
            }
            regions.grow(index + 1);
        }
    }
}
