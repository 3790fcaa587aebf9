package org.shmav.bench;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.Fi;

/**
 * Multi-process insert throughput: P writer JVMs insert M distinct addresses each, B addresses per
 * insert call (B = 1 unless given), at the same time, either all into one shared named AV or each into
 * a named AV of its own (the baseline without contention: the same P processes, the same work, no
 * shared slots); then every AV is checked: it holds exactly the addresses written to it, each found
 * once, at a distinct fi_addr whose lookup gives the address back.
 *
 * <pre>
 *   MultiWriter run P M [shared|separate|spread [B]]   coordinator: creates the AVs, starts P writers, waits, checks
 *   MultiWriter write NAME W M DIR MODE B              one writer (started by the coordinator)
 * </pre>
 *
 * Each writer warms up on AVs of its own (compiling {@link #insertAll}, the loop the timed part runs),
 * then takes part in rounds, each into new AVs made for it: practice rounds, where the writers meet one
 * another (the JIT compiles the contended branches of the insert path here: a branch first taken
 * throws compiled code away and recompiles it), until one passes with the writers' JIT all but idle
 * (at most {@link #MAX_PRACTICE_ROUNDS} of them), then {@link #TIMED_ROUNDS} timed rounds, of which the
 * median counts: methods of rare paths (a tag collision's key compare) reach C2's threshold in whichever
 * round their count does, and a compilation of 40-150 ms on one of 2 cores took a tenth to a third of
 * a timed round's throughput. Before each round a writer waits until
 * its JIT has compiled nothing for a second (at most 20 s): on 2 cores a compiler thread that still
 * runs takes a core from a writer, and the separate-AV baseline measured 1.8 to 3.9 M/s from run to run
 * that way. The coordinator's round file tells the writers whether a round is the run's last. The start
 * barrier is the coordinator's go file, polled every 100 us without spinning. Throughput of a round =
 * P * M / (last writer's end - first writer's start), both System.nanoTime (CLOCK_MONOTONIC, one clock
 * for every process of the machine). Every round's AVs are checked when it ends, then removed. The
 * coordinator prints "result multiwriter_P<P> VALUE inserts/s" (the median timed round) and "result
 * multiwriter_P<P>_check OK|FAILED", the practice rounds and the first one's rate, and each timed
 * round's rate and the JIT's time in it.
 */
public final class MultiWriter
{
    private static final java.lang.management.ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
    private static final java.lang.management.CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(180);
    /** The most practice rounds a run has before its timed rounds. */
    static final int MAX_PRACTICE_ROUNDS = 4;
    /** Timed rounds after the practice; the run's figure is their median. */
    static final int TIMED_ROUNDS = 3;
    /**
     * A practice round in which the writers' JIT compiled for less than this (all writers together) is
     * followed by the timed rounds; else by another practice round, up to {@link #MAX_PRACTICE_ROUNDS}.
     */
    private static final long QUIET_ROUND_JIT_MILLIS = 10;
    /** Calls of {@link #insertAll} in each of the warm-up's rounds at least: 3 rounds make it past C2's 5,000. */
    private static final int WARM_UP_CALLS = 6_000;
    /** What the round file of the run's last round says: the writers end after it. */
    private static final String LAST = "last";
    /** How long a writer's JIT must have compiled nothing before the writer reports ready. */
    private static final long QUIET_COMPILER_MILLIS = 1000;
    /** The longest a writer waits for a quiet JIT before reporting ready anyway. */
    private static final long QUIET_COMPILER_WAIT_NANOS = TimeUnit.SECONDS.toNanos(20);
    /** Longest wait for the AVs of earlier rounds to be unmapped before the next round. */
    private static final long UNMAP_WAIT_MILLIS = 10_000;

    private MultiWriter()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        if ("write".equals(args[0]))
        {
            write(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), Path.of(args[4]),
                Mode.valueOf(args[5].toUpperCase(Locale.ROOT)), Integer.parseInt(args[6]));
            return;
        }
        final Result r = run(Integer.parseInt(args[1]), Integer.parseInt(args[2]),
            args.length > 3 ? Mode.valueOf(args[3].toUpperCase(Locale.ROOT)) : Mode.SHARED,
            args.length > 4 ? Integer.parseInt(args[4]) : 1);
        System.out.println(r);
    }

    /**
     * Where the writers insert: all into one shared AV, each into one of its own, or all into one shared
     * AV through handles opened with {@code AvAttr.lowestIndex(false)} (claims spread out).
     */
    public enum Mode
    {
        SHARED, SEPARATE, SPREAD
    }

    /**
     * What one run measured: the median of its timed rounds (inserts/s counts addresses; the CPU time, page
     * faults and JIT time are that round's; {@code jitMillis}: the writers' JIT compilation during it, summed),
     * every timed round's rate and JIT time, the first practice round's rate for reference, and whether the
     * AVs were right afterwards.
     */
    public record Result(int writers, int perWriter, int batch, double insertsPerSecond, int practiceRounds,
        double practicePerSecond, boolean ok, String check, double cpuNanosPerInsert, double faultsPerInsert,
        long jitMillis, double[] timedPerSecond, long[] timedJitMillis)
    {
        @Override
        public String toString()
        {
            final String name = "multiwriter_P" + writers + (batch > 1 ? "_b" + batch : "");
            final StringBuilder timed = new StringBuilder();
            for (int k = 0; k < timedPerSecond.length; k++)
            {
                timed.append(k == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.0f (JIT %d ms)", timedPerSecond[k],
                    timedJitMillis[k]));
            }
            return String.format(Locale.ROOT, "practice rounds: %d, the first %.0f inserts/s%n"
                + "timed rounds: %s inserts/s%n"
                + "the median one: %.1f ns of the writers' CPU time and %.4f minor page faults per insert, "
                + "%d ms of JIT compilation in the writers meanwhile%n"
                + "result %s %.0f inserts/s%nresult %s_check %s (%s)",
                practiceRounds, practicePerSecond, timed, cpuNanosPerInsert, faultsPerInsert, jitMillis, name, insertsPerSecond,
                name, ok ? "OK" : "FAILED", check);
        }
    }

    /** {@link #run(int, int, Mode, int)} with one address per insert call. */
    public static Result run(final int writers, final int perWriter, final Mode mode) throws Exception
    {
        return run(writers, perWriter, mode, 1);
    }

    /**
     * Runs P writers of M addresses each, {@code batch} addresses per insert call, against one new named
     * AV, or ({@link Mode#SEPARATE}) writer w against a new named AV of its own, and checks the AV(s).
     */
    public static Result run(final int writers, final int perWriter, final Mode mode, final int batch) throws Exception
    {
        if (batch < 1)
        {
            throw new IllegalArgumentException("batch must be at least 1, not " + batch);
        }
        final boolean separate = mode == Mode.SEPARATE;
        final int avsPerRound = separate ? writers : 1;
        final String name = BenchAvs.uniqueName("multiwriter");
        final Path dir = Files.createTempDirectory("shmav-multiwriter");
        final List<Process> children = new ArrayList<>();
        final Map<String, AddressVector> created = new LinkedHashMap<>(); // by name, oldest first
        final Domain domain = BenchAvs.domain();
        int rounds = 0;
        try
        {
            final Path java = Path.of(System.getProperty("java.home"), "bin", "java");
            for (int w = 0; w < writers; w++)
            {
                children.add(new ProcessBuilder(java.toString(), "-Xmx256m", "-XX:+UseSerialGC",
                    "-D" + DomainAttr.SHM_DIR_PROPERTY + "=" + BenchAvs.shmDirectory(),
                    "-cp", System.getProperty("java.class.path"), MultiWriter.class.getName(),
                    "write", name, Integer.toString(w), Integer.toString(perWriter), dir.toString(),
                    mode.name().toLowerCase(Locale.ROOT), Integer.toString(batch))
                    .redirectErrorStream(true).redirectOutput(dir.resolve("writer-" + w + ".log").toFile()).start());
            }
            final long deadline = System.nanoTime() + WAIT_NANOS;
            final int maxRounds = MAX_PRACTICE_ROUNDS + TIMED_ROUNDS;
            final double[] perSecond = new double[maxRounds];
            final double[] cpuPerInsert = new double[maxRounds];
            final double[] faultsPerInsert = new double[maxRounds];
            final long[] jitMillis = new long[maxRounds];
            int practice = -1; // practice rounds, once the first timed round is known
            String check = "";
            for (int round = 0; practice < 0 || round < practice + TIMED_ROUNDS; round++)
            {
                // timed once a practice round ran with a quiet JIT: the rounds before it compiled what meeting
                // the other writers needs (a branch first taken in a timed round recompiled the claim path there)
                if (practice < 0 && (round == MAX_PRACTICE_ROUNDS || round > 0 && jitMillis[round - 1] < QUIET_ROUND_JIT_MILLIS))
                {
                    practice = round;
                }
                for (int a = 0; a < avsPerRound; a++)
                {
                    final String av = avName(name, round, separate, a);
                    created.put(av, BenchAvs.open(domain, BenchAvs.SHARED, av, separate ? perWriter : (long)writers * perWriter));
                }
                rounds = round + 1;
                final Path next = dir.resolve("round-" + round);
                Files.writeString(dir.resolve(next.getFileName() + ".tmp"),
                    practice >= 0 && round == practice + TIMED_ROUNDS - 1 ? LAST : practice >= 0 ? "timed" : "practice");
                Files.move(dir.resolve(next.getFileName() + ".tmp"), next);
                for (int w = 0; w < writers; w++)
                {
                    awaitFile(dir.resolve("ready-" + round + "-" + w), deadline, children.get(w));
                }
                // checked; every writer has closed them: unmapped here before the round, not by a cleaner inside it
                unmapped(removeRoundsBefore(domain, created, avsPerRound));
                Files.createFile(dir.resolve("go-" + round));
                long first = Long.MAX_VALUE;
                long last = Long.MIN_VALUE;
                long cpu = 0;
                long faults = 0;
                for (int w = 0; w < writers; w++)
                {
                    final Path done = dir.resolve("done-" + round + "-" + w);
                    awaitFile(done, deadline, children.get(w));
                    final String[] times = Files.readString(done).trim().split(" ");
                    first = Math.min(first, Long.parseLong(times[0]));
                    last = Math.max(last, Long.parseLong(times[1]));
                    cpu += Long.parseLong(times[2]);
                    faults += Long.parseLong(times[3]);
                    jitMillis[round] += Long.parseLong(times[4]);
                }
                perSecond[round] = (double)writers * perWriter / ((last - first) / 1e9);
                cpuPerInsert[round] = cpu / ((double)writers * perWriter);
                faultsPerInsert[round] = faults / ((double)writers * perWriter);
                for (int a = 0; a < avsPerRound && !check.startsWith("FAILED"); a++)
                {
                    final String av = avName(name, round, separate, a);
                    check = separate ? check(domain, av, a, 1, perWriter) : check(domain, av, 0, writers, perWriter);
                }
            }
            if (!check.startsWith("FAILED"))
            {
                check = (separate && writers > 1 ? writers + " AVs" : "the AV") + " of each of " + rounds + " rounds, " +
                    (separate && writers > 1 ? "each " : "") + check;
            }
            final double[] timed = Arrays.copyOfRange(perSecond, practice, rounds);
            final int median = practice + medianIndex(timed);
            return new Result(writers, perWriter, batch, perSecond[median], practice, perSecond[0],
                !check.startsWith("FAILED"), check, cpuPerInsert[median], faultsPerInsert[median], jitMillis[median], timed,
                Arrays.copyOfRange(jitMillis, practice, rounds));
        }
        finally
        {
            for (final Process p : children)
            {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            removeRoundsBefore(domain, created, 0);
            domain.close();
            try (var files = Files.list(dir))
            {
                for (final Path p : files.toList())
                {
                    Files.delete(p);
                }
            }
            Files.delete(dir);
        }
    }

    /** Closes and removes the AVs of {@code created} but its last {@code keep}. */
    private static List<String> removeRoundsBefore(final Domain domain, final Map<String, AddressVector> created, final int keep)
    {
        final List<String> removed = new ArrayList<>();
        final var oldest = created.entrySet().iterator();
        for (int n = created.size() - keep; n > 0; n--)
        {
            final Map.Entry<String, AddressVector> av = oldest.next();
            oldest.remove();
            av.getValue().close();
            domain.unlinkAv(av.getKey());
            removed.add(av.getKey());
        }
        return removed;
    }

    /** {@link BenchAvs#awaitUnmapped} of the AVs {@code closed}, within {@link #UNMAP_WAIT_MILLIS}; says so when not. */
    private static void unmapped(final List<String> closed) throws IOException, InterruptedException
    {
        if (!BenchAvs.awaitUnmapped(closed, UNMAP_WAIT_MILLIS))
        {
            System.err.println("still mapped after " + UNMAP_WAIT_MILLIS + " ms: " + closed + " (may be unmapped in a timed round)");
        }
    }

    /** The index of the median of {@code values} (of an even count, the lower middle one). */
    private static int medianIndex(final double[] values)
    {
        final Integer[] order = new Integer[values.length];
        for (int i = 0; i < order.length; i++)
        {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> Double.compare(values[x], values[y]));
        return order[(values.length - 1) / 2];
    }

    /** The AV of round {@code round}: one for all writers, or ({@code separate}) one per writer. */
    private static String avName(final String name, final int round, final boolean separate, final int writer)
    {
        return name + "-r" + round + (separate ? "-w" + writer : "");
    }

    /**
     * "count=..." when the AV {@code name} holds exactly the M addresses of each of writers
     * first .. first + writers - 1, each once, at a distinct fi_addr below the count whose lookup gives
     * it back; else "FAILED: " and what is wrong.
     */
    static String check(final Domain domain, final String name, final int first, final int writers, final int perWriter)
    {
        final long total = (long)writers * perWriter;
        try (AddressVector reader = domain.openAv(AvAttr.builder().name(name).flags(Fi.READ).build()))
        {
            if (reader.count() != total)
            {
                return "FAILED: count " + reader.count() + " != " + total;
            }
            final BitSet seen = new BitSet((int)total);
            final ByteBuffer out = ByteBuffer.allocateDirect(BenchAddresses.ADDRLEN);
            for (int w = first; w < first + writers; w++)
            {
                final ByteBuffer addrs = BenchAddresses.direct(w, perWriter);
                for (int i = 0; i < perWriter; i++)
                {
                    addrs.position(i * BenchAddresses.ADDRLEN);
                    final long fiAddr = reader.reverseLookup(addrs);
                    if (fiAddr < 0 || fiAddr >= total)
                    {
                        return "FAILED: address " + i + " of writer " + w + " not found";
                    }
                    if (seen.get((int)fiAddr))
                    {
                        return "FAILED: fi_addr " + fiAddr + " found for two addresses";
                    }
                    seen.set((int)fiAddr);
                    reader.lookup(fiAddr, out.clear());
                    for (int b = 0; b < BenchAddresses.ADDRLEN; b++)
                    {
                        if (out.get(b) != addrs.get(i * BenchAddresses.ADDRLEN + b))
                        {
                            return "FAILED: fi_addr " + fiAddr + " holds another address";
                        }
                    }
                }
            }
            return "count=" + total + ", every address found once at a distinct fi_addr";
        }
    }

    /** This process's minor page faults so far (/proc/self/stat field 10), or 0 where there is no /proc. */
    private static long minorFaults()
    {
        try
        {
            final String stat = Files.readString(Path.of("/proc/self/stat"));
            return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[7]);
        }
        catch (final IOException | RuntimeException e)
        {
            return 0;
        }
    }

    private static void awaitFile(final Path file, final long deadline, final Process child) throws Exception
    {
        while (!Files.exists(file))
        {
            if (System.nanoTime() - deadline > 0 || !child.isAlive() && !Files.exists(file))
            {
                throw new IllegalStateException("writer did not produce " + file.getFileName() + "; see its log in " +
                    file.getParent());
            }
            Thread.sleep(1);
        }
    }

    private static void write(final String name, final int writer, final int perWriter, final Path dir,
        final Mode mode, final int batch) throws Exception
    {
        final boolean spread = mode == Mode.SPREAD;
        final ByteBuffer addrs = BenchAddresses.direct(writer, perWriter);
        final long[] fiAddrs = new long[batch];
        try (Domain domain = BenchAvs.domain())
        {
            List<String> closed = warmUp(domain, writer, spread, batch);
            for (int round = 0; ; round++)
            {
                final boolean last = LAST.equals(awaitRound(dir.resolve("round-" + round), writer));
                // Every writer is done with the last round: unmap its AV now rather than in a timed round. It is
                // closed, and in no running frame (writeRound's), so a collection lets its cleaner go.
                unmapped(closed);
                final String av = avName(name, round, mode == Mode.SEPARATE, writer);
                writeRound(domain.openAv(AvAttr.builder().name(av).lowestIndex(!spread).build()), round, writer, dir, addrs,
                    fiAddrs);
                if (last)
                {
                    return;
                }
                closed = List.of(av);
            }
        }
    }

    /**
     * One round of a writer: {@code handle} (closed on return) gets the writer's addresses once the coordinator
     * says go, and the done file says what it cost. A method of its own so that no frame holds the handle once
     * the round is over (a loop's local kept the last one, and its mapping, until the next round).
     */
    private static void writeRound(final AddressVector handle, final int round, final int writer, final Path dir,
        final ByteBuffer addrs, final long[] fiAddrs) throws Exception
    {
        final int perWriter = addrs.capacity() / BenchAddresses.ADDRLEN;
        final int batch = fiAddrs.length;
        try (handle)
        {
            awaitQuietCompiler();
            Files.createFile(dir.resolve("ready-" + round + "-" + writer));
            awaitGo(dir.resolve("go-" + round), writer);
            final long faults0 = minorFaults();
            final long jit0 = JIT.getTotalCompilationTime();
            final long cpu0 = CPU.getCurrentThreadCpuTime();
            final long start = System.nanoTime();
            final int inserted = insertAll(handle, addrs, 0, perWriter, batch, fiAddrs);
            final long end = System.nanoTime();
            final long cpu = CPU.getCurrentThreadCpuTime() - cpu0;
            final long faults = minorFaults() - faults0;
            final long jit = JIT.getTotalCompilationTime() - jit0; // done meanwhile, by this writer's compiler threads
            if (inserted != perWriter)
            {
                throw new IllegalStateException("writer " + writer + " inserted " + inserted + " of " + perWriter +
                    " in round " + round);
            }
            final Path done = dir.resolve("done-" + round + "-" + writer);
            Files.writeString(dir.resolve(done.getFileName() + ".tmp"), start + " " + end + " " + cpu + " " + faults + " " + jit);
            Files.move(dir.resolve(done.getFileName() + ".tmp"), done);
        }
    }

    /** Waits for the coordinator's file of the next round (written whole, by a rename) and returns what it says. */
    private static String awaitRound(final Path round, final int writer) throws IOException
    {
        awaitGo(round, writer);
        return Files.readString(round).trim();
    }

    /**
     * Waits for the go file, polling every 100 us: a writer spinning on it would take a core from a
     * writer still getting ready (2 cores here).
     */
    private static void awaitGo(final Path go, final int writer)
    {
        final long deadline = System.nanoTime() + WAIT_NANOS;
        while (!Files.exists(go))
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException("writer " + writer + ": no " + go.getFileName() + " after " +
                    TimeUnit.NANOSECONDS.toSeconds(WAIT_NANOS) + " s");
            }
            LockSupport.parkNanos(100_000);
        }
    }

    /**
     * Returns once this JVM's JIT has compiled nothing for {@link #QUIET_COMPILER_MILLIS} (by its
     * total compilation time), or after {@link #QUIET_COMPILER_WAIT_NANOS}: compilations still running
     * when the timed inserts start take a core from them.
     */
    static void awaitQuietCompiler() throws InterruptedException
    {
        final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported())
        {
            Thread.sleep(2 * QUIET_COMPILER_MILLIS);
            return;
        }
        final long deadline = System.nanoTime() + QUIET_COMPILER_WAIT_NANOS;
        final long step = QUIET_COMPILER_MILLIS / 5;
        long last = jit.getTotalCompilationTime();
        for (int quiet = 0; quiet < 5 && System.nanoTime() - deadline < 0; )
        {
            Thread.sleep(step);
            final long now = jit.getTotalCompilationTime();
            quiet = now == last ? quiet + 1 : 0;
            last = now;
        }
    }

    /**
     * Compiles the insert path before the timed part: inserts into a named AV of its own, so that the
     * timed inserts run the code the JIT compiled for a named AV. (A private AV warmed the shared code
     * but not the named AV's types, and the timed part then recompiled: the same run varied 4x.)
     */
    static void warmUp(final Domain domain, final int writer)
    {
        warmUp(domain, writer, false, 1);
    }

    /**
     * Compiles the insert path a writer is about to time: into a named AV, spreading claims or not,
     * {@code batch} addresses per call. Returns the names of the AVs it made (closed and removed).
     */
    static List<String> warmUp(final Domain domain, final int writer, final boolean spread, final int batch)
    {
        final List<String> names = new ArrayList<>();
        // every call of insertAll one insert call: enough calls (past C2's 5,000) that it is compiled whole
        final int n = Math.max(100_000, WARM_UP_CALLS * batch);
        final ByteBuffer addrs = BenchAddresses.direct(writer + 100, n);
        final long[] fiAddrs = new long[batch];
        for (int round = 0; round < 3; round++)
        {
            final String name = BenchAvs.uniqueName("warmup");
            final AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).count(n).name(name)
                .lowestIndex(!spread).build());
            for (int i = 0; i < n; i += batch)
            {
                insertAll(av, addrs, i, Math.min(batch, n - i), batch, fiAddrs);
            }
            BenchAvs.closeAndUnlink(domain, av, BenchAvs.SHARED, name);
            names.add(name);
        }
        return names;
    }

    /**
     * Inserts addresses [from, from + count) of {@code addrs} into {@code av}, {@code batch} a call; returns
     * how many were inserted. The timed part is one call of it, which the warm-up has compiled: a timed loop
     * in the body of the method that runs once (as it was) was compiled in the middle of a timed round (on-stack
     * replacement, with the whole insert path inlined), and that compilation took a core from the writers
     * for 100-250 ms of a 200-500 ms round.
     */
    static int insertAll(final AddressVector av, final ByteBuffer addrs, final int from, final int count, final int batch,
        final long[] fiAddrs)
    {
        int inserted = 0;
        for (int i = from; i < from + count; i += batch)
        {
            addrs.position(i * BenchAddresses.ADDRLEN);
            inserted += av.insert(addrs, Math.min(batch, from + count - i), fiAddrs, 0, null);
        }
        return inserted;
    }
}
