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
 * A growth racing an insert through an older view: segment 0 (2 slots) has one free slot; the grower
 * publishes segment 1 while writer 2, which has not seen it, inserts a new address X into the free
 * slot, or (told its view is stale) through the grown view, as AvInserter does. Either X was indexed
 * before the growth's quiet moment, and the growth indexed it again into the new hash, or the writer
 * found its view stale and wrote the new hash: X must be found in the hash in use. Results: X's slot,
 * reverse lookup of X in the grown view, count(), whether the old address is still indexed.
 */
@JCStressTest
@Description("An insert through a view older than a growth lands in the grown AV, indexed in the hash in use.")
@Outcome(id = "1, 1, 2, 1", expect = ACCEPTABLE, desc = "X at the free slot, found in the hash in use, counted; the old entry indexed")
@Outcome(expect = FORBIDDEN, desc = "X lost, not indexed, in two slots, or an old entry unindexed by the growth")
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
