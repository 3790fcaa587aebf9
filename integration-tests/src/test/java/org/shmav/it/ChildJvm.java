package org.shmav.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real child JVM running a main class of the test classpath, with its output in a file (no pipe
 * to fill up). Every wait is bounded; a child still running at its deadline is killed with SIGKILL.
 */
public final class ChildJvm implements AutoCloseable
{
    private final Process process;
    private final Path output;

    private ChildJvm(final Process process, final Path output)
    {
        this.process = process;
        this.output = output;
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
        final List<String> command = new ArrayList<>(prefix);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-XX:-UsePerfData"); // no hsperfdata file: the child may run as a user without a home
        command.add("-Xmx256m");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(classpath);
        command.add(main.getName());
        command.addAll(List.of(args));
        Files.createDirectories(outputDir);
        final Path output = Files.createTempFile(outputDir, main.getSimpleName() + "-", ".log");
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        builder.environment().putAll(env);
        final Process p = builder.start();
        return new ChildJvm(p, output);
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
    public int waitFor(final Duration timeout) throws InterruptedException, IOException
    {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS))
        {
            kill();
            throw new AssertionError("child " + process.pid() + " did not exit within " + timeout + "; output:\n" + output());
        }
        return process.exitValue();
    }

    /** SIGKILL, then reap, so that the pid is not left as a zombie. */
    public void kill()
    {
        process.destroyForcibly();
        try
        {
            process.waitFor(10, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** Everything the child printed so far. */
    public String output() throws IOException
    {
        return Files.readString(output, StandardCharsets.UTF_8);
    }

    /** Kills the child if it still runs (SIGKILL, then a bounded reap); never throws, so try-with-resources stays lint-clean. */
    @Override
    public void close()
    {
        if (process.isAlive())
        {
            process.destroyForcibly();
            try
            {
                process.waitFor(10, TimeUnit.SECONDS);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }
    }
}
