package org.shmav;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmav.AvTestSupport.distinctIn4;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code AvAttr.lowestIndex(false)}: writers that spread their claims. Two handles of one JVM are two
 * writers (two attacher entries), as two processes would be; CrashStormIT and GrowthIT run writer JVMs
 * of both kinds together, killed at random.
 */
class SpreadClaimsTest
{
    @RegisterExtension
    final ShmDomain shm = new ShmDomain("shmav-spread-");

    private AddressVector open(final long count, final boolean lowestIndex)
    {
        return shm.domain().openAv(AvAttr.builder().type(AvType.TABLE).name("spread").count(count)
            .lowestIndex(lowestIndex).build());
    }

    private static long insert(final AddressVector av, final ByteBuffer addr)
    {
        final long[] fiAddr = new long[1];
        assertEquals(1, av.insert(addr.duplicate(), 1, fiAddr, 0, null), "insert");
        return fiAddr[0];
    }

    /** Steps between consecutive fi_addrs of one writer that are not +1: where its run was broken off. */
    private static int breaks(final long[] fiAddrs)
    {
        int breaks = 0;
        for (int i = 1; i < fiAddrs.length; i++)
        {
            breaks += fiAddrs[i] == fiAddrs[i - 1] + 1 ? 0 : 1;
        }
        return breaks;
    }

    @Test
    void aBatchGivesBackTheSlotsOfItsRunThatItsDuplicatesLeftUnused()
    {
        final ByteBuffer[] a = distinctIn4(3);
        final ByteBuffer batch = ByteBuffer.allocate(4 * 16);
        for (final ByteBuffer x : new ByteBuffer[] {a[0], a[1], a[0], a[0]})
        {
            batch.put(x.duplicate());
        }
        batch.flip();
        try (AddressVector av = open(64, true))
        {
            final long[] fiAddr = new long[4];
            assertEquals(4, av.insert(batch, 4, fiAddr, 0, null));
            assertArrayEquals(new long[] {0, 1, 0, 0}, fiAddr);
            assertEquals(2, insert(av, a[2]), "the lowest FREE index: the batch's run (2 and 3) was given back when the call ended");
        }
    }

    @Test
    void twoSpreadingWritersFillRunsOfTheirOwnInsteadOfTakingTurns()
    {
        final int each = 1_000;
        final ByteBuffer[] addrs = distinctIn4(2 * each);
        final long[] a = new long[each];
        final long[] b = new long[each];
        try (AddressVector first = open(8_192, false); AddressVector second = open(0, false))
        {
            for (int i = 0; i < each; i++)
            {
                a[i] = insert(first, addrs[2 * i]);
                b[i] = insert(second, addrs[2 * i + 1]);
            }
            // With the lowest-index rule the two alternate (0, 2, 4 ... and 1, 3, 5 ...): 999 breaks each. A
            // spreading run breaks where it meets the AV's end or another run, then goes on at a random
            // place: 0 to 6 breaks in 400 runs of this test, so 16 cannot fail by chance, nor pass alternating.
            assertTrue(breaks(a) + breaks(b) <= 16, "runs broken off " + (breaks(a) + breaks(b)) + " times: " +
                Arrays.toString(Arrays.copyOf(a, 8)) + " / " + Arrays.toString(Arrays.copyOf(b, 8)));
            final Set<Long> all = new HashSet<>();
            for (int i = 0; i < each; i++)
            {
                assertTrue(all.add(a[i]) && all.add(b[i]), "fi_addr handed out twice");
                assertArrayEquals(addrs[2 * i].array(), lookup(second, a[i]), "lookup through the other handle");
                assertArrayEquals(addrs[2 * i + 1].array(), lookup(first, b[i]), "lookup through the other handle");
                assertEquals(a[i], insert(second, addrs[2 * i]), "one entry per address across writers");
            }
            assertEquals(2 * each, first.count());
        }
    }

    @Test
    void spreadingWritersFillEveryFreeSlotBeforeTheAvGrows()
    {
        final int capacity = 1_024;
        final ByteBuffer[] addrs = distinctIn4(capacity + 1);
        final Set<Long> taken = new HashSet<>();
        try (AddressVector first = open(capacity, false); AddressVector second = open(0, false))
        {
            for (int i = 0; i < capacity; i++)
            {
                final long fiAddr = insert(i % 2 == 0 ? first : second, addrs[i]);
                assertTrue(fiAddr >= 0 && fiAddr < capacity, "insert " + i + " took fi_addr " + fiAddr +
                    ", past the AV's " + capacity + " slots while some were free");
                assertTrue(taken.add(fiAddr), "fi_addr " + fiAddr + " handed out twice");
            }
            assertEquals(capacity, taken.size());
            final long grown = insert(first, addrs[capacity]);
            assertTrue(grown >= capacity && grown < 2 * capacity, "full: the AV grows, the insert goes into the new segment: " + grown);
        }
    }

    @Test
    void aHandleThatKeepsTheRuleStillGetsTheLowestFreeIndex()
    {
        final ByteBuffer[] addrs = distinctIn4(404);
        try (AddressVector first = open(4_096, false); AddressVector second = open(0, false);
             AddressVector lowest = open(0, true))
        {
            final long[] a = new long[200];
            final long[] b = new long[200];
            for (int i = 0; i < 200; i++)
            {
                a[i] = insert(first, addrs[2 * i]);
                b[i] = insert(second, addrs[2 * i + 1]);
            }
            // The second writer's run starts at a random place, so the runs leave a gap below the highest slot
            // taken (unless that place happened to be right after the first run's end).
            final long unused = lowestUnused(a, b);
            assertEquals(unused, insert(lowest, addrs[400]), "the lowest unused index, not one above the runs");
            // Every index below it is taken (a[0] is 0): the one just below, freed, is the lowest FREE one.
            // (Not a fixed a[i]: a run that met the other writer's jumped, rarely, to a random place.)
            lowest.remove(new long[] {unused - 1}, 1, 0);
            assertEquals(unused - 1, insert(lowest, addrs[401]), "a removed index is reused first");
        }
    }

    @Test
    void lowestIndexIsTheDefaultAndAPrivateAvKeepsIt()
    {
        assertTrue(AvAttr.builder().build().lowestIndex());
        final AvAttr spread = AvAttr.builder().lowestIndex(false).build();
        assertFalse(spread.toBuilder().build().lowestIndex());
        final ByteBuffer[] addrs = distinctIn4(3);
        try (AddressVector named = open(16, false);
             AddressVector privateAv = shm.domain().openAv(AvAttr.builder().type(AvType.TABLE).count(16).lowestIndex(false).build()))
        {
            assertFalse(named.attr().lowestIndex());
            for (int i = 0; i < 3; i++)
            {
                assertEquals(i, insert(privateAv, addrs[i]), "a private AV has one writer and keeps the rule");
            }
        }
    }

    private static long lowestUnused(final long[] a, final long[] b)
    {
        final Set<Long> used = new HashSet<>();
        Arrays.stream(a).forEach(used::add);
        Arrays.stream(b).forEach(used::add);
        long i = 0;
        while (used.contains(i))
        {
            i++;
        }
        return i;
    }

    private static byte[] lookup(final AddressVector av, final long fiAddr)
    {
        final ByteBuffer out = ByteBuffer.allocate(16);
        av.lookup(fiAddr, out);
        return out.array();
    }
}
