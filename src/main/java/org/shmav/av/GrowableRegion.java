package org.shmav.av;

import static org.shmav.av.AvCallChecks.invalid;

import org.shmav.AvAttr;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.shm.AddrShape;
import org.shmav.shm.AvLayout;
import org.shmav.slots.Region;
import org.shmav.slots.SlotView;
import org.shmav.slots.Writer;

/**
 * The region behind one AV handle, as this handle sees it now: a private AV's region in process memory,
 * which {@link #grow} replaces with a larger copy when it is full (up to what one region can hold), or a
 * view of a named AV's file, which {@link #growShared} replaces with a view holding one more segment and
 * {@link #follow} with the view of segments other processes added. Readers take {@link #current()}
 * without a lock (a volatile read), and {@link #follow} only when they meet an index or an answer
 * beyond it; only a thread holding the handle's write lock may grow it.
 *
 * <p>Beside the region it keeps the lookups' view of it ({@link #lookupView}), replaced with the region and
 * by {@link SlotView#NONE} for good once the handle closes or finds its file broken: a lookup then needs
 * no check of its own on its fast path (see {@link AvLookup#lookup}).
 */
final class GrowableRegion
{
    private final boolean privateAv;
    private final String name;
    /** Null once {@link #release}d at close. */
    private volatile Region region;
    private volatile SlotView lookupView;
    /** Set once lookups must take their checked path for good. */
    private volatile boolean lookupsStopped;
    /** The capacity of the last region, once released. */
    private volatile long releasedCapacity;

    GrowableRegion(final Region region, final boolean privateAv, final String name)
    {
        this.region = region;
        this.lookupView = region.table().view();
        this.privateAv = privateAv;
        this.name = name;
    }

    /**
     * The layout of a new private AV opened with {@code attr} (count 0 is {@link AddressVectorImpl#DEFAULT_COUNT});
     * FI_ENOMEM when it needs more bytes than one region can hold.
     */
    static AvLayout privateLayout(final DomainAttr domain, final AvAttr attr)
    {
        final long capacity = Math.max(attr.count() == 0 ? AddressVectorImpl.DEFAULT_COUNT : attr.count(), 1);
        final AvLayout layout = AvLayout.compute(AddrShape.of(domain), attr.type(), capacity, 1,
            domain.avAuthKey() ? domain.authKeySize() : 0, domain.avAuthKey() ? AddressVectorImpl.AUTH_KEYS_CAPACITY : 0);
        if (layout.fileLength() > Integer.MAX_VALUE)
        {
            throw new FabricException(FiErrno.ENOMEM, "count=" + attr.count() + " needs " +
                layout.fileLength() + " bytes, more than one region can hold");
        }
        return layout;
    }

    /**
     * Starts an API call on this handle, under its write lock: the waits the call meets on other
     * processes share one deadline (see {@link org.shmav.slots.Writer#startCall}).
     */
    void startCall()
    {
        final Region r = region;
        final Writer w = r == null ? null : r.writer(); // released: the call's own closed check fails it
        if (w != null)
        {
            r.table().endRun(w); // one that an Error kept the last call from ending
            w.startCall();
        }
    }

    /** Ends an insert call: gives back the slots of its run that it did not use. */
    void endCall()
    {
        final Region r = region;
        if (r != null && r.writer() != null)
        {
            r.table().endRun(r.writer());
        }
    }

    /**
     * The region now; a private AV's may be replaced by the next grow. FI_EINVAL "AV is closed" once
     * released: a call that raced with the close fails as one made after it.
     */
    Region current()
    {
        final Region r = region;
        if (r == null)
        {
            throw invalid("AV is closed");
        }
        return r;
    }

    /** {@link #current()}, or null once released (for hints read without the handle's lock). */
    Region currentOrNull()
    {
        return region;
    }

    /** The capacity of the region now, or of the last one once released (fi_av_attr of a closed handle). */
    long capacity()
    {
        final Region r = region;
        return r != null ? r.layout().capacity() : releasedCapacity;
    }

    /**
     * The view of {@link #current()} for lookups, or {@link SlotView#NONE} (no slots) once {@link #stopLookups}
     * ran; a view's slots are read without further checks, as the handle was open when it was taken.
     */
    SlotView lookupView()
    {
        return lookupView;
    }

    /**
     * At close, or once the file is found broken (by any thread, without waiting for a growth under way):
     * every later lookup takes the checked path, which fails.
     */
    void stopLookups()
    {
        lookupsStopped = true;
        lookupView = SlotView.NONE;
    }

    /**
     * The one place the region changes, and its lookup view with it. A {@link #stopLookups} racing with it
     * still wins: this writes the view before it reads the flag, and that sets the flag before it writes
     * NONE, so one of the two writes NONE last.
     */
    private Region replace(final Region r)
    {
        region = r;
        lookupView = r.table().view();
        if (lookupsStopped)
        {
            lookupView = SlotView.NONE;
        }
        return r;
    }

    /**
     * The current view, after mapping the segments other processes published since it was taken (a
     * named AV that grew); the same region when nothing changed. Cheap when nothing did: one read of
     * the header's segment count.
     */
    Region follow()
    {
        final Region r = current();
        return privateAv || !r.table().stale() ? r : followSlowly();
    }

    private synchronized Region followSlowly()
    {
        return replace(current().follow(name));
    }

    /**
     * At close, after the handle detached: drops the region, so that a closed handle its user still holds
     * does not hold the mapping too (the pages of a removed file stay allocated while mapped; the mapping
     * goes when the collector finds it unreachable). Under the handle's write lock, as growths are, and
     * synchronized with {@link #followSlowly}, which readers call without that lock: nothing replaces the
     * region after it.
     */
    synchronized void release()
    {
        stopLookups();
        final Region r = region;
        if (r != null)
        {
            releasedCapacity = r.layout().capacity();
            region = null;
        }
    }

    /**
     * Grows a named AV by one segment, or follows another process's growth, under the handle's write
     * lock. FabricException FI_ENOSPC at its maximum or on a full file system, FI_EAGAIN when another
     * process kept the growth from finishing.
     */
    synchronized Region growShared()
    {
        return replace(current().grow(name));
    }

    /** True for a private AV, which grows instead of reporting FI_ENOSPC. */
    boolean growable()
    {
        return privateAv;
    }

    /** Replaces the region with one of at least {@code minCapacity} entries; FI_ENOMEM past one region. */
    void grow(final long minCapacity)
    {
        final Region r = current();
        final Region grown = r.grow(minCapacity);
        if (grown.layout().fileLength() > Integer.MAX_VALUE)
        {
            throw new FabricException(FiErrno.ENOMEM, "private AV cannot grow past " + r.layout().capacity());
        }
        replace(grown);
    }
}
