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
import org.openjdk.jcstress.infra.results.JJJJ_Result;
import org.shmav.shm.AvLayout;

/**
 * Hash rebuild racing two inserters of the same address: the hash starts with no EMPTY bucket (only
 * tombstones), so each insert must rebuild it first, while the other is inserting or rebuilding too.
 * Results: slot of writer 1, of writer 2, count(), references of writer 1's slot.
 */
@JCStressTest
@Description("A rebuild of the hash never lets two inserters of one address make two entries.")
@Outcome(id = "0, 0, 1, 2", expect = ACCEPTABLE, desc = "one entry in slot 0 with two references")
@Outcome(id = "1, 1, 1, 2", expect = ACCEPTABLE, desc = "one entry in slot 1 (the claimer of slot 0 backed off) with two references")
@Outcome(expect = FORBIDDEN, desc = "two entries for one address, a lost reference, or count() drift")
@State
public class RebuildDedupTest
{
    final Fixture av = new Fixture(4);
    final ByteBuffer x1 = Fixture.address(7);
    final ByteBuffer x2 = Fixture.address(7);

    public RebuildDedupTest()
    {
        for (int i = 100; i < 140; i++) // churn
        {
            av.table.remove(av.w1, av.insert(av.w1, Fixture.address(i)));
        }
        final AvLayout layout = av.region.layout();
        for (long bucket = 0; bucket < layout.hashBuckets(); bucket++)
        {
            if (av.region.memory().getLong(layout.bucket(bucket)) == SlotTable.EMPTY)
            {
                av.region.memory().putLong(layout.bucket(bucket), SlotTable.TOMBSTONE);
            }
        }
    }

    @Actor
    public void writer1(final JJJJ_Result r)
    {
        r.r1 = av.insert(av.w1, x1);
    }

    @Actor
    public void writer2(final JJJJ_Result r)
    {
        r.r2 = av.insert(av.w2, x2);
    }

    @Arbiter
    public void arbiter(final JJJJ_Result r)
    {
        r.r3 = av.checkedCount();
        r.r4 = r.r1 >= 0 ? av.refs(r.r1) : -1;
    }
}
