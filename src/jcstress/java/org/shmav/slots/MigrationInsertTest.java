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
 * A migration of the index (writer 2 moves it to the other area of segment 0: start CAS, copy,
 * switch CAS) racing writer 1's insert of a new address X and then its insert of the present address
 * P (slot 0). (One actor does both: jcstress runs no more actors than the machine has CPUs, and the
 * runs here have two.) The area holds TOMBSTONEs of earlier removals, so the copy skips buckets. An
 * insert that saw no migration places in the old area only and must either have checked indexState
 * unchanged before the migration started (so the copy finds its entry) or place again; one that saw
 * the migration places in both areas; P's insert must find P in whichever area it looks. Results:
 * migrateIndex's answer, X's slot, P's insert result, count(), references of slot 0, VALID slots
 * reverse lookup misses (the index lacks them), pairs of VALID slots with one address, 1 when
 * indexState still names a migration.
 */
@JCStressTest
@Description("A migration racing inserts of a new and a present address leaves every VALID slot indexed, one slot per address.")
@Outcome(id = "1, 1, 0, 2, 2, 0, 0, 0", expect = ACCEPTABLE,
    desc = "X at slot 1, P referenced at slot 0; both indexed in the area in use; the migration ended")
@Outcome(expect = FORBIDDEN,
    desc = "a VALID slot the active area misses (X lost by the switch), two slots for one address, a lost reference, " +
        "count() drift, or a migration left running")
@State
public class MigrationInsertTest
{
    final Fixture av = new Fixture(4);
    final ByteBuffer p = Fixture.address(3);
    final ByteBuffer x = Fixture.address(7);

    public MigrationInsertTest()
    {
        av.insert(av.w1, Fixture.address(3)); // P at slot 0
        for (int i = 100; i < 103; i++) // TOMBSTONEs for the copy to skip; few enough that no crowding check fires
        {
            av.table.remove(av.w1, av.insert(av.w1, Fixture.address(i)));
        }
    }

    @Actor
    public void migrator(final JJJJJJJJ_Result r)
    {
        r.r1 = av.table.migrateIndex(av.w2) ? 1 : 0;
    }

    @Actor
    public void inserter(final JJJJJJJJ_Result r)
    {
        r.r2 = av.insert(av.w1, x);
        r.r3 = av.insert(av.w1, p);
    }

    @Arbiter
    public void arbiter(final JJJJJJJJ_Result r)
    {
        r.r4 = av.checkedCount();
        r.r5 = av.refs(0);
        r.r6 = av.indexMisses();
        r.r7 = av.duplicates();
        r.r8 = av.migrating();
    }
}
