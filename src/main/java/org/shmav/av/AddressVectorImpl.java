package org.shmav.av;

import static org.shmav.av.AvCallChecks.invalid;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvSet;
import org.shmav.AvSetAttr;
import org.shmav.AvType;
import org.shmav.EventQueue;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;
import org.shmav.shm.AvLayout;
import org.shmav.shm.SharedAvFile;
import org.shmav.slots.Region;
import org.shmav.slots.Writer;

/**
 * The {@link AddressVector} of both kinds: a private AV over a {@link Region} in process memory that
 * grows when full, and a named AV over a mapped file ({@link SharedAvFile}). The slot protocol is the
 * same; this class is the handle (open and close, references from endpoints and sets, the bound event
 * queue, count and recovery) and hands each call to the class of its concern: {@link AvCallChecks}
 * (argument rules), {@link AvInserter} (insert), {@link ServiceAddresses} (insertsvc, insertsym),
 * {@link AvLookup} (lookup and the other reads), {@link AvEntryUpdates} (remove, set_user_id),
 * {@link AvAuthKeys} (auth keys), {@link FiAddrCodec} (fi_addr values) and {@link GrowableRegion} (the
 * region, and a private AV's growth). Writers of one handle are serialised by a process-local lock;
 * readers take no lock.
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
    private final AtomicInteger refs = new AtomicInteger();
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
    private volatile boolean closed;

    private AddressVectorImpl(final DomainImpl domain, final AvAttr attr, final Object context, final Region region,
        final long mapBase, final boolean privateAv)
    {
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
        this.faults = new AvFaults(regions, privateAv ? null : new AvFileHealth(SharedAvFile.path(
            domain.attr().shmDirectory(), attr.name(), "fi_av_open"), attr.name(), region));
        final AddrFormat format = domain.attr().addrFormat();
        this.authKeys = new AvAuthKeys(this, regions, writeLock);
        this.inserter = new AvInserter(this, format, regions, codec, authKeys, writeLock);
        this.services = new ServiceAddresses(this, format);
        this.lookups = new AvLookup(this, format, regions, codec);
        this.updates = new AvEntryUpdates(this, regions, authKeys, writeLock);
    }

    /** {@code fi_av_open}: checks the attributes, then opens a private region or the named file. */
    static AddressVectorImpl open(final DomainImpl domain, final AvAttr requested, final Object context)
    {
        final AvAttr attr = AvCallChecks.resolveOpen(domain, requested);
        if (attr.name() != null)
        {
            final NamedAvOpener.Opened opened = NamedAvOpener.open(domain.attr(), attr, requested.type());
            final AddressVectorImpl av = new AddressVectorImpl(domain, opened.attr(), context, opened.region(),
                opened.mapBase(), false);
            if (opened.region().writer() != null)
            {
                LeftoverJanitor.register(av); // other processes would wait on what an Error leaves: see the janitor
            }
            return av;
        }
        final AvLayout layout = GrowableRegion.privateLayout(domain.attr(), attr);
        final long base = NamedAvOpener.generatedMapBase();
        final Region region = Region.allocatePrivate(layout, base, attr.flags() & (Fi.AV_USER_ID | Fi.SYMMETRIC),
            attr.rxCtxBits());
        return new AddressVectorImpl(domain, attr, context, region, base, true);
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
        final long capacity = (closed ? regions.current() : regions.follow("fi_av_attr")).layout().capacity();
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

    /** The context given to fi_av_open. */
    public Object context()
    {
        return context;
    }

    // ---------------------------------------------------------------- insert (AvInserter, ServiceAddresses)

    @Override
    public int insert(final ByteBuffer addrs, final int count, final long[] fiAddr, final long flags, final Object ctx)
    {
        faults.checkHealthy("fi_av_insert");
        try
        {
            return inserter.insert(addrs, count, fiAddr, flags, ctx);
        }
        catch (final InternalError | FabricException e)
        {
            throw faults.fault("fi_av_insert", e);
        }
    }

    @Override
    public int insert(final String[] addrs, final long[] fiAddr, final long flags, final Object ctx)
    {
        return faults.guarded("fi_av_insert", () -> inserter.insert(addrs, fiAddr, flags, ctx));
    }

    @Override
    public int insertSvc(final String node, final String service, final long[] fiAddr, final long flags, final Object ctx)
    {
        return services.insertSvc(node, service, fiAddr, flags, ctx);
    }

    @Override
    public int insertSym(final String node, final int nodeCnt, final String service, final int svcCnt,
        final long[] fiAddr, final long flags, final Object ctx)
    {
        return services.insertSym(node, nodeCnt, service, svcCnt, fiAddr, flags, ctx);
    }

    @Override
    public long insertAt(final long index, final ByteBuffer addr)
    {
        return faults.guarded("shmav_av_insert_at", () -> inserter.insertAt(index, addr));
    }

    // ---------------------------------------------------------------- remove, lookup (AvEntryUpdates, AvLookup)

    @Override
    public void remove(final long[] fiAddr, final int count, final long flags)
    {
        faults.checkHealthy("fi_av_remove");
        try
        {
            updates.remove(fiAddr, count, flags);
        }
        catch (final InternalError | FabricException e)
        {
            throw faults.fault("fi_av_remove", e);
        }
    }

    @Override
    public int lookup(final long fiAddr, final ByteBuffer addr)
    {
        faults.checkHealthy("fi_av_lookup");
        try
        {
            return lookups.lookup(fiAddr, addr);
        }
        catch (final InternalError | FabricException e)
        {
            throw faults.fault("fi_av_lookup", e);
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
        faults.checkHealthy("shmav_av_reverse_lookup");
        try
        {
            return lookups.reverseLookup(addr);
        }
        catch (final InternalError | FabricException e)
        {
            throw faults.fault("shmav_av_reverse_lookup", e);
        }
    }

    // ---------------------------------------------------------------- events, auth keys (AvAuthKeys), user ids

    @Override
    public void bind(final EventQueue queue, final long flags)
    {
        final EventQueueImpl checked = AvCallChecks.checkBind(this, queue, flags);
        synchronized (this)
        {
            if (eq != null)
            {
                throw invalid("fi_av_bind", "an event queue is already bound");
            }
            checked.retain();
            eq = checked;
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
        return faults.guarded("fi_av_insert_auth_key", () -> authKeys.insert(authKey, flags));
    }

    @Override
    public int lookupAuthKey(final long fiAddr, final ByteBuffer authKey)
    {
        return faults.guarded("fi_av_lookup_auth_key", () -> authKeys.lookup(fiAddr, authKey));
    }

    /** Handles of every valid auth key: what an endpoint is configured with when enabled. */
    long[] validAuthKeys()
    {
        return authKeys.validHandles();
    }

    @Override
    public void setUserId(final long fiAddr, final long userId, final long flags)
    {
        faults.guarded("fi_av_set_user_id", () -> { updates.setUserId(fiAddr, userId, flags); return null; });
    }

    @Override
    public long userId(final long fiAddr)
    {
        return faults.guarded("fi_av_user_id", () -> lookups.userId(fiAddr));
    }

    // ---------------------------------------------------------------- sets, references, lifecycle

    @Override
    public AvSet openSet(final AvSetAttr setAttr)
    {
        checkOpen("fi_av_set");
        return faults.guarded("fi_av_set", () -> new AvSetImpl(this, setAttr));
    }

    /** True when {@code fiAddr} names a valid entry now. */
    public boolean isValid(final long fiAddr)
    {
        return faults.guarded("fi_av_lookup", () -> lookups.isValid(fiAddr));
    }

    /**
     * The plain fi_addr of the entry {@code fiAddr} names (rx-context and group bits dropped), or
     * {@code fiAddr} itself when it names none: one spelling per entry, for AV sets.
     */
    public long canonical(final long fiAddr)
    {
        return faults.guarded("fi_av_lookup", () -> lookups.canonical(fiAddr));
    }

    /** The fi_addr of every valid entry, in index order. */
    public long[] validFiAddrs()
    {
        return faults.guarded("fi_av_lookup", lookups::validFiAddrs);
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
        authKeys.endpointEnabled(ep);
    }

    void endpointClosed(final EndpointImpl ep)
    {
        authKeys.endpointClosed(ep);
    }

    @Override
    public void close()
    {
        writeLock.lock();
        try
        {
            regions.startCall();
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
            LeftoverJanitor.unregister(this);
            final EventQueueImpl queue = eq;
            if (queue != null)
            {
                queue.release();
            }
            if (faults.intact("fi_close"))
            {
                regions.current().detach();
            }
            else
            {
                regions.current().file().close(); // its pages may be gone: give back nothing through them
            }
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
        return faults.guarded("shmav_av_count", () -> regions.current().table().count());
    }

    @Override
    public boolean awaitCount(final long n, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        final BackoffIdleStrategy idle = new BackoffIdleStrategy(100, 10, 1_000, 100_000);
        long count;
        while ((count = count()) < n)
        {
            if (closed)
            {
                throw invalid("shmav_av_await_count", "AV is closed");
            }
            if (System.nanoTime() - deadline >= 0)
            {
                throw new FabricException("shmav_av_await_count", FiErrno.ETIMEDOUT, "count " + count + " of " + n +
                    " after " + timeout.toMillis() + " ms" + (attr.name() != null ? " in AV '" + attr.name() + "'" : ""));
            }
            idle.idle();
        }
        return true;
    }

    /**
     * The writer's operation count while its operation mark is set (an operation runs, or one was cut
     * short and left something to give back); -1 when nothing is held. A hint for {@link LeftoverJanitor},
     * read without the lock.
     */
    long leftoverOperations()
    {
        final Writer w = regions.current().writer();
        return w != null && w.hasLeftovers() ? w.operations() : -1;
    }

    /**
     * Gives back what an operation cut short left, if the handle's lock can be taken without waiting
     * (free, or abandoned: see {@link HandleLock#tryTakeAbandoned}). True when nothing is left.
     */
    boolean giveBackLeftovers(final boolean lookAtHolder)
    {
        if (!writeLock.tryTakeAbandoned(lookAtHolder))
        {
            return false;
        }
        try
        {
            regions.startCall();
            if (closed)
            {
                return true;
            }
            final Region r = regions.follow("shmav_av_close");
            return r.writer() == null || !r.writer().hasLeftovers() || r.table().giveBackLeftovers(r.writer());
        }
        finally
        {
            writeLock.unlock();
        }
    }

    @Override
    public int recover()
    {
        checkOpen("shmav_av_recover");
        checkWritable("shmav_av_recover");
        writeLock.lock();
        try
        {
            regions.startCall();
            return faults.guarded("shmav_av_recover", () ->
            {
                final Region r = regions.follow("shmav_av_recover");
                return r.table().recoverDead() + (r.table().finishOrphanedMigration(r.writer()) ? 1 : 0);
            });
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
        return index >= 0 && index < regions.follow("fi_av_lookup").layout().capacity() ? index : -1;
    }

    boolean isClosed()
    {
        return closed;
    }

    void checkOpen(final String call)
    {
        if (closed)
        {
            throw invalid(call, "AV is closed");
        }
        faults.checkHealthy(call);
    }

    void checkWritable(final String call)
    {
        faults.probe(call);
        if (readOnly)
        {
            throw new FabricException(call, FiErrno.EPERM, "the AV '" + attr.name() + "' was opened read-only (FI_READ)");
        }
        if (regions.current().writer() == null)
        {
            throw new FabricException(call, FiErrno.EBUSY, "every attacher entry of '" + attr.name() +
                "' belongs to a live process");
        }
    }
}
