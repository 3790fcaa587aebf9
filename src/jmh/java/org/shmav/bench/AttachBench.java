package org.shmav.bench;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
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
 * {@code fi_av_open} with FI_READ on a named AV of {@code entries} entries that a writer keeps open, and
 * the reader's close. The cost must not depend on the entry count. Each iteration is short and starts
 * with a GC, and waits until the mappings of the readers closed before are gone (they are unmapped
 * when their buffers are collected): so they never pile up to the kernel's limit on mappings per
 * process, and the unmapping, which holds the process's memory-map lock, never runs concurrently
 * with the attaches being timed.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 200, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 10, time = 100, timeUnit = TimeUnit.MILLISECONDS)
@Fork(1)
@State(Scope.Thread)
public class AttachBench
{
    @Param({"1000", "100000", "1000000"})
    public int entries;

    private Domain domain;
    private String name;
    private AddressVector writer;
    private long mappedAtStart;

    @Setup(Level.Trial)
    public void create()
    {
        domain = BenchAvs.domain();
        name = BenchAvs.uniqueName("attach");
        writer = BenchAvs.open(domain, BenchAvs.SHARED, name, entries);
        if (writer.insert(BenchAddresses.direct(0, entries), entries, null, 0, null) != entries)
        {
            throw new IllegalStateException("could not fill the AV");
        }
        System.gc();
        mappedAtStart = mappedPool().getCount();
    }

    /** The JVM's count of live mapped buffers (a closed reader's stays until its buffer is collected). */
    private static BufferPoolMXBean mappedPool()
    {
        return ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
            .filter(pool -> pool.getName().equals("mapped")).findFirst().orElseThrow();
    }

    @Setup(Level.Iteration)
    public void collectClosedMappings() throws InterruptedException
    {
        final BufferPoolMXBean mapped = mappedPool();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        do
        {
            System.gc();
            Thread.sleep(5);
        }
        while (mapped.getCount() > mappedAtStart && System.nanoTime() < deadline);
    }

    @TearDown(Level.Trial)
    public void close()
    {
        BenchAvs.closeAndUnlink(domain, writer, BenchAvs.SHARED, name);
        domain.close();
    }

    /** Attach read-only, check the entry count is visible, close. */
    @Benchmark
    public long attachReadOnly()
    {
        try (AddressVector reader = BenchAvs.attachReadOnly(domain, name))
        {
            return reader.attr().count();
        }
    }
}
