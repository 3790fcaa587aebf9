package org.shmav.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** What the benchmarks ran on: hardware, versions, and how busy the machine was. */
final class Machine
{
    /** The machine counts as quiet below this 1-minute load average, with no other JVM running. */
    static final double QUIET_LOAD = 1.0;

    private Machine()
    {
    }

    /** Load averages and the other JVMs running at one moment. */
    record Load(String when, double load1, double load5, double load15, List<String> otherJvms)
    {
        boolean quiet()
        {
            return load1 < QUIET_LOAD && otherJvms.isEmpty();
        }

        String describe()
        {
            return String.format("%s: load average %.2f, %.2f, %.2f; other JVMs: %s", when, load1, load5, load15,
                otherJvms.isEmpty() ? "none" : otherJvms.size() + " (" + String.join("; ", otherJvms) + ")");
        }
    }

    /** The 1-minute load average from /proc/loadavg, NaN where there is none. */
    static double load1()
    {
        try
        {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+")[0]);
        }
        catch (final IOException | RuntimeException e)
        {
            return Double.NaN;
        }
    }

    static Load load()
    {
        double[] avg = {Double.NaN, Double.NaN, Double.NaN};
        try
        {
            final String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            avg = new double[] {Double.parseDouble(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2])};
        }
        catch (final IOException | RuntimeException e)
        {
            // not Linux: leave NaN
        }
        final long self = ProcessHandle.current().pid();
        final List<String> jvms = new ArrayList<>();
        ProcessHandle.allProcesses()
            .filter(p -> p.pid() != self && p.parent().map(q -> q.pid() != self).orElse(true))
            .forEach(p ->
            {
                final String cmd = p.info().commandLine().orElse("");
                if (cmd.matches("^\\S*java\\s.*"))
                {
                    jvms.add("pid " + p.pid() + " " + shorten(cmd));
                }
            });
        return new Load(Compare.now(), avg[0], avg[1], avg[2], jvms);
    }

    /**
     * Waits up to {@code seconds} for the machine to be quiet (1-minute load under {@value #QUIET_LOAD}, no
     * other JVM), checking every 10 s; returns the load at the start of the run, quiet or not.
     */
    static Load waitForQuiet(final long seconds) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        Load l = load();
        while (!l.quiet() && System.nanoTime() < deadline)
        {
            System.out.println("# not quiet yet: " + l.describe());
            Thread.sleep(10_000);
            l = load();
        }
        System.out.println("# " + l.describe());
        return l;
    }

    /**
     * What memory_limits insert measured: ns per modelled insert without a hash, and what a random
     * bucket CAS adds at each hash size.
     */
    private static String insertModel(final Map<String, Double> memory)
    {
        final double none = memory.getOrDefault(Peers.insertModelKey(0), Double.NaN);
        final StringBuilder text = new StringBuilder(String.format(Locale.ROOT, "%.1f ns per insert without a hash", none));
        for (final int mb : Peers.INSERT_MODEL_MB)
        {
            if (mb > 0)
            {
                final double with = memory.getOrDefault(Peers.insertModelKey(mb), Double.NaN);
                text.append(String.format(Locale.ROOT, "; %.1f with a random bucket CAS in %d MB (+%.1f)", with, mb, with - none));
            }
        }
        return text.append(" (memory_limits insert MB --work ").append(Peers.INSERT_MODEL_WORK)
            .append(": per insert, the CASes and stores of a slot and map_addr in order, ").append(Peers.INSERT_MODEL_WORK)
            .append(" operations of other work, and a CAS of a bucket at a random place; see profiles.md)").toString();
    }

    /**
     * Hardware and software versions, as label -> text, with the memory figures measured by
     * benchmarks/c/memory_limits.c ({@link Peers#memory()}).
     */
    static Map<String, String> describe(final Path harness, final Path limits, final Map<String, Double> memory)
    {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put("CPUs (nproc)", Integer.toString(Runtime.getRuntime().availableProcessors()));
        m.put("CPU model", firstMatch(Path.of("/proc/cpuinfo"), "model name"));
        m.put("Caches (CPU 0)", caches(Path.of("/sys/devices/system/cpu/cpu0/cache")));
        m.put("Memory", firstMatch(Path.of("/proc/meminfo"), "MemTotal"));
        m.put("Memory bandwidth (measured now)", String.format(Locale.ROOT,
            "%.1f GB/s, one core streaming through %d MB (memory_limits bandwidth)",
            memory.getOrDefault("memory.stream_read", Double.NaN), Peers.STREAM_MB));
        m.put("Random-read latency (measured now)", String.format(Locale.ROOT,
            "%.1f ns per dependent read of a 64-byte line at a random place in a %d MB /dev/shm mapping, the size of "
                + "the hash of a 1M-entry AV (memory_limits latency)",
            memory.getOrDefault("memory.random_read_16mb", Double.NaN), Peers.RANDOM_MB));
        m.put("Insert model (measured now)", insertModel(memory));
        m.put("Transparent huge pages for /dev/shm (shmem_enabled)",
            read(Path.of("/sys/kernel/mm/transparent_hugepage/shmem_enabled")));
        m.put("Memory given back to a hypervisor", memoryGivenBack());
        m.put("Kernel", run("uname", "-sr"));
        m.put("/dev/shm", run("df", "-h", "--output=size,fstype", BenchAvs.shmDirectory().toString()).replace('\n', ' '));
        m.put("Java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") +
            " (" + System.getProperty("java.vendor") + ")");
        m.put("JMH", org.openjdk.jmh.util.Utils.class.getPackage().getImplementationVersion() == null
            ? jarVersion("jmh-core") : org.openjdk.jmh.util.Utils.class.getPackage().getImplementationVersion());
        m.put("libfabric", run("fi_info", "--version").replace('\n', ' '));
        m.put("Chronicle Map", jarVersion("chronicle-map"));
        m.put("gcc", run("gcc", "-dumpfullversion"));
        m.put("C harness", harness.toString() + ", " + limits);
        return m;
    }

    /**
     * The caches CPU 0 sees, from sysfs, e.g. "L1d 32K, L1i 32K, L2 1024K, L3 32768K (shared by CPUs
     * 0-1)"; "?" where sysfs has no cache directory.
     */
    static String caches(final Path dir)
    {
        final List<String> out = new ArrayList<>();
        for (int i = 0; Files.isDirectory(dir.resolve("index" + i)); i++)
        {
            final Path index = dir.resolve("index" + i);
            final String type = read(index.resolve("type"));
            final String suffix = "Data".equals(type) ? "d" : "Instruction".equals(type) ? "i" : "";
            final String shared = read(index.resolve("shared_cpu_list"));
            out.add("L" + read(index.resolve("level")) + suffix + " " + read(index.resolve("size")) +
                (shared.matches("\\d+") ? "" : " (shared by CPUs " + shared + ")"));
        }
        return out.isEmpty() ? "?" : String.join(", ", out);
    }

    /**
     * Whether freed memory goes back to a hypervisor: free page reporting (virtio-balloon) and DAMON
     * schemes. Where either runs, a timed loop that takes fresh pages (a growth) may pay the host's
     * faults to get them back, at a cost that varies from run to run (docs/profiles.md, Growth).
     */
    static String memoryGivenBack()
    {
        final List<String> found = new ArrayList<>();
        final Path order = Path.of("/sys/module/page_reporting/parameters/page_reporting_order");
        if (Files.exists(order))
        {
            found.add("free page reporting to the host (free blocks of order " + read(order) + " and up)");
        }
        final Path kdamonds = Path.of("/sys/kernel/mm/damon/admin/kdamonds");
        try (var dirs = Files.list(kdamonds))
        {
            for (final Path k : dirs.filter(Files::isDirectory).sorted().toList())
            {
                if ("on".equals(read(k.resolve("state"))))
                {
                    found.add("DAMON kdamond " + k.getFileName() + " on (" + damonActions(k) + ")");
                }
            }
        }
        catch (final IOException e)
        {
            // no DAMON sysfs interface here
        }
        return found.isEmpty() ? "none found" : String.join("; ", found);
    }

    /** The actions of a running kdamond's schemes, e.g. "pageout". */
    private static String damonActions(final Path kdamond)
    {
        try (var files = Files.walk(kdamond.resolve("contexts"), 4))
        {
            final List<String> actions = files.filter(f -> f.getFileName().toString().equals("action"))
                .map(Machine::read).distinct().toList();
            return actions.isEmpty() ? "no schemes" : "schemes: " + String.join(", ", actions);
        }
        catch (final IOException e)
        {
            return "schemes unknown";
        }
    }

    private static String read(final Path file)
    {
        try
        {
            return Files.readString(file).trim();
        }
        catch (final IOException e)
        {
            return "?";
        }
    }

    private static String jarVersion(final String artifact)
    {
        for (final String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator))
        {
            final String file = Path.of(entry).getFileName().toString();
            if (file.startsWith(artifact + "-") && file.endsWith(".jar"))
            {
                return file.substring(artifact.length() + 1, file.length() - 4);
            }
        }
        return "?";
    }

    private static String firstMatch(final Path file, final String key)
    {
        try
        {
            for (final String line : Files.readAllLines(file))
            {
                if (line.startsWith(key))
                {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        }
        catch (final IOException e)
        {
            // fall through
        }
        return "?";
    }

    static String run(final String... command)
    {
        try
        {
            final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            final StringBuilder out = new StringBuilder();
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)))
            {
                String line;
                while ((line = in.readLine()) != null)
                {
                    out.append(out.length() == 0 ? "" : "\n").append(line.trim());
                }
            }
            p.waitFor(30, TimeUnit.SECONDS);
            return out.toString();
        }
        catch (final IOException | InterruptedException e)
        {
            return "?";
        }
    }

    private static String shorten(final String cmd)
    {
        final String main = cmd.replaceAll("-cp\\s+\\S+|-classpath\\s+\\S+", "-cp ...");
        return main.length() > 120 ? main.substring(0, 117) + "..." : main;
    }
}
