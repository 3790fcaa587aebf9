package org.shmav.bench;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

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
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;
import org.shmav.AddressVector;
import org.shmav.Domain;

/**
 * Filling an empty AV: one {@code fi_av_insert} call per address, or one call with all of them. Each
 * iteration gets a fresh AV (created outside the timed part); the score is per address. Subclasses
 * choose the size: {@link InsertBench} 1,000,000 entries, {@link InsertBench100k} 100,000 (whose hash
 * still fits in the cache).
 *
 * <p>JMH's GC profiler counts the allocations of the whole iteration, setup included (creating the AV
 * allocates a few kilobytes, about 0.01 byte per insert). So each invocation also reads the bytes its
 * own thread allocated inside the timed loop, and a measurement iteration fails if that is not 0 (the
 * first warmup iteration runs partly interpreted, where allocations the compiler removes still happen).
 * This class holds no string constant that the timed loop does not use: when the JIT compiles a method,
 * the thread that asked for it first resolves every string constant of the method's class, allocating
 * each (a measured iteration once failed with "allocated 152 bytes": this class's two failure
 * messages, created inside the loop by the compile of {@link #oneByOne}). The messages are in
 * {@link LoopChecks}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 7)
@Fork(1)
@State(Scope.Thread)
public abstract class AbstractInsertBench
{
    @Param({BenchAvs.PRIVATE, BenchAvs.SHARED})
    public String av;

    private Domain domain;
    private ByteBuffer addrs;
    private long[] fiAddr;
    private final long[] one = new long[1];
    private String name;
    private AddressVector vector;
    private long loopAllocated;

    /** Addresses inserted by each invocation. */
    abstract int entries();

    /** Whether a measured iteration fails when its timed loop allocated (growth may allocate per segment). */
    boolean loopMustNotAllocate()
    {
        return true;
    }

    /** The count the AV is created with: room for every entry, unless a subclass times growth. */
    long capacity()
    {
        return entries();
    }

    @Setup(Level.Trial)
    public void addresses()
    {
        domain = BenchAvs.domain();
        addrs = BenchAddresses.direct(0, entries());
        fiAddr = new long[entries()];
    }

    @Setup(Level.Iteration)
    public void emptyAv()
    {
        name = BenchAvs.uniqueName("insert");
        vector = BenchAvs.open(domain, av, name, capacity());
    }

    @TearDown(Level.Iteration)
    public void check(final IterationParams iteration)
    {
        final long count = vector.count();
        BenchAvs.closeAndUnlink(domain, vector, av, name);
        LoopChecks.entries(count, entries());
        if (iteration.getType() == IterationType.MEASUREMENT && loopMustNotAllocate())
        {
            LoopChecks.noAllocation(loopAllocated);
        }
    }

    @TearDown(Level.Trial)
    public void close()
    {
        domain.close();
    }

    /** One insert call per address. */
    final int oneByOne()
    {
        final int n = entries();
        final long before = Allocation.ofThisThread();
        int inserted = 0;
        for (int i = 0; i < n; i++)
        {
            addrs.position(i * BenchAddresses.ADDRLEN);
            inserted += vector.insert(addrs, 1, one, 0, null);
        }
        loopAllocated = Allocation.ofThisThread() - before;
        addrs.position(0);
        return inserted;
    }

    /** One insert call with every address. */
    final int batch()
    {
        final long before = Allocation.ofThisThread();
        final int inserted = vector.insert(addrs, entries(), fiAddr, 0, null);
        loopAllocated = Allocation.ofThisThread() - before;
        return inserted;
    }
}
