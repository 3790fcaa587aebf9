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

/** Claim of the last slot: two writers, one free slot. Results: writer 1, writer 2 (slot or -ENOSPC), count(). */
@JCStressTest
@Description("Of two claimers of the last free slot exactly one wins; the other gets -FI_ENOSPC.")
@Outcome(id = "0, -28, 1", expect = ACCEPTABLE, desc = "writer 1 won the slot, writer 2 found the AV full")
@Outcome(id = "-28, 0, 1", expect = ACCEPTABLE, desc = "writer 2 won the slot, writer 1 found the AV full")
@Outcome(expect = FORBIDDEN, desc = "both won (same slot twice), both lost (slot leaked), or count() is wrong")
@State
public class ClaimLastSlotTest
{
    final Fixture av = new Fixture(1);
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
