package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.shmav.it.TestDir;

/**
 * Two writers inserting the same addresses into a named AV with exactly one slot per address: when
 * both reach the last address, one of them claims the last FREE slot and the other must find and
 * share that entry, never fail with FI_ENOSPC.
 */
class FullAvRaceTest
{
    private Path dir;
    private Domain domain;

    @BeforeEach
    void setUp() throws Exception
    {
        dir = TestDir.createInShm("fullrace");
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
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldShareTheLastSlotWhenTwoWritersInsertTheSameLastAddress() throws Exception
    {
        final int n = 64;
        final int rounds = 300;
        final ByteBuffer addrs = ByteBuffer.allocateDirect(n * 16);
        for (int i = 0; i < n; i++)
        {
            Addresses.put(addrs, new InetSocketAddress("10.2.0." + (i + 1), 6000 + i));
        }
        addrs.flip();
        final Queue<String> failures = new ConcurrentLinkedQueue<>();
        for (int r = 0; r < rounds && failures.isEmpty(); r++)
        {
            final String name = "full" + r;
            try (AddressVector a = domain.openAv(AvAttr.builder().name(name).count(n).build());
                 AddressVector b = domain.openAv(AvAttr.builder().name(name).build()))
            {
                final CyclicBarrier start = new CyclicBarrier(2);
                final Thread[] writers = new Thread[2];
                for (int t = 0; t < 2; t++)
                {
                    final AddressVector av = t == 0 ? a : b;
                    final int round = r;
                    writers[t] = new Thread(() ->
                    {
                        final ByteBuffer mine = addrs.duplicate();
                        final long[] fiAddr = new long[1];
                        final int[] errno = new int[1];
                        try
                        {
                            start.await(10, TimeUnit.SECONDS);
                            for (int i = 0; i < n; i++)
                            {
                                if (av.insert(mine.slice(i * 16, 16), 1, fiAddr, Fi.SYNC_ERR, errno) != 1)
                                {
                                    failures.add("round " + round + " address " + i + ": " + FiErrno.strerror(errno[0]));
                                }
                            }
                        }
                        catch (final Exception e)
                        {
                            failures.add(e.toString());
                        }
                    });
                    writers[t].start();
                }
                for (final Thread t : writers)
                {
                    t.join();
                }
                assertEquals(n, a.count());
            }
            domain.unlinkAv(name);
        }
        assertTrue(failures.isEmpty(), () -> failures.toString());
    }
}
