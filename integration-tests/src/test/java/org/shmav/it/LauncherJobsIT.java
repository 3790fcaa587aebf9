package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Jobs under the real launchers (Open MPI's mpirun, MPICH's mpiexec, avrun), 4 ranks of
 * {@link JobTagRank} each: two jobs given one AV name never exchange a message, and exactly one of
 * them runs, while the other fails as a whole, on its own, with a message naming both jobs.
 */
class LauncherJobsIT
{
    private static final Duration WAIT = Duration.ofSeconds(120);
    /** A refusal names this rank's job and the job that owns the AV (group 1 and 2). */
    private static final Pattern REFUSAL = Pattern.compile("job '([^']+)' \\(.*?\\) refused AV '([^']+)' in \\S+: " +
        "it belongs to job '([^']+)'");

    /** The launchers, with how each passes a variable to every rank and names the AV. */
    enum Kind
    {
        OPEN_MPI, MPICH, AVRUN;

        ChildJvm start(final Path dir, final Path logs, final String name, final String tag, final Path go)
            throws Exception
        {
            final List<String> rank = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx128m", "-cp", System.getProperty("java.class.path"),
                JobTagRank.class.getName(), go.toString());
            final List<String> command = new ArrayList<>();
            switch (this)
            {
                case OPEN_MPI:
                    command.add(MpiLaunchersIT.Launcher.OPEN_MPI.binary().toString());
                    command.addAll(MpiLaunchersIT.Launcher.OPEN_MPI.args);
                    command.addAll(List.of("-x", "SHMAV_IT_TAG=" + tag));
                    if (name != null)
                    {
                        command.addAll(List.of("-x", "SHMAV_AV=" + name));
                    }
                    break;
                case MPICH:
                    command.add(MpiLaunchersIT.Launcher.MPICH.binary().toString());
                    command.addAll(MpiLaunchersIT.Launcher.MPICH.args);
                    command.addAll(List.of("-genv", "SHMAV_IT_TAG", tag));
                    if (name != null)
                    {
                        command.addAll(List.of("-genv", "SHMAV_AV", name));
                    }
                    break;
                default:
                    command.addAll(List.of("-n", "4"));
                    if (name != null)
                    {
                        command.addAll(List.of("--name", name));
                    }
                    command.add("--");
                    command.addAll(rank);
                    return ChildJvm.script("avrun", Map.of("SHMAV_DIR", dir.toString(), "SHMAV_IT_TAG", tag), logs, command);
            }
            command.addAll(rank);
            return ChildJvm.command(command, Map.of("SHMAV_DIR", dir.toString(), "OMPI_ALLOW_RUN_AS_ROOT", "1",
                "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"), logs);
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void shouldRunExactlyOneOfTwoJobsStartedTogetherWithOneName(final Kind kind) throws Exception
    {
        try (TestDir dir = TestDir.inShm("jobs-it-"); TestDir logs = TestDir.inTmp("jobs-it-logs-"))
        {
            final Path go = logs.path().resolve("go");
            try (ChildJvm a = kind.start(dir.path(), logs.path(), "job7", "A", go);
                 ChildJvm b = kind.start(dir.path(), logs.path(), "job7", "B", go))
            {
                // The loser must fail on its own, while the winner still waits: that is what makes it quick.
                final long deadline = System.nanoTime() + WAIT.toNanos();
                while (a.isAlive() && b.isAlive())
                {
                    assertTrue(System.nanoTime() - deadline < 0, () -> "neither job failed within " + WAIT + ":\n" +
                        a.output() + "\n" + b.output());
                    Thread.sleep(50);
                }
                final ChildJvm loser = a.isAlive() ? b : a;
                final ChildJvm winner = loser == a ? b : a;
                final String winnerTag = winner == a ? "A" : "B";
                final int loserStatus = loser.waitFor(WAIT);
                Files.createFile(go);
                final int winnerStatus = winner.waitFor(WAIT);
                final String all = "--- job A:\n" + a.output() + "\n--- job B:\n" + b.output();
                assertEquals(0, winnerStatus, all);
                assertNotEquals(0, loserStatus, all);
                assertFalse(all.contains("CROSSED"), all);
                for (int r = 0; r < 4; r++)
                {
                    final String line = "job " + winnerTag + " rank " + r + " received '" + winnerTag + " " + (r + 3) % 4 + "'";
                    assertTrue(winner.stdout().contains(line), all);
                }
                assertFalse(loser.stdout().contains(" ready in AV"), "no rank of the refused job ran: " + all);
                assertNamesBothJobs(loser.output(), "job7", all);
                assertEquals(List.of(), dir.names(), "the winner removed its AV and job file");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void shouldRefuseASecondJobStartedWhileTheFirstRunsWithTheSameName(final Kind kind) throws Exception
    {
        try (TestDir dir = TestDir.inShm("jobs-it-"); TestDir logs = TestDir.inTmp("jobs-it-logs-"))
        {
            final Path go = logs.path().resolve("go");
            try (ChildJvm a = kind.start(dir.path(), logs.path(), "job8", "A", go))
            {
                awaitOutput(a, out -> count(out, " received '") == 4);
                try (ChildJvm b = kind.start(dir.path(), logs.path(), "job8", "B", go))
                {
                    final int bStatus = b.waitFor(WAIT);
                    final String bOut = b.output();
                    assertNotEquals(0, bStatus, bOut);
                    assertFalse(bOut.contains(" ready in AV"), bOut);
                    assertNamesBothJobs(bOut, "job8", bOut);
                }
                Files.createFile(go);
                assertEquals(0, a.waitFor(WAIT), a::output);
                assertFalse(a.output().contains("CROSSED"), a.output());
                assertEquals(4, count(a.stdout(), " done"), a::output);
            }
            assertEquals(List.of(), dir.names());
        }
    }

    private static void assertNamesBothJobs(final String output, final String name, final String context)
    {
        final Matcher m = REFUSAL.matcher(output);
        assertTrue(m.find(), () -> "no refusal naming both jobs:\n" + context);
        assertEquals(name, m.group(2), context);
        assertNotEquals(m.group(1), m.group(3), context);
    }

    static void awaitOutput(final ChildJvm job, final Predicate<String> ready) throws InterruptedException
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (!ready.test(job.stdout()))
        {
            if (!job.isAlive() || System.nanoTime() - deadline > 0)
            {
                job.kill();
                throw new AssertionError("the job did not get ready (alive=" + job.isAlive() + "):\n" + job.output());
            }
            Thread.sleep(50);
        }
    }

    static int count(final String text, final String part)
    {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1))
        {
            n++;
        }
        return n;
    }
}
