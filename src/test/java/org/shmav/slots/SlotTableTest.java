package org.shmav.slots;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;
import org.shmav.AddrFormat;
import org.shmav.Addresses;
import org.shmav.AvType;
import org.shmav.shm.AttacherDescriptor;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.SlotDescriptor;

/** The slot protocol on a private region: index churn, rebuilds and recovery bookkeeping. */
class SlotTableTest
{
    private static final long CAPACITY = 64;

    private static Region region()
    {
        return Region.allocatePrivate(AvLayout.compute(AddrFormat.SOCKADDR_IN, AvType.TABLE, CAPACITY, 4, 0, 0), 1L << 32, 0, 0);
    }

    private static ByteBuffer address(final int i)
    {
        return Addresses.toSockaddr(new InetSocketAddress("10.1." + (i >>> 8 & 255) + "." + (i & 255), 4000 + (i % 1000) + 1));
    }

    private static long insert(final Region r, final ByteBuffer a)
    {
        return r.table().insert(r.writer(), a, a.position(), a.remaining(), -1L, Long.MIN_VALUE, 0);
    }

    @Test
    void shouldKeepInsertingDistinctAddressesUnderChurnFarBeyondTheBucketCount()
    {
        final Region r = region();
        final long buckets = r.layout().hashBuckets();
        // Fill half, then churn: every round removes one entry and inserts a never-seen address.
        for (int i = 0; i < CAPACITY / 2; i++)
        {
            assertEquals(i, insert(r, address(i)));
        }
        for (int round = 0; round < buckets * 20; round++)
        {
            final long victim = round % (CAPACITY / 2);
            assertEquals(0, r.table().remove(r.writer(), victim));
            final ByteBuffer fresh = address((int)(CAPACITY + round));
            assertEquals(victim, insert(r, fresh), "round " + round); // lowest free index is the one just freed
            assertEquals(victim, r.table().reverseLookup(fresh, 0, fresh.remaining(), -1L));
        }
        assertEquals(CAPACITY / 2, r.table().count());
        // Every live entry is still found through the index after all those rebuilds.
        for (long i = 0; i < CAPACITY / 2; i++)
        {
            final ByteBuffer out = ByteBuffer.allocate(16);
            assertEquals(16, r.table().lookup(i, out));
            assertEquals(i, r.table().reverseLookup(out, 0, 16, -1L));
        }
        assertTrue(r.memory().getLong(AvFileDescriptor.HASH_EPOCH_OFFSET) >>> 32 >= 20, "the index was rebuilt");
    }

    @Test
    void shouldGiveBackAtTheNextOperationWhatAnOperationCutShortLeftBehind()
    {
        final Region r = region();
        final Writer w = r.writer();
        assertEquals(0, insert(r, address(0)));
        leaveClaimOfSlot1CutShort(r, w);

        assertEquals(1, insert(r, address(1)), "the next insert gets slot 1: the claim left behind was given back first");
        assertEquals(2, r.table().count());
        assertEquals(0, r.memory().getLongVolatile(w.entry + AttacherDescriptor.PHASE_OFFSET), "the phase was left");
        assertTrue(!w.needsRepair, "the operation mark is cleared by an operation that returns");
        for (long i = 2; i < CAPACITY; i++)
        {
            assertEquals(SlotDescriptor.FREE, SlotDescriptor.state(r.table().stateWord(i)), "slot " + i);
        }
    }

    @Test
    void shouldShareOneSlotBetweenDuplicatesAcrossRebuilds()
    {
        final Region r = region();
        final ByteBuffer a = address(1);
        assertEquals(0, insert(r, a));
        r.table().rebuildIndex(r.writer());
        assertEquals(0, insert(r, a)); // found through the rebuilt index: a reference, not a second slot
        assertEquals(1, r.table().count());
        assertEquals(0, r.table().remove(r.writer(), 0));
        assertTrue(r.table().isValid(0));
        assertEquals(0, r.table().remove(r.writer(), 0));
        assertEquals(0, r.table().count());
        assertEquals(-1, r.table().reverseLookup(a, 0, a.remaining(), -1L));
    }

    @Test
    void shouldReportAFullTable()
    {
        final Region r = region();
        for (int i = 0; i < CAPACITY; i++)
        {
            assertEquals(i, insert(r, address(i)));
        }
        assertEquals(-org.shmav.FiErrno.ENOSPC, insert(r, address(1000)));
        assertEquals(0, r.table().remove(r.writer(), 17));
        assertEquals(17, insert(r, address(1000)));
    }

    @Test
    void shouldFinishARebuildWhoseRebuilderDied()
    {
        final Region r = region();
        final ByteBuffer a = address(3);
        assertEquals(0, insert(r, a));
        // A rebuild marked by attacher 2, which holds no token (its process is gone), left mid-way:
        // every bucket already cleared.
        final long marked = (7L << 32) | 3;
        r.memory().putLong(AvFileDescriptor.HASH_EPOCH_OFFSET, marked);
        for (long b = 0; b < r.layout().hashBuckets(); b++)
        {
            r.memory().putLong(r.layout().bucket(b), 0L);
        }
        assertEquals(0, r.table().reverseLookup(a, 0, a.remaining(), -1L), "a miss is confirmed by a scan meanwhile");
        assertTrue(r.table().finishAbandonedRebuild(r.writer()));
        assertEquals(7L << 32, r.memory().getLong(AvFileDescriptor.HASH_EPOCH_OFFSET));
        assertEquals(0, insert(r, a)); // the rebuilt index finds the entry: a reference, not a second slot
        assertEquals(1, r.table().count());
    }

    /**
     * A rebuild whose rebuilder died after clearing the buckets, taken over while a live writer stays
     * inside its phase (frozen between its phase store and its look at the epoch): the takeover gives up
     * waiting, and must leave the rebuild abandoned, not declare the cleared index done. Before the fix
     * the epoch went back to idle over the empty buckets, and an insert of the present address got a
     * second slot.
     */
    @Test
    void shouldLeaveAHalfBuiltIndexAbandonedWhenATakeoverGivesUp()
    {
        final Region r = region();
        final ByteBuffer a = address(5);
        assertEquals(0, insert(r, a));
        // Attacher 1: a live writer inside its phase. Attacher 2: the dead rebuilder (no token, no lock).
        assertTrue(r.liveness().tryAcquire(1));
        final int frozen = r.layout().attacher(1);
        r.memory().putLong(frozen + AttacherDescriptor.TOKEN_OFFSET, 0x5EED);
        r.memory().setLongVolatile(frozen + AttacherDescriptor.PHASE_OFFSET, 1);
        r.memory().putLong(AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET, 3);
        r.memory().putLong(AvFileDescriptor.HASH_EPOCH_OFFSET, (7L << 32) | 3);
        for (long b = 0; b < r.layout().hashBuckets(); b++)
        {
            r.memory().putLong(r.layout().bucket(b), 0L);
        }

        assertTrue(!r.table().finishAbandonedRebuild(r.writer()), "the frozen writer keeps the takeover from running");
        assertEquals((7L << 32) | IndexRebuild.ABANDONED, r.memory().getLong(AvFileDescriptor.HASH_EPOCH_OFFSET),
            "a takeover that gave up leaves the half-built index abandoned");

        r.memory().setLongVolatile(frozen + AttacherDescriptor.PHASE_OFFSET, 0); // the frozen writer runs again
        assertEquals(0, insert(r, a), "the present address gets a reference, not a second slot");
        assertEquals(1, r.table().count());
        assertEquals(7L << 32, r.memory().getLong(AvFileDescriptor.HASH_EPOCH_OFFSET), "the next insert finished the rebuild");
        assertEquals(0, r.table().reverseLookup(a, 0, a.remaining(), -1L));
    }

    /**
     * A handle closed after an Error cut its insert short, with nothing called on it since: the claim it
     * left is given back at detach, not left CLAIMED by an entry that is then freed (nobody would ever
     * recover it: a free entry has no owner to find dead). Before the fix slot 1 stayed CLAIMED for good.
     */
    @Test
    void shouldGiveBackWhatAnOperationCutShortLeftWhenTheWriterDetaches()
    {
        final Region r = region();
        final Writer w = r.writer();
        assertEquals(0, insert(r, address(0)));
        leaveClaimOfSlot1CutShort(r, w);

        r.table().detach(w);
        assertEquals(SlotDescriptor.FREE, SlotDescriptor.state(r.table().stateWord(1)), "the claim left was given back");
        final Writer next = r.table().attach();
        final ByteBuffer a = address(1);
        assertEquals(1, r.table().insert(next, a, a.position(), a.remaining(), -1L, Long.MIN_VALUE, 0));
        assertEquals(2, r.table().count());
    }

    /**
     * What an insert cut short by an Error inside its phase, after its claim of slot 1, leaves when no
     * give-back ran (a StackOverflowError in the call to it): its claim, its phase and its operation mark.
     */
    private static void leaveClaimOfSlot1CutShort(final Region r, final Writer w)
    {
        final int slot1 = r.layout().slot(1);
        final long free = r.memory().getLong(slot1 + SlotDescriptor.STATE_OFFSET);
        r.memory().putLong(slot1 + SlotDescriptor.STATE_OFFSET,
            SlotDescriptor.word(SlotDescriptor.CLAIMED, w.index(), SlotDescriptor.generation(free)));
        r.memory().setLongVolatile(w.entry + AttacherDescriptor.PHASE_OFFSET, 1);
        w.needsRepair = true;
    }
}
