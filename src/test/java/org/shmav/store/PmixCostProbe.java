package org.shmav.store;

import java.time.Duration;

import com.sun.jna.Function;
import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;

/**
 * Not a test: a rank main that times the PMIx client through JNA, for {@code docs/launcher-stores.md}.
 * Run it under mpirun (see that page for the command). Rank 0 prints one line per measure: the start-up
 * steps once each (JNA's own load, dlopen of libpmix, PMIx_Init, the job-size get), then the mean of
 * many puts, fences and gets, made directly through {@link PmixNative} and through {@link PmixCalls}
 * (which adds the hop to the session's thread and the deadline).
 */
public final class PmixCostProbe
{
    private static final int CALLS = 2_000;
    private static final int FENCES = 20;

    private PmixCostProbe()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        long t = System.nanoTime();
        Class.forName("com.sun.jna.Native", true, PmixCostProbe.class.getClassLoader());
        final long jnaLoad = System.nanoTime() - t;
        t = System.nanoTime();
        final PmixNative pmix = PmixNative.load("probe");
        final long libLoad = System.nanoTime() - t;
        final Memory proc = PmixNative.newProc();
        t = System.nanoTime();
        check(pmix.init(proc), "init");
        final long init = System.nanoTime() - t;
        final int me = PmixNative.rank(proc);
        t = System.nanoTime();
        final PmixNative.Status size = pmix.get(proc, PmixNative.RANK_WILDCARD, "pmix.job.size", 10, false);
        final long sizeGet = System.nanoTime() - t;
        final int n = Integer.parseInt(size.value);

        // the fence as a job uses it: one small value per rank, committed, then fenced (repeated)
        check(pmix.putString("addr", "rank-" + me), "put");
        t = System.nanoTime();
        check(pmix.commit(), "commit");
        final long commit = System.nanoTime() - t;
        check(pmix.fence(30), "fence");
        t = System.nanoTime();
        for (int i = 0; i < FENCES; i++)
        {
            check(pmix.fence(30), "fence");
        }
        final long fence = (System.nanoTime() - t) / FENCES;
        for (int i = 0; i < CALLS; i++)
        {
            check(pmix.putString("warm" + i, "v"), "put"); // JIT warm-up
        }
        t = System.nanoTime();
        for (int i = 0; i < CALLS; i++)
        {
            check(pmix.putString("k" + i, "value-" + me + "-" + i), "put");
        }
        final long put = (System.nanoTime() - t) / CALLS;
        check(pmix.commit(), "commit");
        check(pmix.fence(60), "fence");
        final int peer = (me + 1) % n;
        t = System.nanoTime();
        for (int i = 0; i < CALLS; i++)
        {
            final PmixNative.Status v = pmix.get(proc, peer, "k" + i, 10, true);
            check(v.status, "get");
        }
        final long get = (System.nanoTime() - t) / CALLS;

        final PmixCalls calls = PmixCalls.init("probe", Duration.ofSeconds(10));
        t = System.nanoTime();
        for (int i = 0; i < CALLS; i++)
        {
            calls.get(peer, "k" + i, Duration.ofSeconds(10), true);
        }
        final long storeGet = (System.nanoTime() - t) / CALLS;
        t = System.nanoTime();
        for (int i = 0; i < CALLS; i++)
        {
            calls.put("s" + i, "v", Duration.ofSeconds(10));
        }
        final long storePut = (System.nanoTime() - t) / CALLS;
        calls.commitAndFence(Duration.ofSeconds(30));

        final Function getpid = NativeLibrary.getInstance("c").getFunction("getpid");
        for (int i = 0; i < 100_000; i++)
        {
            getpid.invokeInt(new Object[0]);
        }
        t = System.nanoTime();
        for (int i = 0; i < 100_000; i++)
        {
            getpid.invokeInt(new Object[0]);
        }
        final long trivial = (System.nanoTime() - t) / 100_000;
        calls.finalizeClient(Duration.ofSeconds(10));
        pmix.finalizeClient();
        if (me == 0)
        {
            System.out.printf("JNA %s on Java %s, %d ranks%n", com.sun.jna.Native.VERSION, Runtime.version(), n);
            System.out.printf("start-up: JNA load %.1f ms, dlopen libpmix %.1f ms, PMIx_Init %.1f ms, job size get %.2f ms%n",
                jnaLoad / 1e6, libLoad / 1e6, init / 1e6, sizeGet / 1e6);
            System.out.printf("direct: put %.2f us, commit %.1f us, fence %.1f us, get %.2f us; JNA call getpid %.2f us%n",
                put / 1e3, commit / 1e3, fence / 1e3, get / 1e3, trivial / 1e3);
            System.out.printf("through PmixCalls (thread hop + deadline): put %.2f us, get %.2f us%n",
                storePut / 1e3, storeGet / 1e3);
        }
    }

    private static void check(final int status, final String what)
    {
        if (status != 0)
        {
            throw new IllegalStateException(what + " failed: " + status);
        }
    }
}
