package org.shmav.av;

import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.EventQueue;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;
import org.shmav.shm.AvFileDescriptor;

/**
 * libfabric's whole-call argument rules for the AV calls (fi_av_open attributes, flags of fi_av_insert,
 * fi_av_remove, fi_av_bind, fi_av_set_user_id), each broken rule a {@link FabricException} with
 * FI_EINVAL, FI_EBADFLAGS or FI_ENOEQ and a message naming the argument. Stateless, so safe for use by
 * many threads; the checks that read a handle's state read it as the call would.
 */
final class AvCallChecks
{
    private static final long OPEN_FLAGS = Fi.READ | Fi.EVENT | Fi.SYMMETRIC | Fi.AV_USER_ID;
    private static final long INSERT_FLAGS = Fi.MORE | Fi.SYNC_ERR | Fi.AV_USER_ID | Fi.AUTH_KEY;

    private AvCallChecks()
    {
    }

    /** The fi_av_open attribute rules (fi_av(3), as libfabric applies them); returns the attributes with the type resolved. */
    static AvAttr resolveOpen(final DomainImpl domain, final AvAttr attr)
    {
        if (attr == null)
        {
            throw invalid("attr is null");
        }
        if (attr.type() == null)
        {
            throw invalid("type is null: use UNSPEC, MAP or TABLE");
        }
        final AvType domainType = domain.attr().avType();
        if (attr.type() != AvType.UNSPEC && domainType != AvType.UNSPEC && attr.type() != domainType)
        {
            throw invalid("type=" + attr.type().fiName() + " differs from the domain's av_type=" +
                domainType.fiName());
        }
        checkOpenFlags(attr);
        checkOpenSizes(attr);
        AvType type = attr.type();
        if (type == AvType.UNSPEC)
        {
            type = domainType == AvType.UNSPEC ? AvType.TABLE : domainType;
        }
        return attr.toBuilder().type(type).build();
    }

    private static void checkOpenFlags(final AvAttr attr)
    {
        if ((attr.flags() & ~OPEN_FLAGS) != 0)
        {
            throw invalid("unknown flags 0x" + Long.toHexString(attr.flags() & ~OPEN_FLAGS) +
                ": allowed are FI_READ, FI_EVENT, FI_SYMMETRIC, FI_AV_USER_ID");
        }
        if ((attr.flags() & Fi.READ) != 0 && attr.name() == null)
        {
            throw invalid("FI_READ needs a name: a read-only AV must be a named AV that exists");
        }
        if ((attr.flags() & Fi.AV_USER_ID) != 0 && (attr.flags() & Fi.SYMMETRIC) != 0)
        {
            throw invalid("FI_AV_USER_ID cannot be combined with FI_SYMMETRIC");
        }
    }

    private static void checkOpenSizes(final AvAttr attr)
    {
        if (attr.rxCtxBits() < 0 || attr.rxCtxBits() > AddressVectorImpl.MAX_RX_CTX_BITS)
        {
            throw invalid("rxCtxBits=" + attr.rxCtxBits() + " must be 0.." + AddressVectorImpl.MAX_RX_CTX_BITS);
        }
        if (attr.count() < 0)
        {
            throw invalid("count=" + attr.count() + " is negative: use 0 (the default) or a positive count");
        }
        // A named AV's limit is its file's (NamedAvSize names the largest count that fits); only a private AV
        // is bounded by the slot limit itself.
        if (attr.name() == null && attr.count() > AvFileDescriptor.MAX_CAPACITY)
        {
            throw invalid("count=" + attr.count() + " is more than a private AV can hold: at most " +
                AvFileDescriptor.MAX_CAPACITY + " entries; use a count up to that");
        }
        if (attr.name() != null && (attr.mapAddr() < 0 || attr.mapAddr() > FiAddrCodec.MAX_MAP_BASE))
        {
            throw invalid("mapAddr=0x" + Long.toHexString(attr.mapAddr()) + " leaves the AV's fi_addr values no room " +
                "below bit 62 (auth-key handles, FI_ADDR_NOTAVAIL): use 0 (the AV's stored base) or a base up to 0x" +
                Long.toHexString(FiAddrCodec.MAX_MAP_BASE));
        }
        if (attr.epPerNode() < 0)
        {
            throw invalid("epPerNode=" + attr.epPerNode() + " must be >= 0");
        }
    }

    /** Whole-call checks of every insert variant; returns the FI_SYNC_ERR array (zeroed) or null. */
    static int[] checkInsert(final AddressVectorImpl av, final int count, final long[] fiAddr,
        final long flags, final Object ctx)
    {
        av.checkOpen();
        av.checkWritable();
        if (av.eventMode() && av.boundEq() == null)
        {
            throw new FabricException(FiErrno.ENOEQ, "the AV was opened with FI_EVENT: bind an event queue first");
        }
        if ((flags & ~INSERT_FLAGS) != 0)
        {
            throw new FabricException(FiErrno.EBADFLAGS, "flags 0x" + Long.toHexString(flags & ~INSERT_FLAGS) +
                " are not supported: use FI_MORE, FI_SYNC_ERR, FI_AV_USER_ID, FI_AUTH_KEY");
        }
        if ((flags & Fi.SYNC_ERR) != 0 && av.boundEq() != null)
        {
            throw new FabricException(FiErrno.EBADFLAGS, "FI_SYNC_ERR applies to synchronous inserts only (FI_EVENT is set)");
        }
        if (count < 0)
        {
            throw invalid("count=" + count + " must be >= 0");
        }
        if (fiAddr != null && fiAddr.length < count)
        {
            throw invalid("fiAddr has " + fiAddr.length + " elements, fewer than count=" + count);
        }
        checkInsertPerAddressFlags(av, fiAddr, flags);
        return (flags & Fi.SYNC_ERR) == 0 ? null : syncErrArray(count, ctx);
    }

    /** FI_AV_USER_ID and FI_AUTH_KEY on an insert: both take their per-address values from fiAddr. */
    private static void checkInsertPerAddressFlags(final AddressVectorImpl av, final long[] fiAddr,
        final long flags)
    {
        final boolean avAuthKey = av.domain().attr().avAuthKey();
        if ((flags & Fi.AV_USER_ID) != 0)
        {
            if (av.userIdMode() || avAuthKey)
            {
                throw invalid("per-insert FI_AV_USER_ID is not allowed on an AV opened with FI_AV_USER_ID " +
                    "or a domain with avAuthKey: use setUserId");
            }
            if (fiAddr == null)
            {
                throw invalid("FI_AV_USER_ID needs fiAddr carrying the user ids");
            }
        }
        if ((flags & Fi.AUTH_KEY) != 0)
        {
            if (!avAuthKey)
            {
                throw invalid("FI_AUTH_KEY needs a domain opened with avAuthKey");
            }
            if (fiAddr == null || (flags & Fi.AV_USER_ID) != 0)
            {
                throw invalid("FI_AUTH_KEY needs fiAddr carrying the auth-key handles (and no FI_AV_USER_ID)");
            }
        }
    }

    /** The FI_SYNC_ERR context: an int[] of at least {@code count} elements, its first {@code count} zeroed. */
    private static int[] syncErrArray(final int count, final Object ctx)
    {
        if (!(ctx instanceof int[]) || ((int[])ctx).length < count)
        {
            throw invalid("FI_SYNC_ERR needs an int[] context of at least count=" + count + " elements");
        }
        final int[] syncErr = (int[])ctx;
        java.util.Arrays.fill(syncErr, 0, count, 0);
        return syncErr;
    }

    /** fi_av_bind's rules up to "already bound", which the caller checks under its monitor. */
    static EventQueueImpl checkBind(final AddressVectorImpl av, final EventQueue queue, final long flags)
    {
        av.checkOpen();
        if (flags != 0)
        {
            throw invalid("flags=0x" + Long.toHexString(flags) + " must be 0");
        }
        if (!(queue instanceof EventQueueImpl) || ((EventQueueImpl)queue).domain() != av.domain() ||
            ((EventQueueImpl)queue).isClosed())
        {
            throw invalid("not an open event queue of this AV's domain");
        }
        if (!av.eventMode())
        {
            throw invalid("the AV was not opened with FI_EVENT");
        }
        return (EventQueueImpl)queue;
    }

    /** fi_av_remove's argument rules, checked after the handle is known open and writable. */
    static void checkRemove(final long[] fiAddr, final int count, final long flags)
    {
        if ((flags & ~Fi.AUTH_KEY) != 0)
        {
            throw invalid("flags 0x" + Long.toHexString(flags) + ": only FI_AUTH_KEY is allowed");
        }
        if (fiAddr == null || count < 0 || count > fiAddr.length)
        {
            throw invalid("fiAddr must hold count=" + count + " elements");
        }
    }

    /** fi_av_set_user_id's rules, checked after the handle is known open and writable. */
    static void checkSetUserId(final boolean userIdMode, final long flags)
    {
        if (!userIdMode)
        {
            throw invalid("the AV was not opened with FI_AV_USER_ID");
        }
        if ((flags & ~Fi.AUTH_KEY) != 0)
        {
            throw invalid("flags 0x" + Long.toHexString(flags) + ": only FI_AUTH_KEY is allowed");
        }
    }

    /** An FI_EINVAL failure; the call that reached the check adds its name ({@link FabricException#in}). */
    static FabricException invalid(final String detail)
    {
        return new FabricException(FiErrno.EINVAL, detail);
    }
}
