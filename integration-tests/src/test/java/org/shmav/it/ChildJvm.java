package org.shmav.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real child of an integration test: a main class of the test classpath in a new JVM ({@link #start}),
 * or a project script that starts one with the test classpath ({@link #script}). Its stdout and stderr
 * each go to a file (no pipe to fill up). Every wait is bounded; a child still running at its deadline,
 * or when closed, is killed with SIGKILL, its descendants too, and reaped. One instance per child, used by
 * the test thread that started it. The one place tests start processes and wait for them: a command run to
 * its end ({@link #run}), a child whose output is awaited ({@link #awaitOutput}).
 */
public final class ChildJvm implements AutoCloseable
{
    /** How long a killed child may take to be reaped. */
    private static final long REAP_SECONDS = 10;

    private final Process process;
    private final Path stdout;
    private final Path stderr;

    private ChildJvm(final Process process, final Path stdout, final Path stderr)
    {
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
    }

    /** Starts {@code main} with {@code args} in a new JVM that shares this JVM's classpath. */
    public static ChildJvm start(final Class<?> main, final Path outputDir, final String... args) throws IOException
    {
        return start(List.of(), System.getProperty("java.class.path"), Map.of(), main, outputDir, args);
    }

    /**
     * Starts {@code main} in a new JVM run through {@code prefix} (e.g. {@code setpriv --reuid=...}, to
     * run it as another user), with {@code classpath} and extra environment variables.
     */
    public static ChildJvm start(final List<String> prefix, final String classpath, final Map<String, String> env,
        final Class<?> main, final Path outputDir, final String... args) throws IOException
    {
        return start(Path.of(System.getProperty("java.home")), prefix, classpath, env, main, outputDir, args);
    }

    /** {@link #start(List, String, Map, Class, Path, String...)} with the JDK or JRE at {@code javaHome}. */
    public static ChildJvm start(final Path javaHome, final List<String> prefix, final String classpath,
        final Map<String, String> env, final Class<?> main, final Path outputDir, final String... args) throws IOException
    {
        final List<String> command = new ArrayList<>(prefix);
        command.add(javaHome.resolve("bin").resolve("java").toString());
        command.add("-XX:-UsePerfData"); // no hsperfdata file: the child may run as a user without a home
        command.add("-Xmx256m");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.addAll(HelperArchive.classpathArgs(javaHome, classpath)); // -cp, with the helpers' archive where it fits
        command.add(main.getName());
        command.addAll(List.of(args));
        return launch(command, null, env, outputDir, main.getSimpleName());
    }

    /** Runs any {@code command} (a launcher such as mpirun, a JVM of the tools jar) the same way. */
    public static ChildJvm command(final List<String> command, final Map<String, String> env, final Path outputDir)
        throws IOException
    {
        return command(command, null, env, outputDir);
    }

    /** {@link #command(List, Map, Path)} in the working directory {@code cwd} (null: this JVM's). */
    public static ChildJvm command(final List<String> command, final Path cwd, final Map<String, String> env,
        final Path outputDir) throws IOException
    {
        return launch(command, cwd, env, outputDir, Path.of(command.get(0)).getFileName().toString());
    }

    /**
     * Runs {@code command} to its end, at most {@code timeout} (then it is killed and the test fails), with its
     * output in files of a temporary directory removed afterwards: a tool such as mount, gcc or a script.
     */
    public static Outcome run(final List<String> command, final Path cwd, final Duration timeout)
        throws IOException, InterruptedException
    {
        final Path outputDir = Files.createTempDirectory("shmav-command-");
        try (ChildJvm child = command(command, cwd, Map.of(), outputDir))
        {
            final int code = child.waitFor(timeout);
            return new Outcome(command, code, child.stdout(), child.stderr());
        }
        finally
        {
            TestDir.delete(outputDir);
        }
    }

    /** {@link #run(List, Path, Duration)} in this JVM's working directory. */
    public static Outcome run(final List<String> command, final Duration timeout) throws IOException, InterruptedException
    {
        return run(command, null, timeout);
    }

    /** How a command run by {@link #run} ended: its exit code and what it wrote. */
    public record Outcome(List<String> command, int code, String stdout, String stderr)
    {
        /** {@return whether it exited with 0} */
        public boolean ok()
        {
            return code == 0;
        }

        @Override
        public String toString()
        {
            return String.join(" ", command) + ": exit " + code + "\nstdout:\n" + stdout + "stderr:\n" + stderr;
        }
    }

    /**
     * Runs a project script ({@code scripts/NAME}) with the test classpath, so that it builds nothing, as
     * a terminal's foreground job starts it: with SIGINT at its default action. A build started in the
     * background of a shell without job control ignores SIGINT, every child inherits that, and a JVM
     * leaves an ignored SIGINT ignored: avrun could not be stopped with it (coreutils' env resets it).
     */
    public static ChildJvm script(final String name, final Map<String, String> env, final Path outputDir,
        final List<String> args) throws IOException
    {
        final List<String> command = new ArrayList<>(List.of("env", "--default-signal=INT"));
        command.add(Path.of("scripts", name).toAbsolutePath().toString());
        command.addAll(args);
        final Map<String, String> all = new HashMap<>(env);
        all.put("SHMAV_CLASSPATH", System.getProperty("java.class.path"));
        return launch(command, null, all, outputDir, name);
    }

    private static ChildJvm launch(final List<String> command, final Path cwd, final Map<String, String> env,
        final Path outputDir, final String label) throws IOException
    {
        Files.createDirectories(outputDir);
        final Path out = Files.createTempFile(outputDir, label + "-", ".out");
        final Path err = Files.createTempFile(outputDir, label + "-", ".err");
        final ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        if (cwd != null)
        {
            builder.directory(cwd.toFile());
        }
        builder.environment().putAll(env);
        return new ChildJvm(builder.start(), out, err);
    }

    public long pid()
    {
        return process.pid();
    }

    public boolean isAlive()
    {
        return process.isAlive();
    }

    /** Waits for the exit code; kills the child and throws if it has not exited within {@code timeout}. */
    public int waitFor(final Duration timeout) throws InterruptedException
    {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS))
        {
            kill();
            throw new AssertionError("child " + process.pid() + " " + process.info().commandLine().orElse("") +
                " did not exit within " + timeout + "; output:\n" + output());
        }
        return process.exitValue();
    }

    /** SIGKILL to the child and its descendants, then a bounded reap, so that no pid is left as a zombie. */
    public void kill()
    {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try
        {
            process.waitFor(REAP_SECONDS, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Waits, at most {@code within}, until the child's output (stdout, then stderr) holds {@code text};
     * fails the test with that output when the child exits first or the time runs out.
     */
    public void awaitOutput(final String text, final Duration within) throws InterruptedException
    {
        final long deadline = System.nanoTime() + within.toNanos();
        while (!output().contains(text))
        {
            if (!isAlive() || System.nanoTime() - deadline > 0)
            {
                org.junit.jupiter.api.Assertions.fail((isAlive() ? "no '" + text + "' within " + within :
                    "child exited before '" + text + "'") + ":\n" + output());
            }
            Thread.sleep(5);
        }
    }

    /** Everything the child wrote so far: its stdout, then its stderr. */
    public String output()
    {
        return stdout() + stderr();
    }

    /** Everything the child wrote to stdout so far. */
    public String stdout()
    {
        return read(stdout);
    }

    /** Everything the child wrote to stderr so far. */
    public String stderr()
    {
        return read(stderr);
    }

    private static String read(final Path file)
    {
        try
        {
            return Files.readString(file, StandardCharsets.UTF_8);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    /** Kills the child if it still runs; never throws, so try-with-resources stays lint-clean. */
    @Override
    public void close()
    {
        if (process.isAlive())
        {
            kill();
        }
    }
}
