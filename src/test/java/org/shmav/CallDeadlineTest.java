package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.slots.Region;
import org.shmav.slots.ToolAccess;

/**
 * One bound for a whole call: a batch insert or removal that meets a live process holding what it
 * needs (here a rebuild mark of another live writer, which every operation waits for) returns within
 * one wait of 5 s, and reports the addresses it could not do with FI_EAGAIN, instead of waiting 5 s
 * per address (a batch of 8 took 40 s before).
 */
class CallDeadlineTest
{
    private static final int BATCH = 8;
    /** One wait of 5 s and the work, with room for a loaded machine; 8 waits would be 40 s. */
    private static final long BOUND_MILLIS = 15_000;

    @RegisterExtension
    final ShmDomain shm = new ShmDomain("shmav-deadline-");

    private AddressVector open()
    {
        return shm.domain().openAv(AvAttr.builder().type(AvType.TABLE).count(64).name("deadline").build());
    }

    private static ByteBuffer batch(final int first)
    {
        final ByteBuffer all = ByteBuffer.allocate(16 * BATCH);
        for (int i = 0; i < BATCH; i++)
        {
            all.put(Addresses.toSockaddr(new InetSocketAddress("10.9.0." + (first + i), 7000)));
        }
        return all.flip();
    }

    @Test
    void shouldEndABatchAtOneDeadlineWhenALiveProcessHoldsTheIndex()
    {
        try (AddressVector av = open(); AddressVector rebuilder = open())
        {
            final long[] present = new long[BATCH];
            assertEquals(BATCH, av.insert(batch(1), BATCH, present, 0, null));
            final Region tool = ToolAccess.openForRepair(shm.dir().resolve("deadline"));
            try
            {
                // The second handle's attacher entry (1: entries are taken in open order) marks a rebuild
                // and is alive (this JVM holds its lock): every insert and removal waits for it.
                final long idle = tool.memory().getLongVolatile(AvFileDescriptor.HASH_EPOCH_OFFSET);
                tool.memory().setLongVolatile(AvFileDescriptor.HASH_EPOCH_OFFSET, idle | 2);

                final long[] fiAddr = new long[BATCH];
                final int[] errors = new int[BATCH];
                long start = System.nanoTime();
                assertEquals(0, av.insert(batch(100), BATCH, fiAddr, Fi.SYNC_ERR, errors));
                final long insertMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                for (int i = 0; i < BATCH; i++)
                {
                    assertEquals(FiErrno.EAGAIN, errors[i], "address " + i);
                    assertEquals(Fi.ADDR_NOTAVAIL, fiAddr[i]);
                }
                assertTrue(insertMillis < BOUND_MILLIS, "a batch of " + BATCH + " took " + insertMillis + " ms");

                start = System.nanoTime();
                final FabricException e = assertThrows(FabricException.class, () -> av.remove(present, BATCH, 0));
                final long removeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertEquals(FiErrno.EAGAIN, e.errno(), e.getMessage());
                assertTrue(removeMillis < BOUND_MILLIS, "a removal of " + BATCH + " took " + removeMillis + " ms");

                tool.memory().setLongVolatile(AvFileDescriptor.HASH_EPOCH_OFFSET, idle); // the rebuild ends
            }
            finally
            {
                tool.detach();
            }
            assertEquals(BATCH, av.insert(batch(100), BATCH, new long[BATCH], 0, null), "inserts go on afterwards");
            av.remove(present, BATCH, 0);
            assertEquals(BATCH, av.count());
        }
    }
}
