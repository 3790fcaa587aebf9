package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.shmav.it.TestDir;

/**
 * Remove-then-insert on a named AV, which cannot grow: hash buckets freed by removals must be reused,
 * and two writers reusing them at once must still agree on one slot per address.
 */
class ChurnDedupTest
{
    private static final int CAPACITY = 64;

    private Path dir;
    private Domain domain;

    @BeforeEach
    void setUp() throws Exception
    {
        dir = TestDir.createInShm("churn");
        domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build());
    }

    @AfterEach
    void tearDown() throws Exception
    {
        try
        {
            domain.close();
        }
        finally
        {
            TestDir.delete(dir);
        }
    }

    @Test
    void shouldReinsertAfterRemoveFarMoreTimesThanTheHashHasBuckets()
    {
        try (AddressVector av = domain.openAv(AvAttr.builder().name("churn").count(CAPACITY).build()))
        {
            final ByteBuffer addrs = addresses(CAPACITY);
            final long[] fiAddr = new long[CAPACITY];
            assertEquals(CAPACITY, av.insert(addrs, CAPACITY, fiAddr, 0, null));
            final long[] one = new long[1];
            final int cycles = 100 * CAPACITY; // 25 x the 256 buckets: each cycle used one up before
            for (int c = 0; c < cycles; c++)
            {
                final int k = (c * 7) % CAPACITY;
                one[0] = fiAddr[k];
                av.remove(one, 1, 0);
                assertEquals(1, av.insert(addrs.slice(k * 16, 16), 1, one, 0, null), "cycle " + c);
                assertEquals(fiAddr[k], one[0], "cycle " + c + ": the freed index is reused");
            }
            assertEquals(CAPACITY, av.count());
            for (int k = 0; k < CAPACITY; k++)
            {
                assertEquals(fiAddr[k], av.reverseLookup(addrs.slice(k * 16, 16)));
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldKeepOneSlotPerAddressWhenTwoWritersReuseTombstonesAtOnce() throws Exception
    {
        final int addresses = 16;
        final int rounds = 3_000;
        final ByteBuffer addrs = addresses(addresses);
        final long[][] got = new long[2][addresses];
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        try (AddressVector a = domain.openAv(AvAttr.builder().name("race").count(CAPACITY).build());
             AddressVector b = domain.openAv(AvAttr.builder().name("race").build()))
        {
            final AddressVector[] writers = {a, b};
            final CyclicBarrier barrier = new CyclicBarrier(2);
            final Thread[] threads = new Thread[2];
            for (int t = 0; t < 2; t++)
            {
                final int me = t;
                threads[t] = new Thread(() ->
                {
                    try
                    {
                        final ByteBuffer mine = addrs.duplicate();
                        final long[] one = new long[1];
                        for (int r = 0; r < rounds; r++)
                        {
                            for (int i = 0; i < addresses; i++) // the two writers go in opposite orders
                            {
                                final int k = me == 0 ? i : addresses - 1 - i;
                                assertEquals(1, writers[me].insert(mine.slice(k * 16, 16), 1, one, 0, null));
                                got[me][k] = one[0];
                            }
                            barrier.await(10, TimeUnit.SECONDS);
                            if (me == 0)
                            {
                                checkOneSlotPerAddress(a, addrs, got, addresses, r);
                            }
                            barrier.await(10, TimeUnit.SECONDS);
                            writers[me].remove(got[me], addresses, 0);
                            barrier.await(10, TimeUnit.SECONDS);
                        }
                    }
                    catch (final Throwable e)
                    {
                        failure.compareAndSet(null, e);
                        barrier.reset();
                    }
                });
                threads[t].start();
            }
            for (final Thread t : threads)
            {
                t.join();
            }
            assertNull(failure.get(), () -> "writer failed: " + failure.get());
            assertEquals(0, a.count());
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldNeverGiveTwoSlotsToOneAddressUnderRandomChurn() throws Exception
    {
        final int capacity = 16; // 64 buckets: probe sequences cross many TOMBSTONEs
        final int hot = 4;
        final int keys = 12;
        final int writers = 3;
        final long runNanos = TimeUnit.MILLISECONDS.toNanos(1_500);
        final ByteBuffer addrs = addresses(keys);
        // per hot key: slot << 32 | holders, for the writers that hold a reference on it now
        final AtomicLongArray holding = new AtomicLongArray(hot);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AddressVector[] avs = new AddressVector[writers];
        avs[0] = domain.openAv(AvAttr.builder().name("random").count(capacity).build());
        for (int t = 1; t < writers; t++)
        {
            avs[t] = domain.openAv(AvAttr.builder().name("random").build());
        }
        try
        {
            final Thread[] threads = new Thread[writers];
            for (int t = 0; t < writers; t++)
            {
                final AddressVector av = avs[t];
                final long seed = t;
                threads[t] = new Thread(() ->
                {
                    final java.util.Random random = new java.util.Random(seed);
                    final ByteBuffer mine = addrs.duplicate();
                    final long[] held = new long[keys];
                    java.util.Arrays.fill(held, -1);
                    final long[] one = new long[1];
                    final long end = System.nanoTime() + runNanos;
                    try
                    {
                        while (System.nanoTime() < end && failure.get() == null)
                        {
                            final int k = random.nextInt(keys);
                            if (held[k] >= 0)
                            {
                                if (k < hot)
                                {
                                    holding.getAndDecrement(k);
                                }
                                one[0] = held[k];
                                av.remove(one, 1, 0);
                                held[k] = -1;
                                continue;
                            }
                            assertEquals(1, av.insert(mine.slice(k * 16, 16), 1, one, 0, null));
                            held[k] = one[0];
                            while (k < hot)
                            {
                                final long h = holding.get(k);
                                final long holders = h & 0xFFFF_FFFFL;
                                if (holders != 0 && h >>> 32 != one[0])
                                {
                                    throw new AssertionError("address " + k + " is at fi_addr " + (h >>> 32) +
                                        " for " + holders + " writer(s) and at " + one[0] + " for another");
                                }
                                if (holding.compareAndSet(k, h, one[0] << 32 | (holders + 1)))
                                {
                                    break;
                                }
                            }
                        }
                        for (int k = 0; k < keys; k++)
                        {
                            if (held[k] >= 0)
                            {
                                if (k < hot)
                                {
                                    holding.getAndDecrement(k);
                                }
                                one[0] = held[k];
                                av.remove(one, 1, 0);
                            }
                        }
                    }
                    catch (final Throwable e)
                    {
                        failure.compareAndSet(null, e);
                    }
                });
                threads[t].start();
            }
            for (final Thread t : threads)
            {
                t.join();
            }
            assertNull(failure.get(), () -> "writer failed: " + failure.get());
            assertEquals(0, avs[0].count());
        }
        finally
        {
            for (final AddressVector av : avs)
            {
                av.close();
            }
        }
    }

    private static void checkOneSlotPerAddress(final AddressVector av, final ByteBuffer addrs, final long[][] got,
        final int addresses, final int round)
    {
        final Set<Long> distinct = new HashSet<>();
        for (int k = 0; k < addresses; k++)
        {
            assertEquals(got[0][k], got[1][k], "round " + round + ": both writers of address " + k + " got one fi_addr");
            assertEquals(got[0][k], av.reverseLookup(addrs.slice(k * 16, 16)));
            distinct.add(got[0][k]);
        }
        assertEquals(addresses, distinct.size());
        assertEquals(addresses, av.count(), "round " + round + ": one entry per address");
        assertTrue(av.count() <= CAPACITY);
    }

    private static ByteBuffer addresses(final int n)
    {
        final ByteBuffer b = ByteBuffer.allocateDirect(n * 16);
        for (int i = 0; i < n; i++)
        {
            Addresses.put(b, new InetSocketAddress("10.1." + (i / 250) + "." + (i % 250 + 1), 5000 + i));
        }
        return b.flip();
    }
}
