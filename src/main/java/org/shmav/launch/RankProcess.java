package org.shmav.launch;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.shmav.Rank;

/**
 * One rank of a job: the process running the command with the rank's environment, and the two threads
 * that copy its stdout and stderr with the rank prefix. Stopping a rank stops its descendants too, so
 * that a command such as {@code sh -c '...'} does not leave its children running.
 */
final class RankProcess
{
    private final int rank;
    private final Process process;
    private final Thread stdoutPump;
    private final Thread stderrPump;

    private RankProcess(final int rank, final Process process, final Thread stdoutPump, final Thread stderrPump)
    {
        this.rank = rank;
        this.process = process;
        this.stdoutPump = stdoutPump;
        this.stderrPump = stderrPump;
    }

    /** Starts rank {@code rank} of {@code spec}, job {@code jobId}; its output goes to {@code out} and {@code err}, prefixed. */
    static RankProcess start(final JobSpec spec, final String jobId, final int rank, final PrintStream out,
        final PrintStream err) throws IOException
    {
        final ProcessBuilder pb = new ProcessBuilder(spec.command());
        final Map<String, String> env = pb.environment();
        env.put(Rank.RANK_ENV, Integer.toString(rank));
        env.put(Rank.SIZE_ENV, Integer.toString(spec.size()));
        env.put(Rank.AV_ENV, spec.avName());
        env.put(Rank.DIR_ENV, spec.directory().toString());
        env.put(Rank.JOB_ENV, jobId);
        env.put(Rank.ADDR_FORMAT_ENV, spec.addrFormat().toString());
        pb.redirectInput(ProcessBuilder.Redirect.INHERIT);
        final Process p = pb.start();
        p.getOutputStream().close(); // ranks read no input from the launcher
        final String prefix = spec.prefixOutput() ? "[" + rank + "] " : "";
        return new RankProcess(rank, p,
            OutputPump.start(rank, prefix, "stdout", p.getInputStream(), out),
            OutputPump.start(rank, prefix, "stderr", p.getErrorStream(), err));
    }

    int rank()
    {
        return rank;
    }

    long pid()
    {
        return process.pid();
    }

    boolean isAlive()
    {
        return process.isAlive();
    }

    /** Completes when the process has exited. */
    CompletableFuture<RankProcess> onExit()
    {
        return process.onExit().thenApply(p -> this);
    }

    /** The exit status; only once the process has exited. */
    int status()
    {
        return process.exitValue();
    }

    /** Asks the rank and its descendants to stop (SIGTERM). */
    void terminate()
    {
        final List<ProcessHandle> descendants = process.descendants().toList();
        process.destroy();
        descendants.forEach(ProcessHandle::destroy);
    }

    /**
     * Forwards signal {@code name} ({@code INT}, {@code TERM}) to the rank's process, as mpirun does:
     * the program it started handles it; {@link #terminate} and {@link #kill} reach its descendants.
     */
    void signal(final String name)
    {
        Signals.send(process.pid(), name);
    }

    /** Stops the rank and its descendants at once (SIGKILL). */
    void kill()
    {
        final List<ProcessHandle> descendants = process.descendants().toList();
        process.destroyForcibly();
        descendants.forEach(ProcessHandle::destroyForcibly);
    }

    /** Waits at most {@code millis} for the process to exit; true if it has. */
    boolean awaitExit(final long millis) throws InterruptedException
    {
        return process.waitFor(Math.max(0, millis), TimeUnit.MILLISECONDS);
    }

    /** {@link #drainOutput} with the default bound, for a thread that may be interrupted. */
    void drainQuietly()
    {
        try
        {
            drainOutput(Job.DRAIN_MILLIS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits (bounded) for the last output lines to be copied (the pipes read to EOF), after the process exited. */
    void drainOutput(final long millis) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        stdoutPump.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        stderrPump.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    }
}
