package org.shmav.av;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

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
import org.shmav.FiErrno;
import org.shmav.shm.AttacherDescriptor;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.IndexWord;
import org.shmav.shm.Memory;
import org.shmav.slots.Region;
import org.shmav.slots.SlotTable;
import org.shmav.it.TestDir;

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
        dir = TestDir.createInShm("robust");
        domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build());
    }

    @AfterEach
    void tearDown()
    {
        domain.close();
        TestDir.delete(dir);
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
    void shouldTakeOverTheMigrationOfADeadProcess()
    {
        try (AddressVector av = openNamed(16))
        {
            final long[] one = new long[1];
            assertEquals(1, av.insert(address(7), 1, one, 0, null));
            final Region r = ((AddressVectorImpl)av).region();
            final Memory m = r.memory();
            // A migrator that died before copying anything: indexState names attacher 5, whose process
            // is gone, and area 1 is empty.
            final long started = markDeadMigrator(r);
            assertEquals(one[0], av.reverseLookup(address(7)), "the active area is whole meanwhile");
            final long[] again = new long[1];
            assertEquals(1, av.insert(address(7), 1, again, 0, null));
            assertEquals(one[0], again[0], "dedup while the migration is orphaned");
            for (int i = 100; i < 170; i++)
            {
                assertEquals(1, av.insert(address(i), 1, again, 0, null)); // past a crowding check: taken over
                av.remove(again, 1, 0);
            }
            assertTrue(!IndexWord.migrating(m.getLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET)), "taken over and finished");
            assertTrue(IndexWord.stamp(m.getLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET)) > IndexWord.stamp(started));
            assertEquals(one[0], av.reverseLookup(address(7)));
            assertEquals(1, av.count());
        }
    }

    @Test
    void shouldFinishTheMigrationOfADeadProcessOnRecover()
    {
        try (AddressVector av = openNamed(16))
        {
            final long[] one = new long[1];
            assertEquals(1, av.insert(address(9), 1, one, 0, null));
            final Region r = ((AddressVectorImpl)av).region();
            final Memory m = r.memory();
            final long started = markDeadMigrator(r);
            assertEquals(1, av.recover());
            assertEquals(IndexWord.switched(started), m.getLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET), "finished");
            assertEquals(one[0], av.reverseLookup(address(9)));
        }
    }

    /**
     * A damaged indexState (a segment the AV never published) or a bucket stamped newer than the state:
     * no call hangs. Reverse lookups scan the slots, inserts of new addresses fail with FI_EIO. Before,
     * reverseLookup answered "the AV grew" and the handle mapped the file and asked again, for ever
     * (CorruptionFuzzIT, seed 20801638497648).
     */
    @Test
    void shouldAnswerBesideADamagedIndexStateWithoutHanging()
    {
        try (AddressVector av = openNamed(16))
        {
            final long[] one = new long[1];
            assertEquals(1, av.insert(address(3), 1, one, 0, null));
            final Memory m = ((AddressVectorImpl)av).region().memory();
            final long good = m.getLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET);
            m.setLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET, IndexWord.idle(IndexWord.stamp(good), 7, 0));
            assertTimeoutPreemptively(java.time.Duration.ofSeconds(10), () ->
            {
                assertEquals(one[0], av.reverseLookup(address(3)), "found by a scan");
                final int[] err = new int[1];
                assertEquals(0, av.insert(address(4), 1, new long[1], Fi.SYNC_ERR, err));
                assertEquals(FiErrno.EIO, err[0]);
            });
            // A bucket stamped newer than the state, on the probe sequence of a new address.
            m.setLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET, good);
            final Region r = ((AddressVectorImpl)av).region();
            final long hash = SlotTable.hash(address(5), 0, 16, -1L);
            final long mask = r.layout().hashBuckets(0) - 1;
            m.setLongVolatile((int)(r.layout().hashArea(0, IndexWord.activeArea(good)) + 8 * (hash & mask)),
                IndexWord.entry(IndexWord.stamp(good) + 5, hash, 9));
            assertTimeoutPreemptively(java.time.Duration.ofSeconds(10), () ->
            {
                assertEquals(Fi.ADDR_NOTAVAIL, av.reverseLookup(address(5)));
                final int[] err = new int[1];
                assertEquals(0, av.insert(address(5), 1, new long[1], Fi.SYNC_ERR, err));
                assertEquals(FiErrno.EIO, err[0]);
            });
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

    /** Starts a migration of the index to area 1 by attacher entry 5, whose process is dead; its state. */
    private static long markDeadMigrator(final Region r)
    {
        final Memory m = r.memory();
        m.putLong(r.layout().attacher(5) + AttacherDescriptor.TOKEN_OFFSET, deadToken());
        m.putLong(AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET, Math.max(6, m.getLong(AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET)));
        final long idle = m.getLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET);
        final long started = IndexWord.migrating(idle, IndexWord.activeSegment(idle), 1 - IndexWord.activeArea(idle), 5);
        m.setLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET, started);
        return started;
    }

    /** A token of an entry whose lock nobody holds: its writer is dead. */
    private static long deadToken()
    {
        return 0xDEADL;
    }
}
