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
import org.shmav.FiErrno;

/**
 * A growth racing an insert through an older view: segment 0 (2 slots) is full; the grower publishes
 * segment 1 while writer 2, which has not seen it, inserts a new address X, then (told its view is
 * stale, or that the AV is full) waits for the growth and inserts through the grown view, as
 * AvInserter does. Results: X's slot, reverse lookup of X in the grown view, count(), whether both
 * old addresses are still indexed at their slots.
 */
@JCStressTest
@Description("An insert through a view older than a growth lands in the grown AV, indexed in the hash in use.")
@Outcome(id = "2, 2, 3, 1", expect = ACCEPTABLE, desc = "X at the first slot of segment 1, found, counted; old entries indexed")
@Outcome(expect = FORBIDDEN, desc = "X lost, not indexed, in two slots, or an old entry unindexed by the growth")
@State
public class GrowInsertTest
{
    final GrowthFixture av = new GrowthFixture(2);
    final ByteBuffer x = Fixture.address(7);

    @Actor
    public void grower()
    {
        av.grow();
    }

    @Actor
    public void olderWriter(final JJJJ_Result r)
    {
        long slot = av.olderView.insert(av.w2, x, 0, Fixture.LEN, -1L, Long.MIN_VALUE, 0);
        if (slot == SlotTable.STALE_VIEW || slot == -FiErrno.ENOSPC)
        {
            av.awaitPublished();
            slot = av.grownView().insert(av.w2, x, 0, Fixture.LEN, -1L, Long.MIN_VALUE, 0);
        }
        r.r1 = slot;
    }

    @Arbiter
    public void arbiter(final JJJJ_Result r)
    {
        final SlotTable grown = av.grownView();
        r.r2 = grown.reverseLookup(x, 0, Fixture.LEN, -1L);
        r.r3 = av.checkedCount(grown);
        r.r4 = av.presentIndexed(grown, -1);
    }
}
