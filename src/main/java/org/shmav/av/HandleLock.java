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
 * holder that meets its own lost unlock at its next {@link #lock} takes the lock back, by a CAS to
 * another word of its own ({@link Retaken}), so that a {@link LeftoverJanitor} that judged the lock
 * abandoned at the same moment loses its CAS instead of sharing the lock. A waiter takes a lock whose
 * holder thread has ended; the janitor also takes one whose holder is no longer inside a call of this
 * package ({@link #tryTakeAbandoned}).
 */
final class HandleLock
{
    private static final VarHandle HOLDER;
    private static final int SPINS = 100;
    private static final int YIELDS = 100;
    private static final long NAP_NANOS = 20_000;
    /** Each thread's second lock word, made once, on its first lost unlock. */
    private static final ThreadLocal<Retaken> RETAKEN = ThreadLocal.withInitial(() -> new Retaken(Thread.currentThread()));

    static
    {
        try
        {
            HOLDER = MethodHandles.lookup().findVarHandle(HandleLock.class, "holder", Object.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The word of a thread that took back the lock it had lost the unlock of: the same owner, another value. */
    private static final class Retaken
    {
        final Thread thread;

        Retaken(final Thread thread)
        {
            this.thread = thread;
        }
    }

    /** null (free), the holder thread, or the holder's {@link Retaken}. */
    @SuppressWarnings("unused") // accessed through HOLDER
    private volatile Object holder;

    void lock()
    {
        final Thread me = Thread.currentThread();
        if (!HOLDER.compareAndSet(this, (Object)null, me)) // CAS: acquire for what the previous holder wrote
        {
            lockContended(me);
        }
    }

    private void lockContended(final Thread me)
    {
        for (int attempt = 0; ; attempt++)
        {
            final Object h = HOLDER.getAcquire(this);
            final Thread owner = owner(h);
            if (owner == me)
            {
                // Our own unlock was lost to an Error. Take the lock back by CAS to our other word, so that
                // a janitor that saw it abandoned and CASes from h now fails.
                if (HOLDER.compareAndSet(this, h, h == me ? RETAKEN.get() : me))
                {
                    return;
                }
                continue;
            }
            if (h == null ? HOLDER.compareAndSet(this, (Object)null, me)
                : attempt >= SPINS && !owner.isAlive() && HOLDER.compareAndSet(this, h, me))
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
        HOLDER.setRelease(this, (Object)null); // release: everything written under the lock is seen by the next holder
    }

    /**
     * Takes the lock for the calling thread if it is free, or if its holder cannot be using it: the
     * holder thread ended, or (with {@code lookAtHolder}) it is alive but no frame of this package is on
     * its stack, so its unlock was lost to an Error and no call of it is running. Never waits.
     */
    boolean tryTakeAbandoned(final boolean lookAtHolder)
    {
        final Object h = HOLDER.getAcquire(this);
        if (h == null)
        {
            return HOLDER.compareAndSet(this, (Object)null, Thread.currentThread());
        }
        final Thread owner = owner(h);
        final boolean abandoned = !owner.isAlive() || (lookAtHolder && !insideThisPackage(owner));
        // A holder that took its lock back meanwhile wrote another word: this CAS from h fails then.
        return abandoned && HOLDER.compareAndSet(this, h, Thread.currentThread());
    }

    private static Thread owner(final Object h)
    {
        return h instanceof Retaken ? ((Retaken)h).thread : (Thread)h;
    }

    private static boolean insideThisPackage(final Thread t)
    {
        final String prefix = HandleLock.class.getPackageName() + ".";
        for (final StackTraceElement frame : t.getStackTrace())
        {
            if (frame.getClassName().startsWith(prefix))
            {
                return true;
            }
        }
        return false;
    }
}
