package org.shmav.launch;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import org.shmav.AddressVector;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.job.JobFile;
import org.shmav.job.JobId;

/**
 * One avrun job, run the way mpirun runs one: create the job's AV, start every rank, wait for them,
 * and when one fails, the timeout passes or avrun is interrupted, stop the others and report which
 * rank did what. Every rank's output is copied to the end (its pipe read to EOF) before {@link #run()}
 * returns. The AV is removed at the end unless the spec keeps it.
 *
 * <p>The launcher keeps the AV open for the whole job, so that {@code shmav gc} sees a live attacher
 * and never removes the AV of a running job, even before the first rank has attached.
 *
 * <p>{@link #interrupt(String)} may be called from any thread (a signal handler); everything else from
 * the thread that runs the job.
 */
public final class Job
{
    /** How long stopped ranks get to exit after a signal before they are killed. */
    static final long STOP_GRACE_MILLIS = 3_000;
    /** How long the output of an exited rank may take to reach EOF (a descendant may hold the pipe). */
    static final long DRAIN_MILLIS = 2_000;
    /** How long ranks get to print their thread dumps at the timeout. */
    static final long THREAD_DUMP_MILLIS = 1_500;
    /** How often the waiting thread looks at the clock and for a signal. */
    private static final long POLL_MILLIS = 50;

    private final JobSpec spec;
    private final PrintStream out;
    private final PrintStream err;
    private final Domain domain;
    private final AddressVector av;
    private final JobFile jobFile;
    private final JobId jobId;
    private final List<RankProcess> ranks = new CopyOnWriteArrayList<>();
    private final AtomicBoolean cleanedUp = new AtomicBoolean();
    private final List<Integer> unfinished = new CopyOnWriteArrayList<>();
    private volatile String signal;

    private Job(final JobSpec spec, final PrintStream out, final PrintStream err, final Domain domain,
        final AddressVector av, final JobFile jobFile, final JobId jobId)
    {
        this.spec = spec;
        this.out = out;
        this.err = err;
        this.domain = domain;
        this.av = av;
        this.jobFile = jobFile;
        this.jobId = jobId;
    }

    /**
     * Creates the job's AV (FI_AV_TABLE of the job's address format, count = size) after its job file, and its
     * directory (mode 0700) when that does not exist.
     *
     * @throws SetupException when the name is taken or the AV cannot be created
     */
    public static Job create(final JobSpec spec, final PrintStream out, final PrintStream err)
    {
        final JobSetup.Claimed c = JobSetup.claim(spec, err);
        return new Job(spec, out, err, c.domain(), c.av(), c.jobFile(), c.id());
    }

    /** {@code scripts/shmav COMMAND}, with {@code --dir} when the job's directory is not the default. */
    static String shmav(final JobSpec spec, final String command)
    {
        return org.shmav.cli.CommandNames.shmav() + " " + command +
            (spec.directory().equals(DomainAttr.DEFAULT_SHM_DIRECTORY) ? "" : " --dir " + spec.directory());
    }

    /**
     * Stops the job as avrun does on SIGINT or SIGTERM: {@link #run()} forwards the signal to the ranks,
     * waits for them and their output, and returns 128 + the signal's number. Any thread.
     *
     * @param signalName {@code INT} or {@code TERM}
     */
    public void interrupt(final String signalName)
    {
        if (signal == null)
        {
            signal = signalName;
        }
    }

    /** The ranks that were still running when the timeout passed (empty before, or when it did not). */
    public List<Integer> unfinishedRanks()
    {
        return List.copyOf(unfinished);
    }

    /** Runs the job to its end and returns avrun's exit status (see {@link ExitStatus}). */
    public int run() throws InterruptedException
    {
        // Without a signal handler (AvRun installs one), SIGINT and SIGTERM end in this hook.
        final Thread hook = new Thread(() -> {
            interrupt("TERM");
            stopAndCleanUp();
        }, "avrun-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try
        {
            return startAndWait();
        }
        finally
        {
            stopAndCleanUp();
            try
            {
                Runtime.getRuntime().removeShutdownHook(hook);
            }
            catch (final IllegalStateException e)
            {
                // the JVM is already shutting down: the hook has run or is running
            }
        }
    }

    private int startAndWait() throws InterruptedException
    {
        for (int r = 0; r < spec.size() && signal == null; r++)
        {
            final RankProcess rank;
            try
            {
                rank = RankProcess.start(spec, jobId.id(), r, out, err);
            }
            catch (final IOException e)
            {
                err.println("avrun: cannot start rank " + r + " (" + String.join(" ", spec.command()) + "): " +
                    e.getMessage());
                stopRanks("rank " + r + " could not start");
                return ExitStatus.CANNOT_START;
            }
            ranks.add(rank);
        }
        return waitForRanks();
    }

    /** Waits for every rank; the first failure, the timeout or a signal stops the rest. */
    private int waitForRanks() throws InterruptedException
    {
        final long deadline = spec.timeout() == null ? Long.MAX_VALUE : System.nanoTime() + spec.timeout().toNanos();
        final List<RankProcess> waiting = new ArrayList<>(ranks);
        while (true)
        {
            if (signal != null)
            {
                return interrupted();
            }
            for (final RankProcess r : List.copyOf(waiting))
            {
                if (!r.isAlive())
                {
                    waiting.remove(r);
                    r.drainOutput(DRAIN_MILLIS);
                    if (r.status() != 0 && !signalArrives(r.status()))
                    {
                        return failed(r);
                    }
                }
            }
            if (waiting.isEmpty())
            {
                return signal != null ? interrupted() : ExitStatus.OK;
            }
            if (deadline != Long.MAX_VALUE && System.nanoTime() - deadline > 0)
            {
                return timedOut();
            }
            waiting.get(0).awaitExit(POLL_MILLIS);
        }
    }

    /**
     * Whether a signal reached avrun too: a rank that exited of SIGINT or SIGTERM (status 130, 143) may
     * have got it from the terminal a moment before avrun did, and must not be blamed for it.
     */
    private boolean signalArrives(final int status) throws InterruptedException
    {
        if (status == Signals.exitStatus("INT") || status == Signals.exitStatus("TERM"))
        {
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
            while (signal == null && System.nanoTime() - deadline < 0)
            {
                Thread.sleep(10);
            }
        }
        return signal != null;
    }

    private int timedOut() throws InterruptedException
    {
        final List<RankProcess> running = running();
        running.forEach(r -> unfinished.add(r.rank()));
        err.println("avrun: timeout: the job ran longer than " + spec.timeout().toSeconds() + " s; " +
            describeRanks(running) + " still running" + (spec.threadDumpsOnTimeout() ? ": thread dumps, then stopping them"
                : ", stopping them"));
        if (spec.threadDumpsOnTimeout())
        {
            running.forEach(r -> Signals.send(r.pid(), "QUIT")); // a JVM prints every thread's stack on its stdout
            Thread.sleep(THREAD_DUMP_MILLIS);
        }
        stopRanks("timeout");
        return ExitStatus.TIMEOUT;
    }

    /** SIGINT or SIGTERM reached avrun: pass it on, wait for the ranks and their output, blame nobody. */
    private int interrupted() throws InterruptedException
    {
        final String sig = signal;
        final List<RankProcess> running = running();
        final boolean terminalSentIt = "INT".equals(sig) && Signals.inTerminalForeground();
        if (!terminalSentIt)
        {
            running.forEach(r -> r.signal(sig));
        }
        final List<RankProcess> killed = awaitOrKill(running);
        ranks.forEach(RankProcess::drainQuietly);
        err.println("avrun: interrupted by SIG" + sig + (running.isEmpty() ? "; no rank was running" :
            "; stopped " + describeRanks(running) + (terminalSentIt ? " (they got it from the terminal too)" :
                " (SIG" + sig + " forwarded)")) +
            (killed.isEmpty() ? "" : "; " + describeRanks(killed) + " ignored it for " + STOP_GRACE_MILLIS +
                " ms and were killed"));
        return Signals.exitStatus(sig);
    }

    private int failed(final RankProcess rank) throws InterruptedException
    {
        final List<RankProcess> others = running();
        final String reason = "rank " + rank.rank() + " (pid " + rank.pid() + ") exited with status " +
            ExitStatus.describe(rank.status());
        err.println("avrun: " + reason + (others.isEmpty() ? "" : "; stopping " + describeRanks(others)));
        stopRanks(reason);
        err.println("avrun: job failed: " + reason);
        return rank.status();
    }

    private List<RankProcess> running()
    {
        return ranks.stream().filter(RankProcess::isAlive).collect(Collectors.toList());
    }

    /** SIGTERM to every rank still running, SIGKILL to those still running after the grace period; output drained. */
    private void stopRanks(final String why) throws InterruptedException
    {
        final List<RankProcess> running = running();
        running.forEach(RankProcess::terminate);
        final List<RankProcess> stubborn = awaitOrKill(running);
        ranks.forEach(RankProcess::drainQuietly);
        if (!stubborn.isEmpty())
        {
            err.println("avrun: " + describeRanks(stubborn) + " ignored SIGTERM for " + STOP_GRACE_MILLIS +
                " ms and were killed (" + why + ")");
        }
    }

    /** Waits for {@code list} to exit within the grace period, kills the rest; returns those it killed. */
    private static List<RankProcess> awaitOrKill(final List<RankProcess> list) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STOP_GRACE_MILLIS);
        final List<RankProcess> stubborn = new ArrayList<>();
        for (final RankProcess r : list)
        {
            if (!r.awaitExit(TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())))
            {
                stubborn.add(r);
                r.kill();
            }
        }
        for (final RankProcess r : stubborn)
        {
            r.awaitExit(STOP_GRACE_MILLIS);
        }
        return stubborn;
    }

    /** Idempotent: runs once, from the main thread or from the shutdown hook, whichever comes first. */
    private void stopAndCleanUp()
    {
        if (!cleanedUp.compareAndSet(false, true))
        {
            return;
        }
        try
        {
            stopRanks("avrun is exiting");
        }
        catch (final InterruptedException e)
        {
            ranks.forEach(RankProcess::kill);
            Thread.currentThread().interrupt();
        }
        finally
        {
            removeAv();
        }
    }

    private void removeAv()
    {
        Runnable removeAvFirst = () -> { };
        boolean closed = false;
        try
        {
            av.close();
            closed = true;
            if (spec.keepAv())
            {
                err.println("avrun: kept AV '" + spec.avName() + "' in " + spec.directory() + " (" +
                    shmav(spec, "show " + spec.avName()) + "; " + shmav(spec, "rm " + spec.avName()) + ")");
            }
            else
            {
                removeAvFirst = this::unlinkAv;
            }
        }
        catch (final FabricException e)
        {
            err.println("avrun: could not remove AV '" + spec.avName() + "': " + e.getMessage());
        }
        finally
        {
            // A kept AV is a plain AV from now on: its job is over. Otherwise the AV goes first, under every
            // participant's lock of the job file, as every remover of a job's AV does.
            JobSetup.deleteQuietly(jobFile, removeAvFirst);
            if (closed)
            {
                domain.close();
            }
        }
    }

    private void unlinkAv()
    {
        try
        {
            domain.unlinkAv(spec.avName());
        }
        catch (final FabricException e)
        {
            err.println("avrun: could not remove AV '" + spec.avName() + "': " + e.getMessage());
        }
    }

    private static String describeRanks(final List<RankProcess> list)
    {
        if (list.isEmpty())
        {
            return "no rank";
        }
        return (list.size() == 1 ? "rank " : "ranks ") +
            list.stream().map(r -> Integer.toString(r.rank())).collect(Collectors.joining(","));
    }

    /** The job could not be set up; the message says why and what to do. */
    public static final class SetupException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        SetupException(final String message)
        {
            super(message);
        }
    }
}
