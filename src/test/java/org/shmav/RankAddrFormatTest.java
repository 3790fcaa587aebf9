package org.shmav;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.shmav.job.JobId;
import org.shmav.job.RankEnvironment;
import org.shmav.job.Launcher;

/**
 * Rank's addresses in the job's format ({@code SHMAV_ADDR_FORMAT}): IPv6 socket addresses, provider
 * addresses and opaque ones of varying length, published and looked up on one node, across nodes through
 * a store, and from a pre-filled AV; and the refusals of addresses that do not fit the job's format.
 */
class RankAddrFormatTest
{
    @TempDir
    Path dir;

    @Test
    void shouldPublishAndFindIpv6AddressesInAnIn6Job()
    {
        try (LaunchersAv job = launchersAv(JobAddrFormat.IN6, 3);
             Rank r0 = Rank.fromEnvironment(env(0, 3, JobAddrFormat.IN6));
             Rank r1 = Rank.open(1, 3, "job", dir, JobAddrFormat.IN6);
             Rank r2 = Rank.open(2, 3, "job", dir, JobAddrFormat.IN6))
        {
            assertEquals(JobAddrFormat.IN6, r0.addrFormat());
            r0.publish(new InetSocketAddress("::1", 7000));
            r1.publish(new InetSocketAddress("fe80::1", 7001));
            r2.publish(Addresses.toSockaddr(new InetSocketAddress("2001:db8::2", 7002)));
            r1.awaitAll(Duration.ofSeconds(5));
            assertEquals(new InetSocketAddress("::1", 7000), r2.peer(0));
            assertEquals(new InetSocketAddress("fe80::1", 7001), r0.peer(1));
            assertEquals(new InetSocketAddress("2001:db8::2", 7002), r0.nodePeer(2));
            assertArrayEquals(Addresses.toSockaddr(new InetSocketAddress("::1", 7000)).array(), r1.peerAddress(0));
            assertEquals(28, r1.nodePeerAddress(2).length);
            assertEquals("fi_sockaddr_in6://[::1]:7000", job.av().lookupString(0));
        }
    }

    @Test
    void shouldRefuseAnIpv4AddressInAnIpv6JobSayingWhatToDo()
    {
        try (LaunchersAv job = launchersAv(JobAddrFormat.IN6, 1);
             Rank r0 = Rank.open(0, 1, "job", dir, JobAddrFormat.IN6))
        {
            final FabricException e = assertThrows(FabricException.class, () -> r0.publish(new InetSocketAddress("127.0.0.1", 7000)));
            assertEquals(FiErrno.EINVAL, e.errno());
            assertTrue(e.getMessage().contains("/127.0.0.1:7000 is IPv4, but this job's AV holds FI_SOCKADDR_IN6 (28 bytes) " +
                "addresses (SHMAV_ADDR_FORMAT=in6): listen on an IPv6 address (e.g. ::1), or run the job with " +
                "SHMAV_ADDR_FORMAT=in (avrun --addr-format in)"), e.getMessage());
            // the same bytes as a sockaddr_in: the wrong length
            final FabricException len = assertThrows(FabricException.class,
                () -> r0.publish(Addresses.toSockaddr(new InetSocketAddress("127.0.0.1", 7000))));
            assertEquals(FiErrno.EINVAL, len.errno());
            assertTrue(len.getMessage().contains("an address of 16 bytes, but this job's AV holds FI_SOCKADDR_IN6 (28 bytes) " +
                "addresses (SHMAV_ADDR_FORMAT=in6): publish exactly 28 bytes, or run the job with the SHMAV_ADDR_FORMAT"),
                len.getMessage());
            // 28 bytes of the wrong family
            final ByteBuffer wrongFamily = ByteBuffer.allocate(28).put(Addresses.toSockaddr(new InetSocketAddress("10.0.0.1", 7))).clear();
            final FabricException family = assertThrows(FabricException.class, () -> r0.publish(wrongFamily));
            assertEquals(FiErrno.EINVAL, family.errno());
            assertTrue(family.getMessage().contains("is not a valid FI_SOCKADDR_IN6 (28 bytes) address (family AF_INET6"),
                family.getMessage());
            assertEquals(0, job.av().count(), "nothing was published");
        }
        final Path v4 = dir.resolve("v4");
        try (LaunchersAv job = launchersAv(v4, JobAddrFormat.IN, 1);
             Rank r0 = Rank.open(0, 1, "job", v4))
        {
            final FabricException e = assertThrows(FabricException.class, () -> r0.publish(new InetSocketAddress("::1", 7000)));
            assertEquals(FiErrno.EINVAL, e.errno());
            assertTrue(e.getMessage().contains("is IPv6, but this job's AV holds FI_SOCKADDR_IN (16 bytes) addresses " +
                "(SHMAV_ADDR_FORMAT=in): listen on an IPv4 address (e.g. 127.0.0.1), or run the job with SHMAV_ADDR_FORMAT=in6"),
                e.getMessage());
        }
    }

    @Test
    void shouldPublishProviderAddressBytesAndRefuseSocketAddressesThere()
    {
        final JobAddrFormat efa = JobAddrFormat.of(AddrFormat.ADDR_EFA);
        try (LaunchersAv job = launchersAv(efa, 2);
             Rank r0 = Rank.fromEnvironment(env(0, 2, efa));
             Rank r1 = Rank.open(1, 2, "job", dir, efa))
        {
            r0.publish(bytes(32, 1));
            r1.publish(ByteBuffer.allocate(40).position(4).put(bytes(32, 2)).flip().position(4));
            r0.awaitAll(Duration.ofSeconds(5));
            assertArrayEquals(bytes(32, 1), r1.peerAddress(0));
            assertArrayEquals(bytes(32, 2), r0.peerAddress(1));
            final FabricException socket = assertThrows(FabricException.class,
                () -> r0.publish(new InetSocketAddress("127.0.0.1", 7000)));
            assertEquals(FiErrno.EINVAL, socket.errno());
            assertTrue(socket.getMessage().contains("this job's AV holds FI_ADDR_EFA (32 bytes) addresses, not socket addresses: " +
                "publish this rank's address bytes with publish(byte[]), or run the job with SHMAV_ADDR_FORMAT=in or in6"),
                socket.getMessage());
            final FabricException peer = assertThrows(FabricException.class, () -> r0.peer(1));
            assertEquals(FiErrno.EINVAL, peer.errno());
            assertTrue(peer.getMessage().contains("not socket addresses: use peerAddress(int) for their bytes"), peer.getMessage());
            assertEquals(FiErrno.EINVAL, assertThrows(FabricException.class, () -> r0.publish(bytes(31, 1))).errno());
            final FabricException zero = assertThrows(FabricException.class, () -> r0.publish(new byte[32]));
            assertEquals(FiErrno.EINVAL, zero.errno());
            assertTrue(zero.getMessage().contains("is not a valid FI_ADDR_EFA (32 bytes) address (not all zero)"), zero.getMessage());
            assertEquals(FiErrno.EINVAL, assertThrows(FabricException.class, () -> r0.publish((byte[])null)).errno());
        }
    }

    @Test
    void shouldKeepEachOpaqueAddressesOwnLength()
    {
        final JobAddrFormat ucx = JobAddrFormat.opaqueUpTo(300);
        try (LaunchersAv job = launchersAv(ucx, 2);
             Rank r0 = Rank.open(0, 2, "job", dir, ucx);
             Rank r1 = Rank.open(1, 2, "job", dir, ucx))
        {
            r0.publish(bytes(5, 1));
            r1.publish(bytes(300, 2));
            r0.awaitAll(Duration.ofSeconds(5));
            assertArrayEquals(bytes(5, 1), r1.peerAddress(0));
            assertArrayEquals(bytes(300, 2), r0.peerAddress(1));
            final ByteBuffer small = ByteBuffer.allocate(8).position(2);
            assertEquals(300, r0.peerAddress(1, small), "the whole length, though 6 bytes were copied");
            assertEquals(2, small.position(), "as lookup: the position is not changed");
            assertArrayEquals(java.util.Arrays.copyOf(bytes(300, 2), 6), java.util.Arrays.copyOfRange(small.array(), 2, 8));
            final FabricException tooLong = assertThrows(FabricException.class, () -> r0.publish(bytes(301, 1)));
            assertEquals(FiErrno.EINVAL, tooLong.errno());
            assertTrue(tooLong.getMessage().contains("an address of 301 bytes, but this job's AV holds FI_FORMAT_UNSPEC (up to 300 " +
                "bytes) addresses (SHMAV_ADDR_FORMAT=opaque:max:300): publish 1 to 300 bytes"), tooLong.getMessage());
            assertEquals(FiErrno.EINVAL, assertThrows(FabricException.class, () -> r0.publish(new byte[0])).errno());
        }
    }

    @Test
    void shouldRefuseARankGivenAnotherFormatThanTheAvsNamingBoth()
    {
        try (LaunchersAv job = launchersAv(JobAddrFormat.IN, 2))
        {
            final FabricException e = assertThrows(FabricException.class, () -> Rank.fromEnvironment(env(0, 2, JobAddrFormat.IN6)));
            assertEquals(FiErrno.EINVAL, e.errno());
            assertTrue(e.getMessage().contains("FI_SOCKADDR_IN6") && e.getMessage().contains("FI_SOCKADDR_IN"), e.getMessage());
        }
        final Map<String, String> bad = new HashMap<>(env(0, 2, JobAddrFormat.IN));
        bad.put(Rank.ADDR_FORMAT_ENV, "ipv6");
        final IllegalStateException e = assertThrows(IllegalStateException.class, () -> Rank.fromEnvironment(bad));
        assertTrue(e.getMessage().contains("SHMAV_ADDR_FORMAT='ipv6' is not an address format; use one of in, in6"), e.getMessage());
    }

    @Test
    void shouldCarryOpaqueAddressesOfTheirOwnLengthsAcrossNodes() throws Exception
    {
        final Path nodeA = java.nio.file.Files.createDirectories(dir.resolve("a"));
        final Path nodeB = java.nio.file.Files.createDirectories(dir.resolve("b"));
        final JobAddrFormat ucx = JobAddrFormat.opaqueUpTo(1024);
        final RankAcrossNodesTest.FakeStore store = new RankAcrossNodesTest.FakeStore(3);
        final List<Rank> ranks = new ArrayList<>();
        final ExecutorService pool = Executors.newCachedThreadPool();
        try
        {
            final int[][] places = {{0, 0, 2}, {1, 0, 1}, {2, 1, 2}}; // rank, local rank, local size; ranks 0, 2 on A
            for (final int[] p : places)
            {
                ranks.add(Rank.open(new RankEnvironment(Launcher.SLURM, p[0], 3, p[1], p[2], "slurm-7.0", p[0] == 1 ? nodeB : nodeA,
                    new JobId("Slurm srun", "7.0")), store.as(p[0]), AvType.TABLE, Duration.ofSeconds(10), null, ucx));
            }
            final List<Future<?>> done = new ArrayList<>();
            for (final Rank r : ranks)
            {
                r.publish(bytes(new int[] {1, 248, 1024}[r.rank()], r.rank() + 1));
                done.add(pool.submit(() -> r.awaitAll(Duration.ofSeconds(20))));
            }
            for (final Future<?> f : done)
            {
                f.get(30, TimeUnit.SECONDS);
            }
            for (final Rank r : ranks)
            {
                assertEquals(ucx, r.addrFormat());
                for (int p = 0; p < 3; p++)
                {
                    assertArrayEquals(bytes(new int[] {1, 248, 1024}[p], p + 1), r.peerAddress(p), r + " peer " + p);
                }
            }
        }
        finally
        {
            pool.shutdownNow();
            for (int i = ranks.size() - 1; i >= 0; i--)
            {
                ranks.get(i).close();
            }
        }
    }

    @Test
    void shouldCheckAPrefilledIpv6EntryByItsBytes()
    {
        try (LaunchersAv job = launchersAv(JobAddrFormat.IN6, 2))
        {
            job.av().insertAt(0, Addresses.toSockaddr(new InetSocketAddress("::1", 7000)));
            job.av().insertAt(1, Addresses.toSockaddr(new InetSocketAddress("::1", 7001)));
            final Map<String, String> env = new HashMap<>(env(0, 2, JobAddrFormat.IN6));
            env.remove(Rank.JOB_ENV);
            env.put(Rank.PREFILLED_ENV, "1");
            try (Rank r0 = Rank.fromEnvironment(env))
            {
                r0.publish(new InetSocketAddress("::1", 7000));
                r0.awaitAll(Duration.ofSeconds(5));
                assertEquals(new InetSocketAddress("::1", 7001), r0.peer(1));
                final FabricException e = assertThrows(FabricException.class, () -> r0.publish(new InetSocketAddress("::1", 7002)));
                assertEquals(FiErrno.EINVAL, e.errno());
                assertTrue(e.getMessage().contains("holds fi_sockaddr_in6://[::1]:7000 for rank 0, which is at " +
                    "fi_sockaddr_in6://[::1]:7002 (a read-only rank changes nothing: fix the prologue)"), e.getMessage());
            }
        }
    }

    /** The AV a launcher made, and its domain. */
    private record LaunchersAv(Domain domain, AddressVector av) implements AutoCloseable
    {
        @Override
        public void close()
        {
            av.close();
            domain.close();
        }
    }

    /** The AV a launcher creates for a job of {@code format}, {@code size} entries, named "job". */
    private LaunchersAv launchersAv(final JobAddrFormat format, final int size)
    {
        return launchersAv(dir, format, size);
    }

    private static LaunchersAv launchersAv(final Path directory, final JobAddrFormat format, final int size)
    {
        try
        {
            java.nio.file.Files.createDirectories(directory);
        }
        catch (final java.io.IOException e)
        {
            throw new java.io.UncheckedIOException(e);
        }
        final Domain domain = Domain.open(format.domainAttr(directory));
        return new LaunchersAv(domain, domain.openAv(AvAttr.builder().type(AvType.TABLE).count(size).name("job").build()));
    }

    private Map<String, String> env(final int rank, final int size, final JobAddrFormat format)
    {
        return Map.of(Rank.RANK_ENV, Integer.toString(rank), Rank.SIZE_ENV, Integer.toString(size), Rank.AV_ENV, "job",
            Rank.DIR_ENV, dir.toString(), Rank.ADDR_FORMAT_ENV, format.toString());
    }

    private static byte[] bytes(final int len, final int seed)
    {
        final byte[] b = new byte[len];
        for (int i = 0; i < len; i++)
        {
            b[i] = (byte)(seed * 37 + i + 1);
        }
        b[0] = (byte)(0x80 | seed);
        return b;
    }
}
