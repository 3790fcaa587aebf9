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
import org.openjdk.jcstress.infra.results.JJJJJ_Result;
import org.shmav.FiErrno;

/**
 * A growth racing an insert through an older view: segment 0 (2 slots) has one free slot; the grower
 * publishes segment 1 and then moves the index into it (a migration from segment 0's area to segment
 * 1's area 0), while writer 2, which has not seen the growth, inserts a new address X into the free
 * slot, or (told its view is stale) through the grown view, as AvInserter does. Either X was placed in
 * segment 0's area under an indexState checked unchanged afterwards, before the migration started, and
 * the migration's copy carried it over; or its writer met the migration (an area past its view: its
 * claim given back, STALE_VIEW) and inserted through the grown view. X must be found in the area in
 * use. Results: X's slot, reverse lookup of X in the grown view, count(), whether the old address is
 * still indexed, whether the grower left the index idle in segment 1's area 0.
 */
@JCStressTest
@Description("An insert through a view older than a growth lands in the grown AV, indexed in the area in use.")
@Outcome(id = "1, 1, 2, 1, 1", expect = ACCEPTABLE,
    desc = "X at the free slot, found in the area in use, counted; the old entry indexed; the index moved to segment 1")
@Outcome(expect = FORBIDDEN,
    desc = "X lost, not indexed, in two slots; an old entry lost by the move; or the grower left the index behind or migrating")
@State
public class GrowInsertTest
{
    final GrowthFixture av = new GrowthFixture(2, 1);
    final ByteBuffer x = Fixture.address(7);

    @Actor
    public void grower()
    {
        av.grow();
    }

    @Actor
    public void olderWriter(final JJJJJ_Result r)
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
    public void arbiter(final JJJJJ_Result r)
    {
        final SlotTable grown = av.grownView();
        r.r2 = grown.reverseLookup(x, 0, Fixture.LEN, -1L);
        r.r3 = av.checkedCount(grown);
        r.r4 = av.presentIndexed(grown, -1);
        r.r5 = av.indexMoved();
    }
}
