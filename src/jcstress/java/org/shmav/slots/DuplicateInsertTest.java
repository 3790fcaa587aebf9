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

/** Dedup: two writers insert the same address at once. Results: slot of writer 1, of writer 2, count(), references of writer 1's slot. */
@JCStressTest
@Description("Duplicate inserts from two actors end in one slot with two references.")
@Outcome(id = "0, 0, 1, 2", expect = ACCEPTABLE, desc = "one entry in slot 0 with two references")
@Outcome(id = "1, 1, 1, 2", expect = ACCEPTABLE, desc = "the claimer of slot 1 indexed first; the claimer of slot 0 " +
    "undid its claim and referenced slot 1")
@Outcome(id = "[23], [23], 1, 2", expect = ACCEPTABLE,
    desc = "a writer descheduled over the 1 ms grace had its uncommitted claim cancelled, gave it back and found the other's entry")
@Outcome(expect = FORBIDDEN, desc = "two entries for one address, a lost reference, or count() drift")
@State
public class DuplicateInsertTest
{
    final Fixture av = new Fixture(4);
    final ByteBuffer x1 = Fixture.address(7);
    final ByteBuffer x2 = Fixture.address(7);

    @Actor
    public void writer1(final JJJJ_Result r)
    {
        r.r1 = av.insert(av.w1, x1);
    }

    @Actor
    public void writer2(final JJJJ_Result r)
    {
        r.r2 = av.insert(av.w2, x2);
    }

    @Arbiter
    public void arbiter(final JJJJ_Result r)
    {
        r.r3 = av.checkedCount();
        r.r4 = r.r1 >= 0 ? av.refs(r.r1) : -1;
    }
}
