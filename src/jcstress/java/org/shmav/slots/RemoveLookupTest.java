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
 * Remove racing lookup: slot 0 holds A with one reference. Results: remove's return, what the
 * lookup got (0 nothing, 1 A, 9 anything else), count() after both.
 */
@JCStressTest
@Description("A lookup racing the removal returns the address or nothing, never garbage.")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "the lookup ran before the removal took effect")
@Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "the lookup ran after the removal: no entry")
@Outcome(expect = FORBIDDEN, desc = "garbage from the lookup, a failed removal, or count() drift")
@State
public class RemoveLookupTest
{
    final Fixture av = new Fixture(2);
    final ByteBuffer a = Fixture.address(1);
    final ByteBuffer dst = ByteBuffer.allocate(Fixture.LEN);

    public RemoveLookupTest()
    {
        av.insert(av.w1, Fixture.address(1));
    }

    @Actor
    public void remover(final JJJ_Result r)
    {
        r.r1 = av.table.remove(av.w1, 0);
    }

    @Actor
    public void reader(final JJJ_Result r)
    {
        r.r2 = Fixture.classify(av.table.lookup(0, dst), dst, a);
    }

    @Arbiter
    public void arbiter(final JJJ_Result r)
    {
        r.r3 = av.checkedCount();
    }
}
