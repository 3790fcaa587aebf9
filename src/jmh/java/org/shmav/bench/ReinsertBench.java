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
 * Remove one entry of a full AV of {@code entries} addresses, then insert the same address again (it
 * gets its index back: the lowest free one). The index moves by a prime stride, as in the C harness, so
 * every operation touches another part of the AV. One operation = one remove + one insert.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class ReinsertBench
{
    @Param({BenchAvs.PRIVATE, BenchAvs.SHARED})
    public String av;

    @Param({"1000000"})
    public int entries;

    private Domain domain;
    private String name;
    private AddressVector vector;
    private ByteBuffer addrs;
    private long[] fiAddr;
    private final long[] one = new long[1];
    private int k;

    @Setup(Level.Trial)
    public void fill()
    {
        domain = BenchAvs.domain();
        name = BenchAvs.uniqueName("reinsert");
        vector = BenchAvs.open(domain, av, name, entries);
        addrs = BenchAddresses.direct(0, entries);
        fiAddr = new long[entries];
        if (vector.insert(addrs, entries, fiAddr, 0, null) != entries)
        {
            throw new IllegalStateException("could not fill the AV");
        }
    }

    @TearDown(Level.Trial)
    public void close()
    {
        final long count = vector.count();
        BenchAvs.closeAndUnlink(domain, vector, av, name);
        domain.close();
        if (count != entries)
        {
            throw new IllegalStateException("AV holds " + count + " entries, expected " + entries);
        }
    }

    @Benchmark
    public long removeThenReinsert()
    {
        final int i = (int)((k + 7919L) % entries);
        k = i;
        one[0] = fiAddr[i];
        vector.remove(one, 1, 0);
        addrs.position(i * BenchAddresses.ADDRLEN);
        if (vector.insert(addrs, 1, one, 0, null) != 1 || one[0] != fiAddr[i])
        {
            throw new IllegalStateException("reinsert of entry " + i + " gave fi_addr " + one[0]);
        }
        return one[0];
    }
}
