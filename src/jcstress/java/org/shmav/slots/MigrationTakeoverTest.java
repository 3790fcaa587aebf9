package org.shmav.slots;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.nio.ByteBuffer;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJJJJJ_Result;
import org.shmav.shm.AttacherDescriptor;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.IndexWord;

/**
 * Takeover of an orphaned migration: P0, P1, P2 at slots 0..2 are indexed in area 0 of segment 0;
 * indexState names a migration to area 1 started by a writer that died half-way (its entry's lock
 * free), after it had copied P0 only (an entry of the target's stamp in area 1). Writer 2 finishes the
 * migration (finishOrphanedMigration) while writer 1 inserts a new X and then the present P1. The AV
 * has 64 slots, so a writer checks for crowding on every second insert (128 buckets / 64), and writer 1
 * is set up so that X's insert skips the check: it runs while the migration may still be orphaned or
 * being copied, and must place X in both areas (its target half-copied, writer 2 copying into it) and
 * check indexState before it publishes. P1's insert makes the check, sees the migrator dead and
 * finishes the migration itself if it still runs (racing writer 2's copy: two copiers, copies already
 * there). Results: finishOrphanedMigration's answer (0 when writer 1 had finished it already), X's
 * slot, P1's insert result, count(), references of slot 1, VALID slots reverse lookup misses, pairs of
 * VALID slots with one address, 1 when indexState is the migration's switched state (area 1 active
 * under the next stamp), 0 when still migrating, 2 for any other state.
 */
@JCStressTest
@Description("A migration whose migrator died is finished by another writer, racing inserts: every VALID slot indexed, one slot per address.")
@Outcome(id = "1, 3, 1, 4, 2, 0, 0, 1", expect = ACCEPTABLE,
    desc = "writer 2 finished the migration (or shared the copy with P1's insert); X at slot 3, P1 referenced, all indexed in area 1")
@Outcome(id = "0, 3, 1, 4, 2, 0, 0, 1", expect = ACCEPTABLE,
    desc = "writer 1's insert of P1 finished the migration before writer 2 looked; X at slot 3, P1 referenced, all indexed in area 1")
@Outcome(expect = FORBIDDEN,
    desc = "a VALID slot the active area misses (an entry not copied, or X placed only in the old area), two slots for one " +
        "address, a lost reference, count() drift, or the migration left running or switched to the wrong area")
@State
public class MigrationTakeoverTest
{
    final Fixture av = new Fixture(64);
    final ByteBuffer p1 = Fixture.address(5);
    final ByteBuffer x = Fixture.address(7);
    final long migratingState;

    public MigrationTakeoverTest()
    {
        av.insert(av.w1, Fixture.address(3)); // P0 at slot 0
        av.insert(av.w1, Fixture.address(5)); // P1 at slot 1
        av.insert(av.w1, Fixture.address(6)); // P2 at slot 2
        final Writer dead = av.table.attach(); // attacher entry 2: the migrator
        av.killAttacher(dead.index(), AttacherDescriptor.journal(0, AttacherDescriptor.OP_NONE, 0));
        final long idle = av.indexState();
        if (IndexWord.migrating(idle))
        {
            throw new IllegalStateException("a migration ran during the set-up: " + Long.toHexString(idle));
        }
        final int segment = IndexWord.activeSegment(idle);
        final int target = 1 - IndexWord.activeArea(idle);
        migratingState = IndexWord.migrating(idle, segment, target, dead.index());
        av.region.memory().setLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET, migratingState);
        final ByteBuffer p0 = Fixture.address(3);
        av.place(segment, target, IndexWord.stamp(idle) + 1, DedupIndex.hash(p0, 0, Fixture.LEN, -1L), 0); // P0 copied
        if (Math.min(IndexMigration.CROWD_CHECK_EVERY, av.region.layout().hashBuckets() >>> 6) != 2)
        {
            throw new IllegalStateException("the test expects a crowding check on every second insert");
        }
        av.w1.insertsSinceCrowdCheck = 0; // X's insert skips the crowding check, P1's makes it
    }

    @Actor
    public void finisher(final JJJJJJJJ_Result r)
    {
        r.r1 = av.table.finishOrphanedMigration(av.w2) ? 1 : 0;
    }

    @Actor
    public void inserter(final JJJJJJJJ_Result r)
    {
        r.r2 = av.insert(av.w1, x);
        r.r3 = av.insert(av.w1, p1);
    }

    @Arbiter
    public void arbiter(final JJJJJJJJ_Result r)
    {
        r.r4 = av.checkedCount();
        r.r5 = av.refs(1);
        r.r6 = av.indexMisses();
        r.r7 = av.duplicates();
        final long state = av.indexState();
        r.r8 = state == IndexWord.switched(migratingState) ? 1 : IndexWord.migrating(state) ? 0 : 2;
    }
}
