package org.shmav.job;

import java.util.Optional;

import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * The answers a rank gets when the name of its job's AV is held by something else: another job, a job
 * that died, an AV made by other means. Each names both sides and says what to do. Stateless.
 */
final class JobRefusals
{
    private JobRefusals()
    {
    }

    /** A rank of job A meets job B's AV: never attach, name both jobs, say what to do. */
    static FabricException otherJob(final RankEnvironment job, final JobRecord theirs)
    {
        if (theirs.job().equals(job.job()))
        {
            return sameJobTwice(job, theirs);
        }
        return new FabricException("shmav_rank_open", FiErrno.EBUSY, "rank " + job.rank() + " of job " + job.job() +
            " refused AV '" + job.avName() + "' in " + job.directory() + ": it belongs to job " + theirs.job() + " (" +
            theirs.running() + " of " + theirs.slots() + " running), another job given the same AV name; this rank did " +
            "not attach. Give each job its own " + JobVariables.AV + ", or leave it unset (one AV per job)");
    }

    /**
     * The job's own file, made by another local rank 0 of the same job: two nodes' ranks see one
     * directory (SHMAV_DIR on a shared file system), so two "nodes" each made a rank its local rank 0.
     */
    static FabricException sameJobTwice(final RankEnvironment job, final JobRecord theirs)
    {
        return new FabricException("shmav_rank_open", FiErrno.EBUSY, "rank " + job.rank() + " (local rank " +
            job.localRank() + " of " + job.localSize() + ") of job " + job.job() + ": AV '" + job.avName() + "' in " +
            job.directory() + " was made by another local rank 0 of this same job (pid " + theirs.creatorPid() +
            "): ranks of two nodes share this directory. Named AVs are node-local (shared memory): set " +
            JobVariables.DIR + " to a node-local directory such as /dev/shm (or leave it unset), never a shared file system");
    }

    static FabricException existsAlready(final RankEnvironment job, final Optional<JobRecord> owner,
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
    static FabricException leftOver(final RankEnvironment job, final JobRecord owner)
    {
        return new FabricException("shmav_rank_open", FiErrno.EBUSY, "the name '" + job.avName() + "' in " +
            job.directory() + " is still held by the job file " + owner.file().getFileName() + " of " +
            (owner.job() == null ? "a job that died while writing it" : "job " + owner.job() + ", which is over") +
            ", before job " + job.job() + " could claim it. Remove it: shmav gc --dir " + job.directory());
    }

    static FabricException notAJobsAv(final RankEnvironment job)
    {
        return new FabricException("shmav_rank_open", FiErrno.EBUSY, "rank " + job.rank() + " of job " + job.job() +
            " refused AV '" + job.avName() + "' in " + job.directory() + ": it has no job file, so no job's rank 0 " +
            "created it (an AV made by other means, or left by an older version); this rank did not attach. Remove it: " +
            "shmav rm " + job.avName() + " --dir " + job.directory());
    }
}
