package org.shmav;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.shmav.job.JobVariables;
import org.shmav.job.JobWireUp;
import org.shmav.job.Launcher;
import org.shmav.job.NodeAvs;
import org.shmav.job.NodeJob;
import org.shmav.job.RankEnvironment;
import org.shmav.store.JobStore;

/**
 * One process of a job started by a launcher: its rank, the job's size and the job's named AV, in
 * which <b>rank r's address is at fi_addr r</b>, on one node and across nodes.
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
 * <li>Under avrun the launcher created the AV (FI_AV_TABLE of the job's address format, count = size) before any
 *     rank started and removes it at the end; a rank only attaches. A rank that avrun stops (SIGTERM,
 *     when another rank failed, at its timeout or on Ctrl-C) or that exits without closing is closed by
 *     a shutdown hook, so that its attacher entry is freed rather than left to recovery.</li>
 * <li>Under mpirun, mpiexec and srun the node's local rank 0 creates the AV, named after the job
 *     ({@code ompi-<PMIX_NAMESPACE>}, {@code mpich-<Hydra KVS name>}, {@code slurm-<job>.<step>},
 *     or {@code SHMAV_AV} when set), after recording the job's identity in the job file
 *     {@code .shmav-job.<name>} next to it; it refuses with FI_EBUSY a name that another job holds, and
 *     first removes what a job that is over left under it (no process of that job in its job file, its
 *     creator gone), saying so on stderr. The other local ranks wait for their job's AV, at most {@link #ATTACH_TIMEOUT}, and
 *     attach; a rank that finds another job's AV under the name is refused with FI_EBUSY naming both
 *     jobs and never attaches. The last local rank to close its {@code Rank} removes the AV and the job
 *     file; a rank that exits without closing it (SIGTERM from mpirun or mpiexec, {@code System.exit})
 *     is closed by a shutdown hook. When ranks are killed instead, the job's cleanup process, the next
 *     job of the name or {@code shmav gc} removes both.</li>
 * <li>Across nodes (local size &lt; size) each node has one AV holding every rank of the job, filled
 *     through the launcher's own job-wide key-value store ({@link org.shmav.job.Launcher#openStore}: PMI-1 under
 *     mpiexec, PMIx under mpirun, PMI-2 or PMIx under srun): {@link #publish} hands this rank's address
 *     to the node's local rank 0 (through the job file), {@link #awaitAll} takes part in the store's
 *     exchange, in which each node's local rank 0 publishes its node's block and after which it fetches
 *     one block per node, fills the node's AV in one pass and marks it complete, and the node's other ranks, which
 *     opened it read-only, wait for that mark. Then {@link #peer(int)} answers every rank. When the
 *     launcher's store is not available here, each node's AV holds only that node's ranks, at fi_addr =
 *     local rank, {@link #peer(int)} throws FI_EOPNOTSUPP saying what the store needs, and
 *     {@link #nodePeer(int)} answers.</li>
 * <li>{@code SHMAV_PREFILLED=1}: the node's AV {@code SHMAV_AV} was filled before the ranks started (a
 *     job prologue, rank r at entry r); every rank opens it read-only, {@link #publish} only checks this
 *     rank's entry, and {@link #peer(int)} reads rank r's entry without inserting, as MPICH does.</li>
 * <li>{@code SHMAV_AV_TYPE=map} makes local rank 0 create an FI_AV_MAP AV: rank r is then at
 *     {@code av().attr().mapAddr() + r} ({@link #fiAddrOf(int)}).</li>
 * </ul>
 *
 * <h2>Addresses</h2>
 * The job's AV holds addresses of one format, the job's ({@link JobAddrFormat}, from {@value JobAddrFormat#ENV}:
 * {@code in} by default, {@code in6}, a provider's format such as {@code efa}, or opaque bytes such as a UCX
 * worker address, {@code opaque:max:1024}); every rank of the job must be given the same.
 * {@link #publish(byte[])} and {@link #peerAddress(int)} take and give any format's bytes;
 * {@link #publish(InetSocketAddress)} and {@link #peer(int)} are the conveniences for {@code in} and {@code in6}.
 * Across nodes the launcher's store carries each rank's bytes, whatever their length.
 *
 * Not safe for use by several threads at once while it is being closed; every other method may be
 * called from any thread.
 */
public final class Rank implements AutoCloseable
{
    /** Environment variable: this process's rank, 0 .. size-1 (set by avrun). */
    public static final String RANK_ENV = JobVariables.RANK;
    /** Environment variable: the number of ranks in the job (set by avrun). */
    public static final String SIZE_ENV = JobVariables.SIZE;
    /** Environment variable: the name of the job's AV (set by avrun; under other launchers, overrides the job's name). */
    public static final String AV_ENV = JobVariables.AV;
    /** Environment variable: the directory of the job's AV (same as {@link DomainAttr#SHM_DIR_ENV}). */
    public static final String DIR_ENV = JobVariables.DIR;
    /** Environment variable: {@code table} (default) or {@code map}, the type of the AV local rank 0 creates. */
    public static final String AV_TYPE_ENV = JobVariables.AV_TYPE;
    /**
     * Environment variable: {@code 1} when the node's AV {@code SHMAV_AV} was filled before the ranks
     * started (rank r at entry r, see {@link org.shmav.job.PrefilledAv}): every rank opens it read-only and
     * inserts nothing.
     */
    public static final String PREFILLED_ENV = JobVariables.PREFILLED;
    /** How long a rank under a foreign launcher waits for its node's local rank 0 to create the AV. */
    public static final Duration ATTACH_TIMEOUT = Duration.ofSeconds(60);

    /** How long a rank that could not open waits in the store's exchange to tell the other ranks. */
    private static final Duration ANNOUNCE_TIMEOUT = Duration.ofSeconds(30);
    /** How often {@link #awaitAll} looks again for ranks missing once the count was reached. */
    private static final long AWAIT_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * Environment variable: the job's address format ({@link JobAddrFormat}), e.g. {@code in6}, {@code efa} or
     * {@code opaque:max:1024}; default {@code in} (set by avrun from {@code --addr-format}; under other launchers,
     * give every rank the same: {@code mpirun -x}, {@code mpiexec -genv}, {@code srun} passes the environment).
     */
    public static final String ADDR_FORMAT_ENV = JobAddrFormat.ENV;

    /** Environment variable: the identity of the job avrun started (set by avrun; checked against the AV's job file). */
    public static final String JOB_ENV = JobVariables.JOB;

    /**
     * How this rank's node AV comes to hold the job, chosen once when the rank opens: every method that
     * differs by mode switches on it.
     */
    private sealed interface Mode permits OneNode, ThroughStore, NodeOnly, Prefilled
    {
        /** The AV holds every rank of the job (entry = rank); false: only the node's ranks (entry = local rank). */
        boolean wholeJob();
    }

    /** One node (or avrun's AV): each rank inserts its own address at its entry. */
    private record OneNode() implements Mode
    {
        @Override
        public boolean wholeJob()
        {
            return true;
        }
    }

    /** Across nodes through the launcher's store: the node's local rank 0 fills the AV after the exchange. */
    private record ThroughStore(JobWireUp wireUp) implements Mode
    {
        @Override
        public boolean wholeJob()
        {
            return true;
        }
    }

    /** Across nodes without the launcher's store: the node's ranks only; {@code noStore} says what the store needs. */
    private record NodeOnly(String noStore) implements Mode
    {
        @Override
        public boolean wholeJob()
        {
            return false;
        }
    }

    /** Filled before the ranks started (a job prologue): nothing to publish, only to check. */
    private record Prefilled() implements Mode
    {
        @Override
        public boolean wholeJob()
        {
            return true;
        }
    }

    private final RankEnvironment job;
    private final NodeJob node;
    private final Mode mode;
    /** The node's AV read by rank: fi_addr values and the addresses published there. */
    private final RankPeers peers;

    private Rank(final RankEnvironment job, final NodeJob node, final Mode mode)
    {
        this.job = job;
        this.node = node;
        this.mode = mode;
        this.peers = new RankPeers(node.av(), job.size(), mode.wholeJob() ? job.size() : job.localSize(), whyNodeOnly(job, mode));
    }

    /** Null when the node's AV holds the whole job; else why it holds only the node's ranks, for the peer methods' FI_EOPNOTSUPP. */
    private static String whyNodeOnly(final RankEnvironment job, final Mode mode)
    {
        return mode instanceof NodeOnly n ? "the job spans nodes (" + job.localSize() + " of its " + job.size() +
            " ranks on this node) and " + job.launcher().description + "'s store is not available (" + n.noStore() + ")" : null;
    }

    /**
     * The rank of this process, from the variables of the launcher that started it (see the class
     * comment), or rank 0 of a job of one when no launcher did.
     *
     * @return this process's rank, attached to the job's AV; close it to detach
     * @throws IllegalStateException when a launcher's variable is malformed or the job cannot be named
     * @throws FabricException       FI_ENOENT when avrun's AV does not exist, FI_EINVAL when it is too
     *                               small or holds another address format, FI_EBUSY when local rank 0
     *                               finds the job's AV exists already (or ranks of two nodes share one
     *                               directory), FI_ETIMEDOUT when local rank 0 did not create it within
     *                               {@link #ATTACH_TIMEOUT} or another process held this rank's place in
     *                               the job file that long, FI_EINTR when interrupted while waiting for
     *                               it, FI_ENOSPC when the file system has no room for the node's job
     *                               file or AV, FI_EIO when the job file cannot be created or joined or
     *                               the launcher's store does not answer
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
        final RankEnvironment job = Launcher.environment(env, Launcher::hydraJobOfThisProcess);
        final JobAddrFormat format = JobAddrFormat.fromEnvironment(env);
        if ("1".equals(env.get(PREFILLED_ENV)))
        {
            try
            {
                return new Rank(job, NodeJob.openPrefilled(domainFor(job, format), job), new Prefilled());
            }
            catch (final FabricException e)
            {
                throw e.in("shmav_rank_open");
            }
        }
        final boolean throughStore = !job.oneNode() && job.launcher().hasStore();
        final Optional<JobStore> store = throughStore ? job.launcher().openStore(env) : Optional.empty();
        try
        {
            return open(job, store.orElse(null), RankEnvironment.avType(env), ATTACH_TIMEOUT,
                throughStore && store.isEmpty() ? job.launcher().whatItNeeds() : null, format);
        }
        catch (final RuntimeException e)
        {
            // the other ranks are bound for the store's exchange: tell them, rather than let them wait for this one
            store.ifPresent(s -> {
                JobWireUp.announceFailure(s, e, ANNOUNCE_TIMEOUT);
                s.close();
            });
            throw e;
        }
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
        return open(rank, size, avName, directory, JobAddrFormat.IN);
    }

    /**
     * {@link #open(int, int, String, Path)} of a job whose AV holds addresses of {@code format}.
     *
     * @param rank      this process's rank, 0 .. size-1
     * @param size      the number of ranks in the job
     * @param avName    the name of the AV the launcher created
     * @param directory the directory that holds it
     * @param format    the job's address format, the one the AV was created with
     * @return the rank, attached to the AV; close it to detach (the AV stays)
     * @throws IllegalArgumentException unless 0 &lt;= rank &lt; size
     * @throws FabricException          FI_ENOENT when the AV does not exist; FI_EINVAL when it holds fewer
     *                                  than {@code size} entries or another address format (the message names both)
     */
    public static Rank open(final int rank, final int size, final String avName, final Path directory,
        final JobAddrFormat format)
    {
        if (size < 1 || rank < 0 || rank >= size)
        {
            throw new IllegalArgumentException("rank=" + rank + " size=" + size + ": need 0 <= rank < size");
        }
        return open(new RankEnvironment(Launcher.AVRUN, rank, size, rank, size, avName, directory, null),
            null, AvType.TABLE, ATTACH_TIMEOUT, null, format);
    }

    /** A rank without a store (one node; across nodes, each node's ranks only). */
    static Rank open(final RankEnvironment job, final Duration attachTimeout)
    {
        return open(job, null, AvType.TABLE, attachTimeout, job.oneNode() ? null : "no store was given");
    }

    /** A rank whose job spans nodes wired up through {@code store} (null: none), of FI_SOCKADDR_IN addresses. */
    static Rank open(final RankEnvironment job, final JobStore store, final AvType type, final Duration attachTimeout,
        final String noStore)
    {
        return open(job, store, type, attachTimeout, noStore, JobAddrFormat.IN);
    }

    /** A rank whose job spans nodes wired up through {@code store} (null: none), its AV of {@code format}; the rank's mode is chosen here, once. */
    static Rank open(final RankEnvironment job, final JobStore store, final AvType type, final Duration attachTimeout,
        final String noStore, final JobAddrFormat format)
    {
        final boolean wholeJob = job.oneNode() || store != null;
        final NodeJob node;
        try
        {
            node = NodeJob.open(domainFor(job, format), job, type, wholeJob ? job.size() : job.localSize(), store != null,
                attachTimeout);
        }
        catch (final FabricException e)
        {
            throw e.in("shmav_rank_open"); // an error from below the API (e.g. removing a crashed job's files)
        }
        final Mode mode = store != null ? new ThroughStore(new JobWireUp(job, store, node)) :
            job.oneNode() ? new OneNode() : new NodeOnly(noStore);
        return new Rank(job, node, mode);
    }

    /** What the job layer opens the node's AV with: a domain of the job's address format in the job's directory. */
    private static NodeAvs domainFor(final RankEnvironment job, final JobAddrFormat format)
    {
        final Domain domain = Domain.open(format.domainAttr(job.directory()));
        return NodeAvs.of(domain::openAv, domain::close);
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

    /** {@return whether the job spans several nodes} */
    public boolean spansNodes()
    {
        return !job.oneNode();
    }

    /** {@return whether the node's AV holds every rank of the job: on one node, or across nodes with the launcher's store} */
    public boolean holdsWholeJob()
    {
        return mode.wholeJob();
    }

    /** {@return which launcher started this process: {@code avrun}, {@code Open MPI mpirun}, ..., {@code no launcher}} */
    public String launcher()
    {
        return job.launcher().description;
    }

    /**
     * {@return where this rank is in the AV: {@link #fiAddrOf(int) fiAddrOf(rank())}; its local rank's fi_addr
     * when the node's AV holds only the node}
     */
    public long fiAddr()
    {
        return peers.fiAddr(holdsWholeJob() ? job.rank() : job.localRank());
    }

    /**
     * The fi_addr of rank {@code peer} in the node's AV: {@code peer} under FI_AV_TABLE,
     * {@code av().attr().mapAddr() + peer} under FI_AV_MAP.
     *
     * @param peer a rank of the job, 0 .. size-1
     * @return its fi_addr
     * @throws IllegalArgumentException when {@code peer} is outside 0 .. size-1
     * @throws FabricException FI_EOPNOTSUPP when the node's AV holds only the node's ranks
     */
    public long fiAddrOf(final int peer)
    {
        return peers.fiAddrOf(peer);
    }

    /** {@return the job's AV (this node's), for calls beyond publish and peer (e.g. an AV set)} */
    public AddressVector av()
    {
        return node.av();
    }

    /** {@return the job's address format ({@value JobAddrFormat#ENV}): what {@link #publish} takes and the peer methods give} */
    public JobAddrFormat addrFormat()
    {
        return peers.format();
    }

    /**
     * Publishes this rank's socket address, as {@link #publish(ByteBuffer)} does with its sockaddr: IPv4 in a
     * job of {@code in} (FI_SOCKADDR_IN, the default), IPv6 in a job of {@code in6} (FI_SOCKADDR_IN6).
     *
     * @param address this rank's address, of the job's family
     * @throws FabricException FI_EINVAL for an address of the other family or unresolved, or a job whose
     *                         addresses are not socket addresses (the message says what to do); otherwise as
     *                         {@link #publish(ByteBuffer)}
     */
    public void publish(final InetSocketAddress address)
    {
        final JobAddrFormat format = addrFormat();
        if (!format.socketAddresses())
        {
            throw new FabricException("shmav_rank_publish", FiErrno.EINVAL, "rank " + job.rank() + ": this job's AV holds " +
                format.describe() + " addresses, not socket addresses: publish this rank's address bytes with " +
                "publish(byte[]), or run the job with " + JobAddrFormat.ENV + "=in or in6 (" + address + ")");
        }
        final String unfit = RankAddresses.unfitSocket(format, address);
        if (unfit != null)
        {
            throw new FabricException("shmav_rank_publish", FiErrno.EINVAL, "rank " + job.rank() + ": " + unfit);
        }
        publish(Addresses.toSockaddr(address));
    }

    /**
     * {@link #publish(ByteBuffer)} of the whole array.
     *
     * @param address this rank's address in the job's format
     * @throws FabricException as {@link #publish(ByteBuffer)}
     */
    public void publish(final byte[] address)
    {
        if (address == null)
        {
            throw new FabricException("shmav_rank_publish", FiErrno.EINVAL, "rank " + job.rank() + ": address is null");
        }
        publish(ByteBuffer.wrap(address));
    }

    /**
     * Publishes this rank's address, in the job's format ({@link #addrFormat()}), from {@code address}'s position
     * to its limit (the position is not changed): at {@link #fiAddr()} ({@link AddressVector#insertAt}) on one
     * node; across nodes, in the launcher's store, from which the node's local rank 0 fills the AV during
     * {@link #awaitAll}. Publishing the same address again is harmless on one node. Under
     * {@value #PREFILLED_ENV}, checks that the AV holds this address for this rank.
     *
     * @param address this rank's address: for a fixed format its length exactly, for {@code opaque:max:N} 1 to N
     *                bytes, for {@code str} a NUL-terminated string
     * @throws FabricException FI_EINVAL for an address of another length than the job's format or null, or one
     *                         the format calls invalid (wrong family, port 0, all zero), or a closed rank (the
     *                         message says what the job expects and how to choose another format);
     *                         FI_EADDRINUSE when another address is already published there (two processes were
     *                         given the same rank); FI_EALREADY when another rank published this address; FI_EIO
     *                         or FI_ETIMEDOUT when the launcher's store fails
     */
    public void publish(final ByteBuffer address)
    {
        if (address == null)
        {
            throw new FabricException("shmav_rank_publish", FiErrno.EINVAL, "rank " + job.rank() + ": address is null");
        }
        final ByteBuffer addr = address.slice();
        final String unfit = RankAddresses.unfit(addrFormat(), addr);
        if (unfit != null)
        {
            throw new FabricException("shmav_rank_publish", FiErrno.EINVAL, "rank " + job.rank() + ": " + unfit);
        }
        if (mode instanceof Prefilled)
        {
            checkPrefilled(addr);
        }
        else if (mode instanceof ThroughStore t)
        {
            t.wireUp().publish(addr);
        }
        else
        {
            node.av().insertAt(mode.wholeJob() ? job.rank() : job.localRank(), addr);
        }
    }

    /** A pre-filled AV: this rank's entry must be the address it publishes. */
    private void checkPrefilled(final ByteBuffer addr)
    {
        final ByteBuffer filled;
        try
        {
            filled = peers.entry(fiAddr());
        }
        catch (final FabricException e)
        {
            throw new FabricException("shmav_rank_publish", FiErrno.EINVAL, "the pre-filled AV '" + node.av().attr().name() +
                "' has no entry for rank " + job.rank() + ": the prologue must fill entry r with rank r's address", e);
        }
        if (!filled.equals(addr))
        {
            final JobAddrFormat format = addrFormat();
            throw new FabricException("shmav_rank_publish", FiErrno.EINVAL, "the pre-filled AV '" + node.av().attr().name() +
                "' holds " + Addresses.text(format.format(), filled) + " for rank " + job.rank() + ", which is at " +
                Addresses.text(format.format(), addr) + " (a read-only rank changes nothing: fix the prologue)");
        }
    }

    /**
     * Waits until every rank has published, at most {@code timeout}: on one node, until the AV holds
     * every rank's entry ({@link AddressVector#awaitCount}, then each rank's index, since other entries
     * count too); across nodes, through the launcher's store's exchange
     * and local rank 0's fill of the node's AV; across nodes without a store, the node's ranks.
     *
     * @param timeout how long to wait at most
     * @throws FabricException FI_ETIMEDOUT naming the ranks still missing (on one node) or the launcher's
     *                         store (across nodes); FI_ENODATA naming the ranks that published nothing;
     *                         FI_ECANCELED or FI_EIO when the node's local rank 0 could not fill the AV
     *                         or died; FI_EINVAL on a closed rank
     */
    public void awaitAll(final Duration timeout)
    {
        if (mode instanceof ThroughStore t)
        {
            t.wireUp().awaitAll(timeout);
            return;
        }
        final long deadline = System.nanoTime() + timeout.toNanos();
        try
        {
            node.av().awaitCount(job.entries(), timeout);
        }
        catch (final FabricException e)
        {
            if (e.errno() != FiErrno.ETIMEDOUT)
            {
                throw e;
            }
            throw notPublished(timeout);
        }
        // The count reaches the job's size sooner when the AV holds entries besides the ranks' (an address
        // a rank inserted through av()): only the ranks' own entries say that every rank published.
        while (!missingRanks().isEmpty())
        {
            if (System.nanoTime() - deadline >= 0)
            {
                throw notPublished(timeout);
            }
            LockSupport.parkNanos(AWAIT_POLL_NANOS);
        }
    }

    private FabricException notPublished(final Duration timeout)
    {
        return new FabricException("shmav_rank_await_all", FiErrno.ETIMEDOUT, (job.oneNode() ? "ranks " : "local ranks ") +
            missingRanks() + " of " + job.entries() + " did not publish within " + timeout.toMillis() + " ms");
    }

    /** {@return the ranks (local ranks, when the node's AV holds only the node) not in the AV yet, in ascending order} */
    public List<Integer> missingRanks()
    {
        return peers.missing();
    }

    /**
     * The socket address rank {@code peer} published, in a job of {@code in} or {@code in6}
     * ({@link AddressVector#lookup} of {@link #fiAddrOf(int)}).
     *
     * @param peer a rank, 0 .. size-1
     * @return the address that rank published
     * @throws IllegalArgumentException when {@code peer} is outside 0 .. size-1
     * @throws FabricException FI_EINVAL when that rank is not in the AV (yet: call {@link #awaitAll}), or the
     *                         job's addresses are not socket addresses (use {@link #peerAddress(int)});
     *                         FI_EOPNOTSUPP when the job spans nodes and the launcher's store is not
     *                         available (use {@link #nodePeer(int)})
     */
    public InetSocketAddress peer(final int peer)
    {
        return peers.peer(peer);
    }

    /**
     * The address rank {@code peer} published, in the job's format: its bytes, as many as the AV stores for it
     * (the format's length; for {@code opaque:max:N} and {@code str}, that address's own).
     *
     * @param peer a rank, 0 .. size-1
     * @return a new array holding the address
     * @throws IllegalArgumentException when {@code peer} is outside 0 .. size-1
     * @throws FabricException as {@link #peer(int)}, but for any format
     */
    public byte[] peerAddress(final int peer)
    {
        return peers.peerAddress(peer);
    }

    /**
     * {@link #peerAddress(int)} into {@code dst}, allocating nothing, as {@link AddressVector#lookup} copies: at most
     * {@code dst.remaining()} bytes at {@code dst}'s position, which is not changed (a result larger than that
     * means the address was cut; {@link AddressVector#addrLen()} bytes always hold it whole).
     *
     * @param peer a rank, 0 .. size-1
     * @param dst  receives the address
     * @return the address's whole length, which may exceed what {@code dst} had room for
     * @throws IllegalArgumentException when {@code peer} is outside 0 .. size-1
     * @throws FabricException as {@link #peer(int)}, but for any format
     */
    public int peerAddress(final int peer, final ByteBuffer dst)
    {
        return peers.peerAddress(peer, dst);
    }

    /**
     * The socket address at entry {@code index} of this node's AV: rank {@code index} when the AV holds the whole
     * job, local rank {@code index} when it holds only the node's ranks.
     *
     * @param index a rank, or a local rank when the AV holds only the node's ranks
     * @return the address published there
     * @throws IllegalArgumentException when {@code index} is outside the node's AV
     * @throws FabricException          FI_EINVAL when nobody has published there (yet), or the job's addresses are
     *                                  not socket addresses (use {@link #nodePeerAddress(int)})
     */
    public InetSocketAddress nodePeer(final int index)
    {
        return peers.nodePeer(index);
    }

    /**
     * {@link #nodePeer(int)} for any format: the bytes at entry {@code index} of this node's AV.
     *
     * @param index a rank, or a local rank when the AV holds only the node's ranks
     * @return a new array holding the address, as long as the AV stores it
     * @throws IllegalArgumentException when {@code index} is outside the node's AV
     * @throws FabricException          FI_EINVAL when nobody has published there (yet)
     */
    public byte[] nodePeerAddress(final int index)
    {
        return peers.nodePeerAddress(index);
    }

    /**
     * Closes the AV handle and the domain, and leaves the launcher's store when the job spans nodes.
     * Under avrun the AV stays (the launcher removes it); under another launcher the last local rank to
     * close removes it and its job file. A rank that exits
     * without closing (SIGTERM from its launcher, {@code System.exit}) is closed by a shutdown hook.
     *
     * @throws FabricException FI_EIO when this rank cannot tell whether it left last (the AV stays, for
     *                         {@code shmav gc}); FI_EBUSY while an endpoint or AV set still references the AV
     */
    @Override
    public void close()
    {
        try
        {
            node.close(); // FI_EBUSY leaves the rank open, store and all
        }
        catch (final FabricException e)
        {
            throw e.in("shmav_rank_close");
        }
        if (mode instanceof ThroughStore t)
        {
            t.wireUp().close();
        }
    }

    @Override
    public String toString()
    {
        final String name = node.av().attr().name();
        return "Rank{rank=" + job.rank() + ", size=" + job.size() + ", localRank=" + job.localRank() + ", localSize=" +
            job.localSize() + ", launcher='" + job.launcher().description + "', av=" + (name == null ? "private" :
            "'" + name + "'") + (mode instanceof ThroughStore t ? ", store='" + t.wireUp().describeStore() + "'" : "") + "}";
    }
}
