package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmav.slots.ToolAccess;
import org.shmav.launch.JavaCommand;

/** scripts/avrun with real processes: ranks, failure, timeout, the AV's life. */
class AvRunIT
{
    private static final Duration WAIT = Duration.ofSeconds(90);

    private TestDir dir;
    private TestDir logDir;
    private Path logs;

    @BeforeEach
    void createDirectories() throws IOException
    {
        dir = TestDir.inShm("avrun-it-");
        logDir = TestDir.inTmp("avrun-it-logs-");
        logs = logDir.path();
    }

    @AfterEach
    void removeDirectories() throws IOException
    {
        try (TestDir d = dir; TestDir l = logDir)
        {
            // closing deletes both
        }
    }

    @Test
    void shouldRunEightRanksThatFindEachOtherThroughTheAv() throws Exception
    {
        final List<String> args = new ArrayList<>(List.of("-n", "8", "--name", "eight", "--timeout", "80", "--"));
        args.addAll(JavaCommand.forMain(PeerCheckRank.class.getName(), List.of(), List.of()));
        try (ChildJvm avrun = avrun(args))
        {
            assertEquals(0, avrun.waitFor(WAIT), avrun::stderr);
            final String out = avrun.stdout();
            for (int r = 0; r < 8; r++)
            {
                assertTrue(out.contains("[" + r + "] rank " + r + " of 8 env=8,eight peers=8"), out);
            }
        }
        assertEquals(List.of(), dir.names(), "the job's AV is removed at the end");
    }

    @Test
    void shouldStopTheOtherRanksAndExitWithTheStatusOfARankThatExitsWith3() throws Exception
    {
        final Path pids = Files.createDirectories(logs.resolve("pids"));
        // Every rank records its pid; rank 2 waits (bounded) until all have, then exits with 3; the others sleep.
        final String rankScript = "echo $$ > " + pids + "/$SHMAV_RANK; " +
            "if [ \"$SHMAV_RANK\" = 2 ]; then i=0; while [ $(ls " + pids + " | wc -l) -lt 4 ] && [ $i -lt 200 ]; " +
            "do sleep 0.05; i=$((i+1)); done; echo failing; exit 3; fi; exec sleep 60";
        final long start = System.nanoTime();
        try (ChildJvm avrun = avrun(List.of("-n", "4", "--", "sh", "-c", rankScript)))
        {
            assertEquals(3, avrun.waitFor(WAIT), avrun::stderr);
            final Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertTrue(took.toSeconds() < 30, "the sleeping ranks were stopped, not waited for: " + took);
            assertTrue(avrun.stderr().contains("rank 2 (pid "), avrun.stderr());
            assertTrue(avrun.stderr().contains(") exited with status 3"), avrun.stderr());
            assertTrue(avrun.stdout().contains("[2] failing"), avrun.stdout());
        }
        for (int r = 0; r < 4; r++)
        {
            final long pid = Long.parseLong(Files.readString(pids.resolve(Integer.toString(r))).trim());
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "rank " + r + " still runs");
        }
        assertEquals(List.of(), dir.names());
    }

    @Test
    void shouldStopEveryRankWhenTheTimeoutPasses() throws Exception
    {
        try (ChildJvm avrun = avrun(List.of("-n", "2", "--timeout", "2", "--", "sleep", "60")))
        {
            assertEquals(124, avrun.waitFor(WAIT), avrun::stderr);
            assertTrue(avrun.stderr().contains("timeout: the job ran longer than 2 s; ranks 0,1 still running"),
                avrun.stderr());
        }
        assertEquals(List.of(), dir.names());
    }

    @Test
    void shouldKeepTheAvWithKeepAndRefuseToReuseItsName() throws Exception
    {
        try (ChildJvm avrun = avrun(List.of("-n", "2", "--name", "kept", "--keep", "--", "true")))
        {
            assertEquals(0, avrun.waitFor(WAIT), avrun::stderr);
        }
        assertEquals(List.of("kept"), dir.names());
        assertEquals(2, ToolAccess.openReadOnly(dir.path().resolve("kept")).layout().capacity());
        try (ChildJvm again = avrun(List.of("-n", "2", "--name", "kept", "--", "true")))
        {
            assertEquals(125, again.waitFor(WAIT), again::stderr);
            assertTrue(again.stderr().contains("AV 'kept' already exists"), again.stderr());
        }
    }

    @Test
    void shouldReportSetupErrorsAndACommandThatCannotStart() throws Exception
    {
        try (ChildJvm avrun = avrun(List.of("-n", "2", "--", "/nonexistent/command")))
        {
            assertEquals(127, avrun.waitFor(WAIT), avrun::stderr);
            assertTrue(avrun.stderr().contains("cannot start rank 0"), avrun.stderr());
        }
        try (ChildJvm avrun = avrun(List.of("-n", "2", "--name", "../escape", "--", "true")))
        {
            assertEquals(125, avrun.waitFor(WAIT), avrun::stderr);
        }
        try (ChildJvm avrun = avrun(List.of("-n", "1", "--dir", dir.path().resolve("missing").toString(), "--", "true")))
        {
            assertEquals(125, avrun.waitFor(WAIT), avrun::stderr);
            assertTrue(avrun.stderr().contains("missing does not exist"), avrun.stderr());
        }
        try (ChildJvm avrun = avrun(List.of("-n", "0", "--", "true")))
        {
            assertEquals(2, avrun.waitFor(WAIT), avrun::stderr);
        }
        assertEquals(List.of(), dir.names());
    }

    private ChildJvm avrun(final List<String> args) throws IOException
    {
        return ChildJvm.script("avrun", Map.of("SHMAV_DIR", dir.path().toString()), logs, args);
    }
}
