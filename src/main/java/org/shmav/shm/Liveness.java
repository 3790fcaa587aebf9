package org.shmav.shm;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether the owner of an attacher entry is alive, as the kernel sees it: the owner holds the entry's
 * lock ({@link AttacherDescriptor}, Liveness) and the kernel drops it when the process dies; and the
 * other record locks of the file's header bytes, which serialise rare operations across processes
 * without any lock a dead process could keep.
 * Implementations answer without blocking and, when they cannot tell, answer "alive": a process
 * whose liveness cannot be determined is never recovered. Thread-safe.
 */
public interface Liveness
{
    /** True unless attacher entry {@code attacher}'s lock is provably free. */
    boolean isHeld(int attacher);

    /** Locks entry {@code attacher} for this process, without blocking; false when anybody holds it. */
    boolean tryAcquire(int attacher);

    /** Gives back the lock of entry {@code attacher} taken by {@link #tryAcquire}. */
    void release(int attacher);

    /** Locks the byte at file offset {@code position} (a lock byte of the header) for this process; false when held. */
    boolean tryLockAt(long position);

    /** Gives back the lock taken by {@link #tryLockAt}. */
    void unlockAt(long position);

    /** The liveness of a named AV: the record locks on its lock file ({@link AvLockFile}). */
    static Liveness of(final AvFileChannel file, final AvLayout layout)
    {
        return new Liveness()
        {
            @Override
            public boolean isHeld(final int attacher)
            {
                return file.locks().probe(position(attacher)) == AvFileLocks.Probe.HELD;
            }

            @Override
            public boolean tryAcquire(final int attacher)
            {
                return file.locks().tryLock(position(attacher));
            }

            @Override
            public void release(final int attacher)
            {
                file.locks().unlock(position(attacher));
            }

            @Override
            public boolean tryLockAt(final long position)
            {
                return file.locks().tryLock(position);
            }

            @Override
            public void unlockAt(final long position)
            {
                file.locks().unlock(position);
            }

            private long position(final int attacher)
            {
                return layout.attacher(attacher) + AttacherDescriptor.LOCK_OFFSET;
            }
        };
    }

    /**
     * The liveness of a named AV whose lock file this process may not open (a reader or tool of another
     * user): every entry looks alive, since death cannot be told, and no lock can be taken.
     */
    static Liveness unknown()
    {
        return new Liveness()
        {
            @Override
            public boolean isHeld(final int attacher)
            {
                return true;
            }

            @Override
            public boolean tryAcquire(final int attacher)
            {
                return false;
            }

            @Override
            public void release(final int attacher)
            {
                // never acquired
            }

            @Override
            public boolean tryLockAt(final long position)
            {
                return false;
            }

            @Override
            public void unlockAt(final long position)
            {
                // never locked
            }
        };
    }

    /**
     * The liveness of a region only this process uses (a private AV, or a test's region): locks are
     * kept in process memory, and an entry nobody here locked is dead.
     */
    static Liveness local()
    {
        final Set<Long> held = ConcurrentHashMap.newKeySet();
        return new Liveness()
        {
            @Override
            public boolean isHeld(final int attacher)
            {
                return held.contains((long)attacher);
            }

            @Override
            public boolean tryAcquire(final int attacher)
            {
                return held.add((long)attacher);
            }

            @Override
            public void release(final int attacher)
            {
                held.remove((long)attacher);
            }

            @Override
            public boolean tryLockAt(final long position)
            {
                return held.add(-1 - position); // header bytes, apart from attacher indices
            }

            @Override
            public void unlockAt(final long position)
            {
                held.remove(-1 - position);
            }
        };
    }
}
