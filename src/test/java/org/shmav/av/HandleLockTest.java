package org.shmav.av;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/**
 * The handle lock survives an unlock lost to an Error (a StackOverflowError can strike the call to
 * unlock in a finally): its holder takes it back at its next lock, and a waiter takes it from a holder
 * thread that ended. Each case is a lock that a plain spin lock would never give again.
 */
class HandleLockTest
{
    private static final long DEADLINE_SECONDS = 10;

    @Test
    void shouldLetTheHolderWhoseUnlockWasLostLockAgain() throws Exception
    {
        final HandleLock lock = new HandleLock();
        final Thread t = new Thread(() ->
        {
            lock.lock(); // and no unlock: as if the unlock's frame overflowed
            lock.lock();
            lock.unlock();
        });
        t.setDaemon(true);
        t.start();
        t.join(TimeUnit.SECONDS.toMillis(DEADLINE_SECONDS));
        assertFalse(t.isAlive(), "the holder waited for itself");
        assertTrue(lockedWithin(lock), "the lock is free after the holder's unlock");
    }

    @Test
    void shouldLetAWaiterTakeTheLockOfAThreadThatEndedHoldingIt() throws Exception
    {
        final HandleLock lock = new HandleLock();
        final Thread holder = new Thread(lock::lock);
        holder.setDaemon(true);
        holder.start();
        holder.join();
        assertTrue(lockedWithin(lock), "the lock of a thread that ended was never taken");
    }

    @Test
    void shouldKeepTheLockFromALiveHolder() throws Exception
    {
        final HandleLock lock = new HandleLock();
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch done = new CountDownLatch(1);
        final Thread holder = new Thread(() ->
        {
            lock.lock();
            held.countDown();
            awaitQuietly(done);
            lock.unlock();
        });
        holder.setDaemon(true);
        holder.start();
        assertTrue(held.await(DEADLINE_SECONDS, TimeUnit.SECONDS));
        final AtomicInteger inside = new AtomicInteger();
        final Thread waiter = new Thread(() ->
        {
            lock.lock();
            inside.incrementAndGet();
            lock.unlock();
        });
        waiter.setDaemon(true);
        waiter.start();
        waiter.join(300); // long past the spins and yields: the waiter parks, and must not take a live holder's lock
        assertTrue(inside.get() == 0, "a waiter took the lock of a live holder");
        done.countDown();
        waiter.join(TimeUnit.SECONDS.toMillis(DEADLINE_SECONDS));
        assertTrue(inside.get() == 1 && !waiter.isAlive(), "the waiter got the lock once it was given back");
    }

    private static boolean lockedWithin(final HandleLock lock) throws InterruptedException
    {
        final Thread other = new Thread(() ->
        {
            lock.lock();
            lock.unlock();
        });
        other.setDaemon(true);
        other.start();
        other.join(TimeUnit.SECONDS.toMillis(DEADLINE_SECONDS));
        return !other.isAlive();
    }

    private static void awaitQuietly(final CountDownLatch latch)
    {
        try
        {
            latch.await(DEADLINE_SECONDS, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
