package org.shmav.shm;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;

import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * The creator's side of a named AV's lock file ({@link AvLockFile}): made before the AV is published,
 * or joined when a racing creator made it, a stale one replaced, and its identity recorded in the new
 * AV's header (shm-layout.md, WRITER'S CHECKLIST, Create). Stateless.
 */
public final class AvLockFileCreator
{
    /** How long a creator starts its lock file again while removers of the name take it away. */
    private static final long RETRY_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
    /** Tries made however long they took: a creator descheduled for the whole deadline still tries again. */
    private static final int MIN_ATTEMPTS = 5;

    private AvLockFileCreator()
    {
    }

    /**
     * For the creator of AV file {@code avFile} (not yet published) of mode {@code avMode}: makes its lock
     * file anew (removing a stale one), or joins the one a racing creator made, and writes its identity
     * into the header {@code m}. Returns this JVM's
     * open lock file holding a shared lock of the creator's byte: unlock and close it once the AV is
     * published.
     */
    public static AvFileChannel prepare(final Path avFile, final Path built, final String name,
        final Set<PosixFilePermission> avMode, final Memory m)
    {
        final Path lock = AvLockFile.of(avFile);
        final int mode = AvLockFile.modeFor(AvLockFile.toBits(avMode));
        final long deadline = System.nanoTime() + RETRY_NANOS;
        for (int attempt = 1; ; attempt++)
        {
            try
            {
                final AvFileChannel ch = attempt(avFile, lock, built, name, mode, m);
                if (ch != null)
                {
                    return ch;
                }
            }
            catch (final NoSuchFileException e)
            {
                // removed meanwhile, as stale, by a creator racing this one: make it, or join its, again
            }
            catch (final IOException e)
            {
                throw SharedAvFile.ioFailure(name, lock, e);
            }
            if (attempt >= MIN_ATTEMPTS && System.nanoTime() - deadline > 0)
            {
                throw new FabricException(FiErrno.EAGAIN, "the lock file " + lock + " of named AV '" +
                    name + "' kept being removed for 5 s while this process created the AV (removers of the name " +
                    "at work): try again");
            }
        }
    }

    /** One try of {@link #prepare}: the lock file held and recorded, or null when it was removed meanwhile. */
    private static AvFileChannel attempt(final Path avFile, final Path lock, final Path built, final String name,
        final int mode, final Memory m) throws IOException
    {
        // A lock file nobody uses and whose AV is gone is stale: a fresh one leaves no descriptor of its
        // past (opened while its mode was wider, say) able to lock. One in use is a racing creator's, or
        // the AV's, published meanwhile: it is the one to use.
        if (Files.exists(lock, LinkOption.NOFOLLOW_LINKS))
        {
            try
            {
                AvLockFile.deleteIfUnused(lock, avFile, false);
            }
            catch (final IOException e)
            {
                // another user's (a racing group creator's, in a sticky directory): judged below
            }
        }
        final Map<String, Object> a = create(lock, mode);
        final Map<String, Object> mine = Files.readAttributes(built, "unix:uid,gid", LinkOption.NOFOLLOW_LINKS);
        final boolean groupCreator = (mode & 060) == 060 && a.get("gid").equals(mine.get("gid")) &&
            ((Integer)a.get("mode") & 0777) == mode;
        if (!groupCreator && (!a.get("uid").equals(mine.get("uid")) || !a.get("gid").equals(mine.get("gid"))))
        {
            throw new FabricException(FiErrno.EACCES, "cannot create named AV '" + name + "': its " +
                "lock file " + lock + " exists, belongs to uid=" + a.get("uid") + " gid=" + a.get("gid") +
                " and is in use: have its owner remove it ('shmav gc' removes it once unused)");
        }
        AvLockFile.checkShape(lock, name, a);
        final AvFileChannel ch = AvFileChannel.openLockFile(lock, true);
        // A shared hold of the creator's byte (creators racing for the name may all hold it) until the AV
        // is published keeps gc from removing the file as an orphan; gc holds every byte for a moment
        // while it checks, so try for a while.
        final long deadline = System.nanoTime() + 1_000_000_000L;
        while (!ch.locks().holdShared(AvFileDescriptor.CREATOR_LOCK_OFFSET))
        {
            if (System.nanoTime() - deadline > 0)
            {
                ch.close();
                throw new FabricException(FiErrno.EAGAIN, "the lock file " + lock + " of named AV '" +
                    name + "' stayed locked by another process for 1 s while this one created the AV: try again");
            }
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
        Map<String, Object> n;
        try
        {
            n = AvLockFile.attributes(lock);
        }
        catch (final IOException e)
        {
            n = null; // removed meanwhile (as stale, or by a remover of the AV that had it)
        }
        if (n != null && n.get("ino").equals(a.get("ino")) && n.get("dev").equals(a.get("dev")))
        {
            m.putLong(AvFileDescriptor.LOCK_FILE_INODE_OFFSET, ((Number)a.get("ino")).longValue());
            m.putLong(AvFileDescriptor.LOCK_FILE_DEVICE_OFFSET, ((Number)a.get("dev")).longValue());
            return ch;
        }
        ch.locks().unlock(AvFileDescriptor.CREATOR_LOCK_OFFSET);
        ch.close(); // removed meanwhile, as stale: make it again
        return null;
    }

    /** Creates the lock file unless it exists (left by an AV of this name that is gone, or a racing creator's); its attributes. */
    private static Map<String, Object> create(final Path lock, final int mode) throws IOException
    {
        try
        {
            Files.newByteChannel(lock, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS), PosixFilePermissions.asFileAttribute(AvLockFile.fromBits(mode))).close();
            Files.setPosixFilePermissions(lock, AvLockFile.fromBits(mode)); // the umask may have dropped bits
        }
        catch (final FileAlreadyExistsException e)
        {
            // checked by the caller
        }
        return AvLockFile.attributes(lock);
    }
}
