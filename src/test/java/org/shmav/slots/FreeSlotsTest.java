package org.shmav.slots;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.shmav.AddrFormat;
import org.shmav.Addresses;
import org.shmav.AvType;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.SlotDescriptor;

/** The lowest-FREE-slot search and its free-group marks, through the slot table of a private region. */
class FreeSlotsTest
{
    private static final int CAPACITY = 1000; // 16 groups of 64, the last one partial

    private static Region region(final long capacity)
    {
        return Region.allocatePrivate(AvLayout.compute(AddrFormat.SOCKADDR_IN, AvType.TABLE, capacity, 4, 0, 0), 1L << 32, 0, 0);
    }

    private static ByteBuffer address(final int i)
    {
        return Addresses.toSockaddr(new InetSocketAddress("10.2." + (i >>> 8 & 255) + "." + (i & 255), 5000 + (i >>> 16) + 1));
    }

    private static long insert(final Region r, final int i)
    {
        return insert(r, r.writer(), i);
    }

    private static long insert(final Region r, final Writer w, final int i)
    {
        final ByteBuffer a = address(i);
        return r.table().insert(w, a, a.position(), a.remaining(), -1L, Long.MIN_VALUE, 0);
    }

    private static Region full()
    {
        final Region r = region(CAPACITY);
        for (int i = 0; i < CAPACITY; i++)
        {
            assertEquals(i, insert(r, i));
        }
        return r;
    }

    private static boolean marked(final Region r, final long group)
    {
        return (r.memory().getLong(AvFileDescriptor.freeGroupWordOffset(group)) & (1L << group)) != 0;
    }

    private static void clearAllMarks(final Region r)
    {
        for (int w = 0; w < AvFileDescriptor.FREE_GROUPS / 64; w++)
        {
            r.memory().putLong(AvFileDescriptor.FREE_GROUPS_OFFSET + w * 8, 0L);
        }
    }

    @Test
    void shouldHandOutFreedSlotsLowestFirstWhateverTheOrderTheyWereFreedIn()
    {
        final Region r = full();
        final Random random = new Random(42);
        final TreeSet<Long> freed = new TreeSet<>();
        while (freed.size() < 100)
        {
            final long victim = random.nextInt(CAPACITY);
            if (freed.add(victim))
            {
                assertEquals(0, r.table().remove(r.writer(), victim));
            }
        }
        int next = CAPACITY;
        for (final long expected : freed)
        {
            assertEquals(expected, insert(r, next++));
        }
        assertEquals(CAPACITY, r.table().count());
        assertTrue(insert(r, next) < 0, "full again");
    }

    @Test
    void shouldFindAFreedSlotFarAboveTheHintAfterTheSlotsBetweenWereTaken()
    {
        // The benchmark's pattern: free i, take it back, free a slot far above: the hint is i + 1.
        final Region r = full();
        for (int round = 0, i = 3; round < 300; round++, i = (i + 397) % CAPACITY)
        {
            assertEquals(0, r.table().remove(r.writer(), i));
            assertEquals(i, insert(r, i), "round " + round);
        }
        assertEquals(CAPACITY, r.table().count());
    }

    @Test
    void shouldClearTheMarkOfAGroupThatFillsUpAndSetItWhenASlotIsFreed()
    {
        final Region r = region(CAPACITY);
        assertTrue(marked(r, 0) && marked(r, 15), "a new AV marks every group");
        for (int i = 0; i < 64; i++)
        {
            insert(r, i);
        }
        assertTrue(!marked(r, 0) && marked(r, 1), "group 0 is full");
        assertEquals(0, r.table().remove(r.writer(), 10));
        assertTrue(marked(r, 0), "a freed slot marks its group");
        assertEquals(10, insert(r, 64));
    }

    @Test
    void shouldClearAStaleMarkWhenItsGroupIsSearchedInFull()
    {
        final Region r = full();
        assertEquals(0, r.table().remove(r.writer(), 70)); // group 1
        assertEquals(70, insert(r, 70)); // not the group's last slot: its mark stays, stale
        assertTrue(marked(r, 1));
        assertEquals(0, r.table().remove(r.writer(), 5)); // group 0, below: the hint drops to 5
        assertEquals(5, insert(r, 5));
        assertEquals(0, r.table().remove(r.writer(), 900));
        assertEquals(900, insert(r, 900)); // searched group 1 from its first slot on the way to 900
        assertTrue(!marked(r, 1), "group 1 holds no FREE slot any more");
    }

    @Test
    void shouldStillFindFreeSlotsWhoseGroupsAreNotMarked()
    {
        // A writer killed between freeing and marking leaves such a slot: the count (below the capacity)
        // makes the claim read the state words once and mark what is FREE.
        final Region r = full();
        assertEquals(0, r.table().remove(r.writer(), 640));
        assertEquals(0, r.table().remove(r.writer(), 999));
        clearAllMarks(r);
        assertEquals(640, insert(r, CAPACITY));
        assertEquals(999, insert(r, CAPACITY + 1));
        assertTrue(insert(r, CAPACITY + 2) < 0, "full");
    }

    @Test
    void shouldFillAFileWithoutMarksInOrder()
    {
        // A file whose creator marked no group (a foreign writer's): found through the count check.
        final Region r = region(CAPACITY);
        clearAllMarks(r);
        for (int i = 0; i < CAPACITY; i++)
        {
            assertEquals(i, insert(r, i));
        }
        assertEquals(0, r.table().remove(r.writer(), 500));
        assertTrue(marked(r, 500 >>> 6), "a 1.1 writer marks what it frees, even in a 1.0 file");
        assertEquals(500, insert(r, CAPACITY));
    }

    @Test
    void shouldKeepMarksConservativeWhenAPrivateAvGrows()
    {
        final Region small = region(100);
        for (int i = 0; i < 100; i++)
        {
            insert(small, i);
        }
        final Region grown = small.grow(2_000_000); // more than 1,048,576 slots: 128-slot groups
        assertEquals(7, AvFileDescriptor.freeGroupShift(grown.layout().capacity()));
        for (int i = 100; i < 400; i++)
        {
            assertEquals(i, grown.table().insert(grown.writer(), address(i), 0, 16, -1L, Long.MIN_VALUE, 0));
        }
        assertEquals(0, grown.table().remove(grown.writer(), 7));
        assertEquals(7, grown.table().insert(grown.writer(), address(7), 0, 16, -1L, Long.MIN_VALUE, 0));
    }

    @Test
    void shouldGiveABatchARunThatOtherWritersClaimAboveAndTakeBackWhatItDidNotUse()
    {
        final Region r = region(CAPACITY);
        final Writer batch = r.writer();
        final Writer other = r.table().attach();
        batch.addressesLeft(10);
        assertEquals(0, insert(r, batch, 0), "the first claim of a batch of 10 takes 1..9 as its run");
        assertEquals(10, insert(r, other, 100), "another writer claims above the run, not beside the batch");
        for (int i = 1; i < 6; i++)
        {
            batch.addressesLeft(10 - i);
            assertEquals(i, insert(r, batch, i), "the batch goes on in its run");
        }
        r.table().endRun(batch); // the call ends: 6..9 are unused
        assertEquals(6, insert(r, other, 101), "the run's unused slots are the lowest FREE ones again");
        assertNoFreeSlotBelowTheHint(r);
    }

    @Test
    void shouldPassTheSlotsOfARunThatAreNotFree()
    {
        final Region r = region(CAPACITY);
        final Writer w = r.writer();
        for (int i = 0; i < 8; i++)
        {
            assertEquals(i, insert(r, w, i));
        }
        assertEquals(0, r.table().remove(w, 2));
        assertEquals(0, r.table().remove(w, 5));
        w.addressesLeft(4);
        final long[] got = new long[4];
        for (int i = 0; i < 4; i++)
        {
            w.addressesLeft(4 - i);
            got[i] = insert(r, w, 100 + i);
        }
        r.table().endRun(w);
        assertArrayEquals(new long[] {2, 5, 8, 9}, got, "the lowest FREE slots in order: a run passes 3, 4, 6 and 7, which are VALID");
        assertEquals(10, insert(r, w, 200));
    }

    @Test
    void shouldGiveBackTheRunOfABatchThatDiedWhenItsWriterIsRecovered()
    {
        final Region r = region(CAPACITY);
        final Writer dead = r.table().attach();
        dead.addressesLeft(64);
        assertEquals(0, insert(r, dead, 0)); // took 1..63 as its run, then died: nobody ends it
        final Writer w = r.writer();
        assertEquals(64, insert(r, w, 100), "a live writer claims above the dead batch's run");
        // The recoverer of a dead writer's entry reads every state word (Recovery.recover): the hint
        // comes down to the lowest FREE slot.
        new FreeSlots(r.memory(), r.layout()).markUnmarkedFree();
        assertEquals(1, insert(r, w, 101), "the dead batch's run is back");
        assertNoFreeSlotBelowTheHint(r);
    }

    private static void assertNoFreeSlotBelowTheHint(final Region r)
    {
        final long hint = r.memory().getLongVolatile(AvFileDescriptor.FREE_HINT_OFFSET) & 0xFFFF_FFFFL;
        for (long i = 0; i < hint; i++)
        {
            assertNotEquals(SlotDescriptor.FREE, SlotDescriptor.state(r.table().stateWord(i)), "FREE slot " + i + " below the hint " + hint);
        }
    }

    @Test
    void shouldDropAWritersOwnStartWhenASlotBelowItIsFreed()
    {
        final Region r = region(CAPACITY);
        final Writer w1 = r.writer();
        final Writer w2 = r.table().attach();
        for (int i = 0; i < 100; i++)
        {
            assertEquals(i, insert(r, w1, i)); // w1's own start runs ahead of the shared hint
        }
        assertEquals(100, insert(r, w2, 100), "w2 starts at the shared hint and skips w1's slots");
        assertEquals(0, r.table().remove(w2, 70));
        assertEquals(70, insert(r, w1, 1000), "w1's start (101) is stale after the freeing");
        assertEquals(0, r.table().remove(w1, 30));
        assertEquals(30, insert(r, w2, 1001));
        assertEquals(101, insert(r, w1, 1002));
        assertEquals(102, insert(r, w2, 1003));
        final long hint = r.memory().getLongVolatile(AvFileDescriptor.FREE_HINT_OFFSET) & 0xFFFF_FFFFL;
        for (long i = 0; i < hint; i++)
        {
            assertNotEquals(SlotDescriptor.FREE, SlotDescriptor.state(r.table().stateWord(i)), "FREE slot " + i + " below the hint " + hint);
        }
        assertEquals(103, insert(r, w2, 1004));
    }

    @Test
    void shouldSizeGroupsSoThatTheMarksFitTheHeader()
    {
        assertEquals(6, AvFileDescriptor.freeGroupShift(1));
        assertEquals(6, AvFileDescriptor.freeGroupShift(1 << 20));
        assertEquals(7, AvFileDescriptor.freeGroupShift((1 << 20) + 1));
        assertEquals(14, AvFileDescriptor.freeGroupShift(AvFileDescriptor.MAX_CAPACITY));
        assertTrue(AvFileDescriptor.FREE_GROUPS_OFFSET + AvFileDescriptor.FREE_GROUPS / 8 <= AvFileDescriptor.HEADER_LENGTH);
        assertTrue(AvFileDescriptor.FREE_GROUPS_OFFSET >= AvFileDescriptor.SEGMENTS_OFFSET +
            AvFileDescriptor.MAX_SEGMENTS * AvFileDescriptor.SEGMENT_ENTRY_LENGTH, "after the segment table");
    }
}
