package org.shmav.av;

import static org.shmav.av.AvCallChecks.invalid;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;

import org.shmav.AddrFormat;
import org.shmav.shm.AddrShape;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvSet;
import org.shmav.AvSetAttr;
import org.shmav.AvType;
import org.shmav.EventQueue;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.shm.SharedAvFile;
import org.shmav.slots.Region;

/**
 * The {@link AddressVector} of both kinds: a private AV over a {@link Region} in process memory that
 * grows when full, and a named AV over a mapped file ({@link SharedAvFile}). The slot protocol is the
 * same; this class is the handle (open and close, references from endpoints and sets, the bound event
 * queue, count and recovery) and hands each call to the class of its concern: {@link AvCallChecks}
 * (argument rules), {@link AvInserter} (insert), {@link ServiceAddresses} (insertsvc, insertsym),
 * {@link AvLookup} (lookup, count and the other reads), {@link AvEntryUpdates} (remove, set_user_id),
 * {@link AvAuthKeys} (auth keys), {@link FiAddrCodec} (fi_addr values), {@link GrowableRegion} (the
 * region, and a private AV's growth), and, for failures of this process or others, {@link AvFaults}
 * (a file cut short or replaced) and {@link AvLifecycle} (open or closed, references, leftovers of an
 * Error, recovery). Writers of one handle are serialised by a process-local lock;
 * readers take no lock. Each method that implements a call names that call in the errors it throws
 * ({@link FabricException#in}): the classes it hands the call to raise an errno and a detail only.
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
    public static final long AUTH_KEY_HANDLE_BIT = FiAddrCodec.AUTH_KEY_HANDLE_BIT;

    private final DomainImpl domain;
    private final AvAttr attr;
    private final Object context;
    private final AvType type;
    private final boolean readOnly;
    private final boolean userIdMode;
    private final HandleLock writeLock = new HandleLock();
    private final GrowableRegion regions;
    private final FiAddrCodec codec;
    private final AvAuthKeys authKeys;
    private final AvInserter inserter;
    private final ServiceAddresses services;
    private final AvLookup lookups;
    private final AvEntryUpdates updates;
    /** What {@link #attr()} last reported: {@link #attr} with a named AV's capacity at that time. */
    private volatile AvAttr reported;
    private volatile EventQueueImpl eq;
    private final AvFaults faults;
    private final AvLifecycle lifecycle;

    AddressVectorImpl(final DomainImpl domain, final AvAttr attr, final Object context, final Region region,
        final long mapBase, final Path file)
    {
        final boolean privateAv = file == null; // a named AV's file, its name checked once by the opener
        this.domain = domain;
        this.context = context;
        this.type = attr.type();
        this.readOnly = (attr.flags() & Fi.READ) != 0;
        this.userIdMode = (attr.flags() & Fi.AV_USER_ID) != 0;
        this.regions = new GrowableRegion(region, privateAv, attr.name());
        if (!attr.lowestIndex() && !privateAv && region.writer() != null)
        {
            region.writer().spreadClaims(true); // one writer entry, whatever the view: the choice carries over
        }
        this.codec = new FiAddrCodec(type, mapBase, attr.rxCtxBits(), domain.attr().maxGroupId() > 0);
        // A MAP AV reports the base its fi_addr values are built on (AddressVector: attr().mapAddr() + index),
        // a private one included; a private TABLE AV has no base to report.
        this.attr = attr.toBuilder().count(privateAv ? attr.count() : region.layout().capacity())
            .mapAddr(attr.name() == null && type != AvType.MAP ? 0 : mapBase).build();
        this.reported = this.attr;
        this.faults = new AvFaults(regions, privateAv ? null : new AvFileHealth(file, attr.name(), region));
        final AddrShape shape = AddrShape.of(domain.attr());
        this.authKeys = new AvAuthKeys(this, regions, writeLock);
        this.inserter = new AvInserter(this, shape, regions, codec, authKeys, writeLock);
        this.services = new ServiceAddresses(inserter, shape);
        this.lookups = new AvLookup(this, shape, regions, codec, faults);
        this.updates = new AvEntryUpdates(this, regions, authKeys, writeLock);
        this.lifecycle = new AvLifecycle(this, regions, writeLock, faults, readOnly, attr.name());
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
        if (regions.growable())
        {
            return attr;
        }
        // a named AV's capacity is what it is now, grown by any process; a closed handle keeps its last view
        final long capacity;
        try
        {
            capacity = lifecycle.isClosed() ? regions.capacity() : regions.follow().layout().capacity();
        }
        catch (final FabricException e)
        {
            throw e.in("fi_av_attr");
        }
        AvAttr r = reported;
        if (r.count() != capacity)
        {
            r = attr.toBuilder().count(capacity).build();
            reported = r;
        }
        return r;
    }

    @Override
    public AddrFormat addrFormat()
    {
        return domain.attr().addrFormat();
    }

    @Override
    public int addrLen()
    {
        return domain.attr().addrLen();
    }

    @Override
    public boolean varyingAddrLen()
    {
        return domain.attr().varyingAddrLen();
    }

    /** The context given to fi_av_open. */
    public Object context()
    {
        return context;
    }

    // ---------------------------------------------------------------- insert (AvInserter, ServiceAddresses)

    @Override
    public int insert(final ByteBuffer addrs, final int count, final long[] fiAddr, final long flags, final Object ctx)
    {
        try
        {
            faults.checkHealthy();
            return inserter.insert(addrs, count, fiAddr, flags, ctx);
        }
        catch (final InternalError | FabricException e)
        {
            throw faults.fault(e).in("fi_av_insert");
        }
    }

    @Override
    public int insert(final String[] addrs, final long[] fiAddr, final long flags, final Object ctx)
    {
        try
        {
            faults.checkHealthy();
            return inserter.insert(addrs, fiAddr, flags, ctx);
        }
        catch (final InternalError | FabricException e)
        {
            throw faults.fault(e).in("fi_av_insert");
        }
    }

    @Override
    public int insertSvc(final String node, final String service, final long[] fiAddr, final long flags, final Object ctx)
    {
        try
        {
            faults.checkHealthy();
            return services.insertSvc(node, service, fiAddr, flags, ctx);
        }
        catch (final InternalError | FabricException e)
        {
            throw faults.fault(e).in("fi_av_insertsvc");
        }
    }

    @Override
    public int insertSym(final String node, final int nodeCnt, final String service, final int svcCnt,
        final long[] fiAddr, final long flags, final Object ctx)
    {
        try
        {
            faults.checkHealthy();
            return services.insertSym(node, nodeCnt, service, svcCnt, fiAddr, flags, ctx);
        }
        catch (final InternalError | FabricException e)
        {
            throw faults.fault(e).in("fi_av_insertsym");
        }
    }

    @Override
    public long insertAt(final long index, final ByteBuffer addr)
    {
        try
        {
            faults.checkHealthy();
            return inserter.insertAt(index, addr);
        }
        catch (final InternalError | FabricException e)
        {
            throw faults.fault(e).in("shmav_av_insert_at");
        }
    }

    // ---------------------------------------------------------------- remove, lookup (AvEntryUpdates, AvLookup)

    @Override
    public void remove(final long[] fiAddr, final int count, final long flags)
    {
        try
        {
            faults.checkHealthy();
            updates.remove(fiAddr, count, flags);
        }
        catch (final InternalError | FabricException e)
        {
            throw faults.fault(e).in("fi_av_remove");
        }
    }

    @Override
    public int lookup(final long fiAddr, final ByteBuffer addr)
    {
        try
        {
            return lookups.lookup(fiAddr, addr); // its checked path checks the file's health
        }
        catch (final InternalError | FabricException e)
        {
            throw faults.fault(e).in("fi_av_lookup");
        }
    }

    @Override
    public String lookupString(final long fiAddr)
    {
        return lookups.lookupString(fiAddr);
    }

    @Override
    public String straddr(final ByteBuffer addr)
    {
        return lookups.straddr(addr);
    }

    @Override
    public long reverseLookup(final ByteBuffer addr)
    {
        try
        {
            faults.checkHealthy();
            return lookups.reverseLookup(addr);
        }
        catch (final InternalError | FabricException e)
        {
            throw faults.fault(e).in("shmav_av_reverse_lookup");
        }
    }

    // ---------------------------------------------------------------- events, auth keys (AvAuthKeys), user ids

    @Override
    public void bind(final EventQueue queue, final long flags)
    {
        try
        {
            final EventQueueImpl checked = AvCallChecks.checkBind(this, queue, flags);
            synchronized (this)
            {
                if (eq != null)
                {
                    throw invalid("an event queue is already bound");
                }
                checked.retain();
                eq = checked;
            }
        }
        catch (final FabricException e)
        {
            throw e.in("fi_av_bind");
        }
    }

    /** The bound event queue, or null. */
    EventQueueImpl boundEq()
    {
        return eq;
    }

    @Override
    public long insertAuthKey(final ByteBuffer authKey, final long flags)
    {
        try
        {
            faults.checkHealthy();
            return authKeys.insert(authKey, flags);
        }
        catch (final InternalError | FabricException e)
        {
            throw faults.fault(e).in("fi_av_insert_auth_key");
        }
    }

    @Override
    public int lookupAuthKey(final long fiAddr, final ByteBuffer authKey)
    {
        try
        {
            faults.checkHealthy();
            return authKeys.lookup(fiAddr, authKey);
        }
        catch (final InternalError | FabricException e)
        {
            throw faults.fault(e).in("fi_av_lookup_auth_key");
        }
    }

    /** Handles of every valid auth key: what an endpoint is configured with when enabled. */
    long[] validAuthKeys()
    {
        return authKeys.validHandles();
    }

    @Override
    public void setUserId(final long fiAddr, final long userId, final long flags)
    {
        try
        {
            faults.checkHealthy();
            updates.setUserId(fiAddr, userId, flags);
        }
        catch (final InternalError | FabricException e)
        {
            throw faults.fault(e).in("fi_av_set_user_id");
        }
    }

    @Override
    public long userId(final long fiAddr)
    {
        try
        {
            faults.checkHealthy();
            return lookups.userId(fiAddr);
        }
        catch (final InternalError | FabricException e)
        {
            throw faults.fault(e).in("fi_av_user_id");
        }
    }

    // ---------------------------------------------------------------- sets, references, lifecycle

    @Override
    public AvSet openSet(final AvSetAttr setAttr)
    {
        try
        {
            checkOpen();
            return new AvSetImpl(this, setAttr);
        }
        catch (final InternalError | FabricException e)
        {
            throw faults.fault(e).in("fi_av_set");
        }
    }

    /** True when {@code fiAddr} names a valid entry now. */
    public boolean isValid(final long fiAddr)
    {
        return faults.guarded(() -> lookups.isValid(fiAddr));
    }

    /**
     * The plain fi_addr of the entry {@code fiAddr} names (rx-context and group bits dropped), or
     * {@code fiAddr} itself when it names none: one spelling per entry, for AV sets.
     */
    public long canonical(final long fiAddr)
    {
        return faults.guarded(() -> lookups.canonical(fiAddr));
    }

    /** The fi_addr of every valid entry, in index order. */
    public long[] validFiAddrs()
    {
        return faults.guarded(lookups::validFiAddrs);
    }

    /** Takes a reference that makes {@link #close()} fail with FI_EBUSY until released. */
    void retain()
    {
        lifecycle.retain();
    }

    void release()
    {
        lifecycle.release();
    }

    void endpointEnabled(final EndpointImpl ep)
    {
        authKeys.endpointEnabled(ep);
    }

    void endpointClosed(final EndpointImpl ep)
    {
        authKeys.endpointClosed(ep);
    }

    @Override
    public void close()
    {
        try
        {
            if (lifecycle.close(eq))
            {
                domain.forget(this);
            }
        }
        catch (final FabricException e)
        {
            throw e.in("fi_close");
        }
    }

    @Override
    public long count()
    {
        try
        {
            return lookups.count();
        }
        catch (final InternalError | FabricException e)
        {
            throw faults.fault(e).in("shmav_av_count");
        }
    }

    @Override
    public boolean awaitCount(final long n, final Duration timeout)
    {
        try
        {
            return lookups.awaitCount(n, timeout);
        }
        catch (final InternalError | FabricException e)
        {
            throw faults.fault(e).in("shmav_av_await_count");
        }
    }

    /** See {@link AvLifecycle#leftoverOperations}. */
    long leftoverOperations()
    {
        return lifecycle.leftoverOperations();
    }

    /** See {@link AvLifecycle#giveBackLeftovers}. */
    boolean giveBackLeftovers(final boolean lookAtHolder)
    {
        return lifecycle.giveBackLeftovers(lookAtHolder);
    }

    @Override
    public int recover()
    {
        try
        {
            return lifecycle.recover();
        }
        catch (final FabricException e)
        {
            throw e.in("shmav_av_recover");
        }
    }

    @Override
    public boolean isReadOnly()
    {
        return readOnly;
    }

    // ---------------------------------------------------------------- for the classes of each concern

    /** The region behind this handle, for tools and tests in this package. */
    Region region()
    {
        return regions.current();
    }

    /** FI_EVENT: inserts complete through the bound event queue (a field: checked on every insert). */
    boolean eventMode()
    {
        return (attr.flags() & Fi.EVENT) != 0;
    }

    boolean userIdMode()
    {
        return userIdMode;
    }

    /**
     * The slot index {@code fiAddr} names now, or -1 (see {@link FiAddrCodec#indexOf}); an index past
     * this handle's view of a named AV maps the segments other processes added first.
     */
    long indexOf(final long fiAddr)
    {
        final long index = codec.indexOf(fiAddr);
        return index >= 0 && index < regions.current().layout().capacity() ? index : followingIndex(index);
    }

    /** {@code index}, when the AV grew to hold it since this handle's view was taken; else -1. */
    long followingIndex(final long index)
    {
        return index >= 0 && index < regions.follow().layout().capacity() ? index : -1;
    }

    boolean isClosed()
    {
        return lifecycle.isClosed();
    }

    void checkOpen()
    {
        lifecycle.checkOpen();
    }

    void checkWritable()
    {
        lifecycle.checkWritable();
    }
}
