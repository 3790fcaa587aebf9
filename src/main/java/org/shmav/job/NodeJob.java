package org.shmav.job;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;
import org.shmav.shm.NoRoom;

/**
 * A job's life on one node, as one of its ranks sees it: the node's AV and the job file
 * ({@link JobFile}) that says whose it is. Local rank 0 under mpirun, mpiexec or srun claims the name
 * with the job file, creates the AV and starts the job's cleanup process; every other rank reads the
 * job file first, attaches only to its own job's AV, and holds its place in the file until it leaves;
 * the last to leave removes both. A rank of another job given the same name is refused with FI_EBUSY
 * naming both jobs, and never attaches. Under avrun the launcher made the AV and a rank only attaches.
 *
 * <p>When the AV holds the whole job ({@code wholeJob}: one node, or a job across nodes whose launcher
 * has a store), local rank 0 fills it and the other ranks open it read-only ({@link Fi#READ}); the job
 * file's state {@link JobFile#AV_FILLED}, written after the last entry, tells them it is complete.
 *
 * <p>Not safe for use by several threads at once while it is being closed.
 */
public final class NodeJob implements AutoCloseable
{
    private static final long POLL_MILLIS = 10;
    /** How often local rank 0 looks for the records its node's ranks have not handed yet. */
    private static final long HAND_OFF_POLL_MILLIS = 5;

    private final RankEnvironment job;
    private final NodeAvs domain;
    private final AddressVector av;
    private final JobFile jobFile;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread shutdownHook;

    private NodeJob(final RankEnvironment job, final NodeAvs domain, final AddressVector av, final JobFile jobFile)
    {
        this.job = job;
        this.domain = domain;
        this.av = av;
        this.jobFile = jobFile;
        // mpirun, mpiexec and avrun stop ranks with SIGTERM (Open MPI: SIGKILL 1 s later; avrun: 3 s later) when
        // another rank fails, at a timeout or on Ctrl-C: close the AV then, so that the rank's attacher entry is
        // freed rather than left to recovery, and (with a job file) leave the node, so that the last rank
        // removes the AV and the job file. A rank that calls System.exit without closing is closed here too
        // (a pre-filled AV's ranks as well); a private AV (a job of one, no launcher) holds no shared entry.
        this.shutdownHook = jobFile == null && av.attr().name() == null ? null : new Thread(this::closeAtExit, "shmav-rank-exit");
        if (shutdownHook != null)
        {
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        }
    }

    /**
     * Joins the job on this node.
     *
     * @param domain        opens the node's AV (of the job's address format, in the job's directory); closed here when this fails
     * @param job           what the launcher said
     * @param type          the AV's type when this rank creates it
     * @param entries       how many entries the node's AV holds: the job's size, or the node's ranks
     * @param readOnly      whether a rank other than local rank 0 opens the AV read-only (the leader fills it)
     * @param attachTimeout how long a rank waits for local rank 0 to create the AV
     */
    public static NodeJob open(final NodeAvs domain, final RankEnvironment job, final AvType type, final int entries,
        final boolean readOnly, final Duration attachTimeout)
    {
        try
        {
            switch (job.launcher())
            {
                case NONE:
                    return new NodeJob(job, domain, domain.openAv(AvAttr.builder().type(type).count(1).build()), null);
                case AVRUN:
                    return new NodeJob(job, domain, JobFiles.attachToLaunchersAv(domain, job, type), null);
                default:
                    return job.localRank() == 0 ? create(domain, job, type, entries)
                        : attach(domain, job, readOnly, attachTimeout);
            }
        }
        catch (final RuntimeException e)
        {
            domain.close();
            throw e;
        }
    }

    /**
     * Opens the node's AV that a job prologue filled before the ranks started (rank r at entry r), read-only:
     * no job file, no store, nothing inserted.
     *
     * @param domain opens the node's AV (of the job's address format, in the job's directory); closed here when this fails
     * @param job    what the launcher said
     * @throws FabricException FI_ENOENT when the AV does not exist, FI_EINVAL when it holds fewer than
     *                         size entries
     */
    public static NodeJob openPrefilled(final NodeAvs domain, final RankEnvironment job)
    {
        try
        {
            if (job.avName() == null || !JobFiles.avExists(domain, job.avName()))
            {
                throw new FabricException("shmav_rank_open", FiErrno.ENOENT, "rank " + job.rank() + ": the pre-filled AV '" +
                    job.avName() + "' does not exist in " + job.directory() + ": fill it before the ranks start and " +
                    "give them its name in " + JobVariables.AV);
            }
            final AddressVector av = domain.openAv(AvAttr.builder().type(AvType.UNSPEC).name(job.avName())
                .flags(Fi.READ).build());
            if (av.attr().count() < job.size())
            {
                av.close();
                throw new FabricException("shmav_rank_open", FiErrno.EINVAL, "the pre-filled AV '" + job.avName() +
                    "' holds " + av.attr().count() + " entries, fewer than size=" + job.size());
            }
            PrefilledAv.jobStarted(job.directory(), job.avName());
            return new NodeJob(job, domain, av, null);
        }
        catch (final RuntimeException e)
        {
            domain.close();
            throw e;
        }
    }

    /** {@return the node's AV} */
    public AddressVector av()
    {
        return av;
    }

    /** {@return whether this rank created the node's AV (and fills it)} */
    public boolean leader()
    {
        return jobFile != null && job.localRank() == 0;
    }

    /** Local rank 0 claims the name, creates the AV; nobody else creates it. */
    private static NodeJob create(final NodeAvs domain, final RankEnvironment job, final AvType type, final int entries)
    {
        // What a crashed job left (its processes and creator gone) is removed first; anything else refuses below.
        JobLeftovers.clearIfOver(job);
        // The common case (an AV left by a job that died) first; the job file and createOnly below decide races.
        if (JobFiles.avExists(domain, job.avName()))
        {
            throw JobRefusals.existsAlready(job, JobFiles.record(job), null);
        }
        final JobFile jobFile;
        try
        {
            jobFile = JobFile.create(job.directory(), job.avName(), job.job(), job.localSize());
        }
        catch (final FileAlreadyExistsException e)
        {
            final Optional<JobRecord> owner = JobFiles.recordedOwner(job);
            if (owner.isPresent() && owner.get().running() == 0 && !JobFiles.avExists(domain, job.avName()))
            {
                throw JobRefusals.leftOver(job, owner.get());
            }
            throw JobRefusals.existsAlready(job, owner, null);
        }
        catch (final IOException e)
        {
            final boolean full = NoRoom.any(e);
            throw new FabricException("shmav_rank_open", full ? FiErrno.ENOSPC : FiErrno.EIO, "cannot create " +
                JobFiles.file(job) + ": " + e + (full ? " (free space in " + job.directory() + ")" : ""), e);
        }
        AddressVector av = null;
        try
        {
            av = domain.openAv(AvAttr.builder().type(type).count(entries).name(job.avName()).createOnly(true).build());
            try
            {
                jobFile.avCreated();
            }
            catch (final IOException e)
            {
                throw new FabricException("shmav_rank_open", FiErrno.EIO, "cannot write " + JobFiles.file(job) + ": " + e, e);
            }
            JobFiles.startReaper(job, jobFile);
            return new NodeJob(job, domain, av, jobFile);
        }
        catch (final RuntimeException e)
        {
            // This job's own file: nobody else removes or replaces it. The AV goes with it when this rank made it
            // (the JVM shutting down as the rank started, say), so that nothing of this job stays in the next one's way.
            if (av != null)
            {
                closeQuietly(av, e);
            }
            JobFiles.closeAndDelete(jobFile, av != null, e);
            if (e instanceof FabricException f && f.errno() == FiErrno.EEXIST)
            {
                throw JobRefusals.existsAlready(job, Optional.empty(), f);
            }
            throw e;
        }
    }

    private static void closeQuietly(final AddressVector av, final RuntimeException e)
    {
        try
        {
            av.close();
        }
        catch (final RuntimeException suppressed)
        {
            e.addSuppressed(suppressed);
        }
    }

    /** Another local rank: waits (bounded) for its job's AV, refuses another job's, then attaches. */
    private static NodeJob attach(final NodeAvs domain, final RankEnvironment job,
        final boolean readOnly, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        final JobFile jobFile = JobFiles.awaitAndJoin(domain, job, deadline, timeout);
        try
        {
            return new NodeJob(job, domain, domain.openAv(AvAttr.builder().type(AvType.UNSPEC).name(job.avName())
                .flags(readOnly ? Fi.READ : 0).build()), jobFile);
        }
        catch (final RuntimeException e)
        {
            // local rank 0 waits for this rank's address: tell it at once that none comes
            try
            {
                NodeRecords.write(jobFile, job.localRank(), job.rank(), errnoName(e).getBytes(StandardCharsets.US_ASCII),
                    NodeRecords.FAILED);
            }
            catch (final IOException | RuntimeException ignored)
            {
                e.addSuppressed(ignored);
            }
            JobFiles.closeQuietly(jobFile);
            throw e;
        }
    }

    /** How a failure is named to the other ranks: its errno's name, or the exception's class. */
    static String errnoName(final RuntimeException failure)
    {
        return failure instanceof FabricException f ? FiErrno.name(f.errno()) : failure.getClass().getSimpleName();
    }

    /** Hands this rank's address to the node's local rank 0 through the job file (no store round trip). */
    public void handAddress(final byte[] address)
    {
        try
        {
            NodeRecords.write(jobFile, job.localRank(), job.rank(), address, NodeRecords.ADDRESS);
        }
        catch (final IOException e)
        {
            throw new FabricException("shmav_rank_publish", FiErrno.EIO, "cannot write " + JobFiles.file(job) + ": " + e, e);
        }
        catch (final IllegalArgumentException e)
        {
            throw new FabricException("shmav_rank_publish", FiErrno.EINVAL, e.getMessage(), e);
        }
    }

    /** Tells the node's local rank 0 that this rank has no address to hand (it waits without having published). */
    void handNothing()
    {
        try
        {
            NodeRecords.write(jobFile, job.localRank(), job.rank(), NodeRecords.NOTHING.getBytes(StandardCharsets.US_ASCII),
                NodeRecords.FAILED);
        }
        catch (final IOException e)
        {
            // The record's page was written when the file was created, so no full file system fails this;
            // if something else does, local rank 0 waits for this rank until half its deadline.
        }
    }

    /**
     * Local rank 0: the entries the node's ranks handed over, in local rank order, waiting until every
     * local rank handed one or left without one (it ended, or died, after it joined), at most until
     * {@code deadlineNanos}; a local rank that handed nothing by then is left out.
     */
    List<NodeRecords.Entry> nodeEntries(final long deadlineNanos)
    {
        final NodeRecords.Entry[] entries = new NodeRecords.Entry[job.localSize()];
        final boolean[] gone = new boolean[entries.length];
        int settled = 0;
        try
        {
            while (true)
            {
                for (int i = 0; i < entries.length; i++)
                {
                    if (entries[i] != null || gone[i])
                    {
                        continue;
                    }
                    // whether it left, before its record: a record written before it left is read below
                    final boolean left = jobFile.left(i);
                    entries[i] = NodeRecords.read(jobFile, i);
                    gone[i] = entries[i] == null && left;
                    settled += entries[i] != null || gone[i] ? 1 : 0;
                }
                if (settled == entries.length || System.nanoTime() - deadlineNanos > 0)
                {
                    break;
                }
                Thread.sleep(HAND_OFF_POLL_MILLIS); // not 1: with a hundred ranks a node, each round reads them all
            }
        }
        catch (final IOException e)
        {
            throw new FabricException("shmav_rank_await_all", FiErrno.EIO, "cannot read " + JobFiles.file(job) + ": " + e, e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new FabricException("shmav_rank_await_all", FiErrno.EINTR, "interrupted while waiting for the node's ranks", e);
        }
        final List<NodeRecords.Entry> present = new ArrayList<>();
        for (final NodeRecords.Entry e : entries)
        {
            if (e != null)
            {
                present.add(e);
            }
        }
        return present;
    }

    /** Local rank 0: the AV holds every entry now; the node's other ranks may read it. */
    public void markFilled()
    {
        try
        {
            jobFile.avFilled();
        }
        catch (final IOException e)
        {
            throw new FabricException("shmav_rank_await_all", FiErrno.EIO, "cannot write " + JobFiles.file(job) + ": " + e, e);
        }
    }

    /** Local rank 0: the AV cannot be filled; the node's other ranks stop waiting (best effort). */
    public void markFillFailed()
    {
        try
        {
            jobFile.fillFailed();
        }
        catch (final IOException e)
        {
            // the others then wait until their deadline
        }
    }

    /**
     * A rank other than local rank 0: waits until local rank 0 filled the AV, at most until
     * {@code deadlineNanos}.
     *
     * @throws FabricException FI_ECANCELED when local rank 0 could not fill it, FI_EIO when it died
     *                         meanwhile, FI_ETIMEDOUT at the deadline
     */
    public void awaitFilled(final long deadlineNanos, final String timeoutMessage)
    {
        while (true)
        {
            final JobFile.Fill fill;
            try
            {
                fill = jobFile.fill();
            }
            catch (final IOException e)
            {
                throw new FabricException("shmav_rank_await_all", FiErrno.EIO, "cannot read " + JobFiles.file(job) + ": " + e, e);
            }
            if (fill == JobFile.Fill.FILLED)
            {
                return;
            }
            if (fill != JobFile.Fill.PENDING)
            {
                final boolean failed = fill == JobFile.Fill.FAILED;
                throw new FabricException("shmav_rank_await_all", failed ? FiErrno.ECANCELED : FiErrno.EIO, "rank " +
                    job.rank() + ": local rank 0 of this node " + (failed ? "could not fill" : "died before it filled") +
                    " AV '" + job.avName() + "' in " + job.directory() +
                    " (see its error); the AV is never marked complete, so no rank uses it");
            }
            if (System.nanoTime() - deadlineNanos > 0)
            {
                throw new FabricException("shmav_rank_await_all", FiErrno.ETIMEDOUT, timeoutMessage);
            }
            JobFiles.sleep(POLL_MILLIS, job);
        }
    }

    /**
     * Closes the AV handle and the domain; under a foreign launcher the last local rank to leave removes
     * the AV and the job file.
     *
     * @throws FabricException FI_EBUSY while an endpoint or AV set references the AV (the rank stays open);
     *                         FI_EIO when this rank cannot tell whether it left last
     */
    @Override
    public void close()
    {
        if (closed.get())
        {
            return;
        }
        av.close(); // FI_EBUSY leaves the rank open, as before
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        removeShutdownHook();
        try
        {
            if (jobFile != null)
            {
                leaveNode();
            }
        }
        finally
        {
            domain.close();
        }
    }

    /** The shutdown hook: the process is ending, so nothing it holds may keep the node's AV from its last rank. */
    private void closeAtExit()
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        try
        {
            av.close();
        }
        catch (final RuntimeException e)
        {
            // FI_EBUSY (an endpoint or AV set still open): the entry is left to recovery, as a killed rank's is
        }
        if (jobFile == null)
        {
            return; // avrun's AV: the launcher removes it
        }
        try
        {
            leaveNode();
        }
        catch (final RuntimeException e)
        {
            System.err.println("shmav: rank " + job.rank() + " at exit: " + e.getMessage());
        }
    }

    private void removeShutdownHook()
    {
        if (shutdownHook != null)
        {
            try
            {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            }
            catch (final IllegalStateException e)
            {
                // the JVM is shutting down: the hook runs and finds the rank closed
            }
        }
    }

    private void leaveNode()
    {
        try (JobFile file = jobFile)
        {
            if (file.leave())
            {
                file.delete(() -> JobLeftovers.removeAvFiles(job.directory(), job.avName()));
            }
        }
        catch (final IOException e)
        {
            throw new FabricException("shmav_rank_close", FiErrno.EIO, "cannot tell whether rank " + job.rank() +
                " left AV '" + job.avName() + "' last (shmav gc removes it once every rank is gone): " + e, e);
        }
    }
}
