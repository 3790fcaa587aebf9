package org.shmav.store;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * The PMIx client of a rank started by a PMIx launcher (Open MPI's {@code mpirun}, Slurm's
 * {@code srun --mpi=pmix}, PRRTE's {@code prterun}): the official client library {@code libpmix.so.2}
 * called through JNA ({@link PmixNative}). {@link #publish} is {@code PMIx_Put(PMIX_GLOBAL)},
 * {@link #exchange} is {@code PMIx_Commit} then {@code PMIx_Fence(all ranks, PMIX_COLLECT_DATA,
 * PMIX_TIMEOUT)}, {@link #fetch} is {@code PMIx_Get(rank, key, PMIX_TIMEOUT)}, {@link #close} is
 * {@code PMIx_Finalize} (also done at JVM exit when the caller did not: a launcher takes a client that
 * exits without it for a failed rank). {@code docs/launcher-stores.md} says why JNA and what it costs.
 *
 * <p>Both dependencies are optional: without JNA on the classpath, or without libpmix on the machine,
 * {@link #open} throws FI_ENOSYS naming the jar or the package; nothing else in shmav needs them.
 *
 * <p>Every native call runs on one daemon thread of the store ({@link PmixCalls}) while the caller waits
 * with a deadline, so that a server that never answers costs the caller its timeout, not its thread.
 * Thread-safe: calls are serialised.
 */
public final class PmixStore implements JobStore
{
    /** How long {@code PMIx_Init} may take: it only talks to the node's own PMIx server. */
    static final Duration INIT_TIMEOUT = Duration.ofSeconds(30);
    /** How long {@code PMIx_Put}, {@code PMIx_Commit} and {@code PMIx_Finalize} may take. */
    static final Duration LOCAL_TIMEOUT = Duration.ofSeconds(10);
    /** The Maven coordinates of the JNA version shmav is built and tested with. */
    static final String JNA_JAR = "net.java.dev.jna:jna:5.19.1 (jna-5.19.1.jar)";

    private final PmixCalls calls;
    private final String launcher;
    private final int rank;
    private final int size;
    private boolean exchanged;

    private PmixStore(final PmixCalls calls, final String launcher, final int rank, final int size)
    {
        this.calls = calls;
        this.launcher = launcher;
        this.rank = rank;
        this.size = size;
    }

    /**
     * The store of the launcher that started this process, when its variables are in {@code env}.
     *
     * @param env the process environment
     * @return the store, or empty when {@code env} names no PMIx launcher ({@code PMIX_NAMESPACE} unset)
     * @throws FabricException FI_ENOSYS without JNA or libpmix (the message names what to install); the
     *                         PMIx status's errno when {@code PMIx_Init} fails
     */
    public static Optional<JobStore> open(final Map<String, String> env)
    {
        if (env == null)
        {
            throw new FabricException("PmixStore.open", FiErrno.EINVAL, "env is null");
        }
        final String nspace = env.get("PMIX_NAMESPACE");
        if (nspace == null || nspace.isEmpty())
        {
            return Optional.empty();
        }
        final String launcher = launcherName(env) + " (PMIx namespace " + nspace + ")";
        requireJna(launcher);
        final PmixCalls calls = PmixCalls.init(launcher, INIT_TIMEOUT);
        try
        {
            return Optional.of(new PmixStore(calls, launcher, calls.rank(), calls.jobSize()));
        }
        catch (final RuntimeException e)
        {
            calls.finalizeClient(LOCAL_TIMEOUT);
            throw e;
        }
    }

    /** Which launcher set PMIx up, from the variables each one adds. */
    static String launcherName(final Map<String, String> env)
    {
        if (env.containsKey("OMPI_COMM_WORLD_SIZE"))
        {
            return "Open MPI mpirun";
        }
        if (env.containsKey("SLURM_JOB_ID"))
        {
            return "Slurm srun";
        }
        if (env.keySet().stream().anyMatch(k -> k.startsWith("PRTE_")))
        {
            return "PRRTE prterun";
        }
        return "a PMIx launcher";
    }

    /** Fails with the jar to add when JNA is not on the classpath, before any class that links it loads. */
    static void requireJna(final String launcher)
    {
        try
        {
            Class.forName("com.sun.jna.Native", false, PmixStore.class.getClassLoader());
        }
        catch (final ClassNotFoundException e)
        {
            throw new FabricException("PMIx_Init", FiErrno.ENOSYS, "launcher=" + launcher + " speaks PMIx, which " +
                "shmav reaches through JNA, not on the classpath: add " + JNA_JAR + " (the shmav tools jar has it)", e);
        }
    }

    @Override
    public String describe()
    {
        return launcher;
    }

    @Override
    public int rank()
    {
        return rank;
    }

    @Override
    public int size()
    {
        return size;
    }

    @Override
    public synchronized void publish(final String key, final String value)
    {
        PmixCalls.checkText("key", key, PmixNative.KEY_MAX, launcher);
        PmixCalls.checkText("value", value, Integer.MAX_VALUE, launcher);
        calls.put(key, value, LOCAL_TIMEOUT);
    }

    @Override
    public synchronized void exchange(final Duration timeout)
    {
        calls.commitAndFence(timeout);
        exchanged = true;
    }

    @Override
    public synchronized String fetch(final int rank, final String key, final Duration timeout)
    {
        if (rank < 0 || rank >= size)
        {
            throw new FabricException("PMIx_Get", FiErrno.EINVAL, "rank=" + rank + " is not a rank of the job " +
                "(size=" + size + ", launcher=" + launcher + ")");
        }
        PmixCalls.checkText("key", key, PmixNative.KEY_MAX, launcher);
        return calls.get(rank, key, timeout, exchanged);
    }

    @Override
    public synchronized void close()
    {
        calls.finalizeClient(LOCAL_TIMEOUT);
    }

    @Override
    public String toString()
    {
        return "PmixStore[" + launcher + ", rank " + rank + " of " + size + "]";
    }
}
