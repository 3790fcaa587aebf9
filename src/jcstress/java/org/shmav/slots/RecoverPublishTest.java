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
import org.shmav.shm.AttacherDescriptor;

/**
 * Recover: a writer died right after its publish CAS, before its journal counted the entry (journal
 * says OP_PUBLISH, delta 0). Two recoverers race. Results: slots each repaired, count(), 1 when the
 * dead attacher entry was freed.
 */
@JCStressTest
@Description("Two recoverers of one dead writer count its published entry exactly once and free its entry.")
@Outcome(id = "0, 0, 1, 1", expect = ACCEPTABLE, desc = "the entry is counted once, the dead attacher entry is free")
@Outcome(expect = FORBIDDEN, desc = "counted twice or not at all, or the dead attacher entry is still held")
@State
public class RecoverPublishTest
{
    final Fixture av = new Fixture(2);
    final Writer dead;

    public RecoverPublishTest()
    {
        dead = av.table.attach(); // attacher entry 2
        av.insert(dead, Fixture.address(1)); // slot 0 VALID, journal delta 1
        av.killAttacher(dead.index(), AttacherDescriptor.journal(0, AttacherDescriptor.OP_PUBLISH, 0));
    }

    @Actor
    public void recoverer1(final JJJJ_Result r)
    {
        r.r1 = av.table.recoverDead();
    }

    @Actor
    public void recoverer2(final JJJJ_Result r)
    {
        r.r2 = av.table.recoverDead();
    }

    @Arbiter
    public void arbiter(final JJJJ_Result r)
    {
        r.r3 = av.checkedCount();
        r.r4 = av.region.memory().getLongVolatile(av.region.layout().attacher(dead.index())) == 0 ? 1 : 0;
    }
}
