package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
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
    void shouldRunTheRingDemoOverIpv6WithAddrFormatIn6() throws Exception
    {
        try (ChildJvm avrun = avrun(List.of("-n", "4", "--addr-format", "in6", "--demo", "ring", "--timeout", "80")))
        {
            assertEquals(0, avrun.waitFor(WAIT), avrun::stderr);
            final String out = avrun.stdout();
            assertTrue(out.contains("[0] token came back with value 4 after 4 hops: ring OK"), out);
            for (int r = 0; r < 4; r++)
            {
                assertTrue(out.contains("[" + r + "] rank " + r + " of 4 (avrun) listening on [::1]:"), out);
            }
        }
        assertEquals(List.of(), dir.names(), "the job's AV is removed at the end");
    }

    @Test
    void shouldGiveEveryRankTheJobsAddressFormat() throws Exception
    {
        final List<String> args = new ArrayList<>(List.of("-n", "3", "--addr-format", "opaque:max:300", "--timeout", "80", "--"));
        args.addAll(JavaCommand.forMain(AddrFormatRank.class.getName(), List.of(), List.of()));
        try (ChildJvm avrun = avrun(args))
        {
            assertEquals(0, avrun.waitFor(WAIT), avrun::stderr);
            for (int r = 0; r < 3; r++)
            {
                assertTrue(avrun.stdout().contains("[" + r + "] formats " + r + " of 3 format=opaque:max:300 lens=[8,139,300]"),
                    avrun.stdout());
            }
        }
        // without --addr-format, avrun's own SHMAV_ADDR_FORMAT, which its ranks inherit
        final List<String> withoutFormat = new ArrayList<>(args);
        withoutFormat.removeAll(List.of("--addr-format", "opaque:max:300"));
        try (ChildJvm avrun = ChildJvm.script("avrun", Map.of("SHMAV_DIR", dir.path().toString(), "SHMAV_ADDR_FORMAT", "efa"),
            logs, withoutFormat))
        {
            assertEquals(0, avrun.waitFor(WAIT), avrun::stderr);
            assertTrue(avrun.stdout().contains("[2] formats 2 of 3 format=efa lens=[32,32,32]"), avrun.stdout());
        }
        try (ChildJvm avrun = avrun(List.of("-n", "2", "--addr-format", "ipv6", "--", "true")))
        {
            assertEquals(2, avrun.waitFor(WAIT), avrun::stderr);
            assertTrue(avrun.stderr().contains("'ipv6' is not an address format; use one of in, in6, str"), avrun.stderr());
        }
        assertEquals(List.of(), dir.names());
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

    /**
     * A job that ends by a rank's failure: the rank that exits (System.exit, without closing its Rank) and
     * the ranks avrun stops with SIGTERM close their AV handle on the way out, so that each frees its
     * attacher entry instead of leaving it to recovery ({@code shmav show}: 0 dead attachers). Before
     * ranks under avrun had the shutdown hook, all 4 entries were left dead.
     */
    @Test
    void shouldFreeTheAttacherEntryOfEveryRankOfAFailedJob() throws Exception
    {
        final List<String> args = new ArrayList<>(List.of("-n", "4", "--name", "failed", "--keep", "--timeout", "80", "--"));
        args.addAll(JavaCommand.forMain(FailingJobRank.class.getName(), List.of(), List.of()));
        try (ChildJvm avrun = avrun(args))
        {
            assertEquals(3, avrun.waitFor(WAIT), avrun::stderr);
            assertTrue(avrun.stdout().contains("[0] rank 0 sees all 4"), avrun.stdout());
            assertTrue(avrun.stderr().contains("rank 3 (pid "), avrun.stderr());
        }
        try (ChildJvm show = ChildJvm.script("shmav", Map.of("SHMAV_DIR", dir.path().toString()), logs,
            List.of("show", "failed", "--json")))
        {
            assertEquals(0, show.waitFor(WAIT), show::stderr);
            final String json = show.stdout();
            assertTrue(json.matches("(?s).*\"deadAttachers\"\\s*:\\s*0\\b.*"),
                "every rank's attacher entry was freed, none left to recovery: " + json);
            assertTrue(json.matches("(?s).*\"liveAttachers\"\\s*:\\s*0\\b.*"), json);
        }
    }

    @Test
    void shouldStopEveryRankWhenTheTimeoutPasses() throws Exception
    {
        try (ChildJvm avrun = avrun(List.of("-n", "2", "--timeout", "2", "--", "sleep", "60")))
        {
            assertEquals(124, avrun.waitFor(WAIT), avrun::stderr);
            assertTrue(avrun.stderr().contains("timeout: the job ran longer than 2 s; ranks 0,1 still running, stopping them"),
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
            assertTrue(avrun.stderr().contains("scripts/shmav rm kept --dir " + dir.path()), "hints keep --dir: " +
                avrun.stderr());
        }
        assertEquals(List.of(".shmav-lock.kept", "kept"), dir.names());
        assertEquals(2, ToolAccess.openReadOnly(dir.path().resolve("kept")).layout().capacity());
        try (ChildJvm again = avrun(List.of("-n", "2", "--name", "kept", "--", "true")))
        {
            assertEquals(125, again.waitFor(WAIT), again::stderr);
            assertTrue(again.stderr().contains("AV 'kept' already exists"), again.stderr());
            assertTrue(again.stderr().contains("scripts/shmav rm kept --dir " + dir.path()), again.stderr());
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
        final Path file = Files.writeString(logs.resolve("a-file"), "not a directory");
        try (ChildJvm avrun = avrun(List.of("-n", "1", "--dir", file.resolve("sub").toString(), "--", "true")))
        {
            assertEquals(125, avrun.waitFor(WAIT), avrun::stderr);
            // a mkdir would fail the same way: the answer names the reason and another directory instead
            assertTrue(avrun.stderr().contains("directory " + file.resolve("sub") + " does not exist and cannot be created (" +
                "Not a directory); choose another directory with --dir or SHMAV_DIR"), avrun.stderr());
        }
        try (ChildJvm avrun = avrun(List.of("-n", "0", "--", "true")))
        {
            assertEquals(2, avrun.waitFor(WAIT), avrun::stderr);
        }
        assertEquals(List.of(), dir.names());
    }

    @Test
    void shouldCreateAMissingDirectoryWithMode0700() throws Exception
    {
        final Path missing = dir.path().resolve("missing").resolve("deeper");
        try (ChildJvm avrun = avrun(List.of("-n", "1", "--dir", missing.toString(), "--", "true")))
        {
            assertEquals(0, avrun.waitFor(WAIT), avrun::stderr);
            assertTrue(avrun.stderr().contains("created directory " + missing + " (mode 0700)"), avrun.stderr());
        }
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(missing)));
        try (var left = Files.list(missing))
        {
            assertEquals(0, left.count());
        }
    }

    @Test
    void shouldPrintOutputWithoutPrefixesWithNoPrefix() throws Exception
    {
        try (ChildJvm avrun = avrun(List.of("-n", "2", "--no-prefix", "--", "sh", "-c", "echo rank=$SHMAV_RANK")))
        {
            assertEquals(0, avrun.waitFor(WAIT), avrun::stderr);
            assertEquals(List.of("rank=0", "rank=1"), avrun.stdout().lines().sorted().toList());
        }
    }

    /**
     * SIGTERM or SIGINT to avrun (started with SIGINT at its default, as from a terminal, whatever this
     * JVM inherited: {@link ChildJvm#script}): forwarded to every rank, whose signal handlers' last
     * words all reach avrun's output; avrun exits 128 + the signal and blames no rank.
     */
    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT"})
    void shouldForwardASignalDrainEveryRankAndExitWith128PlusIt(final String signal) throws Exception
    {
        final Path started = Files.createDirectories(logs.resolve("started"));
        final String rankScript = "trap 'echo \"got SIG" + signal + "\"; sleep 0.3; echo \"last words of $SHMAV_RANK\"; " +
            "exit 3' " + signal + "; touch " + started + "/$SHMAV_RANK; while :; do sleep 0.05; done";
        try (ChildJvm avrun = avrun(List.of("-n", "3", "--timeout", "60", "--", "sh", "-c", rankScript)))
        {
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (started.toFile().list().length < 3 && System.nanoTime() < deadline)
            {
                Thread.sleep(20);
            }
            final Process kill = new ProcessBuilder("sh", "-c", "kill -s " + signal + " " + avrun.pid()).start();
            assertTrue(kill.waitFor(30, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -s " + signal);
            assertEquals(signal.equals("INT") ? 130 : 143, avrun.waitFor(WAIT), avrun::stderr);
            for (int r = 0; r < 3; r++)
            {
                assertTrue(avrun.stdout().contains("[" + r + "] last words of " + r), avrun.stdout());
            }
            assertTrue(avrun.stderr().contains("avrun: interrupted by SIG" + signal + "; stopped ranks 0,1,2"), avrun.stderr());
            assertFalse(avrun.stderr().contains("exited with status"), "no rank is blamed: " + avrun.stderr());
        }
        assertEquals(List.of(), dir.names());
    }

    private ChildJvm avrun(final List<String> args) throws IOException
    {
        return ChildJvm.script("avrun", Map.of("SHMAV_DIR", dir.path().toString()), logs, args);
    }
}
