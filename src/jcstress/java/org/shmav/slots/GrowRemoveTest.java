package org.shmav.slots;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJ_Result;

/**
 * A growth racing a removal through an older view: the grower publishes segment 1 while writer 2,
 * which has not seen it, removes the entry at slot 1 (retrying through the grown view when told its
 * view is stale). The removed address must not survive in the new hash, the other must. Results: the
 * removal's result, reverse lookup of the removed address, count(), whether the other is indexed.
 */
@JCStressTest
@Description("A removal through a view older than a growth is not undone by the growth's indexing.")
@Outcome(id = "0, -1, 1, 1", expect = ACCEPTABLE, desc = "removed, gone from the hash in use, counted; the other indexed")
@Outcome(expect = FORBIDDEN, desc = "the removed address still indexed or counted, or the other entry lost")
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
    public void olderRemover(final JJJJ_Result r)
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
    public void arbiter(final JJJJ_Result r)
    {
        final SlotTable grown = av.grownView();
        r.r2 = grown.reverseLookup(av.present[1], 0, Fixture.LEN, -1L);
        r.r3 = av.checkedCount(grown);
        r.r4 = av.presentIndexed(grown, 1);
    }
}
