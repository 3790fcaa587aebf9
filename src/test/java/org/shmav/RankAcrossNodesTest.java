package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.shmav.job.JobFile;
import org.shmav.job.JobId;
import org.shmav.job.RankEnvironment;
import org.shmav.job.Launcher;
import org.shmav.store.JobStore;

/**
 * A job across two "nodes" (two directories) wired up through an in-memory store: each node's local
 * rank 0 fills its AV with every rank; the other ranks read it. The real launchers across simulated
 * nodes are in AcrossNodesIT.
 */
class RankAcrossNodesTest
{
    @TempDir
    Path nodeA;
    @TempDir
    Path nodeB;

    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final List<Rank> ranks = new ArrayList<>();

    @AfterEach
    void close()
    {
        pool.shutdownNow();
        for (int i = ranks.size() - 1; i >= 0; i--)
        {
            ranks.get(i).close();
        }
    }

    @Test
    void shouldGiveEveryRankOnEveryNodeEveryRankAtFiAddrRank() throws Exception
    {
        final FakeStore store = new FakeStore(5);
        // ranks 0, 2, 4 on node A, ranks 1, 3 on node B (round robin, uneven)
        final Rank[] r = {open(store, 0, nodeA, 0, 3), open(store, 1, nodeB, 0, 2), open(store, 2, nodeA, 1, 3),
            open(store, 3, nodeB, 1, 2), open(store, 4, nodeA, 2, 3)};
        final List<Future<?>> done = new ArrayList<>();
        for (final Rank rank : r)
        {
            rank.publish(new InetSocketAddress("127.0.0.1", 7000 + rank.rank()));
            done.add(pool.submit(() -> rank.awaitAll(Duration.ofSeconds(20))));
        }
        for (final Future<?> f : done)
        {
            f.get(30, TimeUnit.SECONDS);
        }
        for (final Rank rank : r)
        {
            assertTrue(rank.holdsWholeJob() && rank.spansNodes(), rank.toString());
            assertEquals(rank.rank(), rank.fiAddr());
            assertEquals(5, rank.av().count());
            for (int p = 0; p < 5; p++)
            {
                assertEquals(new InetSocketAddress("127.0.0.1", 7000 + p), rank.peer(p), rank + " peer " + p);
            }
        }
        assertEquals(JobFile.AV_FILLED, org.shmav.job.JobRecord.read(JobFile.path(nodeB, "slurm-9.0")).orElseThrow().state());
        assertEquals(FiErrno.EPERM, assertThrows(FabricException.class,
            () -> r[3].av().insertAt(0, Addresses.toSockaddr(new InetSocketAddress("127.0.0.1", 1)))).errno(),
            "a rank other than local rank 0 opened the AV read-only");
    }

    /**
     * Under a launcher's value limit (PMI-1, PMI-2) each node's block is cut into segments; each node's
     * local rank 0 looks up each node's segments once: nodes x segments look-ups, not ranks.
     */
    @Test
    void shouldFetchOneBlockPerNodeInSegmentsWithinTheLaunchersLimit() throws Exception
    {
        final FakeStore store = new FakeStore(5);
        store.maxValue = 60; // 36 hex characters a segment: node A's 3 entries of 22 bytes are 4 segments
        final Rank[] r = {open(store, 0, nodeA, 0, 3), open(store, 1, nodeB, 0, 2), open(store, 2, nodeA, 1, 3),
            open(store, 3, nodeB, 1, 2), open(store, 4, nodeA, 2, 3)};
        final List<Future<?>> done = new ArrayList<>();
        for (final Rank rank : r)
        {
            rank.publish(new InetSocketAddress("127.0.0.1", 7000 + rank.rank()));
            done.add(pool.submit(() -> rank.awaitAll(Duration.ofSeconds(20))));
        }
        for (final Future<?> f : done)
        {
            f.get(30, TimeUnit.SECONDS);
        }
        for (final Rank rank : r)
        {
            for (int p = 0; p < 5; p++)
            {
                assertEquals(new InetSocketAddress("127.0.0.1", 7000 + p), rank.peer(p), rank + " peer " + p);
            }
        }
        assertEquals(Set.of("shmav-node-0", "shmav-node1-0", "shmav-node2-0", "shmav-node3-0", "shmav-node-1",
            "shmav-node1-1", "shmav-node2-1"), store.values.keySet(), "only the nodes' local ranks 0 publish, in segments");
        // two leaders, each: node A's 4 segments and node B's 3; nobody looks up a rank's own key
        assertEquals(7 * 2, store.lookups.values().stream().mapToInt(Integer::intValue).sum(), store.lookups.toString());
    }

    /** A node block that is not one names the node's local rank 0 at every rank. */
    @Test
    void shouldNameTheNodeWhoseBlockIsMalformed() throws Exception
    {
        final FakeStore store = new FakeStore(3);
        final Rank a0 = open(store, 0, nodeA, 0, 2);
        final Rank a1 = open(store, 2, nodeA, 1, 2);
        a0.publish(new InetSocketAddress("127.0.0.1", 7000));
        a1.publish(new InetSocketAddress("127.0.0.1", 7002));
        final Future<?> nodeB = pool.submit(() -> {
            store.as(1).publish("shmav-node", "1:0100000010"); // rank 1, cut short
            store.as(1).exchange(Duration.ofSeconds(20));
        });
        final List<Future<FabricException>> errors = new ArrayList<>();
        for (final Rank rank : List.of(a0, a1))
        {
            errors.add(pool.submit(() -> assertThrows(FabricException.class, () -> rank.awaitAll(Duration.ofSeconds(20)))));
        }
        nodeB.get(30, TimeUnit.SECONDS);
        final FabricException leader = errors.get(0).get(30, TimeUnit.SECONDS);
        assertEquals(FiErrno.EINVAL, leader.errno(), leader.getMessage());
        assertTrue(leader.getMessage().contains("the node block of rank 1 (its node's local rank 0) is malformed"),
            leader.getMessage());
        final FabricException other = errors.get(1).get(30, TimeUnit.SECONDS);
        assertTrue(other.getMessage().contains("the node block of rank 1 (its node's local rank 0) is malformed"),
            "the node's other ranks name it too: " + other.getMessage());
    }

    @Test
    void shouldNameTheRankMissingFromTheStoreAtTheLeaderAndTheOtherRanks() throws Exception
    {
        final FakeStore store = new FakeStore(3);
        final Rank a0 = open(store, 0, nodeA, 0, 2);
        final Rank b0 = open(store, 1, nodeB, 0, 1);
        final Rank a1 = open(store, 2, nodeA, 1, 2);
        a0.publish(new InetSocketAddress("127.0.0.1", 7000));
        a1.publish(new InetSocketAddress("127.0.0.1", 7002)); // rank 1 publishes nothing
        final List<Future<FabricException>> errors = new ArrayList<>();
        for (final Rank rank : List.of(a0, b0, a1))
        {
            errors.add(pool.submit(() -> assertThrows(FabricException.class, () -> rank.awaitAll(Duration.ofSeconds(20)))));
        }
        for (final Future<FabricException> f : errors)
        {
            final FabricException e = f.get(30, TimeUnit.SECONDS);
            assertEquals(FiErrno.ENODATA, e.errno(), e.getMessage());
            assertTrue(e.getMessage().contains("rank(s) [1] of 3 published no address") &&
                e.getMessage().contains("fake store"), e.getMessage());
        }
        assertEquals(JobFile.FILL_FAILED, org.shmav.job.JobRecord.read(JobFile.path(nodeA, "slurm-9.0")).orElseThrow().state(),
            "never marked complete");
    }

    /** A rank that could not open announces it through the store: the others fail at once, naming it. */
    @Test
    void shouldNameARankThatCouldNotOpenInsteadOfWaitingForIt() throws Exception
    {
        final FakeStore store = new FakeStore(2);
        final Rank a0 = open(store, 0, nodeA, 0, 1);
        a0.publish(new InetSocketAddress("127.0.0.1", 7000));
        final Future<?> failed = pool.submit(() -> org.shmav.job.JobWireUp.announceFailure(store.as(1),
            new FabricException("shmav_rank_open", FiErrno.EBUSY, "two nodes share a directory"), Duration.ofSeconds(20)));
        final FabricException e = assertThrows(FabricException.class, () -> a0.awaitAll(Duration.ofSeconds(20)));
        failed.get(30, TimeUnit.SECONDS);
        assertEquals(FiErrno.ENODATA, e.errno());
        assertTrue(e.getMessage().contains("rank(s) [1 (FI_EBUSY)] of 2 could not open their node's AV"), e.getMessage());
    }

    @Test
    void shouldStopWaitingWhenTheNodesLeaderDiesBeforeItFills() throws Exception
    {
        final FakeStore store = new FakeStore(2);
        final Rank a0 = open(store, 0, nodeA, 0, 2);
        final Rank a1 = open(store, 1, nodeA, 1, 2);
        a1.publish(new InetSocketAddress("127.0.0.1", 7001));
        store.skipBarrier = true;
        ranks.remove(a0);
        a0.close(); // as if it died: its place in the job file is free, the AV never marked complete
        final long start = System.nanoTime();
        final FabricException e = assertThrows(FabricException.class, () -> a1.awaitAll(Duration.ofSeconds(20)));
        assertEquals(FiErrno.EIO, e.errno(), e.getMessage());
        assertTrue(e.getMessage().contains("local rank 0 of this node died before it filled"), e.getMessage());
        assertTrue(System.nanoTime() - start < 10_000_000_000L);
    }

    /**
     * A local rank that died after it joined its node's job file and before it handed its address: local
     * rank 0 stops waiting for it as soon as its place is free, instead of waiting half its deadline, and
     * names it once the store's exchange ends (here at once, as a PMIx server may end a fence without a dead rank).
     */
    @Test
    void shouldStopWaitingForALocalRankThatDiedBeforeItHandedItsAddress() throws Exception
    {
        final FakeStore store = new FakeStore(2);
        final Rank a0 = open(store, 0, nodeA, 0, 2);
        final Rank a1 = open(store, 1, nodeA, 1, 2);
        a0.publish(new InetSocketAddress("127.0.0.1", 7000));
        ranks.remove(a1);
        a1.close(); // as if it died: its place in the job file is free, and it wrote no record
        store.skipBarrier = true;
        final long start = System.nanoTime();
        final FabricException e = assertThrows(FabricException.class, () -> a0.awaitAll(Duration.ofSeconds(20)));
        final long millis = (System.nanoTime() - start) / 1_000_000;
        assertEquals(FiErrno.ENODATA, e.errno(), e.getMessage());
        assertTrue(e.getMessage().contains("rank(s) [1] of 2 published no address"), e.getMessage());
        assertTrue(millis < 5_000, "local rank 0 waited " + millis + " ms for a rank that had died (half its deadline: 10 s)");
    }

    @Test
    void shouldTimeOutAtTheDeadlineWhenTheStoresExchangeNeverEnds() throws Exception
    {
        final FakeStore store = new FakeStore(2);
        final Rank b0 = open(store, 1, nodeB, 0, 1);
        b0.publish(new InetSocketAddress("127.0.0.1", 7001)); // rank 0 never comes
        final FabricException e = assertThrows(FabricException.class, () -> b0.awaitAll(Duration.ofMillis(300)));
        assertEquals(FiErrno.ETIMEDOUT, e.errno());
        assertTrue(e.getMessage().contains("fake store") && e.getMessage().contains("rank 1 of 2"), e.getMessage());
        assertFalse(Files.exists(nodeA.resolve("slurm-9.0")));
    }

    private Rank open(final FakeStore store, final int rank, final Path node, final int localRank, final int localSize)
    {
        final Rank r = Rank.open(new RankEnvironment(Launcher.SLURM, rank, store.size, localRank, localSize,
            "slurm-9.0", node, new JobId("Slurm srun", "9.0")), store.as(rank), AvType.TABLE,
            Duration.ofSeconds(10), null);
        ranks.add(r);
        return r;
    }

    /** A job-wide store in this JVM: one map, one barrier. */
    static final class FakeStore
    {
        final int size;
        final Map<String, String> values = new ConcurrentHashMap<>();
        final CyclicBarrier barrier;
        volatile boolean skipBarrier;
        /** The launcher's value limit ({@link JobStore#maxValue()}). */
        volatile int maxValue = Integer.MAX_VALUE;
        /** Look-ups of every rank, by key. */
        final Map<String, Integer> lookups = new ConcurrentHashMap<>();

        FakeStore(final int size)
        {
            this.size = size;
            this.barrier = new CyclicBarrier(size);
        }

        JobStore as(final int rank)
        {
            return new JobStore()
            {
                @Override
                public String describe()
                {
                    return "fake store";
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
                    return maxValue;
                }

                @Override
                public void publish(final String key, final String value)
                {
                    if (value.length() > maxValue)
                    {
                        throw new FabricException("fake_put", FiErrno.EINVAL, "fake store: a value of " + value.length() +
                            " characters, over the limit of " + maxValue);
                    }
                    values.put(key + "-" + rank, value);
                }

                @Override
                public void exchange(final Duration timeout)
                {
                    if (skipBarrier)
                    {
                        return;
                    }
                    try
                    {
                        barrier.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
                    }
                    catch (final TimeoutException | BrokenBarrierException | InterruptedException e)
                    {
                        throw new FabricException("fake_fence", FiErrno.ETIMEDOUT, "fake store: the fence timed out");
                    }
                }

                @Override
                public String fetch(final int of, final String key, final Duration timeout)
                {
                    lookups.merge(key + "-" + of, 1, Integer::sum);
                    final String v = values.get(key + "-" + of);
                    if (v == null)
                    {
                        throw new FabricException("fake_get", FiErrno.ENODATA, "fake store: rank " + of + " has no " + key);
                    }
                    return v;
                }

                @Override
                public void close()
                {
                }
            };
        }
    }
}
