package org.shmav.bench;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.shmav.AddressVector;
import org.shmav.Domain;

/**
 * Issue 13 item 6: {@code fi_av_lookup} on a named AV of 1,000,000 entries that was created with
 * count 1 and grew to hold them (one insert call each), against one created with count 1,000,000.
 * Same access pattern as {@link LookupBench}: the next entry in fi_addr order, into a direct buffer.
 * Needs growth of named AVs past their count ({@link GrowthRounds} checks first).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class GrowthLookupBench
{
    /** The count the AV is created with; it holds 1,000,000 entries either way. */
    @Param({"1", "1000000"})
    public long created;

    private static final int ENTRIES = 1_000_000;

    private Domain domain;
    private String name;
    private AddressVector vector;
    private long[] fiAddr;
    private final ByteBuffer out = ByteBuffer.allocateDirect(BenchAddresses.ADDRLEN);
    private int next;

    @Setup(Level.Trial)
    public void fill()
    {
        domain = BenchAvs.domain();
        name = BenchAvs.uniqueName("growlookup");
        vector = BenchAvs.open(domain, BenchAvs.SHARED, name, created);
        final ByteBuffer addrs = BenchAddresses.direct(0, ENTRIES);
        fiAddr = new long[ENTRIES];
        final long[] one = new long[1];
        for (int i = 0; i < ENTRIES; i++)
        {
            addrs.position(i * BenchAddresses.ADDRLEN);
            if (vector.insert(addrs, 1, one, 0, null) != 1)
            {
                throw new IllegalStateException("insert " + i + " failed into an AV created with count " + created);
            }
            fiAddr[i] = one[0];
        }
    }

    @TearDown(Level.Trial)
    public void close()
    {
        BenchAvs.closeAndUnlink(domain, vector, BenchAvs.SHARED, name);
        domain.close();
    }

    @Benchmark
    public int growthLookup()
    {
        final int i = next;
        next = i + 1 == ENTRIES ? 0 : i + 1;
        return vector.lookup(fiAddr[i], out);
    }
}
