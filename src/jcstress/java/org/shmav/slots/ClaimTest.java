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
import org.openjdk.jcstress.infra.results.JJJ_Result;

/** Claim: two writers insert different addresses into an AV with two free slots. Results: slot of writer 1, slot of writer 2, count(). */
@JCStressTest
@Description("Two claimers never get the same slot, and no claim is lost.")
@Outcome(id = "0, 1, 2", expect = ACCEPTABLE, desc = "writer 1 claimed slot 0 first, writer 2 the next one")
@Outcome(id = "1, 0, 2", expect = ACCEPTABLE, desc = "writer 2 claimed slot 0 first, writer 1 the next one")
@Outcome(expect = FORBIDDEN, desc = "both claimers got one slot, a claim failed, or count() disagrees with the VALID slots")
@State
public class ClaimTest
{
    final Fixture av = new Fixture(2);
    final ByteBuffer a = Fixture.address(1);
    final ByteBuffer b = Fixture.address(2);

    @Actor
    public void writer1(final JJJ_Result r)
    {
        r.r1 = av.insert(av.w1, a);
    }

    @Actor
    public void writer2(final JJJ_Result r)
    {
        r.r2 = av.insert(av.w2, b);
    }

    @Arbiter
    public void arbiter(final JJJ_Result r)
    {
        r.r3 = av.checkedCount();
    }
}
