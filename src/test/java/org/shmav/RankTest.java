package org.shmav;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RankTest
{
    @TempDir
    Path dir;

    @Test
    void shouldPublishAtFiAddrRankAndFindEveryPeer()
    {
        try (Domain domain = Domain.open(DomainAttr.builder().shmDirectory(dir).build());
             AddressVector job = domain.openAv(AvAttr.builder().type(AvType.TABLE).count(3).name("job").build());
             Rank r2 = Rank.fromEnvironment(env("2", "3", "job"));
             Rank r0 = Rank.open(0, 3, "job", dir);
             Rank r1 = Rank.open(1, 3, "job", dir))
        {
            r2.publish(new InetSocketAddress("127.0.0.1", 7002));
            r0.publish(new InetSocketAddress("127.0.0.1", 7000));
            assertEquals(List.of(1), r2.missingRanks());
            r1.publish(new InetSocketAddress("127.0.0.1", 7001));
            r1.publish(new InetSocketAddress("127.0.0.1", 7001)); // again: harmless
            r0.awaitAll(Duration.ofSeconds(5));
            for (int r = 0; r < 3; r++)
            {
                assertEquals(new InetSocketAddress("127.0.0.1", 7000 + r), r1.peer(r));
            }
            assertEquals(3, job.count());
        }
    }

    @Test
    void shouldNameTheMissingRanksWhenAwaitAllTimesOut()
    {
        try (Domain domain = Domain.open(DomainAttr.builder().shmDirectory(dir).build());
             AddressVector job = domain.openAv(AvAttr.builder().type(AvType.TABLE).count(3).name("job").build());
             Rank r1 = Rank.open(1, 3, "job", dir))
        {
            r1.publish(new InetSocketAddress("127.0.0.1", 7001));
            final FabricException e = assertThrows(FabricException.class, () -> r1.awaitAll(Duration.ofMillis(50)));
            assertEquals(FiErrno.ETIMEDOUT, e.errno());
            assertTrue(e.getMessage().contains("ranks [0, 2] of 3 did not publish"), e.getMessage());
            assertThrows(FabricException.class, () -> r1.peer(0));
        }
    }

    /** An entry besides the ranks' (here past them) makes the count reach the job's size: awaitAll waits on. */
    @Test
    void shouldNotReturnFromAwaitAllWhileARankIsMissingThoughTheCountIsReached()
    {
        try (Domain domain = Domain.open(DomainAttr.builder().shmDirectory(dir).build());
             AddressVector job = domain.openAv(AvAttr.builder().type(AvType.TABLE).count(8).name("job").build());
             Rank r0 = Rank.open(0, 3, "job", dir);
             Rank r1 = Rank.open(1, 3, "job", dir))
        {
            r0.publish(new InetSocketAddress("127.0.0.1", 7000));
            r1.publish(new InetSocketAddress("127.0.0.1", 7001));
            assertEquals(5, r0.av().insertAt(5, AvTestSupport.in4("127.0.0.1", 7005)), "a service address after the ranks");
            assertEquals(3, job.count());
            final FabricException e = assertThrows(FabricException.class, () -> r0.awaitAll(Duration.ofMillis(200)));
            assertEquals(FiErrno.ETIMEDOUT, e.errno());
            assertTrue(e.getMessage().contains("ranks [2] of 3 did not publish"), e.getMessage());
        }
    }

    @Test
    void shouldRunAsAJobOfOneOutsideAnyLauncher()
    {
        try (Rank alone = Rank.fromEnvironment(Map.of(Rank.DIR_ENV, dir.toString())))
        {
            assertEquals(0, alone.rank());
            assertEquals(1, alone.size());
            assertEquals("no launcher", alone.launcher());
            alone.publish(new InetSocketAddress("127.0.0.1", 7000));
            alone.awaitAll(Duration.ofSeconds(1));
            assertEquals(new InetSocketAddress("127.0.0.1", 7000), alone.peer(0));
            assertTrue(alone.toString().endsWith("launcher='no launcher', av=private}"), alone.toString());
        }
        try (var files = assertDoesNotThrow(() -> Files.list(dir)))
        {
            assertEquals(0, files.count(), "a job of one has a private AV: no file");
        }
    }

    @Test
    void shouldRefuseABrokenAvrunEnvironment()
    {
        final IllegalStateException partial = assertThrows(IllegalStateException.class,
            () -> Rank.fromEnvironment(Map.of(Rank.RANK_ENV, "0", Rank.DIR_ENV, dir.toString())));
        assertTrue(partial.getMessage().contains("must all be set"), partial.getMessage());
        assertThrows(IllegalStateException.class, () -> Rank.fromEnvironment(env("x", "2", "job")));
        assertThrows(IllegalArgumentException.class, () -> Rank.open(2, 2, "job", dir));
        final FabricException missing = assertThrows(FabricException.class, () -> Rank.fromEnvironment(env("0", "2", "nojob")));
        assertEquals(FiErrno.ENOENT, missing.errno());
        assertFalse(Files.exists(dir.resolve("nojob")), "a rank of avrun never creates the job's AV");
    }

    @Test
    void shouldRefuseAnAvSmallerThanTheJob()
    {
        try (Domain domain = Domain.open(DomainAttr.builder().shmDirectory(dir).build());
             AddressVector job = domain.openAv(AvAttr.builder().type(AvType.TABLE).count(2).name("small").build()))
        {
            final FabricException e = assertThrows(FabricException.class, () -> Rank.open(0, 4, "small", dir));
            assertEquals(FiErrno.EINVAL, e.errno());
        }
    }

    /** Rank.peerAddress(int, ByteBuffer) says it allocates nothing, as the AV's lookup it hands the call to. */
    @Test
    void shouldNotAllocateInPeerAddressIntoABuffer()
    {
        final com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        assertTrue(bean.isThreadAllocatedMemorySupported(), "this JVM must count allocated bytes per thread");
        bean.setThreadAllocatedMemoryEnabled(true);
        final long tid = Thread.currentThread().getId();
        try (Domain domain = Domain.open(DomainAttr.builder().shmDirectory(dir).build());
             AddressVector job = domain.openAv(AvAttr.builder().type(AvType.TABLE).count(2).name("job").build());
             Rank r0 = Rank.open(0, 2, "job", dir);
             Rank r1 = Rank.open(1, 2, "job", dir))
        {
            r0.publish(new InetSocketAddress("127.0.0.1", 7000));
            r1.publish(new InetSocketAddress("127.0.0.1", 7001));
            final ByteBuffer dst = ByteBuffer.allocate(16);
            long sink = 0;
            for (int i = 0; i < 200_000; i++)
            {
                sink += r0.peerAddress(i & 1, dst);
            }
            long allocated = Long.MAX_VALUE;
            for (int attempt = 0; attempt < 3 && allocated != 0; attempt++) // a JIT recompilation may land inside once
            {
                final long before = bean.getThreadAllocatedBytes(tid);
                for (int i = 0; i < 100_000; i++)
                {
                    sink += r0.peerAddress(i & 1, dst);
                }
                allocated = bean.getThreadAllocatedBytes(tid) - before;
            }
            assertEquals(0, allocated, "bytes allocated by 100_000 peerAddress(int, ByteBuffer)");
            assertTrue(sink >= 16L * 300_000);
            assertEquals(new InetSocketAddress("127.0.0.1", 7001), Addresses.toInetSocketAddress(dst));
        }
    }

    private Map<String, String> env(final String rank, final String size, final String av)
    {
        return Map.of(Rank.RANK_ENV, rank, Rank.SIZE_ENV, size, Rank.AV_ENV, av, Rank.DIR_ENV, dir.toString());
    }
}
