package org.shmav.store;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.sun.jna.Memory;

import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * One PMIx client session: {@code PMIx_Init} to {@code PMIx_Finalize}, every call made on the session's
 * own daemon thread and awaited with a deadline, every failing status turned into a
 * {@link FabricException} that names the launcher. A call still inside the library at its deadline
 * leaves the session broken (its thread may answer later, or never): later calls fail at once with
 * FI_EOPBADSTATE instead of queueing behind it. Used by {@link PmixStore} under its lock.
 */
final class PmixCalls
{
    private final PmixNative pmix;
    private final ExecutorService thread;
    private final String launcher;
    private final Memory proc;
    private final Thread finalizeAtExit;
    private String broken;
    private boolean finalized;

    private PmixCalls(final PmixNative pmix, final ExecutorService thread, final String launcher, final Memory proc)
    {
        this.pmix = pmix;
        this.thread = thread;
        this.launcher = launcher;
        this.proc = proc;
        this.finalizeAtExit = new Thread(() -> finalizeClient(PmixStore.LOCAL_TIMEOUT), "shmav-pmix-finalize");
    }

    /** Loads libpmix and calls {@code PMIx_Init}; the session's rank is then in {@link #rank()}. */
    static PmixCalls init(final String launcher, final Duration timeout)
    {
        final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
            final Thread t = new Thread(r, "shmav-pmix");
            t.setDaemon(true); // a server that never answers must not keep the JVM alive
            return t;
        });
        try
        {
            final PmixNative pmix = PmixNative.load(launcher);
            final Memory proc = PmixNative.newProc();
            final PmixCalls calls = new PmixCalls(pmix, thread, launcher, proc);
            final int status = calls.call("PMIx_Init", timeout, () -> pmix.init(proc));
            calls.check("PMIx_Init", status, "no PMIx server of this node took this process as its client (was it " +
                "started by the launcher, or did it inherit PMIX_* variables from one?):");
            Runtime.getRuntime().addShutdownHook(calls.finalizeAtExit);
            return calls;
        }
        catch (final RuntimeException e)
        {
            thread.shutdownNow();
            throw e;
        }
    }

    /** This process's rank, as {@code PMIx_Init} returned it. */
    int rank()
    {
        return PmixNative.rank(proc);
    }

    /** {@code PMIx_Get(job wildcard, pmix.job.size)}. */
    int jobSize()
    {
        final PmixNative.Status size = call("PMIx_Get", PmixStore.LOCAL_TIMEOUT,
            () -> pmix.get(proc, PmixNative.RANK_WILDCARD, "pmix.job.size", seconds(PmixStore.LOCAL_TIMEOUT), false));
        check("PMIx_Get", size.status, "key=pmix.job.size (the job's size)");
        try
        {
            return Integer.parseInt(size.value);
        }
        catch (final NumberFormatException e)
        {
            throw new FabricException("PMIx_Get", FiErrno.EIO, "launcher=" + launcher + " answered pmix.job.size=" +
                size.value + ", not a number", e);
        }
    }

    void put(final String key, final String value, final Duration timeout)
    {
        check("PMIx_Put", call("PMIx_Put", timeout, () -> pmix.putString(key, value)), "key=" + key);
    }

    /** {@code PMIx_Commit}, then the fence of every rank with the data collected, bounded by {@code timeout}. */
    void commitAndFence(final Duration timeout)
    {
        check("PMIx_Commit", call("PMIx_Commit", PmixStore.LOCAL_TIMEOUT, pmix::commit), "");
        int status;
        try
        {
            status = call("PMIx_Fence", timeout, () -> pmix.fence(seconds(timeout)));
        }
        catch (final FabricException e)
        {
            if (e.errno() != FiErrno.ETIMEDOUT)
            {
                throw e;
            }
            status = PmixNative.ERR_TIMEOUT; // our deadline came first: the same answer as the library's own
        }
        if (status == PmixNative.ERR_TIMEOUT)
        {
            throw new FabricException("PMIx_Fence", FiErrno.ETIMEDOUT, "launcher=" + launcher + ": the exchange " +
                "did not complete within " + timeout.toMillis() + " ms: every rank of the job must publish and " +
                "exchange in time; a rank that died or never reached the exchange stops the others here");
        }
        // e.g. Slurm 22.05's PMIx server answers UNPACK-PAST-END to a node's other ranks when one died
        check("PMIx_Fence", status, "the exchange failed (a rank of the job may have died before it):");
    }

    /** {@code rank}'s value under {@code key}; after the fence only the node's copy is read. */
    String get(final int rank, final String key, final Duration timeout, final boolean fenced)
    {
        final PmixNative.Status got = call("PMIx_Get", timeout,
            () -> pmix.get(proc, rank, key, seconds(timeout), fenced));
        check("PMIx_Get", got.status, "rank=" + rank + " key=" + key);
        return got.value;
    }

    /** {@code PMIx_Finalize}, once; bounded, never throws. */
    synchronized void finalizeClient(final Duration timeout)
    {
        if (finalized)
        {
            return;
        }
        finalized = true;
        if (Thread.currentThread() != finalizeAtExit)
        {
            try
            {
                Runtime.getRuntime().removeShutdownHook(finalizeAtExit);
            }
            catch (final IllegalStateException e)
            {
                // the JVM is already exiting: the hook runs (or ran) this
            }
        }
        try
        {
            if (broken == null)
            {
                call("PMIx_Finalize", timeout, pmix::finalizeClient);
            }
            else
            {
                finalizeBesideStuckCall(timeout);
            }
        }
        catch (final FabricException e)
        {
            // the server is gone or frozen: the launcher will see the process exit, nothing left to do
        }
        finally
        {
            thread.shutdownNow();
        }
    }

    /**
     * {@code PMIx_Finalize} on a thread of its own while the session's thread is still inside a call that
     * timed out (a fence the server never ends): libpmix is thread-safe, and without it the launcher takes
     * this rank's exit for a crash and kills the job (Open MPI: "exiting improperly").
     */
    private void finalizeBesideStuckCall(final Duration timeout)
    {
        final Thread t = new Thread(pmix::finalizeClient, "shmav-pmix-finalize-beside");
        t.setDaemon(true);
        t.start();
        try
        {
            t.join(timeout.toMillis());
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Runs {@code body} on the session's thread and waits at most {@code timeout} for it: the caller's own
     * deadline, since a server may ignore PMIX_TIMEOUT (Open MPI 4.1.4's does on a fence, measured).
     */
    private synchronized <T> T call(final String name, final Duration timeout, final Callable<T> body)
    {
        if (broken != null)
        {
            throw new FabricException(name, FiErrno.EOPBADSTATE, "launcher=" + launcher + ": the PMIx session is " +
                "unusable since " + broken + " did not return in time");
        }
        if (finalized && !"PMIx_Finalize".equals(name))
        {
            throw new FabricException(name, FiErrno.EOPBADSTATE, "launcher=" + launcher + ": the store is closed");
        }
        final Future<T> result = thread.submit(body);
        final long millis = timeout.toMillis();
        try
        {
            return result.get(millis, TimeUnit.MILLISECONDS);
        }
        catch (final TimeoutException e)
        {
            broken = name;
            throw new FabricException(name, FiErrno.ETIMEDOUT, "launcher=" + launcher + " did not answer within " +
                millis + " ms", e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            broken = name;
            throw new FabricException(name, FiErrno.EINTR, "launcher=" + launcher + ": interrupted while waiting", e);
        }
        catch (final ExecutionException e)
        {
            final Throwable cause = e.getCause();
            if (cause instanceof RuntimeException)
            {
                throw (RuntimeException)cause;
            }
            throw new FabricException(name, FiErrno.EIO, "launcher=" + launcher + ": " + cause, cause);
        }
    }

    /** Throws for a failing status: ETIMEDOUT, ENODATA, or EIO with PMIx's own name of the status. */
    private void check(final String name, final int status, final String what)
    {
        if (status == PmixNative.SUCCESS)
        {
            return;
        }
        final int errno = status == PmixNative.ERR_TIMEOUT ? FiErrno.ETIMEDOUT
            : status == PmixNative.ERR_NOT_FOUND ? FiErrno.ENODATA : FiErrno.EIO;
        final String pmixName = call("PMIx_Error_string", PmixStore.LOCAL_TIMEOUT, () -> pmix.errorString(status));
        throw new FabricException(name, errno, (what.isEmpty() ? "" : what + " ") + "launcher=" + launcher +
            " answered " + pmixName + " (" + status + ")");
    }

    /** Rejects what the store cannot carry, naming the launcher. */
    static void checkText(final String what, final String text, final int max, final String launcher)
    {
        if (text == null || text.isEmpty() || text.length() > max || !text.chars().allMatch(c -> c > ' ' && c < 127))
        {
            throw new FabricException("PMIx_Put", FiErrno.EINVAL, what + "='" + text + "' must be 1.." + max +
                " printable ASCII characters without spaces (launcher=" + launcher + ")");
        }
    }

    /** A timeout in whole seconds for PMIX_TIMEOUT (0 would mean "forever"). */
    private static int seconds(final Duration timeout)
    {
        return (int)Math.max(1, Math.min(Integer.MAX_VALUE, (timeout.toMillis() + 999) / 1000));
    }
}
