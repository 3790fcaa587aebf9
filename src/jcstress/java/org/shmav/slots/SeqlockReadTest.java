package org.shmav.slots;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.nio.ByteBuffer;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * Publish and read: slot 0 holds A; a writer removes it and inserts B, which reuses slot 0 (the
 * lowest free) with other bytes in every word. A reader looks slot 0 up meanwhile. Results: what
 * the reader got (0 nothing, 1 A, 2 B, 9 anything else), the slot B got.
 */
@JCStressTest
@Description("A reader never sees a torn address while the slot is removed and reused.")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "read A before its removal")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "read between the removal and the reuse: no entry")
@Outcome(id = "2, 0", expect = ACCEPTABLE, desc = "read B after it was published in the reused slot")
@Outcome(id = "9, .*", expect = FORBIDDEN, desc = "torn: a mix of A and B, or bytes of a half-written slot")
@Outcome(expect = FORBIDDEN, desc = "B did not reuse slot 0")
@State
public class SeqlockReadTest
{
    final Fixture av = new Fixture(2);
    final ByteBuffer a = Fixture.address(1);
    final ByteBuffer b = Fixture.address(2);
    final ByteBuffer dst = ByteBuffer.allocate(Fixture.LEN);

    public SeqlockReadTest()
    {
        av.insert(av.w1, Fixture.address(1));
    }

    @Actor
    public void writer(final JJ_Result r)
    {
        av.table.remove(av.w1, 0);
        r.r2 = av.insert(av.w1, b);
    }

    @Actor
    public void reader(final JJ_Result r)
    {
        r.r1 = Fixture.classify(av.table.lookup(0, dst), dst, a, b);
    }
}
