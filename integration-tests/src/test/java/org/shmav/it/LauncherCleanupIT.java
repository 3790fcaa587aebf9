package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.shmav.it.LauncherJobsIT.Kind;

/**
 * What a job leaves in its directory under the real launchers (Open MPI's mpirun, MPICH's mpiexec,
 * avrun), 4 ranks of {@link JobTagRank} that wait to be stopped: nothing, once the launcher got
 * SIGINT (a Ctrl-C) or SIGTERM and stopped its ranks.
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
            final Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(job.pid())).inheritIO().start();
            assertEquals(0, kill.waitFor());
            job.waitFor(WAIT);
            assertEquals(List.of(), dir.names(), () -> "after SIG" + signal + ":\n" + job.output());
        }
    }
}
