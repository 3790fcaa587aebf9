package org.shmav.shm;

import java.nio.channels.FileChannel;
import java.util.HashMap;
import java.util.Map;

/**
 * The record locks this JVM holds in one open AV or lock file, through which the kernel says who is
 * alive; {@link AvFileChannel#locks} gives the one set of a file, and its descriptors are what the locks
 * are taken through.
 *
 * <p>The locks are POSIX record locks ({@link FileChannel#tryLock}) for AV files: the kernel releases
 * them when the process dies, whatever its pid namespace, clock or view of {@code /proc}, but they
 * belong to the process, so the JVM keeps one set per file and never takes a byte twice (the JDK
 * refuses overlapping locks within one JVM). Lock files take open-file-description locks where the JVM
 * can ({@link OfdLocks}, {@link AvFileChannel#lockKind}), which belong to the file's own descriptor.
 *
 * <p>Tests never block: {@link #probe} takes a shared lock for a moment (it conflicts with the owner's
 * exclusive one) and gives it back. A lock this JVM holds shows as {@link Probe#HELD}, as does a test
 * that fails for any other reason: liveness that cannot be determined is never taken for death.
 * Thread-safe; the monitor is this object, taken after the registry's ({@link AvFileChannel#close})
 * and never before it.
 */
public final class AvFileLocks
{
    /** What a lock test found. */
    public enum Probe
    {
        /** Nobody holds the byte: its owner, if any, is dead. */
        FREE,
        /** A live process holds it (this one included), or it could not be told. */
        HELD
    }

    /** The key under which {@link #tryLockAll} records its lock (positions are never negative). */
    private static final long ALL = -1;

    private final AvFileChannel file;
    /** Locks held, by file position; shared ones counted, since one JVM may hold one only once. */
    private final Map<Long, RangeLock> locks = new HashMap<>();
    private final Map<Long, Integer> sharedHolders = new HashMap<>();

    AvFileLocks(final AvFileChannel file)
    {
        this.file = file;
    }

    /**
     * Takes the exclusive lock of the byte at {@code position} for this JVM, without blocking. False
     * when another process or this JVM holds it, or the test failed.
     */
    public synchronized boolean tryLock(final long position)
    {
        if (locks.containsKey(position) || locks.containsKey(ALL))
        {
            return false;
        }
        final RangeLock lock = attempt(true, position, 1, false);
        if (lock == null)
        {
            return false;
        }
        locks.put(position, lock);
        return true;
    }

    /**
     * Takes the exclusive lock of every byte of the file (to any end) for this JVM, without blocking:
     * false when any process, this JVM included, holds a lock in it. {@link #unlockAll} gives it back.
     */
    public synchronized boolean tryLockAll()
    {
        if (!locks.isEmpty())
        {
            return false; // OFD locks of one description merge rather than conflict: the JVM's own come first
        }
        final RangeLock lock = attempt(true, 0, file.ofd() ? 0 : Long.MAX_VALUE, false);
        if (lock == null)
        {
            return false;
        }
        locks.put(ALL, lock);
        return true;
    }

    /** Gives back the lock of {@link #tryLockAll}. */
    public void unlockAll()
    {
        unlock(ALL);
    }

    /**
     * Holds a shared lock of the byte at {@code position} for one more user in this JVM (a reader of
     * the AV). False when a process holds it exclusively or the lock could not be taken.
     */
    public synchronized boolean holdShared(final long position)
    {
        final Integer holders = sharedHolders.get(position);
        if (holders != null)
        {
            sharedHolders.put(position, holders + 1);
            return true;
        }
        if (locks.containsKey(position) || locks.containsKey(ALL))
        {
            return false; // this JVM holds it exclusively
        }
        final RangeLock lock = attempt(false, position, 1, true);
        if (lock == null)
        {
            return false;
        }
        locks.put(position, lock);
        sharedHolders.put(position, 1);
        return true;
    }

    /** Gives back one hold of the lock at {@code position} taken by {@link #tryLock} or {@link #holdShared}. */
    public synchronized void unlock(final long position)
    {
        final Integer holders = sharedHolders.get(position);
        if (holders != null && holders > 1)
        {
            sharedHolders.put(position, holders - 1);
            return;
        }
        sharedHolders.remove(position);
        final RangeLock lock = locks.remove(position);
        if (lock != null)
        {
            lock.release();
        }
    }

    /**
     * Whether anybody holds the byte at {@code position}: a shared lock is taken for a moment and given
     * back. {@link Probe#HELD} also when this JVM holds it, or when the test itself failed.
     */
    public synchronized Probe probe(final long position)
    {
        if (locks.containsKey(position) || locks.containsKey(ALL))
        {
            return Probe.HELD;
        }
        if (file.ofd())
        {
            // F_OFD_GETLK takes nothing; it does not see this description's locks, which the map above has
            final int fd = file.ofdDescriptor(false);
            return fd >= 0 && OfdLocks.isFree(fd, position, 1, true) ? Probe.FREE : Probe.HELD;
        }
        final RangeLock lock = attempt(false, position, 1, true);
        if (lock == null)
        {
            return Probe.HELD;
        }
        lock.release();
        return Probe.FREE;
    }

    /**
     * Whether anybody holds any byte of [position, position + length), shared or exclusive: an
     * exclusive lock is tried for a moment. Needs write access to the file (a read-write descriptor is
     * opened if this JVM has none); {@link Probe#HELD} without it, or when this JVM holds a byte of the
     * range.
     */
    public Probe probeExclusive(final long position, final long length)
    {
        final FileChannel ch = file.writableChannel(); // before this monitor: close() takes the registry's, then it
        if (ch == null)
        {
            return Probe.HELD;
        }
        synchronized (this)
        {
            final RangeLock lock = RangeLock.take(ch, -1, position, length, false);
            if (lock == null)
            {
                return Probe.HELD;
            }
            lock.release();
            return Probe.FREE;
        }
    }

    /** Gives back every lock: the file's last user is closing it. */
    synchronized void releaseAll()
    {
        locks.values().forEach(RangeLock::release);
        locks.clear();
        sharedHolders.clear();
    }

    /** A lock of [position, position + length) through the read-write descriptor when {@code write}; null when not granted. */
    private RangeLock attempt(final boolean write, final long position, final long length, final boolean shared)
    {
        return file.ofd() ? RangeLock.take(null, file.ofdDescriptor(write), position, length, shared)
            : RangeLock.take(file.channelFor(write), -1, position, length, shared);
    }
}
