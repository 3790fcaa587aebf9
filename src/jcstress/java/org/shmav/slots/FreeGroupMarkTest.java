package org.shmav.slots;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.SlotDescriptor;

/**
 * One group of 64 slots, 0..62 taken: writer 1 frees slot 10 while writer 2 inserts, which claims
 * slot 63, the group's last (and then clears the group's mark and re-reads the group), or slot 10.
 * Results: writer 2's slot, the group's mark (1 set, 0 clear), FREE slots afterwards.
 */
@JCStressTest
@Description("A FREE slot's free group stays marked when a freeing races the claimer that clears the mark.")
@Outcome(id = "63, 1, 1", expect = ACCEPTABLE, desc = "writer 2 took slot 63; slot 10 is FREE and its group marked")
@Outcome(id = "10, 1, 1", expect = ACCEPTABLE, desc = "writer 2 took the freed slot 10; slot 63 is FREE, marked")
@Outcome(expect = FORBIDDEN, desc = "a FREE slot in an unmarked group (lost to the search), or a wrong claim")
@State
public class FreeGroupMarkTest
{
    final Fixture av = new Fixture(64);

    public FreeGroupMarkTest()
    {
        for (int i = 0; i < 63; i++)
        {
            av.insert(av.w1, Fixture.address(i));
        }
    }

    @Actor
    public void freer()
    {
        av.table.remove(av.w1, 10);
    }

    @Actor
    public void claimer(final JJJ_Result r)
    {
        r.r1 = av.insert(av.w2, Fixture.address(100));
    }

    @Arbiter
    public void arbiter(final JJJ_Result r)
    {
        r.r2 = av.region.memory().getLongVolatile(AvFileDescriptor.FREE_GROUPS_OFFSET) & 1;
        long free = 0;
        for (long i = 0; i < 64; i++)
        {
            if (SlotDescriptor.state(av.table.stateWord(i)) == SlotDescriptor.FREE)
            {
                free++;
            }
        }
        r.r3 = free;
    }
}
