package org.shmav.store;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * The PMI-2 client of a rank started by Slurm's {@code srun --mpi=pmi2}, over the socket the step daemon
 * hands each task ({@code PMI_FD}, with {@code PMI_JOBID}, {@code PMI_RANK}, {@code PMI_SIZE}), in the
 * wire protocol of {@link Pmi2Wire}: {@code fullinit} at {@link #open}, {@link #publish} is
 * {@code kvs-put}, {@link #exchange} is {@code kvs-fence} (answered once every task of the step fenced),
 * {@link #fetch} is {@code kvs-get}, {@link #close} is {@code finalize} (also sent at JVM exit when the
 * caller did not).
 *
 * <p>Slurm keeps one key space per job step and ignores {@code kvs-get}'s {@code srcid}: a rank's key
 * is stored as {@code KEY-RANK}, so ranks never overwrite each other. Slurm limits keys to 64 and values
 * to 1024 bytes. Thread-safe: calls are serialised.
 */
public final class Pmi2Store implements JobStore
{
    /** How long fullinit may take: it only talks to the node's step daemon. */
    static final Duration INIT_TIMEOUT = Duration.ofSeconds(30);
    /** How long kvs-put and finalize may take (answered by the node's step daemon, never waiting for others). */
    static final Duration LOCAL_TIMEOUT = Duration.ofSeconds(10);
    /** Slurm's PMI2_MAX_KEYLEN and PMI2_MAX_VALLEN. */
    static final int MAX_KEY = 64;
    static final int MAX_VALUE = 1024;

    private final Pmi2Wire wire;
    private final String launcher;
    private final String jobId;
    private final int rank;
    private final int size;
    private final Thread finalizeAtExit;
    private boolean closed;

    private Pmi2Store(final Pmi2Wire wire, final String launcher, final String jobId, final int rank, final int size)
    {
        this.wire = wire;
        this.launcher = launcher;
        this.jobId = jobId;
        this.rank = rank;
        this.size = size;
        this.finalizeAtExit = new Thread(this::finalizeOnce, "shmav-pmi2-finalize");
    }

    /**
     * The store of the launcher that started this process, when its variables are in {@code env}.
     *
     * @param env the process environment
     * @return the store, or empty when {@code env} has no {@code PMI_FD} with a {@code PMI_JOBID} (Hydra
     *         sets {@code PMI_FD} without {@code PMI_JOBID}: that is {@code Pmi1Store}'s)
     * @throws FabricException FI_EINVAL for a malformed {@code PMI_FD}, FI_ETIMEDOUT when the step daemon
     *                         does not answer, FI_EIO when it refuses
     */
    public static Optional<JobStore> open(final Map<String, String> env)
    {
        if (env == null)
        {
            throw new FabricException("Pmi2Store.open", FiErrno.EINVAL, "env is null");
        }
        final String fd = env.get("PMI_FD");
        final String jobId = env.get("PMI_JOBID");
        if (fd == null || jobId == null)
        {
            return Optional.empty();
        }
        final String launcher = launcherName(env, jobId);
        final int descriptor;
        try
        {
            descriptor = Integer.parseInt(fd.trim());
        }
        catch (final NumberFormatException e)
        {
            throw new FabricException("PMI2_Init", FiErrno.EINVAL, "PMI_FD='" + fd + "' is not a descriptor number " +
                "(launcher=" + launcher + ")", e);
        }
        return Optional.of(connect(Pmi2Wire.overDescriptor(descriptor, launcher), env, launcher, INIT_TIMEOUT));
    }

    /** The launcher as messages name it: Slurm's step, or any other PMI-2 server. */
    static String launcherName(final Map<String, String> env, final String jobId)
    {
        final String who = env.containsKey("SLURM_JOB_ID") ? "Slurm srun" : "a PMI-2 launcher";
        return who + " (PMI-2 over PMI_FD, job " + jobId + ")";
    }

    /** The version handshake and {@code fullinit} on {@code wire}; the store of this rank. */
    static Pmi2Store connect(final Pmi2Wire wire, final Map<String, String> env, final String launcher,
        final Duration timeout)
    {
        final String jobId = env.get("PMI_JOBID");
        try
        {
            wire.handshake(timeout);
            final Map<String, String> init = new LinkedHashMap<>();
            init.put("pmijobid", jobId);
            init.put("pmirank", env.getOrDefault("PMI_RANK", "0"));
            init.put("threaded", "FALSE");
            final Map<String, String> answer = wire.command("fullinit", init, timeout);
            checkRc("fullinit", answer, launcher, "");
            final int rank = number(answer, "rank", launcher);
            final int size = number(answer, "size", launcher);
            final Pmi2Store store = new Pmi2Store(wire, launcher, jobId, rank, size);
            Runtime.getRuntime().addShutdownHook(store.finalizeAtExit);
            return store;
        }
        catch (final RuntimeException e)
        {
            wire.shutdown();
            throw e;
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
    public int maxValue()
    {
        return MAX_VALUE;
    }

    @Override
    public synchronized void publish(final String key, final String value)
    {
        final String stored = storedKey(key, rank);
        checkText("value", value, MAX_VALUE);
        final Map<String, String> put = new LinkedHashMap<>();
        put.put("key", stored);
        put.put("value", value);
        checkRc("kvs-put", wire.command("kvs-put", put, LOCAL_TIMEOUT), launcher, "key=" + key);
    }

    @Override
    public synchronized void exchange(final Duration timeout)
    {
        final Map<String, String> answer;
        try
        {
            answer = wire.command("kvs-fence", Map.of(), timeout);
        }
        catch (final FabricException e)
        {
            if (e.errno() != FiErrno.ETIMEDOUT)
            {
                throw e;
            }
            throw new FabricException("kvs-fence", FiErrno.ETIMEDOUT, "launcher=" + launcher + ": the exchange did " +
                "not complete within " + timeout.toMillis() + " ms: every rank of the job must publish and exchange " +
                "in time; a rank that died or never reached the exchange stops the others here", e);
        }
        checkRc("kvs-fence", answer, launcher, "");
    }

    @Override
    public synchronized String fetch(final int rank, final String key, final Duration timeout)
    {
        if (rank < 0 || rank >= size)
        {
            throw new FabricException("kvs-get", FiErrno.EINVAL, "rank=" + rank + " is not a rank of the job " +
                "(size=" + size + ", launcher=" + launcher + ")");
        }
        final Map<String, String> get = new LinkedHashMap<>();
        get.put("jobid", jobId);
        get.put("srcid", Integer.toString(rank));
        get.put("key", storedKey(key, rank));
        final Map<String, String> answer = wire.command("kvs-get", get, timeout);
        checkRc("kvs-get", answer, launcher, "rank=" + rank + " key=" + key);
        final String value = answer.get("value");
        if (!"TRUE".equalsIgnoreCase(answer.get("found")) || value == null)
        {
            throw new FabricException("kvs-get", FiErrno.ENODATA, "rank=" + rank + " key=" + key + ": launcher=" +
                launcher + " has no such value (did rank " + rank + " publish it before the exchange?)");
        }
        return value;
    }

    @Override
    public void close()
    {
        try
        {
            Runtime.getRuntime().removeShutdownHook(finalizeAtExit);
        }
        catch (final IllegalStateException e)
        {
            // the JVM is already exiting: the hook runs (or ran) finalizeOnce
        }
        finalizeOnce();
    }

    /** {@code finalize}, once; bounded, never throws. */
    private synchronized void finalizeOnce()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            if (!wire.isBroken())
            {
                wire.command("finalize", Map.of(), LOCAL_TIMEOUT);
            }
        }
        catch (final FabricException e)
        {
            // the step daemon is gone or frozen: it will see the process exit, nothing left to do
        }
        finally
        {
            wire.shutdown();
        }
    }

    @Override
    public String toString()
    {
        return "Pmi2Store[" + launcher + ", rank " + rank + " of " + size + "]";
    }

    /** {@code KEY-RANK}: Slurm's one key space per step holds every rank's value under its own key. */
    private String storedKey(final String key, final int owner)
    {
        checkText("key", key, MAX_KEY);
        final String stored = key + "-" + owner;
        if (stored.length() > MAX_KEY)
        {
            throw new FabricException("kvs-put", FiErrno.EINVAL, "key='" + key + "' is too long: with the rank it " +
                "must fit Slurm's " + MAX_KEY + " characters (launcher=" + launcher + ")");
        }
        return stored;
    }

    private void checkText(final String what, final String text, final int max)
    {
        if (text == null || text.isEmpty() || text.length() > max ||
            !text.chars().allMatch(c -> c > ' ' && c < 127 && c != ';' && c != '='))
        {
            throw new FabricException("kvs-put", FiErrno.EINVAL, what + "='" + text + "' must be 1.." + max +
                " printable ASCII characters without spaces, ';' or '=' (launcher=" + launcher + ")");
        }
    }

    private static void checkRc(final String command, final Map<String, String> answer, final String launcher,
        final String what)
    {
        if (!"0".equals(answer.get("rc")))
        {
            throw new FabricException(command, FiErrno.EIO, (what.isEmpty() ? "" : what + " ") + "launcher=" +
                launcher + " answered rc=" + answer.get("rc") +
                (answer.containsKey("errmsg") ? " errmsg=" + answer.get("errmsg") : ""));
        }
    }

    private static int number(final Map<String, String> answer, final String key, final String launcher)
    {
        try
        {
            return Integer.parseInt(answer.get(key));
        }
        catch (final NumberFormatException e)
        {
            throw new FabricException("fullinit", FiErrno.EIO, "launcher=" + launcher + " answered " + key + "=" +
                answer.get(key) + ", not a number", e);
        }
    }
}
