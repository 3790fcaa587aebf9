package org.shmav.shm;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * This JVM's open file of one AV file, shared by every handle, tool and test in the JVM that uses
 * the file, and the record locks through which the kernel says who is alive.
 *
 * <p>Why one per JVM: the locks Java takes ({@link FileChannel#tryLock}) are POSIX record locks.
 * They are released by the kernel when the process dies, whatever its pid namespace, clock or view
 * of {@code /proc}, which is what makes them the liveness test; but they belong to the process, and
 * closing <em>any</em> descriptor of the file in the process drops all of them. So the library never
 * closes a descriptor of an AV file while the JVM still uses that file: every open of a file already
 * open here (same device and inode) reuses this object, and its descriptors are closed only when the
 * last user is gone. Code outside the library that opens and closes an AV file in a JVM that has it
 * open would drop the JVM's locks; shm-layout.md, LIVENESS, says so.
 *
 * <p>Lock tests never block: {@link #probe} takes a shared lock for a moment (it conflicts with the
 * owner's exclusive one) and gives it back. A lock this JVM holds shows as {@link Probe#HELD}
 * (the JDK refuses overlapping locks within one JVM), as does a test that fails for any other
 * reason: liveness that cannot be determined is never taken for death. Thread-safe.
 */
public final class AvFileChannel
{
    /** What a lock test found. */
    public enum Probe
    {
        /** Nobody holds the byte: its owner, if any, is dead. */
        FREE,
        /** A live process holds it (this one included), or it could not be told. */
        HELD
    }

    /** Open AV files by file key (device and inode); guarded by itself. */
    private static final Map<Object, AvFileChannel> OPEN = new HashMap<>();
    /** Descriptors opened while a name changed under us: never closed, see {@link #open}. */
    private static final List<FileChannel> UNKNOWN = new ArrayList<>();

    private final Object key;
    /** The name it was last opened by: a creator's file is first registered under its temporary name. */
    private volatile Path file;
    /** Set once under {@link #OPEN}; read without it, so that lock calls never take {@link #OPEN}. */
    private volatile FileChannel readOnly;
    private volatile FileChannel readWrite;
    /** Opened for appending (O_APPEND) by the first growth of this JVM, see {@link #appendChannel}. */
    private volatile FileChannel append;
    private int users;
    /** Locks held, by file position; shared ones counted, since one JVM may hold one only once. */
    private final Map<Long, FileLock> locks = new HashMap<>();
    private final Map<Long, Integer> sharedHolders = new HashMap<>();

    private AvFileChannel(final Object key, final Path file)
    {
        this.key = key;
        this.file = file;
    }

    /**
     * Opens {@code file} (never through a symbolic link) for reading, and for writing too when
     * {@code write}, or joins this JVM's open file of the same inode. Every open is paired with one
     * {@link #close}.
     *
     * @throws IOException from the file system (NoSuchFileException, AccessDeniedException, ...)
     */
    public static AvFileChannel open(final Path file, final boolean write) throws IOException
    {
        synchronized (OPEN)
        {
            for (int attempt = 0; ; attempt++)
            {
                final Object key = fileKey(file);
                AvFileChannel open = OPEN.get(key);
                if (open != null && open.channel(write) != null)
                {
                    open.file = file;
                    open.users++;
                    return open;
                }
                final FileChannel ch = write
                    ? FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)
                    : FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
                if (!key.equals(fileKey(file)))
                {
                    // The name now names another file: ch may be a descriptor of a file this JVM holds
                    // locks on, and closing it would drop them. Keep it open; this is rare.
                    UNKNOWN.add(ch);
                    if (attempt < 3)
                    {
                        continue;
                    }
                    throw new IOException(file + " keeps being replaced while it is opened");
                }
                if (open == null)
                {
                    open = new AvFileChannel(key, file);
                    OPEN.put(key, open);
                }
                open.file = file;
                open.adopt(ch, write);
                open.users++;
                return open;
            }
        }
    }

    /**
     * Registers {@code ch}, the read-write channel of a file being created and not yet under its
     * name, as this JVM's open file of it: the creator's later {@link #open} of the published name
     * then reuses the channel instead of opening and closing a second descriptor.
     */
    public static AvFileChannel adoptNew(final Path file, final FileChannel ch) throws IOException
    {
        synchronized (OPEN)
        {
            final Object key = fileKey(file);
            final AvFileChannel open = new AvFileChannel(key, file);
            open.adopt(ch, true);
            open.users = 1;
            OPEN.put(key, open);
            return open;
        }
    }

    private static Object fileKey(final Path file) throws IOException
    {
        final Object key = Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class,
            LinkOption.NOFOLLOW_LINKS).fileKey();
        if (key == null)
        {
            throw new IOException("the file system of " + file + " gives no file identity");
        }
        return key;
    }

    private void adopt(final FileChannel ch, final boolean write)
    {
        if (write)
        {
            readWrite = ch;
        }
        else
        {
            readOnly = ch;
        }
    }

    private FileChannel channel(final boolean write)
    {
        return write ? readWrite : readWrite != null ? readWrite : readOnly;
    }

    /** The name this file was opened by. */
    public Path path()
    {
        return file;
    }

    /** The channel to map and size the file with: read-write when {@code write}. */
    public FileChannel channelFor(final boolean write)
    {
        return channel(write);
    }

    /**
     * Takes the exclusive lock of the byte at {@code position} for this JVM, without blocking. False
     * when another process or this JVM holds it, or the test failed.
     */
    public synchronized boolean tryLock(final long position)
    {
        if (locks.containsKey(position))
        {
            return false;
        }
        final FileLock lock = attempt(channelFor(true), position, false);
        if (lock == null)
        {
            return false;
        }
        locks.put(position, lock);
        return true;
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
        final FileLock lock = attempt(channelFor(false), position, true);
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
        final FileLock lock = locks.remove(position);
        if (lock != null)
        {
            release(lock);
        }
    }

    /**
     * Whether anybody holds the byte at {@code position}: a shared lock is taken for a moment and given
     * back. {@link Probe#HELD} also when this JVM holds it, or when the test itself failed.
     */
    public synchronized Probe probe(final long position)
    {
        if (locks.containsKey(position))
        {
            return Probe.HELD;
        }
        final FileLock lock = attempt(channelFor(false), position, true);
        if (lock == null)
        {
            return Probe.HELD;
        }
        release(lock);
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
        final FileChannel ch = writableChannel(); // before this object's monitor: close() takes OPEN, then it
        if (ch == null)
        {
            return Probe.HELD;
        }
        synchronized (this)
        {
            final FileLock lock;
            try
            {
                lock = ch.tryLock(position, length, false);
            }
            catch (final IOException | OverlappingFileLockException e)
            {
                return Probe.HELD;
            }
            if (lock == null)
            {
                return Probe.HELD;
            }
            release(lock);
            return Probe.FREE;
        }
    }

    /**
     * A descriptor of this file opened for appending (O_APPEND), opened on first use and kept until the
     * last user closes: a grower's zeros land at the file's end as it is when the write runs
     * (shm-layout.md, GROWTH), so a write that was begun long ago never lands on bytes published since.
     *
     * @throws IOException when it cannot be opened, or the name now names another file
     */
    public FileChannel appendChannel() throws IOException
    {
        final FileChannel open = append;
        if (open != null)
        {
            return open;
        }
        synchronized (OPEN)
        {
            if (append == null)
            {
                FileChannel ch = null;
                try
                {
                    ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND,
                        LinkOption.NOFOLLOW_LINKS);
                    if (!key.equals(fileKey(file)))
                    {
                        UNKNOWN.add(ch); // another file now has the name: keep it open, as in open()
                        ch = null;
                    }
                }
                catch (final java.nio.file.NoSuchFileException e)
                {
                    ch = null; // removed (shmav rm) while in use: it may still grow, as before layout 7
                }
                append = ch != null ? ch : reopenOwnDescriptor();
            }
            return append;
        }
    }

    /**
     * This file opened again for appending through one of this JVM's own descriptors of it
     * ({@code /proc/self/fd/N}, which names the inode itself), for when its name is gone or names
     * another file.
     */
    private FileChannel reopenOwnDescriptor() throws IOException
    {
        try (java.nio.file.DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd")))
        {
            for (final Path fd : fds)
            {
                try
                {
                    if (key.equals(Files.readAttributes(fd, java.nio.file.attribute.BasicFileAttributes.class).fileKey()))
                    {
                        return FileChannel.open(fd, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
                    }
                }
                catch (final IOException closedMeanwhile)
                {
                    // another thread's descriptor, closed since the listing: not ours
                }
            }
        }
        throw new IOException(file + " no longer names this AV's file, and no descriptor of it is open here");
    }

    /** The read-write channel, opened now if this JVM has only read the file so far; null when not allowed. */
    private FileChannel writableChannel()
    {
        synchronized (OPEN)
        {
            if (readWrite == null)
            {
                try
                {
                    final FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
                        LinkOption.NOFOLLOW_LINKS);
                    if (key.equals(fileKey(file)))
                    {
                        readWrite = ch;
                    }
                    else
                    {
                        UNKNOWN.add(ch); // another file now has the name: keep it open, as in open()
                    }
                }
                catch (final IOException e)
                {
                    return null; // no write access: exclusive tests cannot be made
                }
            }
            return readWrite;
        }
    }

    private static FileLock attempt(final FileChannel ch, final long position, final boolean shared)
    {
        if (ch == null)
        {
            return null;
        }
        try
        {
            return ch.tryLock(position, 1, shared);
        }
        catch (final IOException | OverlappingFileLockException e)
        {
            return null; // an error, or a lock of this JVM on the byte: not free either way
        }
    }

    private static void release(final FileLock lock)
    {
        try
        {
            lock.release();
        }
        catch (final IOException ignored)
        {
            // the channel is closed: the lock went with it
        }
    }

    /**
     * One user fewer; the last one gives back every lock and closes the descriptors (which would drop
     * the locks anyway).
     */
    public void close()
    {
        synchronized (OPEN)
        {
            if (--users > 0)
            {
                return;
            }
            OPEN.remove(key, this);
            synchronized (this)
            {
                locks.values().forEach(AvFileChannel::release);
                locks.clear();
                sharedHolders.clear();
            }
            closeQuietly(readWrite);
            closeQuietly(readOnly);
            closeQuietly(append);
        }
    }

    private static void closeQuietly(final FileChannel ch)
    {
        if (ch != null)
        {
            try
            {
                ch.close();
            }
            catch (final IOException ignored)
            {
                // nothing left to do with it
            }
        }
    }
}
