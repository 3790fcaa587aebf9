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
import org.openjdk.jcstress.infra.results.JJJJJJJJ_Result;
import org.shmav.FabricException;
import org.shmav.shm.AttacherDescriptor;
import org.shmav.shm.SlotDescriptor;

/**
 * Takeover racing a live owner: writer {@code owner} (its entry's lock held in the local liveness)
 * inserts A while a recoverer runs recoverDead() and then recoverAttacher(owner). A dead writer
 * (lock free) holds slot 0 CLAIMED, so the recoverer has real work: it must undo that claim, and
 * nothing of the live owner's. Results: A's slot (-EIO when the owner's insert found its entry taken
 * from it), slots repaired by recoverDead(), by recoverAttacher(owner), checked count(), what A's
 * slot holds (1 A, 0 nothing, 9 else), 1 when the owner's entry still holds its token, 1 when its
 * lock is still held, 1 when the dead entry was freed.
 */
@JCStressTest
@Description("Recovery never touches a live owner's entry or slots, even mid-insert.")
@Outcome(id = "1, 1, 0, 1, 1, 1, 1, 1", expect = ACCEPTABLE,
    desc = "A at slot 1 (the dead claim still held slot 0 when the owner claimed); the dead claim undone; the owner untouched")
@Outcome(id = "0, 1, 0, 1, 1, 1, 1, 1", expect = ACCEPTABLE,
    desc = "the dead claim was undone first and A re-used slot 0; the owner untouched")
@Outcome(expect = FORBIDDEN,
    desc = "the live owner's entry or slots were recovered: its insert lost or undone, its entry freed or unlocked, count wrong")
@State
public class LiveOwnerRecoveryTest
{
    final Fixture av = new Fixture(2);
    final ByteBuffer a = Fixture.address(1);
    final ByteBuffer dst = ByteBuffer.allocate(Fixture.LEN);
    final Writer owner = av.w2; // attacher entry 1, attached: its lock is held
    final Writer dead;

    public LiveOwnerRecoveryTest()
    {
        dead = av.table.attach(); // attacher entry 2
        av.claimFilledIndexed(dead, Fixture.address(2)); // slot 0 CLAIMED by the dead writer
        av.killAttacher(dead.index(), AttacherDescriptor.journal(0, AttacherDescriptor.OP_NONE, 0));
    }

    @Actor
    public void owner(final JJJJJJJJ_Result r)
    {
        try
        {
            r.r1 = av.insert(owner, a);
        }
        catch (final FabricException e)
        {
            r.r1 = -e.errno(); // FI_EIO: the owner found its entry taken from it
        }
    }

    @Actor
    public void recoverer(final JJJJJJJJ_Result r)
    {
        r.r2 = av.table.recoverDead();
        r.r3 = av.table.recoverAttacher(owner.index());
    }

    @Arbiter
    public void arbiter(final JJJJJJJJ_Result r)
    {
        r.r4 = av.checkedCount();
        r.r5 = r.r1 >= 0 && r.r1 < 2 ? Fixture.classify(av.table.lookup(r.r1, dst), dst, a) : 9;
        r.r6 = av.region.memory().getLongVolatile(av.region.layout().attacher(owner.index())
            + AttacherDescriptor.TOKEN_OFFSET) != 0 ? 1 : 0;
        r.r7 = av.region.liveness().isHeld(owner.index()) ? 1 : 0;
        r.r8 = av.region.memory().getLongVolatile(av.region.layout().attacher(dead.index())
            + AttacherDescriptor.TOKEN_OFFSET) == 0
            && SlotDescriptor.state(av.table.stateWord(0)) != SlotDescriptor.CLAIMED ? 1 : 0;
    }
}
