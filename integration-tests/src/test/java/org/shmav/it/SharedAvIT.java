package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.shmav.AddressVector;
import org.shmav.Addresses;
import org.shmav.AvAttr;
import org.shmav.AvSet;
import org.shmav.AvSetAttr;
import org.shmav.Domain;
import org.shmav.FiErrno;

/** Named AVs across real JVMs: concurrent writers, read-only attach, duplicates, SIGKILL, racing creators. */
@Timeout(300)
class SharedAvIT
{
    private static final Duration DEADLINE = Duration.ofSeconds(120);

    private Path dir;
    private Path logs;
    private final List<ChildJvm> children = new ArrayList<>();

    @BeforeEach
    void setUp() throws IOException
    {
        dir = TestDir.createInShm("shmav-it");
        logs = Files.createTempDirectory("shmav-it-logs");
    }

    @AfterEach
    void tearDown() throws Exception
    {
        for (final ChildJvm c : children)
        {
            c.close();
        }
        TestDir.delete(dir);
        TestDir.delete(logs);
    }

    private ChildJvm start(final String... args) throws IOException
    {
        final ChildJvm c = ChildJvm.start(AvWorker.class, logs, args);
        children.add(c);
        return c;
    }

    private static long soon()
    {
        return System.currentTimeMillis() + 3000; // time for every child JVM to start before the race begins
    }

    @Test
    void shouldGiveFourConcurrentWritersIndicesZeroToN() throws Exception
    {
        final int jvms = 4;
        final int each = 10_000;
        final long total = (long)jvms * each;
        final long startAt = soon();
        for (int j = 0; j < jvms; j++)
        {
            start("insert", dir.toString(), "four", Long.toString(total), Long.toString((long)j * each),
                Integer.toString(each), Long.toString(startAt));
        }
        for (final ChildJvm c : children)
        {
            assertEquals(0, c.waitFor(DEADLINE), c.output());
            assertTrue(c.output().contains("READBACK " + total), c.output());
        }
        try (Domain d = AvWorker.domain(dir.toString());
             AddressVector av = d.openAv(AvAttr.builder().name("four").build()))
        {
            assertEquals(total, av.count());
            final Set<Long> ids = new HashSet<>();
            for (long i = 0; i < total; i++)
            {
                final long f = av.reverseLookup(Addresses.toSockaddr(AvWorker.address(i)));
                assertTrue(f >= 0 && f < total, "address " + i + " at fi_addr " + f);
                assertTrue(ids.add(f), "fi_addr " + f + " given twice");
            }
            assertEquals(total, ids.size()); // exactly 0..total-1
        }
    }

    @Test
    void shouldLetAReadOnlyAttacherResolveTheSameFiAddrsAndRefuseInserts() throws Exception
    {
        final int n = 50;
        final long[] expected = new long[n];
        try (Domain d = AvWorker.domain(dir.toString());
             AddressVector av = d.openAv(AvAttr.builder().name("ro").count(n * 2).build()))
        {
            // Insert in reverse so that fi_addr and address number differ.
            for (int i = n - 1; i >= 0; i--)
            {
                final long[] f = new long[1];
                av.insert(Addresses.toSockaddr(AvWorker.address(i)), 1, f, 0, null);
                expected[i] = f[0];
            }
            final ChildJvm reader = start("readonly", dir.toString(), "ro", Integer.toString(n));
            assertEquals(0, reader.waitFor(DEADLINE), reader.output());
            final String out = reader.output();
            assertTrue(out.contains("FIADDRS " + String.join(" ", Arrays.stream(expected).mapToObj(Long::toString)
                .toArray(String[]::new))), out);
            assertTrue(out.contains("LOOKUP0 fi_sockaddr_in://" + AvWorker.address(n - 1).getAddress().getHostAddress() +
                ":" + AvWorker.address(n - 1).getPort()), out);
            assertTrue(out.contains("COUNT " + n), out);
            assertTrue(out.contains("INSERT errno " + FiErrno.EPERM), out);
            assertEquals(n, av.count()); // the reader changed nothing
        }
    }

    @Test
    void shouldGiveTwoJvmsInsertingTheSameAddressesOneFiAddrEach() throws Exception
    {
        final int n = 2_000;
        final long startAt = soon();
        // Both insert the same n addresses; each must read back exactly n distinct entries.
        final ChildJvm a = start("insert", dir.toString(), "dup", Integer.toString(n), "0", Integer.toString(n),
            Long.toString(startAt));
        final ChildJvm b = start("insert", dir.toString(), "dup", Integer.toString(n), "0", Integer.toString(n),
            Long.toString(startAt));
        assertEquals(0, a.waitFor(DEADLINE), a.output());
        assertEquals(0, b.waitFor(DEADLINE), b.output());
        try (Domain d = AvWorker.domain(dir.toString());
             AddressVector av = d.openAv(AvAttr.builder().name("dup").build()))
        {
            assertEquals(n, av.count());
            final long f = av.reverseLookup(Addresses.toSockaddr(AvWorker.address(7)));
            // Two inserts took two references: the entry survives one remove and goes with the second.
            av.remove(new long[] {f}, 1, 0);
            assertEquals(f, av.reverseLookup(Addresses.toSockaddr(AvWorker.address(7))));
            av.remove(new long[] {f}, 1, 0);
            assertEquals(-1L, av.reverseLookup(Addresses.toSockaddr(AvWorker.address(7))));
            assertEquals(n - 1, av.count());
        }
    }

    @Test
    void shouldRecoverAWriterKilledMidInsertAndReuseFreedIndices() throws Exception
    {
        final long capacity = 100_000;
        try (Domain d = AvWorker.domain(dir.toString());
             AddressVector creator = d.openAv(AvAttr.builder().name("kill").count(capacity).build()))
        {
            // Give the killed writers holes to fill: entries 0..99 exist, then 10..19 are removed.
            for (int i = 0; i < 100; i++)
            {
                creator.insert(Addresses.toSockaddr(AvWorker.address(1_000_000 + i)), 1, null, 0, null);
            }
        }
        final Map<Long, Long> acked = new HashMap<>();
        final int rounds = 6;
        for (int r = 0; r < rounds; r++)
        {
            final Path log = logs.resolve("acks-" + r);
            final ChildJvm w = start("loop", dir.toString(), "kill", Long.toString(r * 100_000L / rounds / 10L), log.toString());
            awaitLines(log, 20 + ThreadLocalRandom.current().nextInt(500));
            w.kill(); // SIGKILL in the middle of the insert loop
            for (final String line : Files.readAllLines(log, StandardCharsets.UTF_8))
            {
                final String[] p = line.split(" ");
                if (p.length == 2)
                {
                    acked.put(Long.parseLong(p[0]), Long.parseLong(p[1]));
                }
            }
        }
        assertTrue(acked.size() >= rounds * 20, "writers acknowledged " + acked.size() + " inserts");
        try (Domain d = AvWorker.domain(dir.toString());
             AddressVector av = d.openAv(AvAttr.builder().name("kill").build()))
        {
            av.recover();
            // Every acknowledged entry is intact.
            final ByteBuffer out = ByteBuffer.allocate(16);
            for (final Map.Entry<Long, Long> e : acked.entrySet())
            {
                out.clear();
                av.lookup(e.getKey(), out);
                assertEquals(AvWorker.address(e.getValue()), Addresses.toInetSocketAddress(out), "fi_addr " + e.getKey());
            }
            // No slot stays claimed: filling the AV to capacity succeeds, and the first new entries
            // take the lowest free indices.
            final long before = av.count();
            final long[] f = new long[1];
            long expectedIndex = 0;
            for (long i = 0; av.count() < capacity; i++)
            {
                while (isValid(av, expectedIndex))
                {
                    expectedIndex++;
                }
                assertEquals(1, av.insert(Addresses.toSockaddr(AvWorker.address(5_000_000 + i)), 1, f, 0, null),
                    "insert " + i + " after " + before + " entries");
                if (i < 1_000)
                {
                    assertEquals(expectedIndex, f[0], "lowest free index reused");
                }
            }
            assertEquals(capacity, av.count());
        }
    }

    @Test
    void shouldGiveTheSameGroupTheSameCollectiveAddressInEveryProcess() throws Exception
    {
        try (Domain d = AvWorker.domain(dir.toString());
             AddressVector av = d.openAv(AvAttr.builder().name("group").count(16).build()))
        {
            for (int i = 0; i < 5; i++)
            {
                av.insert(Addresses.toSockaddr(AvWorker.address(i)), 1, null, 0, null);
            }
            final long expected;
            try (AvSet set = av.openSet(AvSetAttr.builder().build()))
            {
                for (long f = 4; f >= 0; f--)
                {
                    set.insert(f);
                }
                expected = set.addr();
            }
            final ChildJvm child = start("setaddr", dir.toString(), "group");
            assertEquals(0, child.waitFor(DEADLINE), child.output());
            assertTrue(child.output().contains("SETADDR " + expected), child.output() + " expected " + expected);
        }
    }

    private static boolean isValid(final AddressVector av, final long fiAddr)
    {
        try
        {
            av.lookup(fiAddr, ByteBuffer.allocate(16));
            return true;
        }
        catch (final org.shmav.FabricException e)
        {
            return false;
        }
    }

    @Test
    void shouldEndWithOneAvWhenSeveralJvmsCreateTheSameNameAtOnce() throws Exception
    {
        final int jvms = 6;
        final long startAt = soon();
        for (int j = 0; j < jvms; j++)
        {
            start("create", dir.toString(), "race", "64", Integer.toString(j), Long.toString(startAt));
        }
        final Set<String> mapAddrs = new HashSet<>();
        final Set<String> fiAddrs = new HashSet<>();
        for (final ChildJvm c : children)
        {
            assertEquals(0, c.waitFor(DEADLINE), c.output());
            for (final String line : c.output().split("\n"))
            {
                if (line.startsWith("MAPADDR "))
                {
                    mapAddrs.add(line);
                }
                if (line.startsWith("FIADDR "))
                {
                    fiAddrs.add(line);
                }
            }
        }
        assertEquals(1, mapAddrs.size(), "every opener saw the same AV: " + mapAddrs);
        assertEquals(jvms, fiAddrs.size(), "distinct fi_addrs: " + fiAddrs);
        try (Domain d = AvWorker.domain(dir.toString());
             AddressVector av = d.openAv(AvAttr.builder().name("race").build()))
        {
            assertEquals(jvms, av.count());
        }
        try (var files = Files.list(dir))
        {
            assertEquals(List.of(".shmav-lock.race", "race"), files.map(p -> p.getFileName().toString()).sorted().toList(),
                "one AV and its lock file, no temporary files left behind");
        }
        assertFalse(fiAddrs.contains("FIADDR -1"));
    }

    private static void awaitLines(final Path log, final int lines) throws Exception
    {
        final long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!Files.exists(log) || Files.readAllLines(log, StandardCharsets.UTF_8).size() < lines)
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("writer logged fewer than " + lines + " inserts in " + DEADLINE);
            }
            Thread.sleep(5);
        }
    }
}
