package org.shmav.av;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The lock that keeps two threads from writing through one AV handle at once (they would share its
 * attacher journal). Not reentrant. Taking it free costs one CAS and giving it back one release store,
 * about half of an uncontended {@link java.util.concurrent.locks.ReentrantLock} lock/unlock pair; a thread
 * that finds it taken spins briefly, then yields, then parks in short naps until it is free. Safe for
 * use by many threads.
 *
 * <p>The lock word is its holder, so that an unlock lost to an Error survives: a StackOverflowError can
 * strike the call to {@link #unlock} in a {@code finally}, and no Java code can prevent that. The
 * holder that meets its own lost unlock at its next {@link #lock} takes the lock back (the lock is not
 * reentrant, so finding itself the holder means exactly that), and a waiter takes a lock whose holder
 * thread has ended.
 */
final class HandleLock
{
    private static final VarHandle HOLDER;
    private static final int SPINS = 100;
    private static final int YIELDS = 100;
    private static final long NAP_NANOS = 20_000;

    static
    {
        try
        {
            HOLDER = MethodHandles.lookup().findVarHandle(HandleLock.class, "holder", Thread.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // accessed through HOLDER
    private volatile Thread holder;

    void lock()
    {
        final Thread me = Thread.currentThread();
        if (!HOLDER.compareAndSet(this, (Thread)null, me)) // CAS: acquire for what the previous holder wrote
        {
            lockContended(me);
        }
    }

    private void lockContended(final Thread me)
    {
        for (int attempt = 0; ; attempt++)
        {
            final Thread h = (Thread)HOLDER.getAcquire(this);
            if (h == me)
            {
                return; // our own unlock was lost to an Error: the lock is ours already
            }
            if (h == null ? HOLDER.compareAndSet(this, (Thread)null, me)
                : attempt >= SPINS && !h.isAlive() && HOLDER.compareAndSet(this, h, me))
            {
                return; // free, or left by a thread that ended holding it
            }
            if (attempt < SPINS)
            {
                Thread.onSpinWait();
            }
            else if (attempt < SPINS + YIELDS)
            {
                Thread.yield();
            }
            else
            {
                LockSupport.parkNanos(NAP_NANOS);
            }
        }
    }

    void unlock()
    {
        HOLDER.setRelease(this, (Thread)null); // release: everything written under the lock is seen by the next holder
    }
}
