package org.shmav.job;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;

/**
 * The steps of {@link NodeJob} that read a job file from outside: whether a name is taken and by
 * whom, waiting for local rank 0's file and joining it, and avrun's check. Stateless.
 */
final class JobFiles
{
    /** How long an AV may be seen without a job file before a waiting rank calls it foreign. */
    private static final long FOREIGN_MILLIS = 1_000;
    private static final long POLL_MILLIS = 10;

    private JobFiles()
    {
    }

    /** Under avrun: the AV the launcher created, after refusing one whose job file names another job. */
    static AddressVector attachToLaunchersAv(final NodeAvs domain, final RankEnvironment job, final AvType type)
    {
        if (!avExists(domain, job.avName()))
        {
            throw new FabricException("shmav_rank_open", FiErrno.ENOENT, "the job's AV '" + job.avName() +
                "' does not exist in " + job.directory() + ": ranks attach to the AV their launcher created");
        }
        checkLaunchers(job);
        final AddressVector av = domain.openAv(AvAttr.builder().type(type).name(job.avName()).build());
        if (av.attr().count() < job.size())
        {
            av.close();
            throw new FabricException("shmav_rank_open", FiErrno.EINVAL, "AV '" + job.avName() + "' holds " +
                av.attr().count() + " entries, fewer than size=" + job.size());
        }
        return av;
    }

    /** Under avrun: refuses an AV whose job file names another job (when avrun told the rank its job). */
    private static void checkLaunchers(final RankEnvironment job)
    {
        if (job.job() == null)
        {
            return; // a rank opened by hand (Rank.open): no job to compare
        }
        final Optional<JobRecord> r = record(job);
        if (r.isEmpty() || r.get().job() == null)
        {
            throw new FabricException("shmav_rank_open", FiErrno.ENOENT, "rank " + job.rank() + " of job " + job.job() +
                ": AV '" + job.avName() + "' in " + job.directory() + " has no job file " + file(job).getFileName() +
                ": not made by this job's launcher");
        }
        if (!r.get().job().equals(job.job()))
        {
            throw JobRefusals.otherJob(job, r.get());
        }
    }

    /**
     * Waits (until {@code deadline}) for local rank 0's job file to record this job's AV, refuses
     * another job's, and joins it.
     */
    static JobFile awaitAndJoin(final NodeAvs domain, final RankEnvironment job, final long deadline, final Duration timeout)
    {
        long foreignSince = 0;
        while (true)
        {
            final Optional<JobFile> found = open(job);
            if (found.isEmpty())
            {
                // An AV without a job file was not made by a job's rank 0 (which records the job first).
                // Files.exists, not an open: a reader's open would make the AV look in use to local rank 0
                if (!Files.exists(job.directory().resolve(job.avName()), LinkOption.NOFOLLOW_LINKS))
                {
                    foreignSince = 0;
                }
                else if (foreignSince == 0)
                {
                    foreignSince = System.nanoTime();
                }
                else if (System.nanoTime() - foreignSince > FOREIGN_MILLIS * 1_000_000 &&
                    JobLeftovers.avCreatorRuns(job.directory().resolve(job.avName())))
                {
                    // Its creator gone, it may be a crashed job's AV, which local rank 0 judges and removes (its
                    // probes would see this rank's as use): wait for local rank 0 then, until the deadline.
                    throw JobRefusals.notAJobsAv(job);
                }
                pause(job, deadline, timeout);
                continue;
            }
            final JobFile jobFile = found.get();
            try
            {
                if (awaitAvCreated(jobFile, job, deadline, timeout) && jobFile.join(deadline))
                {
                    return jobFile;
                }
                jobFile.close(); // the file went away: its job ended; look again
            }
            catch (final LockTakenException e)
            {
                closeQuietly(jobFile);
                throw new FabricException("shmav_rank_open", e.joined() ? FiErrno.EBUSY : FiErrno.ETIMEDOUT, "rank " +
                    job.rank() + " (local rank " + job.localRank() + ") of job " + job.job() + " could not join AV '" +
                    job.avName() + "'" + (e.joined() ? "" : " within " + timeout.toMillis() + " ms") + ": " +
                        e.getMessage() + (e.joined() ? ". Two " +
                    "processes of this job have local rank " + job.localRank() + " here: ranks of two nodes share " +
                    job.directory() + "? Named AVs are node-local (shared memory): set " + JobVariables.DIR +
                    " to a node-local directory such as /dev/shm (or leave it unset)" : ". Stop that process, or give the " +
                    "job another " + JobVariables.AV), e);
            }
            catch (final IOException e)
            {
                closeQuietly(jobFile);
                throw new FabricException("shmav_rank_open", FiErrno.EIO, "cannot join " + file(job) + ": " + e, e);
            }
            catch (final RuntimeException e)
            {
                closeQuietly(jobFile);
                throw e;
            }
            pause(job, deadline, timeout);
        }
    }

    /** Polls the job file until this job's AV exists; false when the file was removed or replaced meanwhile. */
    private static boolean awaitAvCreated(final JobFile jobFile, final RankEnvironment job, final long deadline,
        final Duration timeout) throws IOException
    {
        while (true)
        {
            final JobRecord r = jobFile.read();
            if (r.job() != null && !r.job().equals(job.job()) && !JobLeftovers.mayBeCleared(r, jobFile))
            {
                throw JobRefusals.otherJob(job, r);
            }
            if (r.job() != null && r.job().equals(job.job()) && r.state() >= JobFile.AV_CREATED)
            {
                return true;
            }
            if (!jobFile.stillNamed())
            {
                return false; // its creator could not make the AV and removed it, its job ended, or it was left over
            }
            pause(job, deadline, timeout);
        }
    }

    private static Optional<JobFile> open(final RankEnvironment job)
    {
        try
        {
            return JobFile.open(job.directory(), job.avName(), job.localRank(), job.localSize());
        }
        catch (final IOException e)
        {
            throw new FabricException("shmav_rank_open", FiErrno.EIO, "cannot open " + file(job) + ": " + e, e);
        }
    }

    static Optional<JobRecord> record(final RankEnvironment job)
    {
        try
        {
            return JobRecord.read(file(job));
        }
        catch (final IOException e)
        {
            return Optional.empty();
        }
    }

    /**
     * The job file that beat this rank 0 to the name: another job's rank 0 may be writing it at this
     * moment (two jobs started together), so wait briefly for its job to be recorded, to name it.
     */
    static Optional<JobRecord> recordedOwner(final RankEnvironment job)
    {
        try
        {
            return JobRecord.readRecorded(file(job), FOREIGN_MILLIS);
        }
        catch (final IOException e)
        {
            return Optional.empty();
        }
    }

    /** The job's cleanup process ({@link JobReaper}): it removes the files when a launcher kills the ranks too fast. */
    static void startReaper(final RankEnvironment job, final JobFile jobFile)
    {
        try
        {
            JobReaper.start(job.directory(), job.avName(), jobFile.read());
        }
        catch (final IOException e)
        {
            System.err.println("shmav: cannot read " + file(job) + " (" + e + "): a killed job's AV is left to 'shmav gc'");
        }
    }

    private static void pause(final RankEnvironment job, final long deadline, final Duration timeout)
    {
        if (System.nanoTime() - deadline > 0)
        {
            throw new FabricException("shmav_rank_open", FiErrno.ETIMEDOUT, "rank " + job.rank() + " (local rank " +
                job.localRank() + ") of job " + job.job() + ": local rank 0 did not create AV '" + job.avName() + "' in " +
                job.directory() + " within " + timeout.toMillis() + " ms");
        }
        sleep(POLL_MILLIS, job);
    }

    static void sleep(final long millis, final RankEnvironment job)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new FabricException("shmav_rank_open", FiErrno.EINTR, "interrupted while waiting for AV '" +
                job.avName() + "'", e);
        }
    }

    /** Whether the named AV exists (a read-only open succeeds), without ever creating it. */
    static boolean avExists(final NodeAvs domain, final String name)
    {
        try (AddressVector probe = domain.openAv(AvAttr.builder().type(AvType.UNSPEC).name(name).flags(Fi.READ).build()))
        {
            return probe != null;
        }
        catch (final FabricException e)
        {
            if (e.errno() == FiErrno.ENOENT)
            {
                return false;
            }
            throw e;
        }
    }

    /** The creator's job file when its AV could not be made or joined: removed, with the AV when {@code withAv}. */
    static void closeAndDelete(final JobFile jobFile, final boolean withAv, final RuntimeException e)
    {
        try
        {
            jobFile.delete(withAv ? () -> JobLeftovers.removeAvFiles(jobFile.directory(), jobFile.avName()) : () -> { });
        }
        catch (final IOException | RuntimeException suppressed)
        {
            e.addSuppressed(suppressed);
        }
        finally
        {
            closeQuietly(jobFile);
        }
    }

    static void closeQuietly(final JobFile jobFile)
    {
        try
        {
            jobFile.close();
        }
        catch (final IOException e)
        {
            // nothing more to release
        }
    }

    static Path file(final RankEnvironment job)
    {
        return JobFile.path(job.directory(), job.avName());
    }
}
