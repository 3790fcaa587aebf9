package org.shmav.shm;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Map;
import java.util.Set;

import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * The lock file of a named AV, {@code .shmav-lock.<name>} beside it: where writers hold every record
 * lock they share (attacher liveness, auth-key inserts), at the same offsets the layout gives
 * those bytes. Nothing is ever written into it; it stays empty.
 *
 * <p>Why a file of its own: a record lock is open to anyone who can open the file, and a shared lock
 * needs only read access. On the AV file itself, a user allowed to read the AV could take shared locks
 * on the writers' bytes and stop them, or keep a dead writer looking alive. The lock file grants access
 * only to those who may write the AV (for each of owner, group and others: read and write when the AV
 * grants write, nothing otherwise). And code that opens and closes the AV file in a writer's JVM (which
 * drops every POSIX record lock the process holds on that file) leaves the locks alone; the locks
 * themselves are open-file-description locks where the JVM can take them
 * ({@link AvFileChannel#openLockFile}), so that even a close of the lock file elsewhere in the JVM
 * leaves them.
 *
 * <p>The creator of an AV makes the lock file before it publishes the AV and records its identity
 * (inode and device) in the AV's header; a writer opens it only when it is a regular file reached
 * without a link, owned by the AV's owner and group, moded as above and the one the header names, so
 * that every writer locks the same inode ({@link AvLockFileCreator} makes it). Removed after its AV,
 * by identity ({@link AvNameLock}). Stateless.
 */
public final class AvLockFile
{
    /** Prefix of the file's name; AV names cannot start with '.', so it never clashes with an AV. */
    public static final String PREFIX = ".shmav-lock.";

    private AvLockFile()
    {
    }

    /** A test's pause in {@link #deleteIfUnused} between opening the lock file and locking it; null but in tests. */
    static volatile Runnable afterOpenForRemoval;

    /** The lock file of the AV file {@code avFile}. */
    public static Path of(final Path avFile)
    {
        return avFile.resolveSibling(PREFIX + avFile.getFileName());
    }

    /** The AV a lock file is about, or null when {@code fileName} is not a lock file's name. */
    public static String avNameOf(final String fileName)
    {
        return fileName.startsWith(PREFIX) && fileName.length() > PREFIX.length() ? fileName.substring(PREFIX.length()) : null;
    }

    /** The lock file's mode for an AV of mode {@code avMode}: read and write for each class that may write the AV. */
    static int modeFor(final int avMode)
    {
        int mode = 0;
        for (int shift = 0; shift <= 6; shift += 3)
        {
            if ((avMode & (02 << shift)) != 0)
            {
                mode |= 06 << shift;
            }
        }
        return mode;
    }

    /**
     * For a writer of AV file {@code avFile} whose header is {@code m}: opens (or joins this JVM's open
     * file of) its lock file, after checking it is the one the header names, a regular file owned by the
     * AV's owner and group, and moded for the AV's writers only. Close it when done.
     */
    public static AvFileChannel openForWriter(final Path avFile, final String name, final Memory m)
    {
        final Path lock = of(avFile);
        try
        {
            final Map<String, Object> av = Files.readAttributes(avFile, "unix:uid,gid,mode", LinkOption.NOFOLLOW_LINKS);
            final Map<String, Object> a;
            try
            {
                a = attributes(lock);
                checkShape(lock, name, a);
            }
            catch (final NoSuchFileException e)
            {
                throw broken(name, lock, "it is missing (removed by hand?)");
            }
            if (((Number)a.get("ino")).longValue() != m.getLong(AvFileDescriptor.LOCK_FILE_INODE_OFFSET) ||
                ((Number)a.get("dev")).longValue() != m.getLong(AvFileDescriptor.LOCK_FILE_DEVICE_OFFSET))
            {
                throw broken(name, lock, "it is not the lock file the AV was created with (replaced by hand?)");
            }
            final int avMode = (Integer)av.get("mode") & 0777;
            final Map<String, Object> fixed = ownersFix(lock, a, av, modeFor(avMode));
            // The AV's owner's, or (an AV its group may write) a group writer's file of the AV's group.
            final boolean owners = fixed.get("uid").equals(av.get("uid"));
            final boolean groups = (avMode & 020) != 0 && fixed.get("gid").equals(av.get("gid"));
            if (!owners && !groups || (avMode & 020) != 0 && !fixed.get("gid").equals(av.get("gid")))
            {
                throw new FabricException(FiErrno.EACCES, String.format("the lock file %s of named AV " +
                    "'%s' belongs to uid=%s gid=%s, the AV to uid=%s gid=%s: a writer locks only a file the AV's owner " +
                    "(or, for a group AV, its group) controls. Remove the AV (as its owner) and create it again", lock,
                    name, fixed.get("uid"), fixed.get("gid"), av.get("uid"), av.get("gid")));
            }
            checkMode(lock, name, (Integer)fixed.get("mode") & 0777, modeFor(avMode));
            return AvFileChannel.openLockFile(lock, true);
        }
        catch (final AccessDeniedException e)
        {
            throw new FabricException(FiErrno.EACCES, "no permission to open the lock file " + lock +
                " of named AV '" + name + "': only users who may write the AV may open it", e);
        }
        catch (final IOException e)
        {
            throw SharedAvFile.ioFailure(name, lock, e);
        }
    }

    /**
     * For a tool or reader of AV file {@code avFile}: its lock file opened read-only, to tell live writers
     * from dead ones; null when this user may not open it (then nobody's death can be told).
     */
    public static AvFileChannel openForProbe(final Path avFile)
    {
        final Path lock = of(avFile);
        try
        {
            checkShape(lock, "", attributes(lock));
            return AvFileChannel.openLockFile(lock, false);
        }
        catch (final IOException | FabricException e)
        {
            return null;
        }
    }

    /**
     * For {@code shmav gc}: removes the lock file {@code lock} when its AV {@code avFile} is gone and no
     * process holds a lock in it (a writer of that AV, still running after the AV was removed under it,
     * or a creator making the AV anew). It holds an exclusive lock on every byte, through this JVM's
     * open file of it, while it checks that the name still leads to the file it locked and that the AV is
     * still absent, and removes it: a creator holds its byte until its AV is published and joined, and a remover of
     * the AV ({@link AvNameLock}) the same byte. With {@code dryRun}, only tells.
     *
     * @return true when it was (or would be) removed
     */
    public static boolean deleteIfUnused(final Path lock, final Path avFile, final boolean dryRun) throws IOException
    {
        final AvFileChannel ch;
        try
        {
            ch = AvFileChannel.openLockFile(lock, true);
        }
        catch (final NoSuchFileException e)
        {
            return false;
        }
        try
        {
            final Runnable pause = afterOpenForRemoval;
            if (pause != null)
            {
                pause.run();
            }
            if (!ch.locks().tryLockAll())
            {
                return false; // a process (this JVM included) holds a lock in it
            }
            try
            {
                if (!ch.isNamedBy(lock))
                {
                    return false; // removed and made anew since it was opened: the new one is not the one locked
                }
                if (Files.exists(avFile, LinkOption.NOFOLLOW_LINKS))
                {
                    return false; // published meanwhile: the lock file is its
                }
                if (!dryRun)
                {
                    Files.deleteIfExists(lock);
                }
                return true;
            }
            finally
            {
                ch.locks().unlockAll();
            }
        }
        finally
        {
            ch.close();
        }
    }

    /**
     * When this user owns the lock file, makes its group the AV's and its mode the one for the AV's mode
     * (the owner may have run chgrp or chmod on the AV since it was created); its attributes now.
     */
    private static Map<String, Object> ownersFix(final Path lock, final Map<String, Object> a, final Map<String, Object> av,
        final int expected) throws IOException
    {
        final FileOwnership.Identity me = FileOwnership.Identity.SELF;
        if (me == null || !a.get("uid").equals(me.uid()))
        {
            return a;
        }
        try
        {
            if (!a.get("gid").equals(av.get("gid")))
            {
                Files.setAttribute(lock, "unix:gid", av.get("gid"), LinkOption.NOFOLLOW_LINKS);
            }
            if (((Integer)a.get("mode") & 0777) != expected)
            {
                Files.setPosixFilePermissions(lock, fromBits(expected));
            }
        }
        catch (final IOException e)
        {
            return a; // not allowed (a group this user is not in): the checks that follow say what is wrong
        }
        return attributes(lock);
    }

    /** Its mode must grant nothing the AV's writers do not have. */
    private static void checkMode(final Path lock, final String name, final int mode, final int expected)
    {
        if ((mode & ~expected) != 0 || mode == 0)
        {
            throw new FabricException(FiErrno.EACCES, String.format("the lock file %s of named AV '%s' " +
                "has mode %04o, but only the AV's writers may use it (mode %04o for this AV's mode): its owner fixes " +
                "that by opening the AV for writing, or with chmod %o %s", lock, name, mode, expected, expected, lock));
        }
    }

    /**
     * Judges the attributes {@code a} read of the lock file (one look: a second one could meet a file
     * removed meanwhile and take it for another kind). No link left is a file removed since it was looked
     * up: NoSuchFileException, as if it had not been found.
     */
    static void checkShape(final Path lock, final String name, final Map<String, Object> a)
        throws NoSuchFileException
    {
        if (((Integer)a.get("mode") & S_IFMT) != S_IFREG)
        {
            throw broken(name, lock, "it is not a regular file");
        }
        final int links = ((Number)a.get("nlink")).intValue();
        if (links == 0)
        {
            throw new NoSuchFileException(lock.toString());
        }
        if (links != 1)
        {
            throw broken(name, lock, "it has other names (hard links)");
        }
    }

    /** The file-type bits of {@code st_mode}, and their value for a regular file. */
    private static final int S_IFMT = 0170000;
    private static final int S_IFREG = 0100000;

    static Map<String, Object> attributes(final Path lock) throws IOException
    {
        return Files.readAttributes(lock, "unix:uid,gid,mode,ino,dev,nlink", LinkOption.NOFOLLOW_LINKS);
    }

    static FabricException broken(final String name, final Path lock, final String why)
    {
        return new FabricException(FiErrno.EIO, "the lock file " + lock + " of named AV '" + name + "' " +
            "cannot be used: " + why + ". Writers in different processes must lock one file, so none writes; " +
            "readers still read. Remove the AV with 'shmav rm " + name + "' and create it again");
    }

    static int toBits(final Set<PosixFilePermission> p)
    {
        int bits = 0;
        for (final PosixFilePermission x : p)
        {
            bits |= 0400 >> x.ordinal();
        }
        return bits;
    }

    static Set<PosixFilePermission> fromBits(final int bits)
    {
        final Set<PosixFilePermission> p = java.util.EnumSet.noneOf(PosixFilePermission.class);
        for (final PosixFilePermission x : PosixFilePermission.values())
        {
            if ((bits & (0400 >> x.ordinal())) != 0)
            {
                p.add(x);
            }
        }
        return p;
    }
}
