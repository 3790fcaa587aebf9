package org.shmav.shm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * Removal of a named AV and its lock file, by identity, never by name (shm-layout.md, LIFECYCLE, Lock
 * file, Remove): every remover ({@code Domain.unlinkAv}, so {@code shmav rm}, avrun's end of job, the
 * job's cleanup process and its last rank; {@code shmav gc}) comes here. Stateless.
 */
final class AvRemover
{
    private AvRemover()
    {
    }

    /** A test's pause between the removal of an AV and that of its lock file; null but in tests. */
    static volatile Runnable betweenRemovals;

    /**
     * Removes AV {@code name} of {@code dir}, when it is a valid shmav AV or an AV of an older layout
     * ({@link OlderLayout}; whether a process holds it is the caller's question) (and, when {@code expected} is
     * given, the very file a caller checked), and then its lock file, if it is the one the AV names. Both
     * are removed by identity under the name's lock ({@link AvNameLock}): a file that a newer AV of the
     * name uses is never removed, however long this process is delayed. False when there was no such
     * AV (gone, or replaced since it was checked).
     */
    static boolean unlink(final Path dir, final String name, final FileIdentity expected)
    {
        return unlink(dir, AvName.of(name), expected);
    }

    /** {@link #unlink(Path, String, FileIdentity)} of a name checked already. */
    static boolean unlink(final Path dir, final AvName avName, final FileIdentity expected)
    {
        final String name = avName.name();
        final Path file = avName.in(dir);
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS))
        {
            return false;
        }
        final AvFileChannel ch;
        try
        {
            ch = SharedAvFile.openChannel(file, name, false);
        }
        catch (final FabricException e)
        {
            if (e.errno() == FiErrno.ENOENT)
            {
                return false; // removed since the check by another process (a job's cleanup, shmav rm): gone either way
            }
            throw e;
        }
        try
        {
            // The header decides whether it is a shmav AV; a file cut short of its segments still is one
            // (the length is not checked: that is how a truncated AV gets removed).
            final Memory header = SharedAvFile.mapHeader(ch, file, name, true);
            AvLayout.read(header, Long.MAX_VALUE);
            return removeChecked(file, name, ch, expected, FileIdentity.lockFileOf(header));
        }
        catch (final AvLayout.LayoutException e)
        {
            // An AV of an older layout is still an AV: removed the same way, with its lock file (since 4.0 the
            // header names it at the same offsets). One of a newer layout is the newer shmav's to remove.
            final Memory header = SharedAvFile.mapHeader(ch, file, name, true);
            final int major = OlderLayout.olderMajor(header);
            if (major > 0)
            {
                try
                {
                    return removeChecked(file, name, ch, expected,
                        major >= OlderLayout.LIVENESS_SINCE_MAJOR ? FileIdentity.lockFileOf(header) : null);
                }
                catch (final IOException io)
                {
                    throw SharedAvFile.ioFailure(name, file, io);
                }
            }
            throw SharedAvFile.invalid("'" + file + "' is not a valid shmav AV of this or an older " +
                "layout, so it was left alone: " + e.getMessage());
        }
        catch (final IOException e)
        {
            throw SharedAvFile.ioFailure(name, file, e);
        }
        finally
        {
            ch.close();
        }
    }

    /**
     * Under the name's lock: removes the AV when its name still leads to {@code checked} (and to
     * {@code expected}, when given), then its lock file when the name leads to {@code lockFile}.
     */
    private static boolean removeChecked(final Path file, final String name, final AvFileChannel checked,
        final FileIdentity expected, final FileIdentity lockFile) throws IOException
    {
        try (AvNameLock lock = AvNameLock.acquire(file, name))
        {
            final FileIdentity now = FileIdentity.of(file);
            if (now == null || !checked.isNamedBy(file) || expected != null && !expected.equals(now) ||
                !lock.removeIfSame(file, now))
            {
                return false; // removed, or replaced by a newer AV, since it was checked
            }
            final Runnable pause = betweenRemovals;
            if (pause != null)
            {
                pause.run();
            }
            // After the AV: nobody finds an AV without its lock file. Only the AV's own (a newer AV's
            // creator cannot have made another while this lock is held).
            if (lock.held() && lock.lockFile().equals(lockFile))
            {
                lock.removeIfSame(AvLockFile.of(file), lockFile);
            }
            return true;
        }
    }

}
