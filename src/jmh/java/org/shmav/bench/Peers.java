package org.shmav.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The child processes of a comparison: libfabric's AVs through the C harness, the memory system's limits
 * (benchmarks/c/memory_limits.c: the seqlock read of shmav's slot layout, streaming bandwidth, random-read
 * latency), Chronicle Map's writer and reader JVMs, and any shmav JVM that prints "result NAME VALUE
 * UNIT" lines. Every child has a deadline; past it, or when the driver fails, the child and its
 * descendants are killed.
 */
final class Peers
{
    /** The JVM flags Chronicle Map 2026.1 needs on Java 17 (see /work/shared/java-stack.md). */
    static final List<String> CHRONICLE_FLAGS = List.of(
        "--add-opens", "java.base/java.lang.reflect=ALL-UNNAMED",
        "--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
        "--add-opens", "java.base/java.lang=ALL-UNNAMED",
        "--add-exports", "jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
        "-Dchronicle.analytics.disable=true");

    private static final Duration DEADLINE = Duration.ofMinutes(5);

    /** Slot sizes of the C seqlock read: shmav's 64-byte slot, and a compact 32-byte one for comparison. */
    static final int[] SLOT_BYTES = {64, 32};
    /** Megabytes of the streaming read that measures the memory bandwidth of one core. */
    static final int STREAM_MB = 256;
    /** Megabytes of the random-read latency mapping: the size of the hash of a named AV of 1M entries. */
    static final int RANDOM_MB = 16;
    /** Hash sizes of the insert model: none, about an L2's (2 MiB a core here), a 1M-entry AV's. */
    static final int[] INSERT_MODEL_MB = {0, 2, RANDOM_MB};
    /**
     * Operations of other work per modelled insert, standing in for shmav's own instructions: 400 matched at load
     * 20-165; on a quiet host 700 does (benchmarks.md, Insert: atomics and lines). Kept at 400 so that every
     * model row stays comparable with the pages before; a change moves the growth and writer models' bars too.
     */
    static final int INSERT_MODEL_WORK = 400;

    /** How the writer model claims, as each of shmav's writer rows does; {@code result} names it in memory_limits' results. */
    enum WriterClaims
    {
        /** One frontier: shmav's default rule, one call per address. */
        FRONTIER("run1", "--run", "1"),
        /** Each writer in a part of its own: lowestIndex(false). */
        SPREAD("spread0", "--spread"),
        /** Runs of 64 from the shared hint: batches of 64 under the default rule. */
        RUNS_OF_64("run64", "--run", "64");

        final String result;
        final List<String> args;

        WriterClaims(final String result, final String... args)
        {
            this.result = result;
            this.args = List.of(args);
        }
    }

    private final Path harness;
    private final Path limits;

    Peers(final Path harness, final Path limits)
    {
        this.harness = harness;
        this.limits = limits;
    }

    /**
     * The C loop doing only the seqlock read of a lookup over {@code n} slots in /dev/shm, in fi_addr
     * order, for each of {@link #SLOT_BYTES}: "limit.lookup_64" and "limit.lookup_32", ns per lookup; and
     * the same loop over 64-byte slots doing also a lookup call's loads and checks: "limit.lookup_64_handle".
     */
    Map<String, Double> limitLookup(final int n) throws Exception
    {
        final Map<String, Double> figures = new LinkedHashMap<>();
        for (final int slot : SLOT_BYTES)
        {
            figures.putAll(prefixed("limit", exec(limitLookupCommand(n, slot))));
        }
        figures.putAll(prefixed("limit", exec(handleLookupCommand(n))));
        return figures;
    }

    List<String> limitLookupCommand(final int n, final int slotBytes)
    {
        return List.of(limits.toString(), "lookup", Integer.toString(n), Integer.toString(slotBytes), "--passes", "10");
    }

    /** {@link #limitLookupCommand} over 64-byte slots behind what one shmav lookup call also loads and checks. */
    List<String> handleLookupCommand(final int n)
    {
        final List<String> command = new ArrayList<>(limitLookupCommand(n, 64));
        command.add("--handle");
        return command;
    }

    /**
     * The memory system of this host: "memory.stream_read" (GB/s, one core reading {@value #STREAM_MB}
     * MB) and "memory.random_read_16mb" (ns per dependent random read in {@value #RANDOM_MB} MB of /dev/shm).
     */
    Map<String, Double> memory() throws Exception
    {
        final Map<String, Double> figures = new LinkedHashMap<>(prefixed("memory", exec(bandwidthCommand())));
        figures.putAll(prefixed("memory", exec(latencyCommand())));
        for (final int mb : INSERT_MODEL_MB)
        {
            figures.putAll(prefixed("memory", exec(insertModelCommand(Integer.toString(mb)))));
        }
        return figures;
    }

    /** The key of {@link #memory}'s insert model figure with a hash of {@code mb} MB (0: none), ns per insert. */
    static String insertModelKey(final int mb)
    {
        return "memory.insert_model_" + mb + "mb_w" + INSERT_MODEL_WORK;
    }

    /**
     * One insert's memory traffic without shmav's code (memory_limits insert): a random bucket CAS in
     * {@code mb} MB (0: none; "MB" for the page's command list), the slot and map_addr written in order,
     * {@value #INSERT_MODEL_WORK} operations of other work per insert; "memory.insert_model_{mb}mb_w{work}" in ns.
     */
    List<String> insertModelCommand(final String mb)
    {
        return List.of(limits.toString(), "insert", mb, "--work", Integer.toString(INSERT_MODEL_WORK));
    }

    /**
     * The insert model growing as a named AV does (memory_limits insert-grow): 1M inserts, with
     * {@value #INSERT_MODEL_WORK} operations of other work each, into an AV created with {@code first}
     * slots; "model.insert_grow_first{first}" (elapsed) and "..._cpu", in ns per insert.
     */
    Map<String, Double> growthModel(final String first) throws Exception
    {
        return prefixed("model", exec(growthModelCommand(first)));
    }

    List<String> growthModelCommand(final String first)
    {
        return List.of(limits.toString(), "insert-grow", "1000000", "--first", first, "--work",
            Integer.toString(INSERT_MODEL_WORK), "--passes", "2");
    }

    /**
     * Two writers at the memory system's pace (memory_limits insert-writers, one round): {@code perWriter}
     * inserts each with the insert model's atomics and lines, all into one region and each into a region of
     * its own; throughputs under {@link #writersModelKey}, inserts/s.
     */
    Map<String, Double> writersModel(final int perWriter, final WriterClaims claims) throws Exception
    {
        return prefixed("model", exec(writersModelCommand(Integer.toString(perWriter), claims)));
    }

    /** The key of {@link #writersModel}'s throughput into one region ({@code one}) or a region each. */
    static String writersModelKey(final WriterClaims claims, final boolean one)
    {
        return "model.insert_writers_p2_" + claims.result + (one ? "_one" : "_each");
    }

    List<String> writersModelCommand(final String perWriter, final WriterClaims claims)
    {
        final List<String> command = new ArrayList<>(List.of(limits.toString(), "insert-writers", "2", "--inserts", perWriter,
            "--work", Integer.toString(INSERT_MODEL_WORK), "--passes", "1"));
        command.addAll(claims.args);
        return command;
    }

    List<String> bandwidthCommand()
    {
        return List.of(limits.toString(), "bandwidth", Integer.toString(STREAM_MB), "--passes", "5");
    }

    List<String> latencyCommand()
    {
        return List.of(limits.toString(), "latency", Integer.toString(RANDOM_MB));
    }

    /** The C harness on libfabric's sockets named AV of {@code n} entries; figures under {@code prefix}. */
    Map<String, Double> sockets(final String prefix, final int n, final int cycles, final int attaches)
        throws Exception
    {
        return prefixed(prefix, exec(socketsCommand(n, cycles, attaches)));
    }

    List<String> socketsCommand(final int n, final int cycles, final int attaches)
    {
        return List.of(harness.toString(), "sockets", Integer.toString(n), "--named", "--cycles", Integer.toString(cycles),
            "--attach", Integer.toString(attaches));
    }

    /** The C harness on the tcp;ofi_rxm util AV of {@code n} entries. */
    Map<String, Double> tcp(final int n, final int cycles) throws Exception
    {
        return prefixed("tcp", exec(tcpCommand(n, cycles)));
    }

    List<String> tcpCommand(final int n, final int cycles)
    {
        return List.of(harness.toString(), "tcp", Integer.toString(n), "--cycles", Integer.toString(cycles));
    }

    /** Chronicle Map: a writer JVM puts {@code n} entries into a new map file, a reader JVM gets them. */
    Map<String, Double> chronicle(final int n) throws Exception
    {
        final Path file = BenchAvs.shmDirectory().resolve(BenchAvs.uniqueName("chronicle"));
        try
        {
            final Map<String, Double> figures = new LinkedHashMap<>(prefixed("chronicle", exec(chronicleCommand("write", file, n))));
            figures.putAll(prefixed("chronicle", exec(chronicleCommand("read", file, n))));
            return figures;
        }
        finally
        {
            Files.deleteIfExists(file);
        }
    }

    static List<String> chronicleCommand(final String mode, final Path file, final int n)
    {
        final List<String> command = new ArrayList<>(List.of(java(), "-Xmx1g"));
        command.addAll(CHRONICLE_FLAGS);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ChronicleMapPeer.class.getName(), mode,
            file.toString(), Integer.toString(n)));
        if ("read".equals(mode))
        {
            command.add("5");
        }
        return command;
    }

    /** A JVM on this classpath running {@code main} with {@code args}. */
    static List<String> javaCommand(final Class<?> main, final String... args)
    {
        final List<String> command = new ArrayList<>(List.of(java(), "-Xmx1g", "-XX:+UseSerialGC",
            "-D" + org.shmav.DomainAttr.SHM_DIR_PROPERTY + "=" + BenchAvs.shmDirectory(),
            "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        return command;
    }

    static String java()
    {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** {@code command} as the page shows it: the classpath as $CP. */
    static String show(final List<String> command)
    {
        return String.join(" ", command).replace(System.getProperty("java.class.path"), "$CP");
    }

    private static Map<String, Double> prefixed(final String prefix, final Map<String, Double> figures)
    {
        final Map<String, Double> out = new LinkedHashMap<>();
        figures.forEach((k, v) -> out.put(prefix + "." + k, v));
        return out;
    }

    /**
     * Runs a child process to completion, at most {@link #DEADLINE}, and returns its "result NAME VALUE
     * UNIT" lines; throws, with its output, when it fails or overruns (it is killed then).
     */
    static Map<String, Double> exec(final List<String> command) throws Exception
    {
        System.out.println("# " + show(command));
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        final Map<String, Double> found = new LinkedHashMap<>();
        final StringBuilder output = new StringBuilder();
        // The output is read on its own thread so that a silent, hung child cannot hold the driver past the deadline.
        final Thread reader = new Thread(() -> read(p, found, output), "peer-output");
        reader.setDaemon(true);
        reader.start();
        try
        {
            final boolean exited = p.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            reader.join(TimeUnit.SECONDS.toMillis(10));
            if (!exited || p.exitValue() != 0)
            {
                synchronized (found)
                {
                    throw new IOException("failed (" + (exited ? "exit " + p.exitValue() : "no exit in " + DEADLINE) +
                        "): " + show(command) + "\n" + output);
                }
            }
        }
        finally
        {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        synchronized (found)
        {
            return new LinkedHashMap<>(found);
        }
    }

    private static void read(final Process p, final Map<String, Double> found, final StringBuilder output)
    {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                System.out.println("  " + line);
                final String[] f = line.trim().split("\\s+");
                synchronized (found)
                {
                    output.append(line).append('\n');
                    if (f.length >= 3 && "result".equals(f[0]) && f[2].matches("-?[0-9.]+(e-?[0-9]+)?"))
                    {
                        found.put(f[1], Double.parseDouble(f[2]));
                    }
                }
            }
        }
        catch (final IOException e)
        {
            synchronized (found)
            {
                output.append("(reading its output: ").append(e).append(")\n");
            }
        }
    }
}
