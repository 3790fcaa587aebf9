package org.shmav.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real child process running a command (a script of the project, a shell), with its stdout and
 * stderr each in a file (no pipe to fill up). Every wait is bounded; a child still running at its
 * deadline is killed with SIGKILL, its descendants too. {@link ChildJvm} is the same for a Java main.
 */
public final class ChildProcess implements AutoCloseable
{
    private final Process process;
    private final Path stdout;
    private final Path stderr;

    private ChildProcess(final Process process, final Path stdout, final Path stderr)
    {
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
    }

    /** Starts {@code command} with {@code env} added to this JVM's environment; output files go to {@code outputDir}. */
    public static ChildProcess start(final List<String> command, final Map<String, String> env, final Path outputDir)
        throws IOException
    {
        Files.createDirectories(outputDir);
        final Path out = Files.createTempFile(outputDir, "child-", ".out");
        final Path err = Files.createTempFile(outputDir, "child-", ".err");
        final ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().putAll(env);
        return new ChildProcess(pb.start(), out, err);
    }

    /** Runs a project script ({@code scripts/NAME}) with the test classpath, so that it builds nothing. */
    public static ChildProcess script(final String name, final Map<String, String> env, final Path outputDir,
        final List<String> args) throws IOException
    {
        final List<String> command = new java.util.ArrayList<>();
        command.add(Path.of("scripts", name).toAbsolutePath().toString());
        command.addAll(args);
        final Map<String, String> all = new java.util.HashMap<>(env);
        all.put("SHMAV_CLASSPATH", System.getProperty("java.class.path"));
        return start(command, all, outputDir);
    }

    public long pid()
    {
        return process.pid();
    }

    /** Waits for the exit code; kills the child and throws if it has not exited within {@code timeout}. */
    public int waitFor(final Duration timeout) throws InterruptedException, IOException
    {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS))
        {
            kill();
            throw new AssertionError("child " + process.pid() + " " + process.info().commandLine().orElse("") +
                " did not exit within " + timeout + "; stdout:\n" + stdout() + "\nstderr:\n" + stderr());
        }
        return process.exitValue();
    }

    /** SIGKILL to the child and its descendants, then reap. */
    public void kill() throws InterruptedException
    {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
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
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws InterruptedException
    {
        if (process.isAlive())
        {
            kill();
        }
    }
}
