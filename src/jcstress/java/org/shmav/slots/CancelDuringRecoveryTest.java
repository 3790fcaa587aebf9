package org.shmav.slots;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.shmav.shm.SlotDescriptor;

/**
 * A recoverer of a dead writer repairs the claim it read, CLAIMED(a,g), while an inserter of the same
 * address that found the writer alive (the recoverer holds its lock) cancels that claim: CAS to
 * CANCELLED(a,g). Whichever CAS lands first, the slot must end FREE: the recoverer looks again after a
 * failed repair. Results: 1 when the cancel's CAS won, then the slot's final state (0 FREE).
 */
@JCStressTest
@Description("A claim cancelled while its dead owner's recoverer repairs it is still freed.")
@Outcome(id = {"1, 0", "0, 0"}, expect = ACCEPTABLE, desc = "the slot is FREE, cancelled first or not")
@Outcome(expect = FORBIDDEN, desc = "the slot was left CANCELLED (or another state) under the dead writer's entry")
@State
public class CancelDuringRecoveryTest
{
    final Fixture av = new Fixture(2);
    final Writer dead;
    final long slot;
    final long claimed;

    public CancelDuringRecoveryTest()
    {
        dead = av.table.attach();
        slot = av.claimFilledIndexed(dead, Fixture.address(2));
        claimed = av.table.stateWord(slot);
    }

    @Actor
    public void recoverer()
    {
        av.table.repairHeld(slot, claimed, dead.index());
    }

    @Actor
    public void canceller(final II_Result r)
    {
        r.r1 = av.region.memory().compareAndSetLong(av.region.layout().slot(slot) + SlotDescriptor.STATE_OFFSET, claimed,
            SlotDescriptor.word(SlotDescriptor.CANCELLED, dead.index(), SlotDescriptor.generation(claimed))) ? 1 : 0;
    }

    @Arbiter
    public void arbiter(final II_Result r)
    {
        r.r2 = SlotDescriptor.state(av.table.stateWord(slot));
    }
}
