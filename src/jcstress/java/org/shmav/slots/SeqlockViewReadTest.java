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

import org.shmav.AddrFormat;

/**
 * {@link SeqlockReadTest} through a handle's lookup path, for 16-byte addresses (sockaddr_in): the reader
 * looks slot 0 up through the table's {@link SlotView} into a direct buffer, as AddressVector.lookup does
 * (by address where the JDK allows: both words into registers, the state word compared, then stored).
 * A and B differ in both words. Results as there.
 */
@JCStressTest
@Description("A reader through the view (by address, into a direct buffer) never sees a torn address while the slot is reused.")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "read A before its removal")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "read between the removal and the reuse: no entry")
@Outcome(id = "2, 0", expect = ACCEPTABLE, desc = "read B after it was published in the reused slot")
@Outcome(id = "9, .*", expect = FORBIDDEN, desc = "torn: a mix of A and B, or bytes of a half-written slot")
@Outcome(expect = FORBIDDEN, desc = "B did not reuse slot 0")
@State
public class SeqlockViewReadTest
{
    private static final int LEN = 16;

    final Fixture av = new Fixture(AddrFormat.SOCKADDR_IN, 2);
    final ByteBuffer a = address(1);
    final ByteBuffer b = address(2);
    final ByteBuffer dst = ByteBuffer.allocateDirect(LEN);

    public SeqlockViewReadTest()
    {
        insert(a);
    }

    /** A sockaddr_in-sized address whose two words both differ from another {@code n}'s. */
    private static ByteBuffer address(final int n)
    {
        final ByteBuffer b = Fixture.address(n).limit(LEN).slice();
        b.put(0, (byte)2); // AF_INET
        return b;
    }

    private long insert(final ByteBuffer address)
    {
        return av.table.insert(av.w1, address, 0, LEN, -1L, Long.MIN_VALUE, 0);
    }

    @Actor
    public void writer(final JJ_Result r)
    {
        av.table.remove(av.w1, 0);
        r.r2 = insert(b);
    }

    @Actor
    public void reader(final JJ_Result r)
    {
        final SlotView view = av.table.view();
        r.r1 = Fixture.classify(0 < view.firstByAddress() ? view.lookupFirst(0, dst) : view.lookup(0, dst), LEN, dst, a, b);
    }
}
