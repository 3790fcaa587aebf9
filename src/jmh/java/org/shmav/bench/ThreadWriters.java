package org.shmav.bench;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;

/**
 * Insert throughput of P threads of one JVM into one named AV: all through one handle, or through a
 * handle of their own each (the same AV opened P times). Run as a child JVM by {@link Scaling}:
 *
 * <pre>
 *   ThreadWriters P M one|per-thread
 * </pre>
 *
 * Each thread warms up on a private AV, then all wait on one latch (with a deadline; opened once the
 * JIT has compiled nothing for a second, see {@link MultiWriter#awaitQuietCompiler}) and insert M
 * distinct addresses one call each. Prints "result threads VALUE inserts/s" (P * M / (last end - first
 * start)) and "result check_ok 1|0" after {@link MultiWriter#check}; exits non-zero on any failure.
 */
public final class ThreadWriters
{
    private static final long WAIT_SECONDS = 120;

    private ThreadWriters()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int threads = Integer.parseInt(args[0]);
        final int perThread = Integer.parseInt(args[1]);
        final boolean perThreadHandle = "per-thread".equals(args[2]);
        final String name = BenchAvs.uniqueName("threads");
        try (Domain domain = BenchAvs.domain())
        {
            try (AddressVector shared = BenchAvs.open(domain, BenchAvs.SHARED, name, (long)threads * perThread))
            {
                final CountDownLatch ready = new CountDownLatch(threads);
                final CountDownLatch go = new CountDownLatch(1);
                final long[] start = new long[threads];
                final long[] end = new long[threads];
                final AtomicReference<Throwable> failure = new AtomicReference<>();
                final List<Thread> workers = new ArrayList<>();
                for (int t = 0; t < threads; t++)
                {
                    final int w = t;
                    final Thread worker = new Thread(() ->
                    {
                        try (AddressVector own = perThreadHandle ? domain.openAv(AvAttr.builder().name(name).build()) : null)
                        {
                            insert(domain, own == null ? shared : own, w, perThread, ready, go, start, end);
                        }
                        catch (final Throwable e)
                        {
                            failure.compareAndSet(null, e);
                            ready.countDown();
                        }
                    }, "writer-" + t);
                    worker.setDaemon(true);
                    workers.add(worker);
                    worker.start();
                }
                if (!ready.await(WAIT_SECONDS, TimeUnit.SECONDS))
                {
                    throw new IllegalStateException("writers not ready after " + WAIT_SECONDS + " s");
                }
                MultiWriter.awaitQuietCompiler(); // compilations left from the warm-up would take a core from a writer
                go.countDown();
                for (final Thread worker : workers)
                {
                    worker.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
                    if (worker.isAlive())
                    {
                        throw new IllegalStateException(worker.getName() + " still inserting after " + WAIT_SECONDS + " s");
                    }
                }
                if (failure.get() != null)
                {
                    throw new IllegalStateException("a writer failed", failure.get());
                }
                long first = Long.MAX_VALUE;
                long last = Long.MIN_VALUE;
                for (int t = 0; t < threads; t++)
                {
                    first = Math.min(first, start[t]);
                    last = Math.max(last, end[t]);
                }
                final String check = MultiWriter.check(domain, name, 0, threads, perThread);
                System.out.printf(Locale.ROOT, "result threads %.0f inserts/s%n", (double)threads * perThread / ((last - first) / 1e9));
                System.out.println("result check_ok " + (check.startsWith("FAILED") ? 0 : 1) + " " + check);
            }
            finally
            {
                domain.unlinkAv(name);
            }
        }
        // Daemon writers that failed to start must not keep the JVM alive.
        System.exit(0);
    }

    private static void insert(final Domain domain, final AddressVector av, final int writer, final int n,
        final CountDownLatch ready, final CountDownLatch go, final long[] start, final long[] end) throws Exception
    {
        final ByteBuffer addrs = BenchAddresses.direct(writer, n);
        final long[] one = new long[1];
        MultiWriter.warmUp(domain, writer);
        ready.countDown();
        if (!go.await(WAIT_SECONDS, TimeUnit.SECONDS))
        {
            throw new IllegalStateException("no start after " + WAIT_SECONDS + " s");
        }
        final long t0 = System.nanoTime();
        final int inserted = MultiWriter.insertAll(av, addrs, 0, n, 1, one);
        end[writer] = System.nanoTime();
        start[writer] = t0;
        if (inserted != n)
        {
            throw new IllegalStateException("writer " + writer + " inserted " + inserted + " of " + n);
        }
    }
}
