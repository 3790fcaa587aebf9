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
import org.shmav.shm.IndexWord;
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
        assertTrue(IndexWord.stamp(indexState(r)) > 20, "the index moved between its areas: " + indexState(r));
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
        assertEquals(0, r.memory().getLongVolatile(w.entry + AttacherDescriptor.PHASE_OFFSET), "the phase hint was cleared");
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
        assertTrue(r.table().migrateIndex(r.writer()));
        assertEquals(1L << 33 | 2, indexState(r), "the index moved to area 1 under stamp 2");
        assertEquals(0, insert(r, a)); // found through the moved index: a reference, not a second slot
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

    /**
     * A migration whose migrator died after copying part of the index (area 1 holds some entries, not
     * all): the index is still whole in area 0, a takeover copies again and switches, and nothing is
     * lost or doubled.
     */
    @Test
    void shouldFinishAMigrationWhoseMigratorDiedHalfWay()
    {
        final Region r = region();
        for (int i = 0; i < 20; i++)
        {
            assertEquals(i, insert(r, address(i)));
        }
        final long idle = indexState(r);
        final long started = IndexWord.migrating(idle, 0, 1, 2); // attacher 2: no token, no lock: dead
        r.memory().setLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET, started);
        final Writer helper = r.writer();
        // The dead migrator's copy of entries 0..9 only.
        for (int i = 0; i < 10; i++)
        {
            placeInArea1(r, address(i), i, IndexWord.stamp(idle) + 1);
        }
        assertEquals(7, r.table().reverseLookup(address(7), 0, 16, -1L), "the active area is whole meanwhile");

        assertTrue(r.table().finishOrphanedMigration(helper));
        assertEquals(IndexWord.switched(started), indexState(r));
        assertEquals(20, insert(r, address(20)));
        for (int i = 0; i <= 20; i++)
        {
            assertEquals(i, r.table().reverseLookup(address(i), 0, 16, -1L), "address " + i + " in the new area");
            assertEquals(i, insert(r, address(i)), "a reference, not a second slot");
        }
        assertEquals(21, r.table().count());
    }

    /**
     * A migration whose migrator is alive but frozen (its lock held, it never goes on): nobody waits
     * for it. Inserts and removals go on, placing into both areas, and a writer that wants the index
     * moved (migrateIndex, as an insert that finds its area full does) runs the copy and the switch
     * itself. Under the phase protocol every insert waited for such a rebuilder, then failed FI_EAGAIN.
     */
    @Test
    void shouldNeverWaitForAFrozenMigrator()
    {
        final Region r = region();
        for (int i = 0; i < 10; i++)
        {
            assertEquals(i, insert(r, address(i)));
        }
        assertTrue(r.liveness().tryAcquire(1)); // attacher 1: a live process, frozen
        r.memory().putLong(r.layout().attacher(1) + AttacherDescriptor.TOKEN_OFFSET, 0x5EED);
        r.memory().putLong(AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET, 2);
        final long started = IndexWord.migrating(indexState(r), 0, 1, 1);
        r.memory().setLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET, started);

        final long t0 = System.nanoTime();
        for (int i = 10; i < 30; i++)
        {
            assertEquals(i, insert(r, address(i)));
        }
        assertEquals(0, r.table().remove(r.writer(), 3));
        assertTrue(System.nanoTime() - t0 < java.util.concurrent.TimeUnit.SECONDS.toNanos(2), "nobody waited");
        assertTrue(!r.table().finishOrphanedMigration(r.writer()), "its migrator lives: not orphaned");
        assertEquals(started, indexState(r), "the migration still runs");

        assertTrue(r.table().migrateIndex(r.writer()));
        assertEquals(IndexWord.switched(started), indexState(r));
        for (int i = 0; i < 30; i++)
        {
            assertEquals(i == 3 ? -1 : i, r.table().reverseLookup(address(i), 0, 16, -1L), "address " + i);
        }
        assertEquals(3, insert(r, address(3)));
        assertEquals(0, insert(r, address(0)) , "a reference");
        assertEquals(30, r.table().count());
    }

    /**
     * A migration into an area clears what the area's earlier uses left: values with older stamps
     * become 0, so that no bucket's stamp keeps falling behind the area's (2^27 uses behind, it would
     * read as newer than the state, and every walker would start over for good). Entries placed under
     * the new stamp stay.
     */
    @Test
    void shouldSweepWhatEarlierUsesLeftInTheTargetArea()
    {
        final Region r = region();
        for (int i = 0; i < 10; i++)
        {
            assertEquals(i, insert(r, address(i)));
        }
        final long idle = indexState(r);
        final long next = IndexWord.stamp(idle) + 1;
        final long area1 = r.layout().hashArea(0, 1);
        final long buckets = r.layout().hashBuckets(0);
        // Leftovers: a TOMBSTONE of the previous use, an entry of a use (1 << 27) - 2 stamps ago.
        r.memory().putLong((int)(area1 + 8 * (buckets - 1)), IndexWord.tombstone(next - 2));
        r.memory().putLong((int)(area1 + 8 * (buckets - 2)), IndexWord.entry(next - (1L << 27) + 2, 0, 5));
        assertTrue(r.table().migrateIndex(r.writer()));
        assertEquals(0, r.memory().getLong((int)(area1 + 8 * (buckets - 1))), "the previous use's TOMBSTONE");
        assertEquals(0, r.memory().getLong((int)(area1 + 8 * (buckets - 2))), "the ancient entry");
        long entries = 0;
        for (long b = 0; b < buckets; b++)
        {
            final long v = r.memory().getLong((int)(area1 + 8 * b));
            assertTrue(v == 0 || IndexWord.bucketStamp(v) == next, "bucket " + b + ": " + Long.toHexString(v));
            entries += v != 0 ? 1 : 0;
        }
        assertEquals(10, entries, "the copies stay");
        for (int i = 0; i < 10; i++)
        {
            assertEquals(i, r.table().reverseLookup(address(i), 0, 16, -1L));
        }
    }

    private static long indexState(final Region r)
    {
        return r.memory().getLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET);
    }

    /** Places slot {@code slot}'s entry in area 1 of segment 0 as a migration's copy does. */
    private static void placeInArea1(final Region r, final ByteBuffer a, final long slot, final long stamp)
    {
        final long hash = SlotTable.hash(a, 0, a.remaining(), -1L);
        final long mask = r.layout().hashBuckets(0) - 1;
        long b = hash & mask;
        while (r.memory().getLong((int)(r.layout().hashArea(0, 1) + b * 8)) != 0)
        {
            b = (b + 1) & mask;
        }
        r.memory().putLong((int)(r.layout().hashArea(0, 1) + b * 8), IndexWord.entry(stamp, hash, slot));
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
