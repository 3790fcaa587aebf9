package org.shmav.slots;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJJ_Result;

/**
 * A growth racing a removal through an older view: the grower publishes segment 1 and moves the index
 * into it (a migration whose copy reads segment 0's area) while writer 2, which has not seen the
 * growth, removes the entry at slot 1 (retrying through the grown view if told its view is stale). The
 * removal may tombstone the old area only, or nothing at all (the migration's target is past its
 * view), and the copy may carry the entry over before the slot went REMOVING: such a dead entry must
 * never make the removed address findable. The other address must survive the move. Results: the
 * removal's result, reverse lookup of the removed address, count(), whether the other is indexed,
 * whether the grower left the index idle in segment 1's area 0.
 */
@JCStressTest
@Description("A removal through a view older than a growth is not undone by the move of the index.")
@Outcome(id = "0, -1, 1, 1, 1", expect = ACCEPTABLE,
    desc = "removed, not found in the area in use, counted; the other indexed; the index moved to segment 1")
@Outcome(expect = FORBIDDEN,
    desc = "the removed address still found or counted, the other entry lost, or the grower left the index behind or migrating")
@State
public class GrowRemoveTest
{
    final GrowthFixture av = new GrowthFixture(2, 2);

    @Actor
    public void grower()
    {
        av.grow();
    }

    @Actor
    public void olderRemover(final JJJJJ_Result r)
    {
        int result = av.olderView.remove(av.w2, 1);
        if (result == SlotTable.STALE_VIEW)
        {
            av.awaitPublished();
            result = av.grownView().remove(av.w2, 1);
        }
        r.r1 = result;
    }

    @Arbiter
    public void arbiter(final JJJJJ_Result r)
    {
        final SlotTable grown = av.grownView();
        r.r2 = grown.reverseLookup(av.present[1], 0, Fixture.LEN, -1L);
        r.r3 = av.checkedCount(grown);
        r.r4 = av.presentIndexed(grown, 1);
        r.r5 = av.indexMoved();
    }
}
