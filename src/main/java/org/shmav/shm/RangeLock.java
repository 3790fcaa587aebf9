package org.shmav.shm;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;

/**
 * One record lock this JVM holds on a byte range of a file ({@link AvFileLocks} keeps them): a POSIX
 * lock taken through a {@link FileChannel}, or an open-file-description lock taken through a native
 * descriptor ({@link OfdLocks}). Released once, through what took it (an OFD lock belongs to its
 * descriptor's description, so no other descriptor could release it). Immutable.
 */
record RangeLock(FileLock lock, int fd, long position, long length)
{
    /**
     * Takes the lock of [position, position + length) without waiting: through the OFD descriptor
     * {@code fd} when it is not -1, else through {@code ch}. Null when not granted, for any reason
     * (held elsewhere, an error, no descriptor, or a lock of this JVM the JDK refuses to overlap).
     */
    static RangeLock take(final FileChannel ch, final int fd, final long position, final long length,
        final boolean shared)
    {
        if (fd >= 0)
        {
            return OfdLocks.tryLock(fd, position, length, shared) ? new RangeLock(null, fd, position, length) : null;
        }
        if (ch == null)
        {
            return null;
        }
        try
        {
            final FileLock lock = ch.tryLock(position, length, shared);
            return lock == null ? null : new RangeLock(lock, -1, position, length);
        }
        catch (final IOException | OverlappingFileLockException e)
        {
            return null; // an error, or a lock of this JVM on the range: not free either way
        }
    }

    /** Gives the lock back. */
    void release()
    {
        if (lock == null)
        {
            OfdLocks.unlock(fd, position, length);
            return;
        }
        try
        {
            lock.release();
        }
        catch (final IOException ignored)
        {
            // the channel is closed: the lock went with it
        }
    }
}
