package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

/** The README's first command, {@code scripts/avrun -n 4 --demo ring}, run for real. */
@Isolated("its spinning threads take every CPU left over for as long as it runs: beside another class it runs longer and"
    + " slows that class several times over (the console blocks of ShownOutputIT took 200 s beside it, 50 s alone)")
class RingDemoIT
{
    private static final int RUNS_DEFAULT = 20;
    /**
     * Ring jobs at a time in the busy test: a job's JVMs start one after another (avrun, then its ranks), so with
     * one job at a time the spinning threads took about half the CPUs; a second job takes part of that share,
     * and adds to what a rank competes with.
     */
    private static final int JOBS_DEFAULT = 2;
    private static final AtomicLong BLACKHOLE = new AtomicLong();
    private static final Pattern LISTENING = Pattern.compile("\\[(\\d+)] rank \\d+ of 4 \\(avrun\\) listening on " +
        "(\\S+), published at fi_addr (\\d+)");
    private static final Pattern NEXT = Pattern.compile("\\[(\\d+)] all 4 ranks in the AV; next is rank (\\d+) at (\\S+) \\(fi_addr (\\d+)\\)");

    @Test
    void shouldPassTheTokenRoundFourRanksAtTheAddressesFromTheAv() throws Exception
    {
        try (TestDir dir = TestDir.inShm("ring-it-");
             TestDir logs = TestDir.inTmp("ring-it-logs-");
             ChildJvm avrun = ChildJvm.script("avrun", Map.of("SHMAV_DIR", dir.path().toString()), logs.path(),
                 List.of("-n", "4", "--demo", "ring", "--timeout", "60")))
        {
            assertEquals(0, avrun.waitFor(Duration.ofSeconds(90)), avrun::stderr);
            final String out = avrun.stdout();
            assertTrue(out.contains("[0] token came back with value 4 after 4 hops: ring OK"), out);
            for (int r = 1; r < 4; r++)
            {
                assertTrue(out.contains("[" + r + "] received token " + r + ", passing " + (r + 1)), out);
            }
            assertEquals(published(out), lookedUpAsNext(out), "every rank found its neighbour where the neighbour published");
            final String wireUp = line(out, "[0] wire-up: ");
            final String ring = line(out, "[0] ring: ");
            System.out.println("ring demo, 4 ranks: " + wireUp + " | " + ring);
            assertEquals(List.of(), dir.names(), "the job's AV is removed at the end");
        }
    }

    /**
     * The README's main command {@value #RUNS_DEFAULT} times (system property
     * {@code shmav.it.ringRuns}) with every CPU kept busy by a spinning thread of this JVM, as on a shared
     * node: cold rank JVMs are then paused at any point, e.g. between an insert's commit and its publish,
     * which a rank that passed {@code Rank.awaitAll} must never see as a missing entry (layout 7.0 failed
     * about 1 run in 10 to 20 so: "fi_addr 0x0 is unset"). Every run must pass. Two jobs run at a time (system
     * property {@code shmav.it.ringJobs}): each job's ranks then compete with the spinning threads and with the
     * other job's JVMs. The race itself is reproduced every time by {@code CountThenLookupTest} (a writer paused
     * between commit and publish) and by the jcstress {@code CommitCountLookupTest}; these runs check the command
     * end to end, and {@code -Dshmav.it.ringRuns=200} makes a long run of them.
     */
    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES) // 20 runs on busy CPUs: 1-4 min on a loaded 2-core machine
    void shouldPassTheRingEveryTimeWithTheCpusBusy() throws Exception
    {
        final int runs = Integer.getInteger("shmav.it.ringRuns", RUNS_DEFAULT);
        final AtomicBoolean spin = new AtomicBoolean(true);
        final List<Thread> busy = new ArrayList<>();
        for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++)
        {
            final Thread t = new Thread(() ->
            {
                long x = 0;
                while (spin.get())
                {
                    x += System.nanoTime() & 1;
                }
                BLACKHOLE.set(x);
            }, "busy-" + i);
            t.setDaemon(true);
            t.start();
            busy.add(t);
        }
        final List<String> failures = Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger next = new AtomicInteger();
        final int jobs = Math.max(1, Integer.getInteger("shmav.it.ringJobs", JOBS_DEFAULT));
        final ExecutorService pool = Executors.newFixedThreadPool(jobs);
        final long start = System.nanoTime();
        try
        {
            final List<Future<?>> lanes = new ArrayList<>();
            for (int lane = 0; lane < jobs; lane++)
            {
                lanes.add(pool.submit(() ->
                {
                    for (int run = next.getAndIncrement(); run < runs; run = next.getAndIncrement())
                    {
                        busyRun(run, failures);
                    }
                    return null;
                }));
            }
            for (final Future<?> lane : lanes)
            {
                lane.get();
            }
        }
        finally
        {
            pool.shutdownNow();
            spin.set(false);
            for (final Thread t : busy)
            {
                t.join(1_000);
            }
        }
        final long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.println("ring demo with " + busy.size() + " CPUs busy, " + jobs + " jobs at a time: " +
            (runs - failures.size()) + " of " + runs + " runs passed in " + millis + " ms (" + millis / Math.max(runs, 1) +
            " ms a run)");
        assertEquals(List.of(), failures, failures.size() + " of " + runs + " runs failed");
    }

    /** One {@code avrun -n 4 --demo ring} of the busy test; what went wrong, if anything, is added to {@code failures}. */
    private static void busyRun(final int run, final List<String> failures) throws Exception
    {
        try (TestDir dir = TestDir.inShm("ring-busy-");
             TestDir logs = TestDir.inTmp("ring-busy-logs-");
             ChildJvm avrun = ChildJvm.script("avrun", Map.of("SHMAV_DIR", dir.path().toString()), logs.path(),
                 List.of("-n", "4", "--demo", "ring", "--timeout", "120")))
        {
            // two jobs at a time on busy CPUs: a run takes longer than alone (the race shows as an unset fi_addr, not a timeout)
            final int code = avrun.waitFor(Duration.ofSeconds(180));
            final String out = avrun.stdout();
            if (code != 0 || !out.contains("[0] token came back with value 4 after 4 hops: ring OK"))
            {
                failures.add("run " + run + ": exit " + code + "\n" + out + avrun.stderr());
            }
        }
    }

    /** rank -> address each rank printed as its own, checking it published at fi_addr = rank. */
    private static Map<Integer, String> published(final String out)
    {
        final Map<Integer, String> map = new HashMap<>();
        final Matcher m = LISTENING.matcher(out);
        while (m.find())
        {
            assertEquals(m.group(1), m.group(3));
            map.put(Integer.parseInt(m.group(1)), m.group(2));
        }
        assertEquals(4, map.size(), out);
        return map;
    }

    /** rank -> address its left neighbour looked up in the AV for it. */
    private static Map<Integer, String> lookedUpAsNext(final String out)
    {
        final Map<Integer, String> map = new HashMap<>();
        final Matcher m = NEXT.matcher(out);
        while (m.find())
        {
            assertEquals((Integer.parseInt(m.group(1)) + 1) % 4, Integer.parseInt(m.group(2)));
            map.put(Integer.parseInt(m.group(2)), m.group(3));
        }
        assertEquals(4, map.size(), out);
        return map;
    }

    private static String line(final String out, final String start)
    {
        final int at = out.indexOf(start);
        assertTrue(at >= 0, out);
        return out.substring(at + start.length(), out.indexOf('\n', at));
    }
}
