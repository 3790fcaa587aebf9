package org.shmav.shm;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * This JVM's open file of one AV or lock file, shared by every handle, tool and test in the JVM that
 * uses the file: the registry of such files by inode, and the descriptors each one is read, written,
 * grown and locked through. The locks themselves are held by the file's {@link AvFileLocks}.
 *
 * <p>Why one per JVM: the locks Java takes ({@link FileChannel#tryLock}) are POSIX record locks, which
 * belong to the process, and closing <em>any</em> descriptor of the file in the process drops all of
 * them. So the library never closes a descriptor of an AV file while the JVM still uses that file:
 * every open of a file already open here (same device and inode) reuses this object, and its
 * descriptors are closed only when the last user is gone. Code outside the library that opens and
 * closes an AV file in a JVM that has it open would drop the JVM's locks; shm-layout.md, LIVENESS,
 * says so.
 *
 * <p>Lock files ({@link #openLockFile}) take open-file-description locks instead where the JVM can
 * ({@link OfdLocks}), through descriptors of their own that no other code closes: a close elsewhere in
 * the JVM cannot drop them. {@link #lockKind} says which kind this JVM uses. Thread-safe.
 */
public final class AvFileChannel
{
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
    /** A lock file's own descriptors for OFD locks ({@link OfdLocks}), -1 until opened; unused for POSIX locks. */
    private volatile int ofdReadOnly = -1;
    private volatile int ofdReadWrite = -1;
    private final boolean ofd;
    /** A lock file, never mapped: its last close leaves no mapping to collect ({@link ClosedMappings}). */
    private final boolean lockFile;
    /** Opened for appending (O_APPEND) by the first growth of this JVM, see {@link #appendChannel}. */
    private volatile FileChannel append;
    private int users;
    private final AvFileLocks locks = new AvFileLocks(this);
    private AvFileChannel(final Object key, final Path file, final boolean ofd, final boolean lockFile)
    {
        this.key = key;
        this.file = file;
        this.ofd = ofd;
        this.lockFile = lockFile;
    }

    /**
     * Which record locks this JVM takes in lock files, for people ({@code shmav show}, logs): the
     * open-file-description kind, or the POSIX fallback and why.
     */
    public static String lockKind()
    {
        return LockKind.describe();
    }

    /** The OFD descriptor to lock through: read-write when {@code write}, else any; -1 when none is open. */
    int ofdDescriptor(final boolean write)
    {
        return write ? ofdReadWrite : ofdReadWrite >= 0 ? ofdReadWrite : ofdReadOnly;
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
        return open(file, write, false);
    }

    /**
     * Opens a lock file like {@link #open}, with OFD locks where this JVM can take them ({@link #lockKind}).
     * Every open of a lock file must come through here, so that its locks are of one kind; such a file
     * has no channel ({@link #channelFor} is null) when it takes OFD locks.
     */
    public static AvFileChannel openLockFile(final Path file, final boolean write) throws IOException
    {
        return open(file, write, true);
    }

    private static AvFileChannel open(final Path file, final boolean write, final boolean lockFile) throws IOException
    {
        synchronized (OPEN)
        {
            for (int attempt = 0; ; attempt++)
            {
                final Object key = fileKey(file);
                AvFileChannel open = OPEN.get(key);
                if (open != null && (open.ofd ? open.ofdDescriptor(write) >= 0 : open.channel(write) != null))
                {
                    open.file = file;
                    open.users++;
                    return open;
                }
                final boolean ofd = open != null ? open.ofd : lockFile && LockKind.ofd(); // an open file keeps its kind of lock
                final FileChannel ch = ofd ? null : write
                    ? FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)
                    : FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
                final int fd = ofd ? OfdLocks.open(file, write) : -1;
                if (!key.equals(fileKey(file)))
                {
                    if (ofd)
                    {
                        OfdLocks.closeQuietly(fd); // a descriptor of our own: closing it drops no other's lock
                    }
                    else
                    {
                        // The name now names another file: ch may be a descriptor of a file this JVM holds
                        // POSIX locks on, and closing it would drop them. Keep it open; this is rare.
                        UNKNOWN.add(ch);
                    }
                    if (attempt < 3)
                    {
                        continue;
                    }
                    throw new IOException(file + " keeps being replaced while it is opened");
                }
                if (open == null)
                {
                    open = new AvFileChannel(key, file, ofd, lockFile);
                    OPEN.put(key, open);
                }
                open.file = file;
                if (ofd)
                {
                    open.adoptDescriptor(fd, write);
                }
                else
                {
                    open.adopt(ch, write);
                }
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
            final AvFileChannel open = new AvFileChannel(key, file, false, false);
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

    private void adoptDescriptor(final int fd, final boolean write)
    {
        if (write)
        {
            ofdReadWrite = fd;
        }
        else
        {
            ofdReadOnly = fd;
        }
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

    /** Whether {@code name} leads to this open file now (false when it leads elsewhere, or nowhere). */
    public boolean isNamedBy(final Path name)
    {
        try
        {
            return key.equals(fileKey(name));
        }
        catch (final IOException e)
        {
            return false;
        }
    }

    /** The name this file was opened by. */
    public Path path()
    {
        return file;
    }

    /** The record locks this JVM holds in this file, one set per file. */
    public AvFileLocks locks()
    {
        return locks;
    }

    /** Whether this file's locks are open-file-description locks, taken through {@link #ofdDescriptor}. */
    boolean ofd()
    {
        return ofd;
    }

    /** The channel to map and size the file with: read-write when {@code write}. */
    public FileChannel channelFor(final boolean write)
    {
        return channel(write);
    }

    /**
     * A descriptor of this file opened for appending ({@link AppendDescriptor}), opened on first use
     * and kept until the last user closes.
     *
     * @throws IOException when it cannot be opened
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
                append = AppendDescriptor.open(file, key, UNKNOWN::add);
            }
            return append;
        }
    }

    /** The read-write channel, opened now if this JVM has only read the file so far; null when not allowed. */
    FileChannel writableChannel()
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
            locks.releaseAll();
            closeQuietly(readWrite);
            closeQuietly(readOnly);
            if (ofdReadWrite >= 0)
            {
                OfdLocks.closeQuietly(ofdReadWrite);
            }
            if (ofdReadOnly >= 0)
            {
                OfdLocks.closeQuietly(ofdReadOnly);
            }
            closeQuietly(append);
            if (!lockFile)
            {
                ClosedMappings.closed();
            }
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
