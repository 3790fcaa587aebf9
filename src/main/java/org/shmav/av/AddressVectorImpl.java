package org.shmav.av;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.shmav.AddrFormat;
import org.shmav.Addresses;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvSet;
import org.shmav.AvSetAttr;
import org.shmav.AvType;
import org.shmav.EqErrEntry;
import org.shmav.EqEvent;
import org.shmav.EventQueue;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.SharedAvFile;
import org.shmav.slots.AuthKeyTable;
import org.shmav.slots.Region;
import org.shmav.slots.SlotTable;

/**
 * The {@link AddressVector} of both kinds: a private AV over a {@link Region} in process memory that
 * grows when full, and a named AV over a mapped file ({@link SharedAvFile}). The slot protocol is the
 * same; this class adds libfabric's call semantics (flags, per-address errors, events, fi_addr
 * encoding, references from endpoints and sets). Writers of one handle are serialised by a
 * process-local lock; readers take no lock.
 */
public final class AddressVectorImpl implements AddressVector
{
    /** Entries of a private AV opened with count 0, and its minimum. */
    public static final long DEFAULT_COUNT = 1024;
    /** Largest rx_ctx_bits accepted (as libfabric's sockets provider). */
    public static final int MAX_RX_CTX_BITS = 16;
    /** Auth keys one AV can hold. */
    public static final int AUTH_KEYS_CAPACITY = 64;
    /** Auth-key handles are this bit or'ed with the key's index, so they never look like an entry's fi_addr. */
    public static final long AUTH_KEY_HANDLE_BIT = 1L << 62;
    /** Addresses of a batch insert whose first hash buckets are read ahead together (a power of two). */
    static final int PREFETCH_WINDOW = 16;

    private static final long OPEN_FLAGS = Fi.READ | Fi.EVENT | Fi.SYMMETRIC | Fi.AV_USER_ID;
    private static final long INSERT_FLAGS = Fi.MORE | Fi.SYNC_ERR | Fi.AV_USER_ID | Fi.AUTH_KEY;

    private final DomainImpl domain;
    private final AvAttr attr;
    private final Object context;
    private final AddrFormat format;
    private final int addrlen;
    private final AvType type;
    private final boolean readOnly;
    private final boolean userIdMode;
    private final boolean privateAv;
    private final long mapBase;
    private final long addrMask;
    private final HandleLock writeLock = new HandleLock();
    private final AtomicInteger refs = new AtomicInteger();
    private final Set<EndpointImpl> enabledEndpoints = ConcurrentHashMap.newKeySet();
    private volatile Region region;
    private volatile EventQueueImpl eq;
    private volatile boolean closed;
    /** Where {@link SlotTable#touchBuckets} results go, so that its reads are kept; never read. */
    @SuppressWarnings("unused")
    private long touched;

    private AddressVectorImpl(final DomainImpl domain, final AvAttr attr, final Object context, final Region region,
        final long mapBase, final boolean privateAv)
    {
        this.domain = domain;
        this.context = context;
        this.format = domain.attr().addrFormat();
        this.addrlen = format.addrlen();
        this.type = attr.type();
        this.readOnly = (attr.flags() & Fi.READ) != 0;
        this.userIdMode = (attr.flags() & Fi.AV_USER_ID) != 0;
        this.privateAv = privateAv;
        this.region = region;
        this.mapBase = mapBase;
        long mask = attr.rxCtxBits() == 0 ? -1L : -1L >>> attr.rxCtxBits();
        if (type == AvType.TABLE && domain.attr().maxGroupId() > 0)
        {
            mask &= 0xFFFF_FFFFL; // fi_group_addr puts the group in bits 32..63
        }
        this.addrMask = mask;
        // A MAP AV reports the base its fi_addr values are built on (AddressVector: attr().mapAddr() + index),
        // a private one included; a private TABLE AV has no base to report.
        this.attr = attr.toBuilder().count(privateAv ? attr.count() : region.layout().capacity())
            .mapAddr(attr.name() == null && type != AvType.MAP ? 0 : mapBase).build();
    }

    /** {@code fi_av_open}: checks the attributes, then opens a private region or the named file. */
    static AddressVectorImpl open(final DomainImpl domain, final AvAttr requested, final Object context)
    {
        final AvAttr attr = resolve(domain, requested);
        if (attr.name() != null)
        {
            final NamedAvOpener.Opened opened = NamedAvOpener.open(domain.attr(), attr, requested.type());
            return new AddressVectorImpl(domain, opened.attr(), context, opened.region(), opened.mapBase(), false);
        }
        final long capacity = Math.max(attr.count() == 0 ? DEFAULT_COUNT : attr.count(), 1);
        final AvLayout layout = AvLayout.compute(domain.attr().addrFormat(), attr.type(), capacity, 1,
            domain.attr().avAuthKey() ? domain.attr().authKeySize() : 0, domain.attr().avAuthKey() ? AUTH_KEYS_CAPACITY : 0);
        if (layout.fileLength() > Integer.MAX_VALUE)
        {
            throw new FabricException("fi_av_open", FiErrno.ENOMEM, "count=" + attr.count() + " needs " +
                layout.fileLength() + " bytes, more than one region can hold");
        }
        final long base = NamedAvOpener.generatedMapBase();
        final Region region = Region.allocatePrivate(layout, base, attr.flags() & (Fi.AV_USER_ID | Fi.SYMMETRIC),
            attr.rxCtxBits());
        return new AddressVectorImpl(domain, attr, context, region, base, true);
    }

    /** The fi_av_open attribute rules (libfabric-facts 7.2); returns the attributes with the type resolved. */
    static AvAttr resolve(final DomainImpl domain, final AvAttr attr)
    {
        if (attr == null)
        {
            throw invalid("fi_av_open", "attr is null");
        }
        if (attr.type() == null)
        {
            throw invalid("fi_av_open", "type is null: use UNSPEC, MAP or TABLE");
        }
        final AvType domainType = domain.attr().avType();
        if (attr.type() != AvType.UNSPEC && domainType != AvType.UNSPEC && attr.type() != domainType)
        {
            throw invalid("fi_av_open", "type=" + attr.type().fiName() + " differs from the domain's av_type=" +
                domainType.fiName());
        }
        if ((attr.flags() & ~OPEN_FLAGS) != 0)
        {
            throw invalid("fi_av_open", "unknown flags 0x" + Long.toHexString(attr.flags() & ~OPEN_FLAGS) +
                ": allowed are FI_READ, FI_EVENT, FI_SYMMETRIC, FI_AV_USER_ID");
        }
        if ((attr.flags() & Fi.READ) != 0 && attr.name() == null)
        {
            throw invalid("fi_av_open", "FI_READ needs a name: a read-only AV must be a named AV that exists");
        }
        if ((attr.flags() & Fi.AV_USER_ID) != 0 && (attr.flags() & Fi.SYMMETRIC) != 0)
        {
            throw invalid("fi_av_open", "FI_AV_USER_ID cannot be combined with FI_SYMMETRIC");
        }
        if (attr.rxCtxBits() < 0 || attr.rxCtxBits() > MAX_RX_CTX_BITS)
        {
            throw invalid("fi_av_open", "rxCtxBits=" + attr.rxCtxBits() + " must be 0.." + MAX_RX_CTX_BITS);
        }
        if (attr.count() < 0 || attr.count() > AvFileDescriptor.MAX_CAPACITY)
        {
            throw invalid("fi_av_open", "count=" + attr.count() + " must be 0.." + AvFileDescriptor.MAX_CAPACITY);
        }
        if (attr.epPerNode() < 0)
        {
            throw invalid("fi_av_open", "epPerNode=" + attr.epPerNode() + " must be >= 0");
        }
        AvType type = attr.type();
        if (type == AvType.UNSPEC)
        {
            type = domainType == AvType.UNSPEC ? AvType.TABLE : domainType;
        }
        return attr.toBuilder().type(type).build();
    }

    DomainImpl domain()
    {
        return domain;
    }

    AvType type()
    {
        return type;
    }

    @Override
    public AvAttr attr()
    {
        return attr;
    }

    @Override
    public AddrFormat addrFormat()
    {
        return format;
    }

    /** The context given to fi_av_open. */
    public Object context()
    {
        return context;
    }

    // ---------------------------------------------------------------- insert

    @Override
    public int insert(final ByteBuffer addrs, final int count, final long[] fiAddr, final long flags, final Object ctx)
    {
        final int[] syncErr = checkInsert("fi_av_insert", count, fiAddr, flags, ctx);
        if (count > 0 && addrs == null)
        {
            throw invalid("fi_av_insert", "addrs is null");
        }
        int[] offsets = null;
        if (format == AddrFormat.ADDR_STR && count > 0)
        {
            offsets = stringOffsets(addrs, count);
        }
        else if (count > 0 && (long)count * addrlen > addrs.remaining())
        {
            throw invalid("fi_av_insert", "addrs holds " + addrs.remaining() + " bytes, fewer than count=" + count +
                " x addrlen=" + addrlen);
        }
        final EventQueueImpl queue = eq;
        final Object[] events = queue == null ? null : new Object[count + 1];
        int errors = 0;
        int inserted = 0;
        writeLock.lock();
        try
        {
            checkOpen("fi_av_insert");
            final int base = count > 0 ? addrs.position() : 0;
            final boolean prefetch = offsets == null && count > 1 && (flags & Fi.AUTH_KEY) == 0;
            for (int i = 0; i < count; i++)
            {
                if (prefetch && (i & (PREFETCH_WINDOW - 1)) == 0)
                {
                    touched = region.table().touchBuckets(addrs, base + i * addrlen, addrlen, Math.min(PREFETCH_WINDOW, count - i));
                }
                final int off = offsets == null ? base + i * addrlen : offsets[i];
                final int len = offsets == null ? addrlen : offsets[i + 1] - off;
                final long result = insertOne("fi_av_insert", addrs, off, len, fiAddr, i, flags);
                if (result >= 0)
                {
                    inserted++;
                    if (fiAddr != null)
                    {
                        fiAddr[i] = encode(result);
                    }
                }
                else
                {
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
                        events[errors++] = new EqErrEntry(this, ctx, i, (int)-result);
                    }
                }
            }
        }
        finally
        {
            writeLock.unlock();
        }
        if (queue != null)
        {
            events[errors] = new EqEvent(EqEvent.AV_COMPLETE, this, ctx, inserted);
            queue.post(events, errors + 1);
            return 0;
        }
        return inserted;
    }

    /** Where each of {@code count} packed FI_ADDR_STR strings starts, and (last) where the last one ends. */
    private int[] stringOffsets(final ByteBuffer addrs, final int count)
    {
        final int[] offsets = new int[count + 1];
        int at = addrs.position();
        for (int i = 0; i < count; i++)
        {
            offsets[i] = at;
            final int len = Addresses.strLength(addrs, at, addrs.limit());
            if (len < 0)
            {
                throw invalid("fi_av_insert", "FI_ADDR_STR address " + i + " has no NUL within " +
                    AddrFormat.MAX_STR_LEN + " bytes or before the buffer's limit");
            }
            at += len;
        }
        offsets[count] = at;
        return offsets;
    }

    @Override
    public int insert(final String[] addrs, final long[] fiAddr, final long flags, final Object ctx)
    {
        if (addrs == null)
        {
            throw invalid("fi_av_insert", "addrs is null");
        }
        if (format != AddrFormat.ADDR_STR)
        {
            throw invalid("fi_av_insert", "string addresses need an FI_ADDR_STR domain; this one is " + format.fiName());
        }
        int total = 0;
        final byte[][] utf8 = new byte[addrs.length][];
        for (int i = 0; i < addrs.length; i++)
        {
            utf8[i] = addrs[i] == null ? new byte[0] : addrs[i].getBytes(StandardCharsets.UTF_8);
            total += utf8[i].length + 1;
        }
        final ByteBuffer packed = ByteBuffer.allocate(total);
        for (final byte[] s : utf8)
        {
            packed.put(s).put((byte)0);
        }
        return insert(packed.flip(), addrs.length, fiAddr, flags, ctx);
    }

    /** Validates one address and inserts it: the slot index, or a negative errno (a per-address failure). */
    private long insertOne(final String call, final ByteBuffer src, final int off, final int len, final long[] fiAddr,
        final int i, final long flags)
    {
        final int invalidAddress = Addresses.validate(format, src, off, len);
        if (invalidAddress != 0)
        {
            return -invalidAddress;
        }
        final long userId = (flags & Fi.AV_USER_ID) != 0 ? fiAddr[i] : Long.MIN_VALUE;
        long authKey = -1L;
        if ((flags & Fi.AUTH_KEY) != 0)
        {
            authKey = authKeyIndex(fiAddr[i]);
            if (authKey < 0)
            {
                return -FiErrno.EINVAL;
            }
        }
        while (true)
        {
            final Region r = region;
            final long result = r.table().insert(r.writer(), src, off, len, authKey, userId, mapArrayBase());
            if (result != -FiErrno.ENOSPC || !privateAv)
            {
                return result;
            }
            grow(r.layout().capacity() + 1, call);
        }
    }

    private void grow(final long minCapacity, final String call)
    {
        final Region grown = region.grow(minCapacity);
        if (grown.layout().fileLength() > Integer.MAX_VALUE)
        {
            throw new FabricException(call, FiErrno.ENOMEM, "private AV cannot grow past " + region.layout().capacity());
        }
        region = grown;
    }

    /** Whole-call checks of every insert variant; returns the FI_SYNC_ERR array (zeroed) or null. */
    private int[] checkInsert(final String call, final int count, final long[] fiAddr, final long flags, final Object ctx)
    {
        checkOpen(call);
        checkWritable(call);
        if ((attr.flags() & Fi.EVENT) != 0 && eq == null)
        {
            throw new FabricException(call, FiErrno.ENOEQ, "the AV was opened with FI_EVENT: bind an event queue first");
        }
        if ((flags & ~INSERT_FLAGS) != 0)
        {
            throw new FabricException(call, FiErrno.EBADFLAGS, "flags 0x" + Long.toHexString(flags & ~INSERT_FLAGS) +
                " are not supported: use FI_MORE, FI_SYNC_ERR, FI_AV_USER_ID, FI_AUTH_KEY");
        }
        if ((flags & Fi.SYNC_ERR) != 0 && eq != null)
        {
            throw new FabricException(call, FiErrno.EBADFLAGS, "FI_SYNC_ERR applies to synchronous inserts only (FI_EVENT is set)");
        }
        if (count < 0)
        {
            throw invalid(call, "count=" + count + " must be >= 0");
        }
        if (fiAddr != null && fiAddr.length < count)
        {
            throw invalid(call, "fiAddr has " + fiAddr.length + " elements, fewer than count=" + count);
        }
        if ((flags & Fi.AV_USER_ID) != 0)
        {
            if (userIdMode || domain.attr().avAuthKey())
            {
                throw invalid(call, "per-insert FI_AV_USER_ID is not allowed on an AV opened with FI_AV_USER_ID " +
                    "or a domain with avAuthKey: use setUserId");
            }
            if (fiAddr == null)
            {
                throw invalid(call, "FI_AV_USER_ID needs fiAddr carrying the user ids");
            }
        }
        if ((flags & Fi.AUTH_KEY) != 0)
        {
            if (!domain.attr().avAuthKey())
            {
                throw invalid(call, "FI_AUTH_KEY needs a domain opened with avAuthKey");
            }
            if (fiAddr == null || (flags & Fi.AV_USER_ID) != 0)
            {
                throw invalid(call, "FI_AUTH_KEY needs fiAddr carrying the auth-key handles (and no FI_AV_USER_ID)");
            }
        }
        if ((flags & Fi.SYNC_ERR) == 0)
        {
            return null;
        }
        if (!(ctx instanceof int[]) || ((int[])ctx).length < count)
        {
            throw invalid(call, "FI_SYNC_ERR needs an int[] context of at least count=" + count + " elements");
        }
        final int[] syncErr = (int[])ctx;
        java.util.Arrays.fill(syncErr, 0, count, 0);
        return syncErr;
    }

    @Override
    public int insertSvc(final String node, final String service, final long[] fiAddr, final long flags, final Object ctx)
    {
        if (format == AddrFormat.ADDR_STR)
        {
            if (node == null || service != null)
            {
                throw invalid("fi_av_insertsvc", "on an FI_ADDR_STR domain node is the address and service must be null");
            }
            return insert(new String[] {node}, fiAddr, flags, ctx);
        }
        if (node == null || service == null)
        {
            throw invalid("fi_av_insertsvc", "node and service are both required");
        }
        final int port = parsePort("fi_av_insertsvc", service);
        final ByteBuffer one = ByteBuffer.allocate(addrlen);
        putResolved(one, node, port);
        return insert(one.flip(), 1, fiAddr, flags, ctx);
    }

    @Override
    public int insertSym(final String node, final int nodeCnt, final String service, final int svcCnt,
        final long[] fiAddr, final long flags, final Object ctx)
    {
        if (format == AddrFormat.ADDR_STR)
        {
            throw new FabricException("fi_av_insertsym", FiErrno.ENOSYS, "insertsym takes IP nodes; this domain is FI_ADDR_STR");
        }
        if (node == null || service == null || nodeCnt < 0 || svcCnt < 0)
        {
            throw invalid("fi_av_insertsym", "node and service are required; nodeCnt and svcCnt must be >= 0");
        }
        final int port = parsePort("fi_av_insertsym", service);
        if (port + (long)svcCnt - 1 > 65535)
        {
            throw invalid("fi_av_insertsym", "service range " + port + ".." + (port + svcCnt - 1) + " passes 65535");
        }
        final long total = (long)nodeCnt * svcCnt;
        if (total > Integer.MAX_VALUE / addrlen)
        {
            throw invalid("fi_av_insertsym", "nodeCnt x svcCnt = " + total + " is too many addresses for one call");
        }
        final ByteBuffer all = ByteBuffer.allocate((int)total * addrlen);
        final NodeRange nodes = NodeRange.parse(node, nodeCnt);
        for (int n = 0; n < nodeCnt; n++)
        {
            final String host = nodes.node(n);
            for (int s = 0; s < svcCnt; s++)
            {
                putResolved(all, host, port + s);
            }
        }
        return insert(all.flip(), (int)total, fiAddr, flags, ctx);
    }

    /**
     * Writes the address of {@code host}:{@code port} for this domain's family; a host that does not
     * resolve to that family is written as an all-zero address, which insert reports per address as
     * FI_EADDRNOTAVAIL.
     */
    private void putResolved(final ByteBuffer dst, final String host, final int port)
    {
        final InetAddress ip = resolve(host);
        if (ip == null)
        {
            dst.position(dst.position() + addrlen);
            return;
        }
        Addresses.put(dst, new InetSocketAddress(ip, port));
    }

    private InetAddress resolve(final String host)
    {
        try
        {
            for (final InetAddress candidate : InetAddress.getAllByName(host))
            {
                if ((format == AddrFormat.SOCKADDR_IN) == (candidate instanceof java.net.Inet4Address))
                {
                    return candidate;
                }
            }
        }
        catch (final UnknownHostException | SecurityException e)
        {
            return null;
        }
        return null;
    }

    private static int parsePort(final String call, final String service)
    {
        try
        {
            final int port = Integer.parseInt(service.trim());
            if (port >= 0 && port <= 65535)
            {
                return port;
            }
        }
        catch (final NumberFormatException e)
        {
            // fall through
        }
        throw invalid(call, "service '" + service + "' is not a port number 0..65535");
    }

    // ---------------------------------------------------------------- remove, lookup

    @Override
    public void remove(final long[] fiAddr, final int count, final long flags)
    {
        checkOpen("fi_av_remove");
        checkWritable("fi_av_remove");
        if ((flags & ~Fi.AUTH_KEY) != 0)
        {
            throw invalid("fi_av_remove", "flags 0x" + Long.toHexString(flags) + ": only FI_AUTH_KEY is allowed");
        }
        if (fiAddr == null || count < 0 || count > fiAddr.length)
        {
            throw invalid("fi_av_remove", "fiAddr must hold count=" + count + " elements");
        }
        int invalid = 0;
        int busy = 0;
        long firstBad = 0;
        writeLock.lock();
        try
        {
            final Region r = region;
            for (int i = 0; i < count; i++)
            {
                final int result;
                if ((flags & Fi.AUTH_KEY) != 0)
                {
                    result = removeAuthKey(fiAddr[i]);
                }
                else
                {
                    final long index = indexOf(fiAddr[i]);
                    result = index < 0 ? -FiErrno.EINVAL : r.table().remove(r.writer(), index);
                }
                if (result == -FiErrno.EBUSY)
                {
                    busy++;
                }
                else if (result < 0 && invalid++ == 0)
                {
                    firstBad = fiAddr[i];
                }
            }
        }
        finally
        {
            writeLock.unlock();
        }
        if (busy > 0)
        {
            throw new FabricException("fi_av_remove", FiErrno.EBUSY, busy + " auth key(s) are in use by enabled " +
                "endpoints: close them first");
        }
        if (invalid > 0)
        {
            throw invalid("fi_av_remove", invalid + " of " + count + " fi_addr values were unset, removed or out of " +
                "range (first: 0x" + Long.toHexString(firstBad) + "); the others were removed");
        }
    }

    private int removeAuthKey(final long handle)
    {
        final long index = authKeyIndex(handle);
        if (index < 0)
        {
            return -FiErrno.EINVAL;
        }
        for (final EndpointImpl ep : enabledEndpoints)
        {
            if (ep.usesAuthKey(handle))
            {
                return -FiErrno.EBUSY;
            }
        }
        return region.authKeys().release(index);
    }

    @Override
    public int lookup(final long fiAddr, final ByteBuffer addr)
    {
        if (closed || addr == null)
        {
            throw invalid("fi_av_lookup", closed ? "AV is closed" : "addr is null");
        }
        final Region r = region;
        final long index = indexOf(fiAddr, r);
        final int len = index < 0 ? -1 : r.table().lookup(index, addr);
        if (len < 0)
        {
            throw invalid("fi_av_lookup", "fi_addr 0x" + Long.toHexString(fiAddr) + " is unset, removed or out of range");
        }
        return len;
    }

    @Override
    public String lookupString(final long fiAddr)
    {
        final ByteBuffer b = ByteBuffer.allocate(addrlen);
        final int len = lookup(fiAddr, b);
        if (format == AddrFormat.ADDR_STR)
        {
            return new String(b.array(), 0, Math.max(0, Math.min(len, addrlen) - 1), StandardCharsets.UTF_8);
        }
        return Addresses.straddr(format, b);
    }

    @Override
    public String straddr(final ByteBuffer addr)
    {
        if (addr == null)
        {
            return null;
        }
        return Addresses.straddr(format, addr);
    }

    @Override
    public long reverseLookup(final ByteBuffer addr)
    {
        if (closed || addr == null)
        {
            throw invalid("fi_av_reverse_lookup", closed ? "AV is closed" : "addr is null");
        }
        final int at = addr.position();
        final int len = format == AddrFormat.ADDR_STR ? Addresses.strLength(addr, at, addr.limit()) : addrlen;
        if (len < 0 || len > addr.remaining())
        {
            return Fi.ADDR_NOTAVAIL;
        }
        final Region r = region;
        final long index = r.table().reverseLookup(addr, at, len, -1L);
        return index < 0 ? Fi.ADDR_NOTAVAIL : encode(index);
    }

    @Override
    public long insertAt(final long index, final ByteBuffer addr)
    {
        checkOpen("shmav_av_insert_at");
        checkWritable("shmav_av_insert_at");
        if (addr == null)
        {
            throw invalid("shmav_av_insert_at", "addr is null");
        }
        final int at = addr.position();
        final int len = format == AddrFormat.ADDR_STR ? Addresses.strLength(addr, at, addr.limit()) : addrlen;
        if (len < 0 || len > addr.remaining() || Addresses.validate(format, addr, at, len) != 0)
        {
            throw invalid("shmav_av_insert_at", "not a valid " + format.fiName() + " destination address");
        }
        writeLock.lock();
        try
        {
            if (index < 0 || index >= region.layout().capacity())
            {
                if (!privateAv || index < 0 || index >= AvFileDescriptor.MAX_CAPACITY)
                {
                    throw invalid("shmav_av_insert_at", "index=" + index + " is outside 0.." +
                        (region.layout().capacity() - 1));
                }
                grow(index + 1, "shmav_av_insert_at");
            }
            final Region r = region;
            final long result = r.table().insertAt(r.writer(), index, addr, at, len, -1L, Long.MIN_VALUE, mapArrayBase());
            if (result == -FiErrno.EADDRINUSE)
            {
                throw new FabricException("shmav_av_insert_at", FiErrno.EADDRINUSE, "index=" + index +
                    " already holds another address");
            }
            if (result == -FiErrno.EALREADY)
            {
                throw new FabricException("shmav_av_insert_at", FiErrno.EALREADY, "the address is already at fi_addr " +
                    reverseLookup(addr) + ", not at index=" + index);
            }
            if (result < 0)
            {
                throw new FabricException("shmav_av_insert_at", (int)-result, "index=" + index);
            }
            return encode(result);
        }
        finally
        {
            writeLock.unlock();
        }
    }

    // ---------------------------------------------------------------- user ids, auth keys, events

    @Override
    public void bind(final EventQueue queue, final long flags)
    {
        checkOpen("fi_av_bind");
        if (flags != 0)
        {
            throw invalid("fi_av_bind", "flags=0x" + Long.toHexString(flags) + " must be 0");
        }
        if (!(queue instanceof EventQueueImpl) || ((EventQueueImpl)queue).domain() != domain ||
            ((EventQueueImpl)queue).isClosed())
        {
            throw invalid("fi_av_bind", "not an open event queue of this AV's domain");
        }
        if ((attr.flags() & Fi.EVENT) == 0)
        {
            throw invalid("fi_av_bind", "the AV was not opened with FI_EVENT");
        }
        synchronized (this)
        {
            if (eq != null)
            {
                throw invalid("fi_av_bind", "an event queue is already bound");
            }
            ((EventQueueImpl)queue).retain();
            eq = (EventQueueImpl)queue;
        }
    }

    @Override
    public long insertAuthKey(final ByteBuffer authKey, final long flags)
    {
        checkOpen("fi_av_insert_auth_key");
        checkWritable("fi_av_insert_auth_key");
        checkAuthKeys("fi_av_insert_auth_key");
        if (flags != 0)
        {
            throw invalid("fi_av_insert_auth_key", "flags=0x" + Long.toHexString(flags) + " must be 0");
        }
        final int size = region.authKeys().keySize();
        if (authKey == null || authKey.remaining() != size)
        {
            throw invalid("fi_av_insert_auth_key", "the key must be exactly authKeySize=" + size + " bytes");
        }
        writeLock.lock();
        try
        {
            final long index = region.authKeys().insert(region.writer(), authKey);
            if (index < 0)
            {
                throw new FabricException("fi_av_insert_auth_key", FiErrno.ENOSPC, "all " +
                    region.authKeys().capacity() + " auth-key entries are in use");
            }
            return AUTH_KEY_HANDLE_BIT | index;
        }
        finally
        {
            writeLock.unlock();
        }
    }

    @Override
    public int lookupAuthKey(final long fiAddr, final ByteBuffer authKey)
    {
        checkOpen("fi_av_lookup_auth_key");
        checkAuthKeys("fi_av_lookup_auth_key");
        if (authKey == null)
        {
            throw invalid("fi_av_lookup_auth_key", "authKey is null");
        }
        long keyIndex = authKeyIndex(fiAddr);
        if (keyIndex < 0)
        {
            final long index = indexOf(fiAddr);
            final long bound = index < 0 ? Long.MIN_VALUE : region.table().authKeyOf(index);
            keyIndex = bound == Long.MIN_VALUE || bound < 0 ? -1 : bound;
        }
        final int size = keyIndex < 0 ? -1 : region.authKeys().lookup(keyIndex, authKey);
        if (size < 0)
        {
            throw invalid("fi_av_lookup_auth_key", "0x" + Long.toHexString(fiAddr) +
                " is neither an auth-key handle nor an entry inserted with FI_AUTH_KEY");
        }
        return size;
    }

    @Override
    public void setUserId(final long fiAddr, final long userId, final long flags)
    {
        checkOpen("fi_av_set_user_id");
        checkWritable("fi_av_set_user_id");
        if (!userIdMode)
        {
            throw invalid("fi_av_set_user_id", "the AV was not opened with FI_AV_USER_ID");
        }
        if ((flags & ~Fi.AUTH_KEY) != 0)
        {
            throw invalid("fi_av_set_user_id", "flags 0x" + Long.toHexString(flags) + ": only FI_AUTH_KEY is allowed");
        }
        final boolean ok;
        if ((flags & Fi.AUTH_KEY) != 0)
        {
            final long keyIndex = authKeyIndex(fiAddr);
            ok = keyIndex >= 0 && region.authKeys().setUserId(keyIndex, userId);
        }
        else
        {
            final long index = indexOf(fiAddr);
            ok = index >= 0 && region.table().setUserId(index, userId);
        }
        if (!ok)
        {
            throw invalid("fi_av_set_user_id", "0x" + Long.toHexString(fiAddr) + " is not a valid " +
                ((flags & Fi.AUTH_KEY) != 0 ? "auth-key handle" : "fi_addr"));
        }
    }

    @Override
    public long userId(final long fiAddr)
    {
        checkOpen("fi_av_user_id");
        final long index = indexOf(fiAddr);
        final long id = index < 0 ? Long.MIN_VALUE : region.table().userId(index);
        if (id == Long.MIN_VALUE)
        {
            throw invalid("fi_av_user_id", "fi_addr 0x" + Long.toHexString(fiAddr) + " is unset, removed or out of range");
        }
        return id;
    }

    /** The index behind an auth-key handle, or -1 when it is not a valid handle. */
    private long authKeyIndex(final long handle)
    {
        if (!domain.attr().avAuthKey() || (handle & ~0xFFFF_FFFFL) != AUTH_KEY_HANDLE_BIT)
        {
            return -1;
        }
        final long index = handle & 0xFFFF_FFFFL;
        return region.authKeys().isValid(index) ? index : -1;
    }

    /** Handles of every valid auth key: what an endpoint is configured with when enabled. */
    long[] validAuthKeys()
    {
        final AuthKeyTable keys = region.authKeys();
        final long[] all = new long[keys.capacity()];
        int n = 0;
        for (int i = 0; i < keys.capacity(); i++)
        {
            if (keys.isValid(i))
            {
                all[n++] = AUTH_KEY_HANDLE_BIT | i;
            }
        }
        return java.util.Arrays.copyOf(all, n);
    }

    private void checkAuthKeys(final String call)
    {
        if (!domain.attr().avAuthKey())
        {
            throw invalid(call, "the domain was not opened with avAuthKey (FI_AV_AUTH_KEY)");
        }
    }

    // ---------------------------------------------------------------- sets, references, lifecycle

    @Override
    public AvSet openSet(final AvSetAttr setAttr)
    {
        checkOpen("fi_av_set");
        return new AvSetImpl(this, setAttr);
    }

    /** True when {@code fiAddr} names a valid entry now. */
    public boolean isValid(final long fiAddr)
    {
        final Region r = region;
        final long index = indexOf(fiAddr, r);
        return index >= 0 && r.table().isValid(index);
    }

    /**
     * The plain fi_addr of the entry {@code fiAddr} names (rx-context and group bits dropped), or
     * {@code fiAddr} itself when it names none: one spelling per entry, for AV sets.
     */
    public long canonical(final long fiAddr)
    {
        final long index = indexOf(fiAddr);
        return index < 0 ? fiAddr : encode(index);
    }

    /** The fi_addr of every valid entry, in index order. */
    public long[] validFiAddrs()
    {
        final Region r = region;
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
                out[n++] = encode(i);
            }
        }
        return java.util.Arrays.copyOf(out, n);
    }

    /** Takes a reference that makes {@link #close()} fail with FI_EBUSY until released. */
    void retain(final String call)
    {
        checkOpen(call);
        refs.incrementAndGet();
    }

    void release()
    {
        refs.decrementAndGet();
    }

    void endpointEnabled(final EndpointImpl ep)
    {
        enabledEndpoints.add(ep);
    }

    void endpointClosed(final EndpointImpl ep)
    {
        enabledEndpoints.remove(ep);
    }

    @Override
    public void close()
    {
        writeLock.lock();
        try
        {
            if (closed)
            {
                return;
            }
            if (refs.get() > 0)
            {
                throw new FabricException("fi_close", FiErrno.EBUSY, refs.get() +
                    " endpoint(s) or AV set(s) still reference the AV: close them first");
            }
            closed = true;
            final EventQueueImpl queue = eq;
            if (queue != null)
            {
                queue.release();
            }
            region.detach();
        }
        finally
        {
            writeLock.unlock();
        }
        domain.forget(this);
    }

    @Override
    public long count()
    {
        checkOpen("shmav_av_count");
        return region.table().count();
    }

    @Override
    public boolean awaitCount(final long n, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        final BackoffIdleStrategy idle = new BackoffIdleStrategy(100, 10, 1_000, 100_000);
        while (count() < n)
        {
            if (closed)
            {
                throw invalid("shmav_av_await_count", "AV is closed");
            }
            if (System.nanoTime() - deadline >= 0)
            {
                return false;
            }
            idle.idle();
        }
        return true;
    }

    @Override
    public int recover()
    {
        checkOpen("shmav_av_recover");
        checkWritable("shmav_av_recover");
        writeLock.lock();
        try
        {
            final Region r = region;
            return r.table().recoverDead() + (r.table().finishAbandonedRebuild(r.writer()) ? 1 : 0);
        }
        finally
        {
            writeLock.unlock();
        }
    }

    @Override
    public boolean isReadOnly()
    {
        return readOnly;
    }

    /** The region behind this handle, for tools and tests in this package. */
    Region region()
    {
        return region;
    }

    // ---------------------------------------------------------------- fi_addr encoding

    private long encode(final long index)
    {
        return type == AvType.MAP ? mapBase + index : index;
    }

    private long mapArrayBase()
    {
        return type == AvType.MAP ? region.storedMapBase() : 0;
    }

    private long indexOf(final long fiAddr)
    {
        return indexOf(fiAddr, region);
    }

    /** The slot index an fi_addr names, or -1 when it is FI_ADDR_NOTAVAIL or outside the AV. */
    private long indexOf(final long fiAddr, final Region r)
    {
        if (fiAddr == Fi.ADDR_NOTAVAIL)
        {
            return -1;
        }
        final long a = fiAddr & addrMask;
        final long index = type == AvType.MAP ? (a - (mapBase & addrMask)) & addrMask : a;
        return index >= 0 && index < r.layout().capacity() ? index : -1;
    }

    private void checkOpen(final String call)
    {
        if (closed)
        {
            throw invalid(call, "AV is closed");
        }
    }

    private void checkWritable(final String call)
    {
        if (readOnly)
        {
            throw new FabricException(call, FiErrno.EPERM, "the AV '" + attr.name() + "' was opened read-only (FI_READ)");
        }
        if (region.writer() == null)
        {
            throw new FabricException(call, FiErrno.EBUSY, "every attacher entry of '" + attr.name() +
                "' belongs to a live process");
        }
    }

    private static FabricException invalid(final String call, final String detail)
    {
        return new FabricException(call, FiErrno.EINVAL, detail);
    }
}
