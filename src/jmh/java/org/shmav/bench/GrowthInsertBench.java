package org.shmav.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;

/**
 * Issue 13 item 6: filling a named AV with 1,000,000 addresses, one call each, when it was created
 * with count 1 (so it grows all the way) against count 1,000,000 (room from the start). Needs growth
 * of named AVs past their count (layout 3.0); without it the count-1 AV answers FI_ENOSPC at its
 * second insert and the iteration fails ({@link GrowthRounds} checks first and skips).
 */
public class GrowthInsertBench extends AbstractInsertBench
{
    /** The count the AV is created with. */
    @Param({"1", "1000000"})
    public long created;

    @Override
    int entries()
    {
        return InsertBench.ENTRIES;
    }

    @Override
    long capacity()
    {
        return created;
    }

    /** Growing maps new segments, which allocates a little heap per segment (not per insert). */
    @Override
    boolean loopMustNotAllocate()
    {
        return created >= entries();
    }

    @Benchmark
    @OperationsPerInvocation(InsertBench.ENTRIES)
    public int growthInsert()
    {
        return oneByOne();
    }
}
