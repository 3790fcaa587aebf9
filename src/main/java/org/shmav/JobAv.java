package org.shmav;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import org.shmav.job.JobFile;
import org.shmav.job.JobId;
import org.shmav.job.JobReaper;
import org.shmav.job.JobRecord;

/**
 * A job's AV and its job file ({@link JobFile}), as a rank finds them: local rank 0 under mpirun,
 * mpiexec or srun claims the name with the job file and then creates the AV; every other rank reads
 * the job file first and attaches only to its own job's AV. A rank of another job given the same name
 * is refused with FI_EBUSY naming both jobs, and never attaches.
 */
final class JobAv
{
    /** How long an AV may be seen without a job file before a waiting rank calls it foreign. */
    private static final long FOREIGN_MILLIS = 1_000;
    private static final long POLL_MILLIS = 10;

    /** The node's AV, and this rank's place in the job file. */
    record Joined(AddressVector av, JobFile jobFile)
    {
    }

    private JobAv()
    {
    }

    /** Local rank 0 under a foreign launcher: claims the name, creates the AV; nobody else creates it. */
    static Joined create(final Domain domain, final RankEnvironment job)
    {
        // The common case (an AV left by a job that died) first; the job file and createOnly below decide races.
        if (exists(domain, job.avName()))
        {
            throw existsAlready(job, record(job), null);
        }
        final JobFile jobFile;
        try
        {
            jobFile = JobFile.create(job.directory(), job.avName(), job.job(), job.localSize());
        }
        catch (final FileAlreadyExistsException e)
        {
            final Optional<JobRecord> owner = recordedOwner(job);
            if (owner.isPresent() && owner.get().running() == 0 && !exists(domain, job.avName()))
            {
                throw leftOver(job, owner.get());
            }
            throw existsAlready(job, owner, null);
        }
        catch (final IOException e)
        {
            throw new FabricException("shmav_rank_open", FiErrno.EIO, "cannot create " +
                JobFile.path(job.directory(), job.avName()) + ": " + e, e);
        }
        try
        {
            final AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).count(job.entries())
                .name(job.avName()).createOnly(true).build());
            try
            {
                jobFile.avCreated();
            }
            catch (final IOException e)
            {
                av.close();
                domain.unlinkAv(job.avName());
                throw new FabricException("shmav_rank_open", FiErrno.EIO, "cannot write " +
                    JobFile.path(job.directory(), job.avName()) + ": " + e, e);
            }
            startReaper(job, jobFile);
            return new Joined(av, jobFile);
        }
        catch (final RuntimeException e)
        {
            // This job's own file, still locked by this process: nobody else removes or replaces it.
            closeAndDelete(jobFile, e);
            if (e instanceof FabricException f && f.errno() == FiErrno.EEXIST)
            {
                throw existsAlready(job, Optional.empty(), f);
            }
            throw e;
        }
    }

    /** The job's cleanup process ({@link JobReaper}): it removes the files when a launcher kills the ranks too fast. */
    private static void startReaper(final RankEnvironment job, final JobFile jobFile)
    {
        try
        {
            JobReaper.start(job.directory(), job.avName(), jobFile.read());
        }
        catch (final IOException e)
        {
            System.err.println("shmav: cannot read " + JobFile.path(job.directory(), job.avName()) + " (" + e +
                "): a killed job's AV is left to 'shmav gc'");
        }
    }

    /** Another local rank: waits (bounded) for its job's AV, refuses another job's, then attaches. */
    static Joined attach(final Domain domain, final RankEnvironment job, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        long foreignSince = 0;
        while (true)
        {
            final Optional<JobFile> found = open(job);
            if (found.isEmpty())
            {
                // An AV without a job file was not made by a job's rank 0 (which records the job first).
                if (!exists(domain, job.avName()))
                {
                    foreignSince = 0;
                }
                else if (foreignSince == 0)
                {
                    foreignSince = System.nanoTime();
                }
                else if (System.nanoTime() - foreignSince > FOREIGN_MILLIS * 1_000_000)
                {
                    throw notAJobsAv(job);
                }
                pause(job, deadline, timeout);
                continue;
            }
            final JobFile jobFile = found.get();
            try
            {
                if (awaitAvCreated(jobFile, job, deadline, timeout) && jobFile.join())
                {
                    return new Joined(domain.openAv(AvAttr.builder().type(AvType.TABLE).name(job.avName()).build()),
                        jobFile);
                }
                jobFile.close(); // the file went away: its job ended; look again
            }
            catch (final IOException e)
            {
                closeQuietly(jobFile);
                throw new FabricException("shmav_rank_open", FiErrno.EIO, "cannot join " +
                    JobFile.path(job.directory(), job.avName()) + ": " + e, e);
            }
            catch (final RuntimeException e)
            {
                closeQuietly(jobFile);
                throw e;
            }
            pause(job, deadline, timeout);
        }
    }

    /** Under avrun: refuses an AV whose job file names another job (when avrun told the rank its job). */
    static void checkLaunchers(final RankEnvironment job)
    {
        if (job.job() == null)
        {
            return; // a rank opened by hand (Rank.open): no job to compare
        }
        final Optional<JobRecord> r = record(job);
        if (r.isEmpty() || r.get().job() == null)
        {
            throw new FabricException("shmav_rank_open", FiErrno.ENOENT, "rank " + job.rank() + " of job " + job.job() +
                ": AV '" + job.avName() + "' in " + job.directory() + " has no job file " +
                JobFile.path(job.directory(), job.avName()).getFileName() + ": not made by this job's launcher");
        }
        if (!r.get().job().equals(job.job()))
        {
            throw otherJob(job, r.get());
        }
    }

    /** Polls the job file until this job's AV exists; false when the file was removed or replaced meanwhile. */
    private static boolean awaitAvCreated(final JobFile jobFile, final RankEnvironment job, final long deadline,
        final Duration timeout) throws IOException
    {
        while (true)
        {
            final JobRecord r = jobFile.read();
            if (r.job() != null && !r.job().equals(job.job()))
            {
                throw otherJob(job, r);
            }
            if (r.job() != null && r.state() == JobFile.AV_CREATED)
            {
                return true;
            }
            if (!jobFile.stillNamed())
            {
                return false; // its creator could not make the AV and removed it, or its job ended
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
            throw new FabricException("shmav_rank_open", FiErrno.EIO, "cannot open " +
                JobFile.path(job.directory(), job.avName()) + ": " + e, e);
        }
    }

    private static Optional<JobRecord> record(final RankEnvironment job)
    {
        try
        {
            return JobRecord.read(JobFile.path(job.directory(), job.avName()));
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
    private static Optional<JobRecord> recordedOwner(final RankEnvironment job)
    {
        final long deadline = System.nanoTime() + FOREIGN_MILLIS * 1_000_000;
        Optional<JobRecord> r = record(job);
        while (r.isPresent() && r.get().job() == null && System.nanoTime() - deadline < 0)
        {
            try
            {
                Thread.sleep(POLL_MILLIS);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                break;
            }
            r = record(job);
        }
        return r;
    }

    private static void pause(final RankEnvironment job, final long deadline, final Duration timeout)
    {
        if (System.nanoTime() - deadline > 0)
        {
            throw new FabricException("shmav_rank_open", FiErrno.ETIMEDOUT, "rank " + job.rank() + " (local rank " +
                job.localRank() + ") of job " + job.job() + ": local rank 0 did not create AV '" + job.avName() + "' in " +
                job.directory() + " within " + timeout.toMillis() + " ms");
        }
        try
        {
            Thread.sleep(POLL_MILLIS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new FabricException("shmav_rank_open", FiErrno.EINTR, "interrupted while waiting for AV '" +
                job.avName() + "'", e);
        }
    }

    /** A rank of job A meets job B's AV: never attach, name both jobs, say what to do. */
    static FabricException otherJob(final RankEnvironment job, final JobRecord theirs)
    {
        return new FabricException("shmav_rank_open", FiErrno.EBUSY, "rank " + job.rank() + " of job " + job.job() +
            " refused AV '" + job.avName() + "' in " + job.directory() + ": it belongs to job " + theirs.job() + " (" +
            theirs.running() + " of " + theirs.slots() + " running), another job given the same AV name; this rank did " +
            "not attach. Give each job its own " + Rank.AV_ENV + ", or leave it unset (one AV per job)");
    }

    private static FabricException existsAlready(final RankEnvironment job, final Optional<JobRecord> owner,
        final FabricException cause)
    {
        if (owner.isPresent() && owner.get().job() != null && owner.get().running() > 0)
        {
            return otherJob(job, owner.get());
        }
        final String whose = owner.map(r -> r.job() == null ? "" : " by job " + r.job() + ", which is over").orElse("");
        return new FabricException("shmav_rank_open", FiErrno.EBUSY, "AV '" + job.avName() + "' exists already in " +
            job.directory() + whose + " before job " + job.job() + " created it: left by a job that died? " +
            "Remove it: shmav gc --dir " + job.directory() + " (or shmav rm " + job.avName() + " --dir " +
            job.directory() + ")", cause);
    }

    /** Only the job file of a job that is over holds the name (its AV was removed by hand). */
    private static FabricException leftOver(final RankEnvironment job, final JobRecord owner)
    {
        return new FabricException("shmav_rank_open", FiErrno.EBUSY, "the name '" + job.avName() + "' in " +
            job.directory() + " is still held by the job file " + owner.file().getFileName() + " of " +
            (owner.job() == null ? "a job that died while writing it" : "job " + owner.job() + ", which is over") +
            ", before job " + job.job() + " could claim it. Remove it: shmav gc --dir " + job.directory());
    }

    private static FabricException notAJobsAv(final RankEnvironment job)
    {
        return new FabricException("shmav_rank_open", FiErrno.EBUSY, "rank " + job.rank() + " of job " + job.job() +
            " refused AV '" + job.avName() + "' in " + job.directory() + ": it has no job file, so no job's rank 0 " +
            "created it (an AV made by other means, or left by an older version); this rank did not attach. Remove it: " +
            "shmav rm " + job.avName() + " --dir " + job.directory());
    }

    /** Whether the named AV exists (a read-only open succeeds), without ever creating it. */
    static boolean exists(final Domain domain, final String name)
    {
        try (AddressVector probe = domain.openAv(AvAttr.builder().type(AvType.TABLE).name(name).flags(Fi.READ).build()))
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

    private static void closeAndDelete(final JobFile jobFile, final RuntimeException e)
    {
        try
        {
            jobFile.delete();
            jobFile.close();
        }
        catch (final IOException suppressed)
        {
            e.addSuppressed(suppressed);
        }
    }

    private static void closeQuietly(final JobFile jobFile)
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
