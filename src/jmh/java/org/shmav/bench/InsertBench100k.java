package org.shmav.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Warmup;

/** {@link AbstractInsertBench} at 100,000 entries: the AV's hash (2 MB) fits in the cache. */
@Warmup(iterations = 10)
@Measurement(iterations = 20)
public class InsertBench100k extends AbstractInsertBench
{
    /** Entries of the AV filled by every invocation (the benchmark methods' OperationsPerInvocation). */
    public static final int ENTRIES = 100_000;

    @Override
    int entries()
    {
        return ENTRIES;
    }

    /** One insert call per address. */
    @Benchmark
    @OperationsPerInvocation(ENTRIES)
    public int insertOneByOne100k()
    {
        return oneByOne();
    }

    /** One insert call with all 100,000 addresses. */
    @Benchmark
    @OperationsPerInvocation(ENTRIES)
    public int insertBatch100k()
    {
        return batch();
    }
}
