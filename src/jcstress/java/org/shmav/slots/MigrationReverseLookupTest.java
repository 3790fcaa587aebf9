package org.shmav.slots;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.nio.ByteBuffer;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.J_Result;

/**
 * Reverse lookup racing a migration of the index to the other area: Y is in slot 0 the whole time.
 * Result: what reverse lookup returned.
 */
@JCStressTest
@Description("A reverse lookup never misses a present address while the index migrates under it.")
@Outcome(id = "0", expect = ACCEPTABLE, desc = "found Y (through either area, or the slot scan when migrations overlapped)")
@Outcome(expect = FORBIDDEN, desc = "missed Y, or found it somewhere it is not")
@State
public class MigrationReverseLookupTest
{
    final Fixture av = new Fixture(4);
    final ByteBuffer y = Fixture.address(3);

    public MigrationReverseLookupTest()
    {
        av.insert(av.w1, Fixture.address(3));
        for (int i = 100; i < 120; i++)
        {
            av.table.remove(av.w1, av.insert(av.w1, Fixture.address(i)));
        }
    }

    @Actor
    public void migrator()
    {
        av.table.migrateIndex(av.w2);
    }

    @Actor
    public void reader(final J_Result r)
    {
        r.r1 = av.table.reverseLookup(y, 0, Fixture.LEN, -1L);
    }
}
