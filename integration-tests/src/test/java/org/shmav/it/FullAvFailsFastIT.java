package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.Fi;
import org.shmav.FiErrno;

/**
 * A full AV says so at once, whatever its size: FI_ENOSPC for a new address costs a read of the
 * free-group marks and the attachers, not of every slot, and once a call has found the AV full its
 * other new addresses fail without looking again. Before, each address of a batch read every state
 * word of the AV several times (185-302 ms per address at 4 Mi entries: a batch of 1,024 into a full
 * 1 Mi-entry AV took 72 s). The bound here is loose (a loaded 2-core machine); the figures are printed.
 */
@Isolated("asserts that a full AV refuses within a time bound: runs alone, not beside other test classes")
class FullAvFailsFastIT
{
    /** The default maximum, the largest AV the default limits allow: a 416 MB file. */
    private static final int LARGEST = 4_194_304;
    private static final int BATCH = 1_024;
    private static final long BOUND_MILLIS = 2_000;

    private Path dir;

    @AfterEach
    void tearDown() throws Exception
    {
        TestDir.delete(dir);
    }

    @Test
    void shouldRefuseABatchIntoTheLargestFullAvAtOnce() throws Exception
    {
        dir = TestDir.createInShm("robust");
        try (Domain d = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build());
             AddressVector av = d.openAv(AvAttr.builder().type(AvType.TABLE).name("largest").count(LARGEST).build()))
        {
            final int chunk = 4_096;
            for (int first = 0; first < LARGEST; first += chunk)
            {
                assertEquals(chunk, av.insert(InetRange.of(first, chunk), chunk, null, 0, null), "fill from " + first);
            }
            assertEquals(LARGEST, av.count());
            refuseQuickly(av, LARGEST, "the largest full AV (" + LARGEST + " entries)");
        }
    }

    /** maxCount 1000 from count 4: growth stops at exactly 1000 (the last segment is not a doubling), as quick. */
    @Test
    void shouldRefuseABatchAtTheMaximumAtOnce() throws Exception
    {
        dir = TestDir.createInShm("robust");
        try (Domain d = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build());
             AddressVector av = d.openAv(AvAttr.builder().type(AvType.TABLE).name("capped").count(4).maxCount(1_000).build()))
        {
            int n = 0;
            while (av.insert(InetRange.of(n, 1), 1, null, 0, null) == 1)
            {
                n++;
            }
            assertEquals(1_000, n, "maxCount is reached exactly");
            assertEquals(n, av.count());
            refuseQuickly(av, n, "an AV at its maximum (" + n + " entries)");
        }
    }

    private static void refuseQuickly(final AddressVector av, final int full, final String what)
    {
        final ByteBuffer batch = InetRange.of(full, BATCH);
        batch.put(0, InetRange.of(7, 1), 0, 16); // one present address: it still gets its reference
        final long[] fiAddr = new long[BATCH];
        final int[] errors = new int[BATCH];
        final long start = System.nanoTime();
        final int inserted = av.insert(batch, BATCH, fiAddr, Fi.SYNC_ERR, errors);
        final long batchMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(1, inserted);
        assertEquals(7, fiAddr[0], "the present address");
        for (int i = 1; i < BATCH; i++)
        {
            assertEquals(FiErrno.ENOSPC, errors[i], "address " + i);
        }
        final long singleStart = System.nanoTime();
        final int[] error = new int[1];
        assertEquals(0, av.insert(InetRange.of(full + BATCH, 1), 1, new long[1], Fi.SYNC_ERR, error));
        final long singleMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - singleStart);
        assertEquals(FiErrno.ENOSPC, error[0]);
        System.out.println("FullAvFailsFastIT: " + what + ": a batch of " + BATCH + " refused in " + batchMillis +
            " ms, a single insert in " + singleMillis + " ms");
        assertTrue(batchMillis < BOUND_MILLIS && singleMillis < BOUND_MILLIS, what + ": batch " + batchMillis +
            " ms, single " + singleMillis + " ms");
        assertEquals(full, av.count());
    }
}
