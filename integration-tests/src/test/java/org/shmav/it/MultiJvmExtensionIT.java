package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.opentest4j.AssertionFailedError;
import org.shmav.Rank;
import org.shmav.junit.MultiJvmRun;

/**
 * What {@code @MultiJvmTest} promises when ranks misbehave, checked on {@link MultiJvmRun} (the
 * engine behind the annotation) with the rank bodies of {@link MultiJvmFixtures}: a failing rank is
 * named, its assertion is the cause, the other ranks are stopped, a timeout kills every rank, and the
 * AV is removed.
 */
@Isolated("its ranks must start within a 3 s timeout: runs alone, not beside other test classes")
class MultiJvmExtensionIT
{
    private TestDir avs;
    private TestDir pids;

    @BeforeEach
    void createDirectories() throws IOException
    {
        avs = TestDir.inShm("multijvm-it-");
        pids = TestDir.inTmp("multijvm-it-pids-");
    }

    @AfterEach
    void removeDirectories() throws IOException
    {
        try (TestDir a = avs; TestDir p = pids)
        {
            // closing deletes both
        }
    }

    @Test
    void shouldFailWithTheFailingRanksAssertionAndStopTheOthers() throws Exception
    {
        final long start = System.nanoTime();
        final AssertionError e = assertThrows(AssertionError.class, () -> run("failsOnRankTwo", 3, Duration.ofSeconds(60)));
        assertTrue(Duration.ofNanos(System.nanoTime() - start).toSeconds() < 30, "the sleeping ranks were stopped");
        assertTrue(e.getMessage().startsWith("@MultiJvmTest MultiJvmFixtures.failsOnRankTwo: rank 2 of 3 failed: " +
            "org.opentest4j.AssertionFailedError: rank 2 disagrees ==> expected: <0> but was: <2>"), e.getMessage());
        assertInstanceOf(AssertionFailedError.class, e.getCause());
        assertTrue(e.getMessage().contains("--- output of rank 2 ---\n[2] "), e.getMessage());
        assertTrue(e.getMessage().contains("[2] org.opentest4j.AssertionFailedError: rank 2 disagrees"), e.getMessage());
        assertRanksGone(3);
        assertEquals(List.of(), avs.names(), "the run's AV is removed");
    }

    @Test
    void shouldKillEveryRankWhenTheTimeoutPasses() throws Exception
    {
        final long start = System.nanoTime();
        final AssertionError e = assertThrows(AssertionError.class, () -> run("sleepsPastTheTimeout", 2, Duration.ofSeconds(3)));
        assertTrue(Duration.ofNanos(System.nanoTime() - start).toSeconds() < 20, "stopped at the timeout");
        assertTrue(e.getMessage().startsWith("@MultiJvmTest MultiJvmFixtures.sleepsPastTheTimeout: the ranks did not " +
            "finish within 3 s; every rank was stopped; ranks 0,1 did not finish (thread dumps in their output below)"),
            e.getMessage());
        for (int r = 0; r < 2; r++)
        {
            assertTrue(e.getMessage().contains("--- output of rank " + r + " (did not finish) ---\n[" + r + "] sleeping"),
                "output so far: " + e.getMessage());
            assertTrue(e.getMessage().contains("[" + r + "] Full thread dump"), "thread dump: " + e.getMessage());
            assertTrue(e.getMessage().contains("[" + r + "] \tat org.shmav.it.MultiJvmFixtures.sleepsPastTheTimeout"),
                "the test's stack: " + e.getMessage());
        }
        assertRanksGone(2);
        assertEquals(List.of(), avs.names());
    }

    private void run(final String fixture, final int ranks, final Duration timeout) throws Exception
    {
        MultiJvmRun.builder(MultiJvmFixtures.class, MultiJvmFixtures.class.getDeclaredMethod(fixture, Rank.class))
            .ranks(ranks)
            .timeout(timeout)
            .jvmArgs(List.of("-Dfixture.dir=" + pids.path()))
            .directory(avs.path())
            .build()
            .run();
    }

    private void assertRanksGone(final int ranks) throws IOException
    {
        try (Stream<Path> files = Files.list(pids.path()))
        {
            final List<Path> pidFiles = files.toList();
            assertEquals(ranks, pidFiles.size(), "every rank started");
            for (final Path f : pidFiles)
            {
                final long pid = Long.parseLong(Files.readString(f).trim());
                assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), f + ": still running");
            }
        }
    }
}
