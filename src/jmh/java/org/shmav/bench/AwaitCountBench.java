package org.shmav.bench;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.shmav.AddressVector;
import org.shmav.Domain;

/**
 * Wake-up latency of {@code awaitCount} across processes: this JVM and a child JVM ({@link AwaitEcho})
 * play ping-pong through two named AVs. Round r: this side inserts address r into "ping" and waits
 * until "pong" holds r + 1 entries; the child waits until "ping" holds r entries and inserts address r
 * into "pong". The score is the time per hop (half a round trip): from one process's insert to the
 * other's awaitCount returning and inserting in turn.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 10)
@Fork(1)
@State(Scope.Benchmark)
public class AwaitCountBench
{
    /** Round trips per iteration. */
    public static final int ROUNDS = 10_000;
    /** Capacity of both AVs: enough rounds for every iteration of one trial, and a sentinel. */
    static final int CAPACITY = 20 * ROUNDS + 1;
    private static final Duration WAIT = Duration.ofSeconds(20);

    private Domain domain;
    private String ping;
    private String pong;
    private AddressVector pingAv;
    private AddressVector pongAv;
    private ByteBuffer addrs;
    private Process child;
    private int round;

    @Setup(Level.Trial)
    public void startChild() throws Exception
    {
        domain = BenchAvs.domain();
        ping = BenchAvs.uniqueName("ping");
        pong = BenchAvs.uniqueName("pong");
        pingAv = BenchAvs.open(domain, BenchAvs.SHARED, ping, CAPACITY);
        pongAv = BenchAvs.open(domain, BenchAvs.SHARED, pong, CAPACITY);
        addrs = BenchAddresses.direct(0, CAPACITY);
        final Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        child = new ProcessBuilder(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
            "-D" + org.shmav.DomainAttr.SHM_DIR_PROPERTY + "=" + BenchAvs.shmDirectory(),
            AwaitEcho.class.getName(), ping, pong, Integer.toString(CAPACITY - 1)))
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(new File("/dev/null")))
            .start();
        if (!pongAv.awaitCount(1, WAIT)) // the child's sentinel: it is attached and waiting
        {
            throw new IllegalStateException("the echo child did not start");
        }
    }

    @TearDown(Level.Trial)
    public void stopChild() throws Exception
    {
        child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        BenchAvs.closeAndUnlink(domain, pingAv, BenchAvs.SHARED, ping);
        BenchAvs.closeAndUnlink(domain, pongAv, BenchAvs.SHARED, pong);
        domain.close();
    }

    @Benchmark
    @OperationsPerInvocation(2 * ROUNDS)
    public int pingPong()
    {
        final long[] one = new long[1];
        for (int i = 0; i < ROUNDS; i++)
        {
            final int r = ++round;
            addrs.position(r * BenchAddresses.ADDRLEN);
            pingAv.insert(addrs, 1, one, 0, null);
            if (!pongAv.awaitCount(r + 1, WAIT))
            {
                throw new IllegalStateException("no echo for round " + r);
            }
        }
        return round;
    }
}
