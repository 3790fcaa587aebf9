package org.shmav.av;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Gives back, promptly, what a named AV's writer handle was left holding by an operation that an Error
 * cut short where no handler could run (a StackOverflowError in the give-back in a {@code catch}, or in
 * a {@code finally}): a claimed slot, a removal, the growth or auth-key lock. The handle's
 * own next operation gives them back too, but that call may never come (the thread that met the Error
 * was often the handle's only user), and other processes would wait on them meanwhile.
 *
 * <p>One daemon thread per JVM, running while writer handles of named AVs are open: every
 * {@value #POLL_MILLIS} ms it looks at each handle's operation mark. A handle whose mark stays set
 * across two looks with no new operation begun, and whose lock it can take (free, or abandoned:
 * {@link HandleLock#tryTakeAbandoned}), is repaired under that lock on this thread's own stack. A
 * running operation keeps the lock, so it is never touched; looking at the holder's stack (costly) is
 * done only once the same operation has stayed marked for {@value #STACK_LOOK_MILLIS} ms. Thread-safe.
 */
final class LeftoverJanitor
{
    static final long POLL_MILLIS = 20;
    static final long STACK_LOOK_MILLIS = 200;

    /** Each open handle, with the operation count at which its mark was last seen set (-1: not seen). */
    private static final Map<AddressVectorImpl, Seen> HANDLES = new ConcurrentHashMap<>();
    private static Thread thread;

    private LeftoverJanitor()
    {
    }

    /** What the janitor saw of one handle at its last look. */
    private static final class Seen
    {
        long operations = -1;
        long sinceNanos;
    }

    static void register(final AddressVectorImpl av)
    {
        HANDLES.put(av, new Seen());
        start();
    }

    static void unregister(final AddressVectorImpl av)
    {
        HANDLES.remove(av);
    }

    private static synchronized void start()
    {
        if (thread == null)
        {
            thread = new Thread(LeftoverJanitor::run, "shmav-leftover-janitor");
            thread.setDaemon(true);
            thread.start();
        }
    }

    /** Ends the thread when no handle is left, under the class lock, so that a register meanwhile starts a new one. */
    private static synchronized boolean done()
    {
        if (HANDLES.isEmpty())
        {
            thread = null;
            return true;
        }
        return false;
    }

    private static void run()
    {
        while (!done())
        {
            final long now = System.nanoTime();
            HANDLES.forEach((av, seen) -> look(av, seen, now));
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS));
        }
    }

    private static void look(final AddressVectorImpl av, final Seen seen, final long now)
    {
        final long operations = av.leftoverOperations();
        if (operations < 0)
        {
            seen.operations = -1; // nothing held
            return;
        }
        if (operations != seen.operations)
        {
            seen.operations = operations; // a new operation, or a first look: let it run
            seen.sinceNanos = now;
            return;
        }
        final boolean lookAtHolder = now - seen.sinceNanos > TimeUnit.MILLISECONDS.toNanos(STACK_LOOK_MILLIS);
        try
        {
            if (av.giveBackLeftovers(lookAtHolder))
            {
                seen.operations = -1;
            }
            else if (lookAtHolder)
            {
                seen.sinceNanos = now; // still in use (a long wait inside a call): look at its stack again later
            }
        }
        catch (final RuntimeException | Error e)
        {
            // This thread must outlive whatever one repair meets (an AV made unusable under it, say):
            // the handle's own next operation reports it; the next look tries again.
        }
    }
}
