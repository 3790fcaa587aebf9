package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.IndexWord;
import org.shmav.shm.Memory;
import org.shmav.shm.SlotDescriptor;
import org.shmav.slots.Region;
import org.shmav.slots.ToolAccess;

/**
 * A batch insert that meets another live writer's unpublished claims of the very same addresses (as a
 * writer frozen before its commit leaves them) waits for none of them (layout 7): each claim is
 * cancelled after a grace of 1 ms and the batch inserts its addresses into slots of its own. Under
 * layout 6 the batch waited once, 5 s (the call's deadline), and failed every address with FI_EAGAIN
 * (and before one deadline per call, 5 s per address). Nothing else waits either: a removal
 * meanwhile, and inserts of other addresses, go on at once.
 */
class CallDeadlineTest
{
    private static final int BATCH = 8;
    /** Eight graces of 1 ms and the work, with room for a loaded machine; layout 6 took 5 s. */
    private static final long BOUND_MILLIS = 1_500;

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
    void shouldInsertABatchAtOnceWhenALiveProcessHoldsItsAddressesClaimed()
    {
        try (AddressVector av = open(); AddressVector frozen = open())
        {
            final long[] present = new long[BATCH];
            assertEquals(BATCH, av.insert(batch(1), BATCH, present, 0, null));
            final Region tool = ToolAccess.openForRepair(shm.dir().resolve("deadline"));
            final long[] claimed = new long[BATCH];
            try
            {
                // The second handle's attacher entry (1: entries are taken in open order) is alive (this
                // JVM holds its lock): it holds slots 32.. CLAIMED, filled and indexed with the batch's
                // addresses, and never commits them.
                final ByteBuffer addresses = batch(100);
                for (int i = 0; i < BATCH; i++)
                {
                    claimed[i] = claimForFrozenWriter(tool, 32 + i, addresses.slice(16 * i, 16), 1);
                }

                final long[] fiAddr = new long[BATCH];
                final int[] errors = new int[BATCH];
                long start = System.nanoTime();
                assertEquals(BATCH, av.insert(batch(100), BATCH, fiAddr, Fi.SYNC_ERR, errors));
                final long insertMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                System.out.println("CallDeadlineTest: a batch of " + BATCH + " beside claims of its addresses: " + insertMillis + " ms");
                for (int i = 0; i < BATCH; i++)
                {
                    assertEquals(0, errors[i], "address " + i);
                    assertEquals(BATCH + i, fiAddr[i], "address " + i + " in a slot of its own");
                    assertEquals(SlotDescriptor.CANCELLED, SlotDescriptor.state(tool.table().stateWord(32 + i)),
                        "the frozen writer's claim " + i + " is cancelled, never to be published");
                }
                assertTrue(insertMillis < BOUND_MILLIS, "a batch of " + BATCH + " took " + insertMillis + " ms");

                start = System.nanoTime();
                av.remove(present, BATCH, 0);
                assertEquals(BATCH, av.insert(batch(1), BATCH, present, 0, null), "other addresses go on");
                final long otherMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(otherMillis < 1_000, "removal and insert of other addresses took " + otherMillis + " ms");
            }
            finally
            {
                for (int i = 0; i < BATCH; i++)
                {
                    // The frozen writer, thawed, gives its cancelled claims back (FREE; their entries are dead).
                    final int slot = tool.layout().slot(32 + i);
                    tool.memory().setLongVolatile(slot + SlotDescriptor.STATE_OFFSET,
                        SlotDescriptor.word(SlotDescriptor.FREE, 0, SlotDescriptor.generation(claimed[i]) + 1));
                }
                tool.detach();
            }
            assertEquals(BATCH, av.insert(batch(100), BATCH, new long[BATCH], 0, null), "inserts go on afterwards");
            assertEquals(2 * BATCH, av.count());
        }
    }

    /** Slot {@code index} CLAIMED by attacher {@code owner}, filled with {@code a} and placed in the index. */
    private static long claimForFrozenWriter(final Region tool, final long index, final ByteBuffer a, final int owner)
    {
        final Memory m = tool.memory();
        final int slot = tool.layout().slot(index);
        final long word = SlotDescriptor.word(SlotDescriptor.CLAIMED, owner,
            SlotDescriptor.generation(m.getLongVolatile(slot + SlotDescriptor.STATE_OFFSET)));
        m.setLongVolatile(slot + SlotDescriptor.STATE_OFFSET, word);
        m.putInt(slot + SlotDescriptor.ADDR_LEN_OFFSET, 16);
        m.copyIn(slot + SlotDescriptor.ADDR_OFFSET, a, 0, 16);
        m.putLong(slot + SlotDescriptor.AUTH_KEY_OFFSET, -1L);
        final long state = m.getLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET);
        final long hash = org.shmav.slots.SlotTable.hash(a, 0, 16, -1L);
        final long base = tool.layout().hashArea(IndexWord.activeSegment(state), IndexWord.activeArea(state));
        final long mask = tool.layout().hashBuckets(IndexWord.activeSegment(state)) - 1;
        long b = hash & mask;
        while (m.getLongVolatile((int)(base + b * 8)) != 0)
        {
            b = (b + 1) & mask;
        }
        m.setLongVolatile((int)(base + b * 8), IndexWord.entry(IndexWord.stamp(state), hash, index));
        return word;
    }
}
