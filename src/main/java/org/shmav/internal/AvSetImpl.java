package org.shmav.internal;

import org.shmav.AvSet;
import org.shmav.AvSetAttr;
import org.shmav.FabricException;
import org.shmav.FiErrno;

/** Placeholder until AV sets land (issue "AV sets"); every call reports FI_ENOSYS. */
final class AvSetImpl implements AvSet
{
    AvSetImpl(final AddressVectorImpl av, final AvSetAttr attr)
    {
        throw new FabricException("fi_av_set", FiErrno.ENOSYS, "AV sets are not implemented yet");
    }

    @Override public void union(final AvSet src) { }
    @Override public void intersect(final AvSet src) { }
    @Override public void diff(final AvSet src) { }
    @Override public void insert(final long fiAddr) { }
    @Override public void remove(final long fiAddr) { }
    @Override public long addr() { return 0; }
    @Override public long[] members() { return new long[0]; }
    @Override public void close() { }
}
