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
 */
final class HandleLock
{
    private static final VarHandle HELD;
    private static final int SPINS = 100;
    private static final int YIELDS = 100;
    private static final long NAP_NANOS = 20_000;

    static
    {
        try
        {
            HELD = MethodHandles.lookup().findVarHandle(HandleLock.class, "held", int.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // accessed through HELD
    private volatile int held;

    void lock()
    {
        if (!HELD.compareAndSet(this, 0, 1)) // CAS: acquire for what the previous holder wrote
        {
            lockContended();
        }
    }

    private void lockContended()
    {
        for (int attempt = 0; ; attempt++)
        {
            if ((int)HELD.getOpaque(this) == 0 && HELD.compareAndSet(this, 0, 1))
            {
                return;
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
        HELD.setRelease(this, 0); // release: everything written under the lock is seen by the next holder's CAS
    }
}
