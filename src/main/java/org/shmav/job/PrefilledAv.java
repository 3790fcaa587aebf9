package org.shmav.job;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The mark of an AV filled before its job's ranks start (a job prologue): the file
 * {@code .shmav-prefilled.<AV name>} next to it, made by whoever filled it ({@link #mark}, or
 * {@code touch}). While it is there {@code shmav gc} keeps the AV however long it has been idle; the
 * job's first rank that opens the AV ({@code SHMAV_PREFILLED=1}) removes the mark, from then on the AV
 * is kept while ranks hold it open and removed by gc after its grace period once they are gone.
 * Stateless.
 */
public final class PrefilledAv
{
    /** Prefix of the mark's name; AV names cannot start with '.', so it never clashes with an AV. */
    public static final String PREFIX = ".shmav-prefilled.";
    /** How long a rank waits for another rank that is removing the mark. */
    private static final long LOCK_WAIT_MILLIS = 1_000;

    private PrefilledAv()
    {
    }

    /** {@return the mark of AV {@code avName} in {@code directory}} */
    public static Path path(final Path directory, final String avName)
    {
        return directory.resolve(PREFIX + avName);
    }

    /**
     * Marks AV {@code avName} as filled for a job that has not run yet (its content says who marked it).
     *
     * @throws IOException when the mark cannot be written
     */
    public static void mark(final Path directory, final String avName) throws IOException
    {
        try
        {
            Files.write(Files.createFile(path(directory, avName), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rw-------"))), ("pid " + ProcessHandle.current().pid() + "\n")
                .getBytes(StandardCharsets.US_ASCII), StandardOpenOption.WRITE);
        }
        catch (final FileAlreadyExistsException e)
        {
            // marked already
        }
    }

    /** {@return whether gc must keep AV {@code avName}: it is marked and its job has not opened it yet} */
    public static boolean awaitsItsJob(final Path directory, final String avName)
    {
        return Files.exists(path(directory, avName), LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * The job's rank opened the AV: the mark's work is done. Removed by identity, under an exclusive lock on
     * the mark itself that every rank removing it takes: of the job's ranks one removes it, and a mark made
     * anew for a later job (after this one was removed) is never removed by a rank that looked at the old one.
     */
    static void jobStarted(final Path directory, final String avName)
    {
        final Path mark = path(directory, avName);
        try
        {
            final Object seen = JobFile.fileKey(mark);
            if (seen == null)
            {
                return; // another rank was first
            }
            try (FileChannel ch = FileChannel.open(mark, StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS); FileLock lock = lockWithin(ch, LOCK_WAIT_MILLIS))
            {
                if (lock != null && seen.equals(JobFile.fileKey(mark)))
                {
                    Files.delete(mark);
                }
            }
        }
        catch (final NoSuchFileException e)
        {
            // another rank was first
        }
        catch (final IOException e)
        {
            System.err.println("shmav: cannot remove " + mark + " (" + e.getMessage() +
                "): gc keeps AV '" + avName + "' until it is removed");
        }
    }

    /** The exclusive lock of the whole mark, retried for at most {@code millis}; null when another process kept it. */
    private static FileLock lockWithin(final FileChannel ch, final long millis) throws IOException
    {
        final long deadline = System.nanoTime() + millis * 1_000_000;
        while (true)
        {
            try
            {
                final FileLock lock = ch.tryLock();
                if (lock != null || System.nanoTime() - deadline > 0)
                {
                    return lock;
                }
            }
            catch (final OverlappingFileLockException e)
            {
                if (System.nanoTime() - deadline > 0)
                {
                    return null; // another rank of this JVM (tests) holds it
                }
            }
            try
            {
                Thread.sleep(1);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while removing " + PREFIX + " mark");
            }
        }
    }
}
