package org.shmav.av;

import static org.shmav.av.AvCallChecks.invalid;

import java.util.concurrent.atomic.AtomicInteger;

import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.slots.Region;
import org.shmav.slots.Writer;

/**
 * The lifecycle and fault handling of one AV handle, beside its calls ({@link AddressVectorImpl}):
 * whether it may be used (open, its file intact, writable), the references endpoints and sets hold
 * on it, its close, and what it does when an operation of its own process was cut short (an Error
 * left a claim, a removal or a lock behind: {@link LeftoverJanitor} has it given back) or other
 * processes died ({@code recover}). Changes are serialised with the handle's calls by its lock;
 * the checks read a volatile flag.
 */
final class AvLifecycle
{
    private final AddressVectorImpl av;
    private final GrowableRegion regions;
    private final HandleLock writeLock;
    private final AvFaults faults;
    private final boolean readOnly;
    private final String name;
    private final AtomicInteger refs = new AtomicInteger();
    private volatile boolean closed;

    AvLifecycle(final AddressVectorImpl av, final GrowableRegion regions, final HandleLock writeLock, final AvFaults faults,
        final boolean readOnly, final String name)
    {
        this.av = av;
        this.regions = regions;
        this.writeLock = writeLock;
        this.faults = faults;
        this.readOnly = readOnly;
        this.name = name;
    }

    boolean isClosed()
    {
        return closed;
    }

    /** FI_EINVAL once closed; FI_EIO once the file was found truncated or replaced. */
    void checkOpen()
    {
        if (closed)
        {
            throw invalid("AV is closed");
        }
        faults.checkHealthy();
    }

    /** FI_EPERM for a read-only handle; FI_EBUSY when it got no attacher entry. */
    void checkWritable()
    {
        faults.probe();
        if (readOnly)
        {
            throw new FabricException(FiErrno.EPERM, "the AV '" + name + "' was opened read-only (FI_READ)");
        }
        if (regions.current().writer() == null)
        {
            throw new FabricException(FiErrno.EBUSY, "every attacher entry of '" + name +
                "' belongs to a live process");
        }
    }

    /** Takes a reference that makes {@link #close} fail with FI_EBUSY until released. */
    void retain()
    {
        checkOpen();
        refs.incrementAndGet();
    }

    void release()
    {
        refs.decrementAndGet();
    }

    /**
     * {@code fi_close}: FI_EBUSY while endpoints or sets reference the handle; else releases its event
     * queue and lets go of its region, once. False when it was closed already.
     */
    boolean close(final EventQueueImpl eq)
    {
        writeLock.lock();
        try
        {
            regions.startCall();
            if (closed)
            {
                return false;
            }
            if (refs.get() > 0)
            {
                throw new FabricException("fi_close", FiErrno.EBUSY, refs.get() +
                    " endpoint(s) or AV set(s) still reference the AV: close them first");
            }
            closed = true;
            regions.stopLookups(); // lookups check closed on their checked path only
            LeftoverJanitor.unregister(av);
            if (eq != null)
            {
                eq.release();
            }
            try
            {
                letGo();
            }
            finally
            {
                regions.release(); // a closed handle its user still holds keeps no mapping
            }
            return true;
        }
        finally
        {
            writeLock.unlock();
        }
    }

    /**
     * The writer's operation count while its operation mark is set (an operation runs, or one was cut
     * short and left something to give back); -1 when nothing is held. A hint for {@link LeftoverJanitor},
     * read without the lock.
     */
    long leftoverOperations()
    {
        final Region r = regions.currentOrNull();
        final Writer w = r == null ? null : r.writer();
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
            final Region r = regions.follow();
            return r.writer() == null || !r.writer().hasLeftovers() || r.table().giveBackLeftovers(r.writer());
        }
        finally
        {
            writeLock.unlock();
        }
    }

    /** {@code AddressVector.recover}: recovers dead writers' entries, repairs slots held by no writer, finishes an orphaned migration. */
    int recover()
    {
        checkOpen();
        checkWritable();
        writeLock.lock();
        try
        {
            regions.startCall();
            return faults.guarded(() ->
            {
                final Region r = regions.follow();
                return r.table().recoverDead() + r.table().repairOrphans() +
                    (r.table().finishOrphanedMigration(r.writer()) ? 1 : 0);
            });
        }
        finally
        {
            writeLock.unlock();
        }
    }

    /**
     * At close (under the handle's lock): detaches from the region, giving back its attacher entry; a
     * file found truncated or replaced is only closed, since its pages may be gone.
     */
    private void letGo()
    {
        if (faults.intact())
        {
            regions.current().detach();
        }
        else
        {
            regions.current().file().close(); // give back nothing through pages that may be gone
        }
    }
}
