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

/**
 * A writer that spreads its claims (AvAttr.lowestIndex false) races one that keeps the rule, into an
 * empty AV of 4 slots. Results: spreading writer's slot, rule writer's slot, count().
 */
@JCStressTest
@Description("A spreading writer and a writer keeping the rule never get one slot, and the latter still gets the lowest free one.")
@Outcome(id = "0, 1, 2", expect = ACCEPTABLE, desc = "the spreading writer claimed slot 0 first; the other got the lowest free, 1")
@Outcome(id = {"2, 0, 2", "3, 0, 2"}, expect = ACCEPTABLE, desc = "the rule writer got 0; the spreading one moved to a gap")
@Outcome(id = "1, 0, 2", expect = ACCEPTABLE, desc = "the rule writer got 0; the spreading one found no gap and took the lowest free")
@Outcome(expect = FORBIDDEN, desc = "one slot twice, a slot other than the lowest free for the rule writer, or a wrong count")
@State
public class SpreadClaimTest
{
    final Fixture av = new Fixture(4);
    final ByteBuffer a = Fixture.address(1);
    final ByteBuffer b = Fixture.address(2);

    public SpreadClaimTest()
    {
        av.w1.spreadClaims(true);
    }

    @Actor
    public void spreading(final JJJ_Result r)
    {
        r.r1 = av.insert(av.w1, a);
    }

    @Actor
    public void keepingTheRule(final JJJ_Result r)
    {
        r.r2 = av.insert(av.w2, b);
    }

    @Arbiter
    public void arbiter(final JJJ_Result r)
    {
        r.r3 = av.checkedCount();
    }
}
