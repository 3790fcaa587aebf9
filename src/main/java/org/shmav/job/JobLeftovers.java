package org.shmav.job;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import org.shmav.FabricException;
import org.shmav.shm.AvFileLocks;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLockFile;
import org.shmav.shm.CreatorLeftovers;
import org.shmav.shm.FileIdentity;
import org.shmav.shm.SharedAvFile;
import org.shmav.slots.Region;
import org.shmav.slots.ToolAccess;

/**
 * What a job leaves of its AV on a node, and the one way the job side removes it: the AV and its lock
 * file (through {@link SharedAvFile#unlink}, by identity under the name's lock), the temporary file of a
 * creator that died while building it, and the job file last, while the caller holds every participant's
 * lock of that job file so that nobody joins meanwhile. The job's last rank, its cleanup process
 * ({@link JobReaper}) and a later job's local rank 0 that finds a crashed job's leftovers all come here.
 * Stateless.
 */
final class JobLeftovers
{
    /** A job file whose header is still zero this long after it was made is a dead creator's without a pause. */
    private static final long UNWRITTEN_MILLIS = 1_000;
    /** How long local rank 0 waits for a crashed job's creator, which holds no lock any more, to finish exiting. */
    private static final long EXIT_WAIT_MILLIS = 2_000;
    /** How long local rank 0 looks again at an AV without job file that seems in use (the new job's ranks probe it). */
    private static final long IN_USE_WAIT_MILLIS = 1_000;

    private JobLeftovers()
    {
    }

    /**
     * Removes AV {@code avName} of {@code directory} with its lock file, and the temporary files of its
     * creators that died, but not the job file: the caller holds every participant's lock of it and
     * removes it after this. A file that is not a valid shmav AV is left (FabricException).
     */
    static void removeAvFiles(final Path directory, final String avName)
    {
        final FileIdentity before = FileIdentity.of(directory.resolve(avName));
        if (!SharedAvFile.unlink(directory, avName) && before != null && before.equals(FileIdentity.of(directory.resolve(avName))))
        {
            // never an AV without its job file: both stay, for gc or the next job's local rank 0
            throw new IllegalStateException("AV '" + avName + "' in " + directory + " could not be removed");
        }
        removeDeadCreatorsFiles(directory, avName);
        try
        {
            // Left when the creator died after making it and before publishing the AV.
            AvLockFile.deleteIfUnused(AvLockFile.of(directory.resolve(avName)), directory.resolve(avName), false);
        }
        catch (final IOException e)
        {
            // a later creator replaces a stale lock file; gc removes it otherwise
        }
    }

    /**
     * A new job's local rank 0, before it claims the name: when what holds AV {@code job.avName()} is the
     * leftover of a job that is over (no participant holds its place in the job file, and its creator is
     * gone), or an AV without a job file that no live process has open and whose creator is gone, removes
     * it and says so in one line on stderr. Anything else is left as it is, for the caller's checks to
     * refuse as before.
     *
     * @return true when it removed leftovers
     */
    static boolean clearIfOver(final RankEnvironment job)
    {
        final Path dir = job.directory();
        final String name = job.avName();
        final Path jobFile = JobFile.path(dir, name);
        try
        {
            if (Files.exists(jobFile, LinkOption.NOFOLLOW_LINKS))
            {
                return clearOverJob(job, jobFile);
            }
            if (Files.exists(dir.resolve(name), LinkOption.NOFOLLOW_LINKS))
            {
                return clearUnusedAv(job);
            }
            return false;
        }
        catch (final IOException | RuntimeException e)
        {
            return false; // not provably left over: the caller refuses it, naming it
        }
    }

    /** The job file of a job that is over: every participant's lock taken, then everything removed. */
    private static boolean clearOverJob(final RankEnvironment job, final Path file) throws IOException
    {
        final Object before = JobFile.fileKey(file);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final JobRecord old = JobRecord.read(file, ch);
            if (!overAndCreatorGone(old, file))
            {
                return false;
            }
            final FileLock all = lockEveryParticipant(ch);
            if (all == null)
            {
                return false; // a participant joined, or another remover holds it: not ours to judge now
            }
            try
            {
                if (before == null || !before.equals(JobFile.fileKey(file)))
                {
                    return false; // removed, or made anew by another job, since it was judged
                }
                final boolean hadAv = Files.exists(job.directory().resolve(job.avName()), LinkOption.NOFOLLOW_LINKS);
                removeAvFiles(job.directory(), job.avName());
                Files.delete(file);
                System.err.println("shmav: rank " + job.rank() + " (local rank 0) of job " + job.job() + " removed what " +
                    (old.job() == null ? "a job whose creator" + (old.creatorPid() > 0 ? " (pid " + old.creatorPid() + ")" :
                        "") + " died while recording it" :
                        "job " + old.job() + ", which is over (none of its processes runs)") + " left of AV '" +
                    job.avName() + "' in " + job.directory() + (hadAv ? " (the AV, its lock file" : " (its lock file") +
                    ", temporary files and " + file.getFileName() + "), and goes on");
                return true;
            }
            finally
            {
                all.release();
            }
        }
        catch (final NoSuchFileException e)
        {
            return false;
        }
    }

    /**
     * The lock of every participant's byte, retried for at most {@link JobFile#DELETE_WAIT_MILLIS}: the new
     * job's other ranks probe the old file's locks (briefly) while they wait for this rank.
     */
    private static FileLock lockEveryParticipant(final FileChannel ch) throws IOException
    {
        final long deadline = System.nanoTime() + JobFile.DELETE_WAIT_MILLIS * 1_000_000;
        FileLock all;
        while ((all = JobFile.tryLockEveryParticipant(ch)) == null && System.nanoTime() - deadline < 0)
        {
            try
            {
                Thread.sleep(2);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return null;
            }
        }
        return all;
    }

    /**
     * For a rank that finds another job's file where its own job's should be: true while that file may be
     * a crashed job's that this node's local rank 0 judges and removes (none of its participants runs, or a
     * remover holds every participant's byte now, or it was removed since it was read), so the rank waits
     * for local rank 0 instead of refusing; local rank 0 refuses a job that is not over, and its error
     * reaches this rank through the store.
     */
    static boolean mayBeCleared(final JobRecord theirs, final JobFile file) throws IOException
    {
        // in this order: a remover releases the locks only after the file is gone
        return theirs.running() == 0 || file.beingRemoved() || !file.stillNamed();
    }

    /**
     * True when no participant holds its place and the creator is gone. A header still zero may be a
     * creator between creating the file and writing it: only one older than {@value #UNWRITTEN_MILLIS} ms
     * counts as dead.
     */
    private static boolean overAndCreatorGone(final JobRecord r, final Path file) throws IOException
    {
        if (r.running() > 0)
        {
            return false;
        }
        if (r.creatorPid() <= 0)
        {
            // A live creator locks its byte and writes the header within microseconds of creating the file;
            // one that has not after a pause died (and should it only be stalled, the lock this rank takes
            // next makes its own lock fail: it gives up the name with an error, never shares it).
            if (r.job() != null || !isZeroHeader(file))
            {
                return false;
            }
            if (System.currentTimeMillis() - Files.getLastModifiedTime(file, LinkOption.NOFOLLOW_LINKS).toMillis() <
                UNWRITTEN_MILLIS)
            {
                pause(UNWRITTEN_MILLIS / 10);
            }
            return isZeroHeader(file); // a creator holding its byte makes the lock of every byte fail next
        }
        return goneSoon(r.creatorPid());
    }

    private static void pause(final long millis)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean isZeroHeader(final Path file) throws IOException
    {
        final byte[] head = Files.readAllBytes(file);
        for (int i = 0; i < Math.min(head.length, JobFile.SLOTS_START); i++)
        {
            if (head[i] != 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * An AV with no job file (its job file removed, its AV not: a creator stopped between the two): removed
     * when no live process has it open, its creator is gone and no job prologue filled it for a job still
     * to come ({@link PrefilledAv}).
     */
    private static boolean clearUnusedAv(final RankEnvironment job)
    {
        final Path dir = job.directory();
        final Path av = dir.resolve(job.avName());
        if (PrefilledAv.awaitsItsJob(dir, job.avName()))
        {
            return false;
        }
        final FileIdentity identity = FileIdentity.of(av);
        if (identity == null || !unusedLeftover(dir, job.avName(), IN_USE_WAIT_MILLIS))
        {
            return false;
        }
        if (!SharedAvFile.unlink(dir, job.avName(), identity))
        {
            return false; // removed, or made anew, meanwhile
        }
        removeDeadCreatorsFiles(dir, job.avName());
        System.err.println("shmav: rank " + job.rank() + " (local rank 0) of job " + job.job() + " removed AV '" +
            job.avName() + "' in " + job.directory() + " and its lock file, left with no job file by a job that is over " +
            "(no live process had it open, its creator gone), and goes on");
        return true;
    }

    /**
     * Whether AV {@code avName} of {@code dir}, which has no job file, is left over: no job prologue filled
     * it, and no live process has it open nor is its creator running, for one look or until
     * {@code withinMillis} passed.
     */
    static boolean unusedLeftover(final Path dir, final String avName, final long withinMillis)
    {
        if (PrefilledAv.awaitsItsJob(dir, avName))
        {
            return false;
        }
        final long deadline = System.nanoTime() + withinMillis * 1_000_000;
        // gone meanwhile (local rank 0 removed it) is no reason to refuse either
        while (Files.exists(dir.resolve(avName), LinkOption.NOFOLLOW_LINKS) && inUseOrCreatorAlive(dir.resolve(avName)))
        {
            if (System.nanoTime() - deadline > 0)
            {
                return false;
            }
            try
            {
                Thread.sleep(5);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /**
     * Whether the process that created AV file {@code av} runs (read from its header without mapping or
     * locking it, so that it never disturbs local rank 0 judging or removing the same file).
     */
    static boolean avCreatorRuns(final Path av)
    {
        try (FileChannel ch = FileChannel.open(av, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))
        {
            final java.nio.ByteBuffer pid = java.nio.ByteBuffer.allocate(Long.BYTES).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            JobFile.readFully(ch, pid, AvFileDescriptor.CREATOR_PID_OFFSET);
            return alive(pid.getLong(0));
        }
        catch (final IOException e)
        {
            return false; // gone: nothing to refuse
        }
    }

    /** Whether a live process (a writer or an FI_READ reader) has AV file {@code av} open, or its creator runs. */
    private static boolean inUseOrCreatorAlive(final Path av)
    {
        final Region region;
        try
        {
            region = ToolAccess.openReadOnly(av);
        }
        catch (final FabricException e)
        {
            return true; // not readable as an AV: never ours to remove
        }
        try
        {
            if (alive(region.memory().getLong(AvFileDescriptor.CREATOR_PID_OFFSET)))
            {
                return true;
            }
            final long highWater = Math.min(region.memory().getLongAcquire(AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET),
                region.layout().attachersCapacity());
            for (int a = 0; a < highWater; a++)
            {
                if (region.liveness().isHeld(a))
                {
                    return true;
                }
            }
            return region.file() == null ||
                region.file().locks().probeExclusive(AvFileDescriptor.READERS_LOCK_OFFSET, 1) != AvFileLocks.Probe.FREE;
        }
        finally
        {
            region.detach();
        }
    }

    /** The temporary files {@code .shmav-tmp.<name>.<pid>.<hex>} of creators of {@code avName} that died. */
    private static void removeDeadCreatorsFiles(final Path dir, final String avName)
    {
        final String prefix = SharedAvFile.TEMPORARY_PREFIX + avName + ".";
        final List<Path> dead = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, f -> f.getFileName().toString().startsWith(prefix)))
        {
            for (final Path f : files)
            {
                final String rest = f.getFileName().toString().substring(prefix.length());
                // <pid>.<hex>: a longer AV name sharing this prefix has more dots
                if (rest.matches("[0-9]+\\.[0-9a-f]+") && CreatorLeftovers.isDeadCreators(f, 0))
                {
                    dead.add(f);
                }
            }
            for (final Path f : dead)
            {
                Files.deleteIfExists(f);
            }
        }
        catch (final IOException e)
        {
            // gc removes them
        }
    }

    /** Whether process {@code pid} runs: a zombie (killed, not yet reaped by its parent) does not. */
    private static boolean alive(final long pid)
    {
        if (pid <= 0 || !ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
        {
            return false;
        }
        try
        {
            final String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            final int end = stat.lastIndexOf(')'); // the command may hold spaces and parentheses
            final char state = end > 0 && end + 2 < stat.length() ? stat.charAt(end + 2) : 'R';
            return state != 'Z' && state != 'X' && state != 'x';
        }
        catch (final IOException | RuntimeException e)
        {
            return !(e instanceof NoSuchFileException);
        }
    }

    /**
     * Whether process {@code pid} is gone, waiting at most {@value #EXIT_WAIT_MILLIS} ms: a process that
     * holds none of its job's locks any more may be exiting (the kernel drops the locks first).
     */
    private static boolean goneSoon(final long pid)
    {
        final long deadline = System.nanoTime() + EXIT_WAIT_MILLIS * 1_000_000;
        while (alive(pid))
        {
            if (System.nanoTime() - deadline > 0)
            {
                return false;
            }
            try
            {
                Thread.sleep(10);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }
}
