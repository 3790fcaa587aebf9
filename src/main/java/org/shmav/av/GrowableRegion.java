package org.shmav.av;

import org.shmav.AvAttr;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.shm.AddrShape;
import org.shmav.shm.AvLayout;
import org.shmav.slots.Region;
import org.shmav.slots.Writer;

/**
 * The region behind one AV handle, as this handle sees it now: a private AV's region in process memory,
 * which {@link #grow} replaces with a larger copy when it is full (up to what one region can hold), or a
 * view of a named AV's file, which {@link #growShared} replaces with a view holding one more segment and
 * {@link #follow} with the view of segments other processes added. Readers take {@link #current()}
 * without a lock (a volatile read), and {@link #follow} only when they meet an index or an answer
 * beyond it; only a thread holding the handle's write lock may grow it.
 */
final class GrowableRegion
{
    private final boolean privateAv;
    private final String name;
    private volatile Region region;

    GrowableRegion(final Region region, final boolean privateAv, final String name)
    {
        this.region = region;
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
        final Writer w = region.writer();
        if (w != null)
        {
            region.table().endRun(w); // one that an Error kept the last call from ending
            w.startCall();
        }
    }

    /** Ends an insert call: gives back the slots of its run that it did not use. */
    void endCall()
    {
        final Region r = region;
        if (r.writer() != null)
        {
            r.table().endRun(r.writer());
        }
    }

    /** The region now; a private AV's may be replaced by the next grow. */
    Region current()
    {
        return region;
    }

    /**
     * The current view, after mapping the segments other processes published since it was taken (a
     * named AV that grew); the same region when nothing changed. Cheap when nothing did: one read of
     * the header's segment count.
     */
    Region follow()
    {
        final Region r = region;
        return privateAv || !r.table().stale() ? r : followSlowly();
    }

    private synchronized Region followSlowly()
    {
        final Region r = region.follow(name);
        region = r;
        return r;
    }

    /**
     * Grows a named AV by one segment, or follows another process's growth, under the handle's write
     * lock. FabricException FI_ENOSPC at its maximum or on a full file system, FI_EAGAIN when another
     * process kept the growth from finishing.
     */
    synchronized Region growShared()
    {
        final Region r = region.grow(name);
        region = r;
        return r;
    }

    /** True for a private AV, which grows instead of reporting FI_ENOSPC. */
    boolean growable()
    {
        return privateAv;
    }

    /** Replaces the region with one of at least {@code minCapacity} entries; FI_ENOMEM past one region. */
    void grow(final long minCapacity)
    {
        final Region grown = region.grow(minCapacity);
        if (grown.layout().fileLength() > Integer.MAX_VALUE)
        {
            throw new FabricException(FiErrno.ENOMEM, "private AV cannot grow past " + region.layout().capacity());
        }
        region = grown;
    }
}
