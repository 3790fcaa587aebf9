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
import org.shmav.shm.SlotDescriptor;

/**
 * A cancel and the owner's commit race on one state word: writer w holds slot 0 CLAIMED, filled with A
 * and indexed, and runs its publish (commit CLAIMED -> PUBLISHING, then VALID); another writer inserts A
 * with no grace, so it cancels w's claim (CLAIMED -> CANCELLED) at once if it is still uncommitted.
 * Commit first: the inserter publishes or references slot 0. Cancel first: w's commit fails, w gives
 * its claim back (the insert would start over) and the inserter places A in a slot of its own. Never
 * both: one VALID slot for A, counted once, findable, mapped.
 * Results: w's publish (0, or -3000001 when cancelled), the insert's slot, checked count(), references
 * of the insert's slot, pairs of VALID slots with one address, VALID slots the index misses, map_addr
 * mismatches, the state slot 0 ends in (2 VALID, 0 FREE).
 */
@JCStressTest
@Description("An uncommitted claim is either committed and published, or cancelled and given back: never both, never lost.")
@Outcome(id = "0, 0, 1, 2, 0, 0, 0, 2", expect = ACCEPTABLE,
    desc = "w committed first; the inserter published slot 0 for it or took a reference")
@Outcome(id = "-3000001, 1, 1, 1, 0, 0, 0, 0", expect = ACCEPTABLE,
    desc = "the inserter cancelled w's claim and took slot 1 while slot 0 was CANCELLED; w gave slot 0 back")
@Outcome(id = "-3000001, 0, 1, 1, 0, 0, 0, 2", expect = ACCEPTABLE,
    desc = "the inserter cancelled w's claim; w gave slot 0 back before the inserter claimed, which took it again")
@Outcome(expect = FORBIDDEN, desc = "two entries for A, a cancelled claim published, a claim lost, count drift, A not findable")
@State
public class CancelCommitRaceTest
{
    final Fixture av = new Fixture(4);
    final ByteBuffer a = Fixture.address(6);
    final ByteBuffer a2 = Fixture.address(6);
    final Writer w;

    public CancelCommitRaceTest()
    {
        w = av.table.attach(); // attacher entry 2, alive
        av.claimFilledIndexed(w, a); // slot 0 CLAIMED(w), A written and indexed, not committed
        av.w1.cancelGraceNanos = 0; // cancel an uncommitted claim at first sight: the race, not the grace
    }

    @Actor
    public void owner(final JJJJJJJJ_Result r)
    {
        r.r1 = av.table.publishClaim(w, 0);
    }

    @Actor
    public void inserter(final JJJJJJJJ_Result r)
    {
        r.r2 = av.insert(av.w1, a2);
    }

    @Arbiter
    public void arbiter(final JJJJJJJJ_Result r)
    {
        r.r3 = av.checkedCount();
        r.r4 = r.r2 >= 0 ? av.refs(r.r2) : -1;
        r.r5 = av.duplicates();
        r.r6 = av.indexMisses();
        r.r7 = av.mapMismatches();
        r.r8 = SlotDescriptor.state(av.table.stateWord(0));
    }
}
