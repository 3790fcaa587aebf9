package org.shmav.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;

/** {@link AbstractInsertBench} at 1,000,000 entries: the AV's hash (16 MB) is mostly out of the cache. */
public class InsertBench extends AbstractInsertBench
{
    /** Entries of the AV filled by every invocation (the benchmark methods' OperationsPerInvocation). */
    public static final int ENTRIES = 1_000_000;

    @Override
    int entries()
    {
        return ENTRIES;
    }

    /** One insert call per address (what a process publishing one peer at a time does). */
    @Benchmark
    @OperationsPerInvocation(ENTRIES)
    public int insertOneByOne()
    {
        return oneByOne();
    }

    /** One insert call with all 1,000,000 addresses. */
    @Benchmark
    @OperationsPerInvocation(ENTRIES)
    public int insertBatch()
    {
        return batch();
    }
}
