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
 * The help and the owner's publish race on one state word: writer w holds slot 0 committed
 * (PUBLISHING: filled with A, indexed, counted in its journal) and runs its publish, the CAS to
 * VALID(1); another writer inserts A, meets the committed slot and publishes it for w, the CAS to
 * VALID(2), or, if w was first, takes a reference on VALID(1). Either way the entry is published once,
 * counted once (by w's commit), holds both references, and w returns its slot.
 * Results: w's publish, the insert's slot, checked count(), references of slot 0, pairs of VALID slots
 * with one address, VALID slots the index misses, map_addr mismatches, and the state the inserter saw
 * before it began (4 PUBLISHING: it may help; 2 VALID: w published first).
 */
@JCStressTest
@Description("A committed claim is published once, by its owner or by an inserter of its address, and counted once.")
@Outcome(id = "0, 0, 1, 2, 0, 0, 0, 4", expect = ACCEPTABLE,
    desc = "the inserter met PUBLISHING: it published slot 0 with both references, or w's CAS came first")
@Outcome(id = "0, 0, 1, 2, 0, 0, 0, 2", expect = ACCEPTABLE,
    desc = "w published first; the inserter took a reference on VALID(1)")
@Outcome(expect = FORBIDDEN, desc = "published twice, counted twice or not at all, a reference lost, a second slot, or A not findable")
@State
public class HelpPublishRaceTest
{
    final Fixture av = new Fixture(4);
    final ByteBuffer a = Fixture.address(5);
    final ByteBuffer a2 = Fixture.address(5);
    final Writer w;

    public HelpPublishRaceTest()
    {
        w = av.table.attach(); // attacher entry 2, alive
        av.claimFilledIndexed(w, a); // slot 0 CLAIMED(w), A written and indexed
        av.table.commitClaim(w, 0); // PUBLISHING(w): counted, map_addr written
    }

    @Actor
    public void owner(final JJJJJJJJ_Result r)
    {
        r.r1 = av.table.publishClaim(w, 0);
    }

    @Actor
    public void inserter(final JJJJJJJJ_Result r)
    {
        r.r8 = SlotDescriptor.state(av.table.stateWord(0));
        r.r2 = av.insert(av.w1, a2);
    }

    @Arbiter
    public void arbiter(final JJJJJJJJ_Result r)
    {
        r.r3 = av.checkedCount();
        r.r4 = av.refs(0);
        r.r5 = av.duplicates();
        r.r6 = av.indexMisses();
        r.r7 = av.mapMismatches();
    }
}
