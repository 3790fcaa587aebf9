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
import org.shmav.shm.AttacherDescriptor;
import org.shmav.shm.Memory;
import org.shmav.shm.SlotDescriptor;

/**
 * Recover racing an insert: an AV of one slot whose entry a dead writer was removing (slot REMOVING,
 * journal OP_REMOVE). One thread recovers; another inserts B, which needs that slot (its insert
 * recovers too when it finds no FREE slot). Results: slots the recoverer repaired, B's slot or
 * -ENOSPC, count(), 1 when slot 0 holds B.
 */
@JCStressTest
@Description("A removal abandoned by a dead writer is finished exactly once, and its slot is reusable.")
@Outcome(id = "[01], 0, 1, 1", expect = ACCEPTABLE, desc = "the removal was finished (by either thread) and B reused the slot")
@Outcome(expect = FORBIDDEN, desc = "the slot stayed REMOVING, the entry was counted wrong, B went missing, or B got " +
    "FI_ENOSPC although the removal in flight was about to free the slot")
@State
public class RecoverRemovalInsertTest
{
    final Fixture av = new Fixture(1);
    final ByteBuffer b = Fixture.address(2);
    final ByteBuffer dst = ByteBuffer.allocate(Fixture.LEN);

    public RecoverRemovalInsertTest()
    {
        final Writer dead = av.table.attach(); // attacher entry 2
        av.insert(dead, Fixture.address(1)); // slot 0 VALID, journal delta 1
        final Memory m = av.region.memory();
        final int slot = av.region.layout().slot(0);
        final long word = m.getLongVolatile(slot);
        // Died right after its CAS VALID -> REMOVING, before the journal counted the removal.
        m.setLongVolatile(slot, SlotDescriptor.word(SlotDescriptor.REMOVING, dead.index(), SlotDescriptor.generation(word)));
        av.killAttacher(dead.index(), AttacherDescriptor.journal(1, AttacherDescriptor.OP_REMOVE, 0));
    }

    @Actor
    public void recoverer(final JJJJ_Result r)
    {
        r.r1 = av.table.recoverDead();
    }

    @Actor
    public void inserter(final JJJJ_Result r)
    {
        r.r2 = av.insert(av.w1, b);
    }

    @Arbiter
    public void arbiter(final JJJJ_Result r)
    {
        r.r3 = av.checkedCount();
        r.r4 = Fixture.classify(av.table.lookup(0, dst), dst, b);
    }
}
