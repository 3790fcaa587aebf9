package org.shmav.launch;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.shm.SharedAvFile;

/**
 * One avrun job, run the way mpirun runs one: create the job's AV, start every rank, wait for them,
 * and when one fails or the timeout passes stop the others and report which rank did what. The AV is
 * removed at the end unless the spec keeps it.
 *
 * <p>The launcher keeps the AV open for the whole job, so that {@code shmav gc} sees a live attacher
 * and never removes the AV of a running job, even before the first rank has attached.
 */
public final class Job
{
    /** How long stopped ranks get to exit after SIGTERM before they are killed. */
    static final long STOP_GRACE_MILLIS = 3_000;
    /** How long the output of an exited rank may take to drain. */
    static final long DRAIN_MILLIS = 2_000;

    private final JobSpec spec;
    private final PrintStream out;
    private final PrintStream err;
    private final Domain domain;
    private final AddressVector av;
    private final List<RankProcess> ranks = new CopyOnWriteArrayList<>();
    private final AtomicBoolean cleanedUp = new AtomicBoolean();

    private Job(final JobSpec spec, final PrintStream out, final PrintStream err, final Domain domain,
        final AddressVector av)
    {
        this.spec = spec;
        this.out = out;
        this.err = err;
        this.domain = domain;
        this.av = av;
    }

    /**
     * Creates the job's AV (FI_AV_TABLE of FI_SOCKADDR_IN, count = size).
     *
     * @throws SetupException when the AV exists already or cannot be created
     */
    public static Job create(final JobSpec spec, final PrintStream out, final PrintStream err)
    {
        final Domain domain;
        try
        {
            if (!Files.isDirectory(spec.directory()))
            {
                throw new SetupException("directory " + spec.directory() + " does not exist (see --dir and SHMAV_DIR)");
            }
            if (Files.exists(spec.directory().resolve(SharedAvFile.fileName(spec.avName())), LinkOption.NOFOLLOW_LINKS))
            {
                throw new SetupException("AV '" + spec.avName() + "' already exists in " + spec.directory() +
                    " (left by an earlier job?): remove it with 'scripts/shmav rm " + spec.avName() +
                    "' or choose another --name");
            }
            domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(spec.directory()).build());
        }
        catch (final FabricException e)
        {
            throw new SetupException(e.getMessage());
        }
        try
        {
            final AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).count(spec.size())
                .name(spec.avName()).build());
            return new Job(spec, out, err, domain, av);
        }
        catch (final FabricException e)
        {
            domain.close();
            throw new SetupException("cannot create AV '" + spec.avName() + "': " + e.getMessage());
        }
    }

    /** Runs the job to its end and returns avrun's exit status (see {@link ExitStatus}). */
    public int run() throws InterruptedException
    {
        final Thread hook = new Thread(this::stopAndCleanUp, "avrun-shutdown");
        Runtime.getRuntime().addShutdownHook(hook); // SIGINT, SIGTERM: stop the ranks, remove the AV
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
                // the JVM is already shutting down (a signal): the hook has run or is running
            }
        }
    }

    private int startAndWait() throws InterruptedException
    {
        final LinkedBlockingQueue<RankProcess> exited = new LinkedBlockingQueue<>();
        for (int r = 0; r < spec.size(); r++)
        {
            final RankProcess rank;
            try
            {
                rank = RankProcess.start(spec, r, out, err);
            }
            catch (final IOException e)
            {
                err.println("avrun: cannot start rank " + r + " (" + String.join(" ", spec.command()) + "): " +
                    e.getMessage());
                stopRanks("rank " + r + " could not start");
                return ExitStatus.CANNOT_START;
            }
            ranks.add(rank);
            rank.onExit().thenAccept(exited::add);
        }
        return waitForRanks(exited);
    }

    /** Waits for every rank; the first failure (or the timeout) stops the rest. */
    private int waitForRanks(final LinkedBlockingQueue<RankProcess> exited) throws InterruptedException
    {
        final long deadline = spec.timeout() == null ? Long.MAX_VALUE : System.nanoTime() + spec.timeout().toNanos();
        int remaining = ranks.size();
        while (remaining > 0)
        {
            final long left = deadline == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - System.nanoTime();
            final RankProcess done = left <= 0 ? null : exited.poll(left, TimeUnit.NANOSECONDS);
            if (done == null)
            {
                final String running = describeRanks(ranks.stream().filter(RankProcess::isAlive).collect(Collectors.toList()));
                err.println("avrun: timeout: the job ran longer than " + spec.timeout().toSeconds() + " s; " + running +
                    " still running, stopping them");
                stopRanks("timeout");
                return ExitStatus.TIMEOUT;
            }
            remaining--;
            done.drainOutput(DRAIN_MILLIS);
            if (done.status() != 0)
            {
                return failed(done);
            }
        }
        return ExitStatus.OK;
    }

    private int failed(final RankProcess rank) throws InterruptedException
    {
        final List<RankProcess> others = ranks.stream().filter(RankProcess::isAlive).collect(Collectors.toList());
        final String reason = "rank " + rank.rank() + " (pid " + rank.pid() + ") exited with status " +
            ExitStatus.describe(rank.status());
        err.println("avrun: " + reason + (others.isEmpty() ? "" : "; stopping " + describeRanks(others)));
        stopRanks(reason);
        err.println("avrun: job failed: " + reason);
        return rank.status();
    }

    /** SIGTERM to every rank still running, SIGKILL to those still running after the grace period. */
    private void stopRanks(final String why) throws InterruptedException
    {
        final List<RankProcess> running = ranks.stream().filter(RankProcess::isAlive).collect(Collectors.toList());
        running.forEach(RankProcess::terminate);
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STOP_GRACE_MILLIS);
        final List<RankProcess> stubborn = new ArrayList<>();
        for (final RankProcess r : running)
        {
            if (!r.awaitExit(TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())))
            {
                stubborn.add(r);
                r.kill();
            }
        }
        for (final RankProcess r : running)
        {
            r.awaitExit(STOP_GRACE_MILLIS);
            r.drainOutput(DRAIN_MILLIS);
        }
        if (!stubborn.isEmpty())
        {
            err.println("avrun: " + describeRanks(stubborn) + " ignored SIGTERM for " + STOP_GRACE_MILLIS +
                " ms and were killed (" + why + ")");
        }
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
        try
        {
            av.close();
            if (spec.keepAv())
            {
                err.println("avrun: kept AV '" + spec.avName() + "' in " + spec.directory() +
                    " (scripts/shmav show " + spec.avName() + "; scripts/shmav rm " + spec.avName() + ")");
            }
            else
            {
                domain.unlinkAv(spec.avName());
            }
            domain.close();
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
