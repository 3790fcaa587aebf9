package org.shmav.av;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.shmav.EqErrEntry;
import org.shmav.EqEvent;
import org.shmav.EventQueue;
import org.shmav.FabricException;
import org.shmav.FiErrno;

/** A FIFO of events and error entries, guarded by one lock; {@link #sread} waits on a condition. */
public final class EventQueueImpl implements EventQueue
{
    private static final String CLOSED = "event queue is closed";

    private final DomainImpl domain;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final ArrayDeque<Object> entries;
    private final AtomicInteger boundAvs = new AtomicInteger();
    private volatile boolean closed;

    EventQueueImpl(final DomainImpl domain, final int size)
    {
        this.domain = domain;
        this.entries = new ArrayDeque<>(Math.max(size, 16));
    }

    DomainImpl domain()
    {
        return domain;
    }

    boolean isClosed()
    {
        return closed;
    }

    void retain()
    {
        boundAvs.incrementAndGet();
    }

    void release()
    {
        boundAvs.decrementAndGet();
    }

    /** Posts the entries of one insert at once, so that its errors always precede its completion. */
    void post(final Object[] batch, final int n)
    {
        lock.lock();
        try
        {
            for (int i = 0; i < n; i++)
            {
                entries.addLast(batch[i]);
            }
            notEmpty.signalAll();
        }
        finally
        {
            lock.unlock();
        }
    }

    @Override
    public EqEvent read()
    {
        if (closed)
        {
            throw new FabricException("fi_eq_read", FiErrno.EINVAL, CLOSED);
        }
        lock.lock();
        try
        {
            return poll();
        }
        finally
        {
            lock.unlock();
        }
    }

    @Override
    public EqEvent sread(final Duration timeout)
    {
        if (closed)
        {
            throw new FabricException("fi_eq_sread", FiErrno.EINVAL, CLOSED);
        }
        long nanos = timeout.toNanos();
        lock.lock();
        try
        {
            while (entries.isEmpty())
            {
                if (nanos <= 0)
                {
                    return null;
                }
                nanos = notEmpty.awaitNanos(nanos);
            }
            return poll();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new FabricException("fi_eq_sread", FiErrno.EINTR, "interrupted while waiting for an event");
        }
        finally
        {
            lock.unlock();
        }
    }

    private EqEvent poll()
    {
        final Object head = entries.peekFirst();
        if (head == null)
        {
            return null;
        }
        if (head instanceof EqErrEntry)
        {
            throw new FabricException("fi_eq_read", FiErrno.EAVAIL, "an error entry is next: read it with readErr()");
        }
        return (EqEvent)entries.pollFirst();
    }

    @Override
    public EqErrEntry readErr()
    {
        if (closed)
        {
            throw new FabricException("fi_eq_readerr", FiErrno.EINVAL, CLOSED);
        }
        lock.lock();
        try
        {
            return entries.peekFirst() instanceof EqErrEntry ? (EqErrEntry)entries.pollFirst() : null;
        }
        finally
        {
            lock.unlock();
        }
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        if (boundAvs.get() > 0)
        {
            throw new FabricException("fi_close", FiErrno.EBUSY, "event queue is bound to " + boundAvs.get() +
                " open AV(s): close them first");
        }
        closed = true;
        domain.forget(this);
    }
}
