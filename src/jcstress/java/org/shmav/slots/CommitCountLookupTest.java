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
import org.openjdk.jcstress.infra.results.JJJJJ_Result;

/**
 * A commit racing a reader that counts, then looks up: writer w holds slot 0 CLAIMED, filled with A and
 * indexed, and commits it (CLAIMED to PUBLISHING, counted in its journal), then stops there, as a
 * writer frozen between its commit and its publish does. The reader calls count(), then lookup(0),
 * then reverse lookup of A. A count of 1 is a promise that the entry can be read: the lookup must then
 * find A, and a lookup that found it promises the reverse lookup finds it too.
 * Results: the commit's return, the count, the lookup (0 nothing, 1 A, 9 anything else), the reverse
 * lookup (the slot, or -1), and checked count() after both (count and entries agree).
 */
@JCStressTest
@Description("count() == n means n entries can be looked up, even while their writer has not published.")
@Outcome(id = "0, 0, 0, -1, 1", expect = ACCEPTABLE, desc = "the reader ran before the commit")
@Outcome(id = "0, 0, 0, 0, 1", expect = ACCEPTABLE, desc = "the commit came between the lookup and the reverse lookup")
@Outcome(id = "0, 0, 1, 0, 1", expect = ACCEPTABLE, desc = "the commit came between the count and the lookup")
@Outcome(id = "0, 1, 1, 0, 1", expect = ACCEPTABLE, desc = "the reader ran after the commit: counted and found")
@Outcome(id = "0, 1, 0, .*", expect = FORBIDDEN, desc = "counted, but the lookup denies it (the reader waited for the publish)")
@Outcome(expect = FORBIDDEN, desc = "garbage, a reverse lookup that misses a found entry, or count() and entries disagree")
@State
public class CommitCountLookupTest
{
    final Fixture av = new Fixture(4);
    final ByteBuffer a = Fixture.address(3);
    final ByteBuffer key = Fixture.address(3);
    final ByteBuffer dst = ByteBuffer.allocate(Fixture.LEN);
    final Writer w;

    public CommitCountLookupTest()
    {
        w = av.table.attach();
        av.claimFilledIndexed(w, a); // slot 0 CLAIMED(w), A written and indexed
    }

    @Actor
    public void committer(final JJJJJ_Result r)
    {
        r.r1 = av.table.commitClaim(w, 0); // and no publish: the writer stops here
    }

    @Actor
    public void reader(final JJJJJ_Result r)
    {
        r.r2 = av.table.count();
        r.r3 = Fixture.classify(av.table.lookup(0, dst), dst, a);
        r.r4 = av.table.reverseLookup(key, 0, Fixture.LEN, -1L);
    }

    @Arbiter
    public void arbiter(final JJJJJ_Result r)
    {
        r.r5 = av.checkedCount();
    }
}
