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
import org.shmav.shm.IndexWord;
import org.shmav.shm.Memory;

/**
 * A migration of the index racing two inserters of the same address: after some churn, every bucket
 * of the active area that is EMPTY under the current stamp is made a TOMBSTONE of that stamp, so the
 * area has no EMPTY bucket left: no insert can place until the index migrated to the other area, which
 * each inserter starts or helps (its crowding check, or its full area) while the other is inserting or
 * migrating too; the copy, the switch and the placing into both areas must still give one slot.
 * Results: slot of writer 1, of writer 2, count(), references of writer 1's slot.
 */
@JCStressTest
@Description("A migration of the index never lets two inserters of one address make two entries.")
@Outcome(id = "0, 0, 1, 2", expect = ACCEPTABLE, desc = "one entry in slot 0 with two references")
@Outcome(id = "1, 1, 1, 2", expect = ACCEPTABLE, desc = "one entry in slot 1 (the claimer of slot 0 backed off) with two references")
@Outcome(expect = FORBIDDEN, desc = "two entries for one address, a lost reference, or count() drift")
@State
public class MigrationDedupTest
{
    final Fixture av = new Fixture(4);
    final ByteBuffer x1 = Fixture.address(7);
    final ByteBuffer x2 = Fixture.address(7);

    public MigrationDedupTest()
    {
        for (int i = 100; i < 140; i++) // churn
        {
            av.table.remove(av.w1, av.insert(av.w1, Fixture.address(i)));
        }
        final Memory m = av.region.memory();
        final AvLayout layout = av.region.layout();
        final long state = av.indexState();
        final long base = layout.hashArea(IndexWord.activeSegment(state), IndexWord.activeArea(state));
        final long stamp = IndexWord.stamp(state);
        for (long bucket = 0; bucket < layout.hashBuckets(IndexWord.activeSegment(state)); bucket++)
        {
            final int offset = (int)(base + bucket * Long.BYTES);
            if (DedupIndex.kind(m.getLong(offset), stamp) == DedupIndex.EMPTY)
            {
                m.putLong(offset, IndexWord.tombstone(stamp));
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
