package org.shmav.av;

import org.shmav.AvAttr;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.shm.AvLayout;
import org.shmav.slots.Region;

/**
 * The region behind one AV handle: a named AV's mapped file, which never changes, or a private AV's
 * region in process memory, which {@link #grow} replaces with a larger copy when it is full (up to what
 * one region can hold). Readers take {@link #current()} without a lock (a volatile read); only a thread
 * holding the handle's write lock may grow it.
 */
final class GrowableRegion
{
    private final boolean privateAv;
    private volatile Region region;

    GrowableRegion(final Region region, final boolean privateAv)
    {
        this.region = region;
        this.privateAv = privateAv;
    }

    /**
     * The layout of a new private AV opened with {@code attr} (count 0 is {@link AddressVectorImpl#DEFAULT_COUNT});
     * FI_ENOMEM when it needs more bytes than one region can hold.
     */
    static AvLayout privateLayout(final DomainAttr domain, final AvAttr attr)
    {
        final long capacity = Math.max(attr.count() == 0 ? AddressVectorImpl.DEFAULT_COUNT : attr.count(), 1);
        final AvLayout layout = AvLayout.compute(domain.addrFormat(), attr.type(), capacity, 1,
            domain.avAuthKey() ? domain.authKeySize() : 0, domain.avAuthKey() ? AddressVectorImpl.AUTH_KEYS_CAPACITY : 0);
        if (layout.fileLength() > Integer.MAX_VALUE)
        {
            throw new FabricException("fi_av_open", FiErrno.ENOMEM, "count=" + attr.count() + " needs " +
                layout.fileLength() + " bytes, more than one region can hold");
        }
        return layout;
    }

    /** The region now; a private AV's may be replaced by the next grow. */
    Region current()
    {
        return region;
    }

    /** True for a private AV, which grows instead of reporting FI_ENOSPC. */
    boolean growable()
    {
        return privateAv;
    }

    /** Replaces the region with one of at least {@code minCapacity} entries; FI_ENOMEM (for {@code call}) past one region. */
    void grow(final long minCapacity, final String call)
    {
        final Region grown = region.grow(minCapacity);
        if (grown.layout().fileLength() > Integer.MAX_VALUE)
        {
            throw new FabricException(call, FiErrno.ENOMEM, "private AV cannot grow past " + region.layout().capacity());
        }
        region = grown;
    }
}
