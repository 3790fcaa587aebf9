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
import org.shmav.AddrFormat;
import org.shmav.AvType;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Memory;

/**
 * Two growers of segment 1 over its one range (layout 7: the grower that was taken over, waking, and
 * the one that took over) prepare and publish it at once ({@link SegmentGrowth#publishSegment}); A then
 * acts as a writer that sees segment 1 published and stores the fi_addr of its first slot in map_addr,
 * as an insert does, while B may still be in its preparation. Exactly one grower wins, and B's
 * preparation, however late, never undoes A's store (its map_addr stores are CAS from 0; with plain
 * stores, as in layout 6.0, it would). Two actors: jcstress runs no more actors than there are CPUs.
 * Results: whether A won, whether B won, whether A saw the segment published and stored, map_addr of
 * slot 2 (1 = the stored fi_addr, 2 = all ones, 0 = anything else).
 */
@JCStressTest
@Description("Two growers preparing and publishing one segment's range while a writer uses it: one wins, no store undone.")
@Outcome(id = {"1, 0, 1, 1", "0, 1, 1, 1"}, expect = ACCEPTABLE, desc = "published; the writer's store stands")
@Outcome(id = "0, 1, 0, 2", expect = ACCEPTABLE, desc = "B published; A looked before B raised segmentCount")
@Outcome(expect = FORBIDDEN, desc = "both or neither won, or a late preparation undid the writer's map_addr store")
@State
public class GrowPublishRaceTest
{
    private static final long FI_ADDR = 2;

    final AvLayout small = AvLayout.compute(AddrFormat.SOCKADDR_IN6, AvType.TABLE, 2, 4, 0, 0).growingTo(64);
    final AvLayout bigger = small.grownAt(small.fileLength());
    final Memory memory = new Memory(ByteBuffer.allocateDirect((int)bigger.fileLength())); // as a mapping: by address
    final Region growerA;
    final Region growerB;

    public GrowPublishRaceTest()
    {
        Region.initialize(memory, small, 1L << 32, 0, 0);
        growerA = new Region(memory, small, true);
        growerB = new Region(memory, small, true);
    }

    @Actor
    public void growerAThenWriter(final JJJJ_Result r)
    {
        r.r1 = SegmentGrowth.publishSegment(growerA, memory, bigger, () -> true) != null ? 1 : 0;
        if (memory.getIntAcquire(AvFileDescriptor.SEGMENT_COUNT_OFFSET) == 2)
        {
            memory.setLongVolatile(bigger.map(2), FI_ADDR);
            r.r3 = 1;
        }
    }

    @Actor
    public void growerB(final JJJJ_Result r)
    {
        r.r2 = SegmentGrowth.publishSegment(growerB, memory, bigger, () -> true) != null ? 1 : 0;
    }

    @Arbiter
    public void arbiter(final JJJJ_Result r)
    {
        final long map = memory.getLongVolatile(bigger.map(2));
        r.r4 = map == FI_ADDR ? 1 : map == -1L ? 2 : 0;
    }
}
