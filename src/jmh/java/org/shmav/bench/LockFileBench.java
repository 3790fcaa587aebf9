package org.shmav.bench;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.shm.AvFileChannel;
import org.shmav.shm.AvFileLocks;
import org.shmav.shm.AvLockFile;

/**
 * What the lock kind of lock files costs: the open-file-description locks taken through JNA by default,
 * against FileChannel's POSIX locks ({@code -jvmArgsAppend -Dshmav.locks=posix}). {@code lockAndUnlock}
 * is a writer's lock of its entry's byte and its release (attach, detach, a recoverer's claim);
 * {@code probe} a liveness test of a free byte (recovery); {@code attachWriter} a writer's
 * {@code fi_av_open} and close of a named AV with nobody else attached in this JVM (so the AV file and
 * the lock file are opened and closed each time).
 * {@code scripts/bench LockFileBench} and {@code scripts/bench LockFileBench -jvmArgsAppend -Dshmav.locks=posix}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 300, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 5, time = 300, timeUnit = TimeUnit.MILLISECONDS)
@Fork(1)
public class LockFileBench
{
    /** An attacher byte nobody else takes: past the header's lock bytes. */
    private static final long BYTE = 1_000_000;

    /** A named AV of this run, made and removed with the state. */
    @State(Scope.Thread)
    public static class Av
    {
        Domain domain;
        String name;
        AvAttr attr;

        @Setup
        public void create()
        {
            System.out.println("lock files: " + AvFileChannel.lockKind());
            domain = BenchAvs.domain();
            name = BenchAvs.uniqueName("locks");
            attr = AvAttr.builder().type(AvType.TABLE).name(name).count(64).build();
            domain.openAv(attr).close();
        }

        @TearDown
        public void remove()
        {
            domain.unlinkAv(name);
            domain.close();
        }
    }

    /** The lock file of an AV of its own, held open. */
    @State(Scope.Thread)
    public static class Locks extends Av
    {
        AvFileChannel lockFile;

        @Setup
        public void open() throws java.io.IOException
        {
            lockFile = AvFileChannel.openLockFile(AvLockFile.of(BenchAvs.shmDirectory().resolve(name)), true);
        }

        @TearDown
        public void close()
        {
            lockFile.close();
        }
    }

    @Benchmark
    public boolean lockAndUnlock(final Locks l)
    {
        final boolean locked = l.lockFile.locks().tryLock(BYTE);
        l.lockFile.locks().unlock(BYTE);
        return locked;
    }

    @Benchmark
    public AvFileLocks.Probe probe(final Locks l)
    {
        return l.lockFile.locks().probe(BYTE + 64);
    }

    @Benchmark
    public long attachWriter(final Av a)
    {
        try (AddressVector av = a.domain.openAv(a.attr))
        {
            return av.count();
        }
    }
}
