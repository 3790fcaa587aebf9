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

/**
 * A migration of the index (writer 2, to the other area of segment 0) racing writer 1's removal of P
 * (slot 0) and then its re-insert of R, which was at slot 2 and removed before, so its TOMBSTONE lies
 * in the area being copied. (One actor does both: jcstress runs no more actors than the machine has
 * CPUs, and the runs here have two.) Q (slot 1) stays present throughout. The removal may tombstone
 * one area while the copy carries P's entry into the other (the copy read P's slot VALID just before
 * it went REMOVING): such a dead entry must never make P findable, though R re-uses slot 0 at once.
 * R's entry must reach the area that ends up active. Results: migrateIndex's answer, the removal's
 * result, R's slot, count(), reverse lookup of P, VALID slots reverse lookup misses, pairs of VALID
 * slots with one address, 1 when indexState still names a migration.
 */
@JCStressTest
@Description("A migration racing a removal and a re-insert: the removed address is gone, every VALID slot indexed.")
@Outcome(id = "1, 0, 0, 2, -1, 0, 0, 0", expect = ACCEPTABLE,
    desc = "P removed, R at the lowest FREE slot, P's slot 0; P not found, Q and R indexed; the migration ended")
@Outcome(expect = FORBIDDEN,
    desc = "P still found after its removal, a VALID slot the active area misses, two slots for one address, " +
        "count() drift, or a migration left running")
@State
public class MigrationRemoveTest
{
    final Fixture av = new Fixture(4);
    final ByteBuffer p = Fixture.address(3);
    final ByteBuffer r = Fixture.address(9);

    public MigrationRemoveTest()
    {
        av.insert(av.w1, Fixture.address(3)); // P at slot 0
        av.insert(av.w1, Fixture.address(5)); // Q at slot 1
        av.table.remove(av.w1, av.insert(av.w1, Fixture.address(9))); // R was at slot 2: a TOMBSTONE now
    }

    @Actor
    public void migrator(final JJJJJJJJ_Result res)
    {
        res.r1 = av.table.migrateIndex(av.w2) ? 1 : 0;
    }

    @Actor
    public void writer(final JJJJJJJJ_Result res)
    {
        res.r2 = av.table.remove(av.w1, 0);
        res.r3 = av.insert(av.w1, r);
    }

    @Arbiter
    public void arbiter(final JJJJJJJJ_Result res)
    {
        res.r4 = av.checkedCount();
        res.r5 = av.table.reverseLookup(p, 0, Fixture.LEN, -1L);
        res.r6 = av.indexMisses();
        res.r7 = av.duplicates();
        res.r8 = av.migrating();
    }
}
