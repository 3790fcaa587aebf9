package org.shmav.slots;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.nio.ByteBuffer;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJJJJ_Result;
import org.shmav.shm.SlotDescriptor;

/**
 * Own-claim publish racing a takeover: writer w holds slot 0 CLAIMED, filled with A and indexed, and
 * runs its publishing step. Another actor does what a recoverer that judged w dead would do (undoes
 * w's claim from the CLAIMED word it read, {@link SlotRemover#undoClaim}) and then inserts B with
 * another writer, which takes the lowest FREE slot: slot 0 again when the undo won.
 * Results: w's publish (slot or -EAGAIN), B's slot, checked count(), what slots 0 and 1 hold
 * (0 nothing, 1 A, 2 B, 9 anything else), reverseLookup(A), slots whose map_addr disagrees with their state.
 *
 * <p>The own-claim CAS keeps the state word and the count exact (FORBIDDEN otherwise). What it does not
 * cover, shown as interesting outcomes: the undo's map_addr reset and bucket tombstone come before its
 * CAS, and the publish's map_addr write before its CAS, so when the two race, the side effects of the
 * loser stay. A takeover of a live writer happens only when its record lock was lost (see
 * SlotTable.checkOwned), so these are limits of that failure mode, not of normal recovery.
 */
@JCStressTest
@Description("A writer whose claim was undone by someone else fails its publish cleanly; otherwise it publishes once.")
@Outcome(id = "0, 1, 2, 1, 2, 0, 0", expect = ACCEPTABLE,
    desc = "w published A at slot 0 first; the undo found no claim; B went to slot 1")
@Outcome(id = "-11, 0, 1, 2, 0, -1, 0", expect = ACCEPTABLE,
    desc = "the takeover undid w's claim; w's publish failed with -EAGAIN; B re-used slot 0")
@Outcome(id = "0, 1, 2, 1, 2, -1, [01]", expect = ACCEPTABLE_INTERESTING,
    desc = "KNOWN DEFECT (takeover of a live writer only): the undo passed its state check, reset map_addr and " +
        "tombstoned A's bucket, then lost its CAS to w's publish: A is VALID but not in the index (and unmapped when 1)")
@Outcome(id = "-11, 1, 1, 0, 2, -1, 1", expect = ACCEPTABLE_INTERESTING,
    desc = "KNOWN DEFECT (takeover of a live writer only): w's failed publish left map_addr[0] set on the FREE " +
        "slot 0 (written before its CAS, never reset), so the claim search skipped slot 0 and B went to slot 1")
@Outcome(expect = FORBIDDEN,
    desc = "w's publish landed on a slot another writer owns, the count drifted, two owners of one slot, " +
        "or A published but not findable / not mapped")
@State
public class OwnClaimPublishTakeoverTest
{
    final Fixture av = new Fixture(2);
    final ByteBuffer a = Fixture.address(1);
    final ByteBuffer b = Fixture.address(2);
    final ByteBuffer dst = ByteBuffer.allocate(Fixture.LEN);
    final SlotRemover taker = av.otherRemover();
    final Writer w;

    public OwnClaimPublishTakeoverTest()
    {
        w = av.table.attach(); // attacher entry 2
        av.claimFilledIndexed(w, a); // slot 0 CLAIMED(w), A written and indexed
    }

    @Actor
    public void publisher(final JJJJJJJ_Result r)
    {
        r.r1 = av.table.publishClaim(w, 0);
    }

    @Actor
    public void takeover(final JJJJJJJ_Result r)
    {
        final long s = av.table.stateWord(0);
        if (SlotDescriptor.state(s) == SlotDescriptor.CLAIMED && SlotDescriptor.payload(s) == w.index())
        {
            taker.undoClaim(0, s); // as Recovery.repair does for an owner it judged dead
        }
        r.r2 = av.insert(av.w1, b);
    }

    @Arbiter
    public void arbiter(final JJJJJJJ_Result r)
    {
        r.r3 = av.checkedCount();
        r.r4 = Fixture.classify(av.table.lookup(0, dst.clear()), dst, a, b);
        r.r5 = Fixture.classify(av.table.lookup(1, dst.clear()), dst, a, b);
        r.r6 = av.table.reverseLookup(a, 0, Fixture.LEN, -1L);
        r.r7 = av.mapMismatches();
    }
}
