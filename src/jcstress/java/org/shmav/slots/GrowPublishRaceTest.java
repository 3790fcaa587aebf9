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
 * Two growers of segment 1, each with its own prepared range (layout 6: a grower taken over, waking,
 * and the one that took over), publish at once ({@link SegmentGrowth#publishSegment}). Exactly one range
 * becomes segment 1, segmentCount is 2, and the loser learns it lost (null), so it gives its range back
 * and writes nothing more. Results: whether grower A won, whether B won, the range the table names
 * (1 = A's, 2 = B's), segmentCount.
 */
@JCStressTest
@Description("Two growers racing to publish one segment from two ranges: one wins, the other learns it.")
@Outcome(id = "1, 0, 1, 2", expect = ACCEPTABLE, desc = "A's range published; B lost")
@Outcome(id = "0, 1, 2, 2", expect = ACCEPTABLE, desc = "B's range published; A lost")
@Outcome(expect = FORBIDDEN, desc = "both or neither won, the table names the loser's range, or the count is wrong")
@State
public class GrowPublishRaceTest
{
    final AvLayout small = AvLayout.compute(AddrFormat.SOCKADDR_IN6, AvType.TABLE, 2, 4, 0, 0).growingTo(64);
    final AvLayout rangeA = small.grownAt(small.fileLength());
    final AvLayout rangeB = small.grownAt(rangeA.fileLength());
    final Memory memory = new Memory(ByteBuffer.allocateDirect((int)rangeB.fileLength())); // as a mapping: by address
    final Region growerA;
    final Region growerB;

    public GrowPublishRaceTest()
    {
        Region.initialize(memory, small, 1L << 32, 0, 0);
        growerA = new Region(memory, small, true);
        growerB = new Region(memory, small, true);
    }

    @Actor
    public void growerA(final JJJJ_Result r)
    {
        r.r1 = SegmentGrowth.publishSegment(growerA, memory, rangeA, () -> true) != null ? 1 : 0;
    }

    @Actor
    public void growerB(final JJJJ_Result r)
    {
        r.r2 = SegmentGrowth.publishSegment(growerB, memory, rangeB, () -> true) != null ? 1 : 0;
    }

    @Arbiter
    public void arbiter(final JJJJ_Result r)
    {
        final long start = memory.getLongVolatile(AvFileDescriptor.segmentOffset(1) + AvFileDescriptor.SEGMENT_SLOTS_OFFSET);
        r.r3 = start == rangeA.segmentSlotsOffset(1) ? 1 : start == rangeB.segmentSlotsOffset(1) ? 2 : 0;
        r.r4 = memory.getIntAcquire(AvFileDescriptor.SEGMENT_COUNT_OFFSET);
    }
}
