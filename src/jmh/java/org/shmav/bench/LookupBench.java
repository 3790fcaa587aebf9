package org.shmav.bench;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
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
 * {@code fi_av_lookup} and reverse lookup on a full AV of {@code entries} addresses: each operation looks
 * up the next entry in fi_addr order (wrapping), as the C harness does, into a direct buffer.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class LookupBench
{
    @Param({BenchAvs.PRIVATE, BenchAvs.SHARED})
    public String av;

    @Param({"1000000"})
    public int entries;

    private Domain domain;
    private String name;
    private AddressVector vector;
    private long[] fiAddr;
    private ByteBuffer addrs;
    private final ByteBuffer out = ByteBuffer.allocateDirect(BenchAddresses.ADDRLEN);
    private int next;

    @Setup(Level.Trial)
    public void fill()
    {
        domain = BenchAvs.domain();
        name = BenchAvs.uniqueName("lookup");
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
        BenchAvs.closeAndUnlink(domain, vector, av, name);
        domain.close();
    }

    /** fi_addr to address: copies the 16 bytes of the next entry into a direct buffer. */
    @Benchmark
    public int lookup()
    {
        final int i = next;
        next = i + 1 == entries ? 0 : i + 1;
        return vector.lookup(fiAddr[i], out);
    }

    /** Lookups per {@link #lookupLoop} invocation: one pass over a 1M-entry AV, as memory_limits' lookup pass. */
    static final int LOOP = 1_000_000;

    /**
     * The same lookups as {@link #lookup}, {@link #LOOP} of them in one tight loop over the fi_addr
     * order: the form of memory_limits' C loop (no harness call per lookup), to compare like for like.
     */
    @Benchmark
    @OperationsPerInvocation(LOOP)
    public int lookupLoop()
    {
        // In locals, as the C loop keeps its pointers in registers: fields of this object would be loaded
        // again after every lookup's fence.
        final AddressVector v = vector;
        final long[] f = fiAddr;
        final ByteBuffer o = out;
        final int n = entries;
        int copied = 0;
        int i = next;
        for (int k = 0; k < LOOP; k++)
        {
            copied += v.lookup(f[i], o);
            i = i + 1 == n ? 0 : i + 1;
        }
        next = i;
        return copied;
    }

    /** Address to fi_addr: finds the next entry's address through the hash. */
    @Benchmark
    public long reverseLookup()
    {
        final int i = next;
        next = i + 1 == entries ? 0 : i + 1;
        addrs.position(i * BenchAddresses.ADDRLEN);
        return vector.reverseLookup(addrs);
    }
}
