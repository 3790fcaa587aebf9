package org.shmav.av;

import static org.shmav.av.AvCallChecks.invalid;

import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;
import org.shmav.slots.Region;
import org.shmav.slots.SlotTable;

/**
 * The calls that change entries already in one AV handle: fi_av_remove (of entries, or with FI_AUTH_KEY of
 * auth keys), which removes every valid one and then reports the others, and fi_av_set_user_id. Removal
 * runs under the handle's write lock, so safe for use by many threads.
 */
final class AvEntryUpdates
{
    private final AddressVectorImpl av;
    private final GrowableRegion regions;
    private final AvAuthKeys authKeys;
    private final HandleLock writeLock;

    AvEntryUpdates(final AddressVectorImpl av, final GrowableRegion regions, final AvAuthKeys authKeys,
        final HandleLock writeLock)
    {
        this.av = av;
        this.regions = regions;
        this.authKeys = authKeys;
        this.writeLock = writeLock;
    }

    /** {@code fi_av_remove}: FI_EBUSY for auth keys in use, else FI_EINVAL naming the first bad fi_addr. */
    void remove(final long[] fiAddr, final int count, final long flags)
    {
        av.checkOpen();
        av.checkWritable();
        AvCallChecks.checkRemove(fiAddr, count, flags);
        int invalid = 0;
        int busy = 0;
        int again = 0;
        long firstBad = 0;
        writeLock.lock();
        try
        {
            regions.startCall();
            for (int i = 0; i < count; i++)
            {
                final int result;
                if ((flags & Fi.AUTH_KEY) != 0)
                {
                    result = authKeys.remove(fiAddr[i]);
                }
                else
                {
                    final long index = av.indexOf(fiAddr[i]);
                    result = index < 0 ? -FiErrno.EINVAL : removeEntry(index);
                }
                if (result == -FiErrno.EBUSY)
                {
                    busy++;
                }
                else if (result == -FiErrno.EAGAIN)
                {
                    again++;
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
            throw new FabricException(FiErrno.EBUSY, busy + " auth key(s) are in use by enabled " +
                "endpoints: close them first");
        }
        if (again > 0)
        {
            throw new FabricException(FiErrno.EAGAIN, again + " of " + count + " fi_addr values were " +
                "not removed: another live process kept the index busy past the call's deadline (stopped, or very " +
                "slow)" + (invalid > 0 ? "; " + invalid + " were unset, removed or out of range" : "") +
                "; the others were removed: remove those again");
        }
        if (invalid > 0)
        {
            throw invalid(invalid + " of " + count + " fi_addr values were unset, removed or out of " +
                "range (first: 0x" + Long.toHexString(firstBad) + "); the others were removed");
        }
    }

    /** One reference on slot {@code index} dropped, in the view of the AV that holds it. Under the write lock. */
    private int removeEntry(final long index)
    {
        while (true)
        {
            final Region r = regions.current();
            final int result = r.table().remove(r.writer(), index);
            if (result != SlotTable.STALE_VIEW)
            {
                return result;
            }
            regions.follow();
        }
    }

    private int setEntryUserId(final long index, final long userId)
    {
        writeLock.lock();
        try
        {
            regions.startCall();
            while (true)
            {
                final Region region = regions.current();
                final int result = region.table().setUserId(region.writer(), index, userId);
                if (result != SlotTable.STALE_VIEW)
                {
                    return result;
                }
                regions.follow();
            }
        }
        finally
        {
            writeLock.unlock();
        }
    }

    /** {@code fi_av_set_user_id} of an entry, or with FI_AUTH_KEY of an auth key. */
    void setUserId(final long fiAddr, final long userId, final long flags)
    {
        av.checkOpen();
        av.checkWritable();
        AvCallChecks.checkSetUserId(av.userIdMode(), flags);
        final int result;
        if ((flags & Fi.AUTH_KEY) != 0)
        {
            result = authKeys.setUserId(fiAddr, userId) ? 0 : -FiErrno.EINVAL;
        }
        else
        {
            final long index = av.indexOf(fiAddr);
            result = index < 0 ? -FiErrno.EINVAL : setEntryUserId(index, userId);
        }
        if (result == -FiErrno.EOVERFLOW)
        {
            throw new FabricException(FiErrno.EOVERFLOW,
                "the entry holds every reference it can; remove it once first");
        }
        if (result != 0)
        {
            throw invalid("0x" + Long.toHexString(fiAddr) + " is not a valid " +
                ((flags & Fi.AUTH_KEY) != 0 ? "auth-key handle" : "fi_addr"));
        }
    }
}
