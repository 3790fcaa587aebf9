package org.shmav;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
 *     ({@code ompi-<PMIX_NAMESPACE>}, {@code mpich-<hydra proxy pid-start>}, {@code slurm-<job>.<step>},
 *     or {@code SHMAV_AV} when set), and refuses with FI_EBUSY an AV of that name that exists already
 *     (left by a dead job: {@code shmav rm NAME}). The other local ranks wait for it, at most
 *     {@link #ATTACH_TIMEOUT}, and attach. The last local rank to close its {@code Rank} removes the AV;
 *     when ranks die instead, {@code shmav gc} removes it (no live process has it open).</li>
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

    private final RankEnvironment job;
    private final Domain domain;
    private final AddressVector av;
    private final NodeRanks nodeRanks;

    private Rank(final RankEnvironment job, final Domain domain, final AddressVector av, final NodeRanks nodeRanks)
    {
        this.job = job;
        this.domain = domain;
        this.av = av;
        this.nodeRanks = nodeRanks;
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
        return open(RankEnvironment.detect(env, RankEnvironment::hydraProxyOfThisProcess), ATTACH_TIMEOUT);
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
        return open(new RankEnvironment(RankEnvironment.Launcher.AVRUN, rank, size, rank, size, avName, directory),
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
                    return job.localRank() == 0 ? createNodeAv(domain, job) : attachNodeAv(domain, job, attachTimeout);
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
        if (!exists(domain, job.avName()))
        {
            throw new FabricException("shmav_rank_open", FiErrno.ENOENT, "the job's AV '" + job.avName() +
                "' does not exist in " + job.directory() + ": ranks attach to the AV their launcher created");
        }
        final AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).name(job.avName()).build());
        if (av.attr().count() < job.size())
        {
            av.close();
            throw new FabricException("shmav_rank_open", FiErrno.EINVAL, "AV '" + job.avName() + "' holds " +
                av.attr().count() + " entries, fewer than size=" + job.size());
        }
        return av;
    }

    /** Local rank 0 under a foreign launcher: the node's AV, created by this process and nobody else. */
    private static Rank createNodeAv(final Domain domain, final RankEnvironment job)
    {
        // The common case (an AV left by a job that died) before the ranks file is replaced, which
        // would break a live job's; createOnly below decides between two rank 0s racing past this check.
        if (exists(domain, job.avName()))
        {
            throw existsAlready(job, null);
        }
        final NodeRanks ranks;
        try
        {
            ranks = NodeRanks.create(job.directory(), job.avName(), job.localSize());
        }
        catch (final IOException e)
        {
            throw new FabricException("shmav_rank_open", FiErrno.EIO, "cannot create " +
                NodeRanks.file(job.directory(), job.avName()) + ": " + e, e);
        }
        try
        {
            return new Rank(job, domain, domain.openAv(AvAttr.builder().type(AvType.TABLE).count(job.entries())
                .name(job.avName()).createOnly(true).build()), ranks);
        }
        catch (final FabricException e)
        {
            closeQuietly(ranks);
            if (e.errno() == FiErrno.EEXIST)
            {
                // Another rank 0 of this name created the AV first: never attach to it, and leave the ranks
                // file alone (it may be the winner's by now).
                throw existsAlready(job, e);
            }
            deleteRanks(ranks, e);
            throw e;
        }
        catch (final RuntimeException e)
        {
            closeQuietly(ranks);
            deleteRanks(ranks, e);
            throw e;
        }
    }

    private static FabricException existsAlready(final RankEnvironment job, final FabricException cause)
    {
        return new FabricException("shmav_rank_open", FiErrno.EBUSY, "AV '" + job.avName() + "' exists already in " +
            job.directory() + " before this job (" + job.launcher().description + ") created it: left by a job " +
            "that died? Remove it: shmav rm " + job.avName() + " --dir " + job.directory(), cause);
    }

    /** Removes the ranks file this rank 0 made for an AV it did not create; a failure is added to {@code e}. */
    private static void deleteRanks(final NodeRanks ranks, final RuntimeException e)
    {
        try
        {
            ranks.delete();
        }
        catch (final IOException suppressed)
        {
            e.addSuppressed(suppressed);
        }
    }

    /** Another local rank under a foreign launcher: waits (bounded) for local rank 0's AV, then attaches. */
    private static Rank attachNodeAv(final Domain domain, final RankEnvironment job, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!exists(domain, job.avName()))
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new FabricException("shmav_rank_open", FiErrno.ETIMEDOUT, "rank " + job.rank() + " (local rank " +
                    job.localRank() + "): local rank 0 did not create AV '" + job.avName() + "' in " + job.directory() +
                    " within " + timeout.toMillis() + " ms (" + job.launcher().description + ")");
            }
            try
            {
                Thread.sleep(10);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new FabricException("shmav_rank_open", FiErrno.EINTR, "interrupted while waiting for AV '" +
                    job.avName() + "'", e);
            }
        }
        final AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).name(job.avName()).build());
        try
        {
            return new Rank(job, domain, av, NodeRanks.attach(job.directory(), job.avName(), job.localRank(), job.localSize()));
        }
        catch (final IOException e)
        {
            av.close();
            throw new FabricException("shmav_rank_open", FiErrno.EIO, "cannot join " +
                NodeRanks.file(job.directory(), job.avName()) + ": " + e, e);
        }
    }

    /** Whether the named AV exists (a read-only open succeeds), without ever creating it. */
    private static boolean exists(final Domain domain, final String name)
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

    private static void closeQuietly(final NodeRanks ranks)
    {
        try
        {
            ranks.close();
        }
        catch (final IOException e)
        {
            // nothing more to release
        }
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
     * another launcher the last local rank to close removes it.
     *
     * @throws FabricException FI_EIO when this rank cannot tell whether it left last (the AV stays, for
     *                         {@code shmav gc}); FI_EBUSY while an endpoint or AV set still references the AV
     */
    @Override
    public void close()
    {
        try
        {
            av.close();
            if (nodeRanks != null)
            {
                leaveNode();
            }
        }
        finally
        {
            domain.close();
        }
    }

    private void leaveNode()
    {
        try (NodeRanks ranks = nodeRanks)
        {
            if (ranks.leave())
            {
                domain.unlinkAv(job.avName());
                ranks.delete();
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
