package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.shmav.cli.ShmavCli;
import org.shmav.it.LauncherJobsIT.Kind;

/**
 * What a job leaves in its directory under the real launchers (Open MPI's mpirun, MPICH's mpiexec,
 * avrun), 4 ranks of {@link JobTagRank} that wait to be stopped: nothing, once the launcher got
 * SIGINT (a Ctrl-C) or SIGTERM and stopped its ranks; nothing after {@code shmav gc} with its default
 * grace period, right after a rank or the whole job was killed with SIGKILL, while gc leaves a running
 * job alone.
 */
class LauncherCleanupIT
{
    private static final Duration WAIT = Duration.ofSeconds(120);

    static Stream<Arguments> launchersAndSignals()
    {
        return Stream.of(Kind.values()).flatMap(k -> Stream.of(Arguments.of(k, "INT"), Arguments.of(k, "TERM")));
    }

    @ParameterizedTest
    @MethodSource("launchersAndSignals")
    void shouldLeaveNothingWhenTheLauncherIsStopped(final Kind kind, final String signal) throws Exception
    {
        try (TestDir dir = TestDir.inShm("cleanup-it-"); TestDir logs = TestDir.inTmp("cleanup-it-logs-");
             ChildJvm job = kind.start(dir.path(), logs.path(), null, "S", logs.path().resolve("never")))
        {
            LauncherJobsIT.awaitOutput(job, out -> LauncherJobsIT.count(out, " received '") == 4);
            assertFalse(dir.names().isEmpty(), "the job's AV exists while it runs");
            final List<ProcessHandle> all = ProcessHandle.of(job.pid()).orElseThrow().descendants().toList();
            final Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(job.pid())).inheritIO().start();
            assertEquals(0, kill.waitFor());
            job.waitFor(WAIT);
            awaitGone(all); // the job's cleanup process too, which outlives the ranks
            assertEquals(List.of(), dir.names(), () -> "after SIG" + signal + ":\n" + job.output());
        }
    }

    /**
     * What Open MPI does on Ctrl-C when a rank's shutdown hook is slow (SIGKILL 10 ms after SIGTERM), for
     * every rank at once: no rank is left to remove the files, so the job's cleanup process does.
     */
    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"OPEN_MPI", "MPICH"})
    void shouldLeaveNothingWhenEveryRankIsKilled(final Kind kind) throws Exception
    {
        try (TestDir dir = TestDir.inShm("cleanup-it-"); TestDir logs = TestDir.inTmp("cleanup-it-logs-");
             ChildJvm job = kind.start(dir.path(), logs.path(), null, "R", logs.path().resolve("never")))
        {
            LauncherJobsIT.awaitOutput(job, out -> LauncherJobsIT.count(out, " received '") == 4);
            final List<ProcessHandle> all = ProcessHandle.of(job.pid()).orElseThrow().descendants().toList();
            final List<ProcessHandle> ranks = ranks(job);
            assertEquals(4, ranks.size(), () -> "the ranks among " + all.size() + " processes");
            ranks.forEach(ProcessHandle::destroyForcibly);
            job.waitFor(WAIT);
            awaitGone(all);
            assertEquals(List.of(), dir.names(), job::output);
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void shouldLeaveNothingAfterGcWhenARankIsKilled(final Kind kind) throws Exception
    {
        try (TestDir dir = TestDir.inShm("cleanup-it-"); TestDir logs = TestDir.inTmp("cleanup-it-logs-");
             ChildJvm job = kind.start(dir.path(), logs.path(), null, "K", logs.path().resolve("never")))
        {
            LauncherJobsIT.awaitOutput(job, out -> LauncherJobsIT.count(out, " received '") == 4);
            final List<String> running = dir.names();
            final String keep = gc(dir);
            assertEquals(running, dir.names(), "gc leaves a running job alone: " + keep);
            assertTrue(keep.contains("kept      "), keep);
            final ProcessHandle rank = ranks(job).get(0);
            final List<ProcessHandle> all = ProcessHandle.of(job.pid()).orElseThrow().descendants().toList();
            rank.destroyForcibly();
            job.waitFor(WAIT); // the launcher stops the other ranks
            awaitGone(all);
            final String report = gc(dir);
            assertEquals(List.of(), dir.names(), () -> report + job.output());
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void shouldLeaveNothingAfterGcWhenTheWholeJobIsKilled(final Kind kind) throws Exception
    {
        try (TestDir dir = TestDir.inShm("cleanup-it-"); TestDir logs = TestDir.inTmp("cleanup-it-logs-");
             ChildJvm job = kind.start(dir.path(), logs.path(), null, "W", logs.path().resolve("never")))
        {
            LauncherJobsIT.awaitOutput(job, out -> LauncherJobsIT.count(out, " received '") == 4);
            final String av = dir.names().stream().filter(n -> !n.startsWith(".")).findFirst().orElseThrow();
            final List<ProcessHandle> all = ProcessHandle.of(job.pid()).orElseThrow().descendants().toList();
            job.kill(); // SIGKILL to the launcher and every rank: no shutdown hook runs
            awaitGone(all); // the ranks are not this JVM's children: they die on their own time
            assertEquals(List.of(".shmav-job." + av, ".shmav-lock." + av, av), dir.names(),
                "the AV, its job file and its lock file stay");
            final String report = gc(dir);
            assertTrue(report.contains("removed   " + av + ": no live process has it open") &&
                report.contains("is over") && report.contains("removed   .shmav-job." + av), report);
            assertEquals(List.of(), dir.names(), report);
        }
    }

    /** The job's rank processes ({@link JobTagRank}) among the launcher's descendants. */
    private static List<ProcessHandle> ranks(final ChildJvm job)
    {
        return ProcessHandle.of(job.pid()).orElseThrow().descendants()
            .filter(p -> commandLine(p).contains(JobTagRank.class.getName())).toList();
    }

    /**
     * The whole command line from /proc: {@code ProcessHandle.Info.commandLine()} leaves out the arguments of a
     * command line longer than a page, as a rank's with the test classpath is.
     */
    private static String commandLine(final ProcessHandle p)
    {
        try
        {
            return new String(Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "cmdline")),
                StandardCharsets.UTF_8).replace('\0', ' ');
        }
        catch (final IOException e)
        {
            return ""; // exited meanwhile
        }
    }

    /** Waits (bounded) until every process in {@code processes} has exited: gc judges only the dead. */
    private static void awaitGone(final List<ProcessHandle> processes) throws Exception
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        for (final ProcessHandle p : processes)
        {
            p.onExit().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
    }

    /** {@code shmav gc} with its default grace period, in this JVM; its report. */
    private static String gc(final TestDir dir)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int status = ShmavCli.execute(new PrintWriter(out), new PrintWriter(err), "--dir", dir.path().toString(), "gc");
        assertEquals(0, status, () -> out + "" + err);
        return out.toString();
    }
}
