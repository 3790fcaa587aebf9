package org.shmav;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import org.shmav.job.JobFile;

/**
 * One process of a job started by a launcher: its rank, the job's size and the job's named AV, in
 * which <b>rank r's address is at fi_addr r</b> when the job runs on one node.
 *
 * <pre>{@code
 * try (Rank rank = Rank.fromEnvironment();
 *      ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
 *     rank.publish((InetSocketAddress) server.getLocalSocketAddress());
 *     rank.awaitAll(Duration.ofSeconds(30));
 *     InetSocketAddress next = rank.peer((rank.rank() + 1) % rank.size());
 * }
 * }</pre>
 *
 * <h2>Launchers</h2>
 * {@link #fromEnvironment()} recognises, in this order (the first whose variables are all set):
 * {@code scripts/avrun} ({@code SHMAV_RANK}, {@code SHMAV_SIZE}, {@code SHMAV_AV}), Open MPI's
 * {@code mpirun} ({@code OMPI_COMM_WORLD_RANK}, {@code _SIZE}, {@code _LOCAL_RANK}, {@code _LOCAL_SIZE}),
 * MPICH's {@code mpiexec} ({@code PMI_RANK}, {@code PMI_SIZE}, {@code MPI_LOCALRANKID},
 * {@code MPI_LOCALNRANKS}) and Slurm's {@code srun} ({@code SLURM_PROCID}, {@code SLURM_NTASKS},
 * {@code SLURM_LOCALID}, {@code SLURM_JOB_ID}, {@code SLURM_STEP_ID}); with none, the process is a job
 * of one with a private AV. The AV lives in {@code SHMAV_DIR} (default {@code /dev/shm}).
 *
 * <ul>
 * <li>Under avrun the launcher created the AV (FI_AV_TABLE, FI_SOCKADDR_IN, count = size) before any
 *     rank started and removes it at the end; a rank only attaches.</li>
 * <li>Under mpirun, mpiexec and srun the node's local rank 0 creates the AV, named after the job
 *     ({@code ompi-<PMIX_NAMESPACE>}, {@code mpich-<Hydra KVS name>}, {@code slurm-<job>.<step>},
 *     or {@code SHMAV_AV} when set), after recording the job's identity in the job file
 *     {@code .shmav-job.<name>} next to it; it refuses with FI_EBUSY a name that another job holds or
 *     left behind. The other local ranks wait for their job's AV, at most {@link #ATTACH_TIMEOUT}, and
 *     attach; a rank that finds another job's AV under the name is refused with FI_EBUSY naming both
 *     jobs and never attaches. The last local rank to close its {@code Rank} removes the AV and the job
 *     file; a rank that exits without closing it (SIGTERM from mpirun or mpiexec, {@code System.exit})
 *     is closed by a shutdown hook. When ranks are killed instead, {@code shmav gc} removes both.</li>
 * <li>Across nodes (local size &lt; size) every node has its own AV, holding only that node's ranks, at
 *     fi_addr = local rank: {@link #fiAddr()} and {@link #nodePeer(int)} work, {@link #peer(int)} throws
 *     FI_EOPNOTSUPP rather than answer with another rank's address, and {@link #awaitAll} waits for the
 *     node's ranks. Exchanging addresses between nodes is the job of the application's own transport.</li>
 * </ul>
 *
 * Not safe for use by several threads at once while it is being closed; every other method may be
 * called from any thread.
 */
public final class Rank implements AutoCloseable
{
    /** Environment variable: this process's rank, 0 .. size-1 (set by avrun). */
    public static final String RANK_ENV = "SHMAV_RANK";
    /** Environment variable: the number of ranks in the job (set by avrun). */
    public static final String SIZE_ENV = "SHMAV_SIZE";
    /** Environment variable: the name of the job's AV (set by avrun; under other launchers, overrides the job's name). */
    public static final String AV_ENV = "SHMAV_AV";
    /** Environment variable: the directory of the job's AV (same as {@link DomainAttr#SHM_DIR_ENV}). */
    public static final String DIR_ENV = DomainAttr.SHM_DIR_ENV;
    /** How long a rank under a foreign launcher waits for its node's local rank 0 to create the AV. */
    public static final Duration ATTACH_TIMEOUT = Duration.ofSeconds(60);

    /** Environment variable: the identity of the job avrun started (set by avrun; checked against the AV's job file). */
    public static final String JOB_ENV = "SHMAV_JOB";

    private final RankEnvironment job;
    private final Domain domain;
    private final AddressVector av;
    private final JobFile jobFile;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread shutdownHook;

    private Rank(final RankEnvironment job, final Domain domain, final AddressVector av, final JobFile jobFile)
    {
        this.job = job;
        this.domain = domain;
        this.av = av;
        this.jobFile = jobFile;
        // mpirun and mpiexec stop ranks with SIGTERM (Open MPI: SIGKILL 1 s later): leave the node then,
        // so that the last rank removes the AV and the job file.
        this.shutdownHook = jobFile == null ? null : new Thread(this::closeAtExit, "shmav-rank-exit");
        if (shutdownHook != null)
        {
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        }
    }

    /**
     * The rank of this process, from the variables of the launcher that started it (see the class
     * comment), or rank 0 of a job of one when no launcher did.
     *
     * @return this process's rank, attached to the job's AV; close it to detach
     * @throws IllegalStateException when a launcher's variable is malformed or the job cannot be named
     * @throws FabricException       FI_ENOENT when avrun's AV does not exist, FI_EINVAL when it is too
     *                               small or holds another address format, FI_EBUSY when local rank 0
     *                               finds the job's AV exists already, FI_ETIMEDOUT when local rank 0
     *                               did not create it within {@link #ATTACH_TIMEOUT}, FI_EINTR when
     *                               interrupted while waiting for it, FI_EIO when the node's ranks file
     *                               cannot be created or joined
     */
    public static Rank fromEnvironment()
    {
        return fromEnvironment(System.getenv());
    }

    /**
     * {@link #fromEnvironment()} reading the variables from {@code env}.
     *
     * @param env the launcher's variables, in place of {@link System#getenv()}
     * @return this process's rank, attached to the job's AV; close it to detach
     * @throws IllegalStateException as {@link #fromEnvironment()}
     * @throws FabricException       as {@link #fromEnvironment()}
     */
    public static Rank fromEnvironment(final Map<String, String> env)
    {
        return open(RankEnvironment.detect(env, RankEnvironment::hydraJobOfThisProcess), ATTACH_TIMEOUT);
    }

    /**
     * Attaches rank {@code rank} of a job of {@code size} ranks to the existing AV {@code avName} in
     * {@code directory} (what a rank started by avrun does).
     *
     * @param rank      this process's rank, 0 .. size-1
     * @param size      the number of ranks in the job
     * @param avName    the name of the AV the launcher created
     * @param directory the directory that holds it
     * @return the rank, attached to the AV; close it to detach (the AV stays)
     * @throws IllegalArgumentException unless 0 &lt;= rank &lt; size
     * @throws FabricException          FI_ENOENT when the AV does not exist; FI_EINVAL when it holds fewer
     *                                  than {@code size} entries or another address format than FI_SOCKADDR_IN
     */
    public static Rank open(final int rank, final int size, final String avName, final Path directory)
    {
        if (size < 1 || rank < 0 || rank >= size)
        {
            throw new IllegalArgumentException("rank=" + rank + " size=" + size + ": need 0 <= rank < size");
        }
        return open(new RankEnvironment(RankEnvironment.Launcher.AVRUN, rank, size, rank, size, avName, directory, null),
            ATTACH_TIMEOUT);
    }

    static Rank open(final RankEnvironment job, final Duration attachTimeout)
    {
        final Domain domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN)
            .shmDirectory(job.directory()).build());
        try
        {
            switch (job.launcher())
            {
                case NONE:
                    return new Rank(job, domain, domain.openAv(AvAttr.builder().type(AvType.TABLE).count(1).build()), null);
                case AVRUN:
                    return new Rank(job, domain, attachToLaunchersAv(domain, job), null);
                default:
                    final JobAv.Joined joined = job.localRank() == 0 ? JobAv.create(domain, job)
                        : JobAv.attach(domain, job, attachTimeout);
                    return new Rank(job, domain, joined.av(), joined.jobFile());
            }
        }
        catch (final RuntimeException e)
        {
            domain.close();
            throw e;
        }
    }

    private static AddressVector attachToLaunchersAv(final Domain domain, final RankEnvironment job)
    {
        if (!JobAv.exists(domain, job.avName()))
        {
            throw new FabricException("shmav_rank_open", FiErrno.ENOENT, "the job's AV '" + job.avName() +
                "' does not exist in " + job.directory() + ": ranks attach to the AV their launcher created");
        }
        JobAv.checkLaunchers(job);
        final AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).name(job.avName()).build());
        if (av.attr().count() < job.size())
        {
            av.close();
            throw new FabricException("shmav_rank_open", FiErrno.EINVAL, "AV '" + job.avName() + "' holds " +
                av.attr().count() + " entries, fewer than size=" + job.size());
        }
        return av;
    }

    /** {@return this process's rank, 0 .. size-1} */
    public int rank()
    {
        return job.rank();
    }

    /** {@return the number of ranks in the job} */
    public int size()
    {
        return job.size();
    }

    /** {@return this process's rank among the ranks on its node, 0 .. localSize-1} */
    public int localRank()
    {
        return job.localRank();
    }

    /** {@return the number of ranks on this node} It equals {@link #size()} when the job runs on one node. */
    public int localSize()
    {
        return job.localSize();
    }

    /** {@return whether the job spans several nodes} Then the AV holds only this node's ranks, at fi_addr = local rank. */
    public boolean spansNodes()
    {
        return !job.oneNode();
    }

    /** {@return which launcher started this process: {@code avrun}, {@code Open MPI mpirun}, ..., {@code no launcher}} */
    public String launcher()
    {
        return job.launcher().description;
    }

    /** {@return where this rank publishes in the AV: {@link #rank()} on one node, {@link #localRank()} across nodes} */
    public long fiAddr()
    {
        return job.oneNode() ? job.rank() : job.localRank();
    }

    /** {@return the job's AV (this node's, across nodes), for calls beyond publish and peer (e.g. an AV set)} */
    public AddressVector av()
    {
        return av;
    }

    /**
     * Publishes this rank's address at {@link #fiAddr()} ({@link AddressVector#insertAt}).
     * Publishing the same address again is harmless.
     *
     * @param address this rank's address; IPv4, as the AV holds FI_SOCKADDR_IN
     * @throws FabricException FI_EADDRINUSE when another address is already published there (two
     *                         processes were given the same rank); FI_EALREADY when another rank published
     *                         this address; FI_EINVAL for an IPv6 address or a closed rank
     */
    public void publish(final InetSocketAddress address)
    {
        av.insertAt(fiAddr(), Addresses.toSockaddr(address));
    }

    /**
     * Waits until every rank (of this node, across nodes) has published ({@link AddressVector#awaitCount}),
     * at most {@code timeout}.
     *
     * @param timeout how long to wait at most
     * @throws FabricException FI_ETIMEDOUT naming the ranks still missing; FI_EINVAL on a closed rank
     */
    public void awaitAll(final Duration timeout)
    {
        try
        {
            av.awaitCount(job.entries(), timeout);
        }
        catch (final FabricException e)
        {
            if (e.errno() != FiErrno.ETIMEDOUT)
            {
                throw e;
            }
            throw new FabricException("shmav_rank_await_all", FiErrno.ETIMEDOUT, (job.oneNode() ? "ranks " : "local ranks ") +
                missingRanks() + " of " + job.entries() + " did not publish within " + timeout.toMillis() + " ms");
        }
    }

    /** {@return the ranks (local ranks, across nodes) whose address is not in the AV yet, in ascending order} */
    public List<Integer> missingRanks()
    {
        final List<Integer> missing = new ArrayList<>();
        final ByteBuffer addr = ByteBuffer.allocate(AddrFormat.SOCKADDR_IN.addrlen());
        for (int r = 0; r < job.entries(); r++)
        {
            try
            {
                av.lookup(r, addr.clear());
            }
            catch (final FabricException e)
            {
                missing.add(r);
            }
        }
        return missing;
    }

    /**
     * The address rank {@code peer} published ({@link AddressVector#lookup} of fi_addr {@code peer}).
     *
     * @param peer a rank, 0 .. size-1
     * @return the address that rank published
     * @throws IllegalArgumentException when {@code peer} is outside 0 .. size-1
     * @throws FabricException FI_EINVAL when that rank has not published (yet); FI_EOPNOTSUPP when the
     *                         job spans nodes (use {@link #nodePeer(int)})
     */
    public InetSocketAddress peer(final int peer)
    {
        if (peer < 0 || peer >= job.size())
        {
            throw new IllegalArgumentException("peer=" + peer + " is outside 0.." + (job.size() - 1));
        }
        if (!job.oneNode())
        {
            throw new FabricException("shmav_rank_peer", FiErrno.EOPNOTSUPP, "the job spans nodes (" + job.localSize() +
                " of its " + job.size() + " ranks on this node): this node's AV '" + av.attr().name() + "' holds only " +
                "them, at fi_addr = local rank; use nodePeer(localRank)");
        }
        return nodePeer(peer);
    }

    /**
     * The address at fi_addr {@code fiAddr} of this node's AV: the rank of that number on one node, the
     * local rank of that number across nodes.
     *
     * @param fiAddr a rank on one node, a local rank across nodes
     * @return the address published there
     * @throws IllegalArgumentException when {@code fiAddr} is outside the node's AV (0 .. size-1 on one node,
     *                                  0 .. localSize-1 across nodes)
     * @throws FabricException          FI_EINVAL when nobody has published there (yet)
     */
    public InetSocketAddress nodePeer(final int fiAddr)
    {
        if (fiAddr < 0 || fiAddr >= job.entries())
        {
            throw new IllegalArgumentException("fiAddr=" + fiAddr + " is outside 0.." + (job.entries() - 1));
        }
        final ByteBuffer addr = ByteBuffer.allocate(AddrFormat.SOCKADDR_IN.addrlen());
        av.lookup(fiAddr, addr);
        return Addresses.toInetSocketAddress(addr);
    }

    /**
     * Closes the AV handle and the domain. Under avrun the AV stays (the launcher removes it); under
     * another launcher the last local rank to close removes it and its job file. A rank that exits
     * without closing (SIGTERM from its launcher, {@code System.exit}) is closed by a shutdown hook.
     *
     * @throws FabricException FI_EIO when this rank cannot tell whether it left last (the AV stays, for
     *                         {@code shmav gc}); FI_EBUSY while an endpoint or AV set still references the AV
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
            // FI_EBUSY (an endpoint or AV set still open): the kernel releases the attacher as the process ends
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
                domain.unlinkAv(job.avName());
                file.delete();
            }
        }
        catch (final IOException e)
        {
            throw new FabricException("shmav_rank_close", FiErrno.EIO, "cannot tell whether rank " + job.rank() +
                " left AV '" + job.avName() + "' last (shmav gc removes it once every rank is gone): " + e, e);
        }
    }

    @Override
    public String toString()
    {
        return "Rank{rank=" + job.rank() + ", size=" + job.size() + ", localRank=" + job.localRank() + ", localSize=" +
            job.localSize() + ", launcher='" + job.launcher().description + "', av='" + av.attr().name() + "'}";
    }
}
