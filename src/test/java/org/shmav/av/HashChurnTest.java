package org.shmav.av;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmav.AddrFormat;
import org.shmav.Addresses;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.Fi;
import org.shmav.av.AddressVectorImpl;
import org.shmav.shm.AttacherDescriptor;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.Memory;
import org.shmav.slots.Region;
import org.shmav.slots.SlotTable;

/**
 * Regression: removals leave hash tombstones, and before the fix nothing ever turned them back into
 * EMPTY buckets. After 4 x count distinct addresses had been inserted and removed, a named AV refused
 * every insert with FI_ENOSPC although count() was 0 (and a private AV doubled its size instead).
 */
class HashChurnTest
{
    private Path dir;
    private Domain domain;

    @BeforeEach
    void setUp() throws IOException
    {
        dir = Files.createTempDirectory(Path.of("/dev/shm"), "robust");
        domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build());
    }

    @AfterEach
    void tearDown() throws IOException
    {
        domain.close();
        try (Stream<Path> files = Files.walk(dir))
        {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    static ByteBuffer address(final int i)
    {
        try
        {
            return Addresses.toSockaddr(new InetSocketAddress(
                InetAddress.getByAddress(new byte[] {10, (byte)(i >>> 16), (byte)(i >>> 8), (byte)i}), 1 + (i & 0x7FFF)));
        }
        catch (final UnknownHostException e)
        {
            throw new IllegalStateException(e);
        }
    }

    private AddressVector openNamed(final long count)
    {
        return domain.openAv(AvAttr.builder().type(AvType.TABLE).name("churn").count(count).build());
    }

    @Test
    void shouldKeepAcceptingInsertsWhenDistinctAddressesChurnThroughANamedAv()
    {
        try (AddressVector av = openNamed(16))
        {
            final long[] fiAddr = new long[1];
            for (int i = 1; i <= 20_000; i++)
            {
                assertEquals(1, av.insert(address(i), 1, fiAddr, 0, null), "insert " + i + " count=" + av.count());
                av.remove(fiAddr, 1, 0);
            }
            assertEquals(0, av.count());
        }
    }

    @Test
    void shouldKeepLiveEntriesFindableAndDeduplicatedAcrossRebuilds()
    {
        try (AddressVector av = openNamed(16))
        {
            final long[] live = new long[8];
            final long[] one = new long[1];
            for (int k = 0; k < live.length; k++)
            {
                assertEquals(1, av.insert(address(1_000_000 + k), 1, one, 0, null));
                live[k] = one[0];
            }
            for (int i = 1; i <= 5_000; i++)
            {
                assertEquals(1, av.insert(address(i), 1, one, 0, null), "insert " + i);
                av.remove(one, 1, 0);
            }
            for (int k = 0; k < live.length; k++)
            {
                assertEquals(live[k], av.reverseLookup(address(1_000_000 + k)), "entry " + k);
                assertEquals(1, av.insert(address(1_000_000 + k), 1, one, 0, null));
                assertEquals(live[k], one[0], "a second insert of entry " + k + " must reference the same slot");
            }
            assertEquals(live.length, av.count());
        }
    }

    @Test
    void shouldNotGrowAPrivateAvUnderChurn()
    {
        try (AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).count(16).build()))
        {
            final long[] one = new long[1];
            for (int i = 1; i <= 5_000; i++)
            {
                assertEquals(1, av.insert(address(i), 1, one, 0, null));
                av.remove(one, 1, 0);
            }
            assertEquals(16, ((AddressVectorImpl)av).region().layout().capacity());
        }
    }

    @Test
    void shouldTakeOverTheRebuildOfADeadProcess()
    {
        try (AddressVector av = openNamed(16))
        {
            final long[] one = new long[1];
            assertEquals(1, av.insert(address(7), 1, one, 0, null));
            final Region r = ((AddressVectorImpl)av).region();
            final Memory m = r.memory();
            // A rebuilder that died half-way: the epoch word names attacher 5, whose process is gone,
            // and the buckets are wiped.
            markDeadRebuilder(r, 1);
            for (long b = 0; b < r.layout().hashBuckets(); b++)
            {
                m.putLong(r.layout().bucket(b), 0L);
            }
            assertEquals(one[0], av.reverseLookup(address(7)), "readers fall back to the slots mid-rebuild");
            final long[] again = new long[1];
            assertEquals(1, av.insert(address(7), 1, again, 0, null));
            assertEquals(one[0], again[0], "dedup after the take-over");
            assertEquals(1L << 32, m.getLongVolatile(AvFileDescriptor.HASH_EPOCH_OFFSET), "rebuild finished, none marked");
            assertEquals(1, av.count());
        }
    }

    @Test
    void shouldFinishTheRebuildOfADeadProcessOnRecover()
    {
        try (AddressVector av = openNamed(16))
        {
            final long[] one = new long[1];
            assertEquals(1, av.insert(address(9), 1, one, 0, null));
            final Region r = ((AddressVectorImpl)av).region();
            final Memory m = r.memory();
            markDeadRebuilder(r, 3);
            assertEquals(1, av.recover());
            assertEquals(3L << 32, m.getLongVolatile(AvFileDescriptor.HASH_EPOCH_OFFSET), "rebuild finished, none marked");
            assertEquals(one[0], av.reverseLookup(address(9)));
        }
    }

    @Test
    void shouldNotWaitForADeadInserter()
    {
        try (AddressVector av = openNamed(16))
        {
            final Region r = ((AddressVectorImpl)av).region();
            final Memory m = r.memory();
            final int dead = r.layout().attacher(5);
            m.putLong(dead + AttacherDescriptor.TOKEN_OFFSET, deadToken());
            m.putLong(dead + AttacherDescriptor.PHASE_OFFSET, 1L);
            m.putLong(AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET, 6);
            final long start = System.nanoTime();
            final long[] one = new long[1];
            for (int i = 1; i <= 2_000; i++)
            {
                assertEquals(1, av.insert(address(i), 1, one, 0, null));
                av.remove(one, 1, 0);
            }
            assertTrue(System.nanoTime() - start < SlotTable.CLAIM_WAIT_NANOS, "rebuilds waited for a dead inserter");
            assertTrue(av.recover() >= 0);
            assertEquals(0L, m.getLongVolatile(dead + AttacherDescriptor.PHASE_OFFSET));
            assertEquals(Fi.ADDR_NOTAVAIL, av.reverseLookup(address(1)));
        }
    }

    /** Marks an index rebuild at {@code epoch} by attacher entry 5, whose process is dead. */
    private static void markDeadRebuilder(final Region r, final long epoch)
    {
        final Memory m = r.memory();
        m.putLong(r.layout().attacher(5) + AttacherDescriptor.TOKEN_OFFSET, deadToken());
        m.putLong(AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET, Math.max(6, m.getLong(AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET)));
        m.putLong(AvFileDescriptor.HASH_EPOCH_OFFSET, (epoch << 32) | 6);
    }

    /** A token of an entry whose lock nobody holds: its writer is dead. */
    private static long deadToken()
    {
        return 0xDEADL;
    }
}
