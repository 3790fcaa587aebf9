package org.shmav.shm;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * The lock under which the files of a named AV are removed by identity (shm-layout.md, LIFECYCLE,
 * Remove): the exclusive lock of the creator's byte ({@code CREATOR_LOCK_OFFSET}) of the lock file that
 * the name {@code .shmav-lock.<name>} leads to when it is taken.
 *
 * <p>Why it is enough: a creator holds that byte shared from the moment it checks that its lock file is
 * the one under the name until it has attached to its AV, or to the winner's, as a writer; and the lock file
 * under the name is only ever removed under this lock or under an exclusive lock of all its bytes
 * (gc's orphan removal, a creator's removal of a stale one), which conflict with it. So while it is held,
 * no AV can be published under the name and the lock-file name leads to the file locked: a file found
 * there and checked ({@link #removeIfSame}) is still the one removed. A file whose name is taken
 * without this lock (the job file, until its creator takes it too) is only as safe as its creator.
 * Without a lock file (removed by hand) there is nothing to lock: {@link #held()} is false, and the
 * removal is by identity alone. One per removal, by one thread; {@link #close} gives it back.
 */
public final class AvNameLock implements AutoCloseable
{
    /** How long a remover tries for the lock: a creator holds it for a few system calls, gc for two. */
    static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final AvFileChannel file;
    private final FileIdentity identity;

    private AvNameLock(final AvFileChannel file, final FileIdentity identity)
    {
        this.file = file;
        this.identity = identity;
    }

    /**
     * Takes the lock of the name of AV file {@code avFile} (AV {@code name}, for messages), trying for up to
     * 2 s. FI_EAGAIN when a creator or another remover of the name kept it that long.
     */
    public static AvNameLock acquire(final Path avFile, final String name)
    {
        final Path lock = AvLockFile.of(avFile);
        final long deadline = System.nanoTime() + WAIT_NANOS;
        while (true)
        {
            final FileIdentity id = FileIdentity.of(lock);
            if (id == null || !Files.isRegularFile(lock, LinkOption.NOFOLLOW_LINKS))
            {
                return new AvNameLock(null, null); // none (or not one shmav made): nothing to lock
            }
            final AvFileChannel ch;
            try
            {
                ch = AvFileChannel.openLockFile(lock, true);
            }
            catch (final NoSuchFileException e)
            {
                continue; // removed meanwhile: look again
            }
            catch (final AccessDeniedException e)
            {
                return new AvNameLock(null, null); // not this user's to lock: the unlink's own permission decides
            }
            catch (final IOException e)
            {
                throw SharedAvFile.ioFailure(name, lock, e);
            }
            if (ch.locks().tryLock(AvFileDescriptor.CREATOR_LOCK_OFFSET))
            {
                // Locked: only now can the name no longer move. Is it still the file opened?
                if (ch.isNamedBy(lock))
                {
                    return new AvNameLock(ch, FileIdentity.of(lock));
                }
                ch.locks().unlock(AvFileDescriptor.CREATOR_LOCK_OFFSET);
            }
            ch.close();
            if (System.nanoTime() - deadline > 0)
            {
                throw new FabricException(FiErrno.EAGAIN, "named AV '" + name + "' is being created or removed " +
                    "by another process (its lock file " + lock + " stayed locked for 2 s): try again");
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    /**
     * Removes {@code file}, a file of AV {@code avFile} (its job file, say), only when its name still leads
     * to {@code expected}, checked under the name's lock: the whole identity-checked removal in one call.
     * FI_EAGAIN as {@link #acquire}; I/O errors as FI_EIO.
     *
     * @return true when it was removed
     */
    public static boolean remove(final Path avFile, final String name, final Path file, final FileIdentity expected)
    {
        try (AvNameLock lock = acquire(avFile, name))
        {
            return lock.removeIfSame(file, expected);
        }
        catch (final IOException e)
        {
            throw SharedAvFile.ioFailure(name, file, e);
        }
    }

    /** Whether a lock file was there to lock; false when the name has none. */
    public boolean held()
    {
        return file != null;
    }

    /** The identity of the lock file locked, or null when {@link #held()} is false. */
    public FileIdentity lockFile()
    {
        return identity;
    }

    /**
     * Removes {@code path} only when the name still leads to the file {@code expected}: a file that a newer
     * owner of the name put there is left. Call while holding this lock, for a file of this AV whose name
     * a new owner takes only under it (the AV, its lock file).
     *
     * @return true when it was removed
     */
    public boolean removeIfSame(final Path path, final FileIdentity expected) throws IOException
    {
        if (expected == null || !expected.equals(FileIdentity.of(path)))
        {
            return false;
        }
        return Files.deleteIfExists(path);
    }

    @Override
    public void close()
    {
        if (file != null)
        {
            file.locks().unlock(AvFileDescriptor.CREATOR_LOCK_OFFSET);
            file.close();
        }
    }
}
