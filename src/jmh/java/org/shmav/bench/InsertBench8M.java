package org.shmav.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link AbstractInsertBench} at 2^23 entries: the AV's hash (128 MB, 512 MB of slots beside it) is
 * past the last-level cache of the hosts this project measures on, so every insert's bucket is a miss
 * to memory (the large-AV row of docs/performance.md; {@code memory_limits insert-shmav 128} is its model).
 */
@Warmup(iterations = 2)
@Measurement(iterations = 3)
public class InsertBench8M extends AbstractInsertBench
{
    /** Entries of the AV filled by every invocation (the benchmark methods' OperationsPerInvocation). */
    public static final int ENTRIES = 1 << 23;

    @Override
    int entries()
    {
        return ENTRIES;
    }

    /** One insert call per address. */
    @Benchmark
    @OperationsPerInvocation(ENTRIES)
    public int insertOneByOne8M()
    {
        return oneByOne();
    }
}
