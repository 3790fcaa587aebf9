package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.shmav.cli.ShmavCli;
import org.shmav.launch.RingDemo;

/**
 * A job of a fixed AV name ({@code SHMAV_AV=job42}) whose node leaders are SIGKILLed while they create
 * the node's AV, with no cleanup process started ({@code SHMAV_REAPER=0}: the leader died before it
 * would have started one), across simulated nodes whose {@code /dev/shm} outlives the job (fakessh's
 * {@code FAKESSH_SHM_ROOT}: one folder per node, bind-mounted); then the same job at once, which must
 * run the ring demo: each node's local rank 0 removes what the crashed job left, saying so on stderr.
 * Under mpiexec (PMI-1) and mpirun (PMIx). Also an AV and its lock file left with no job file.
 */
class CrashedJobRerunIT
{
    private static final String NAME = "job42";
    private static final String HOSTS = "n1:1,n2:2";

    @ParameterizedTest(name = "{0}: leaders on {1} killed at {2}")
    @CsvSource({"mpiexec, n1, job", "mpiexec, 'n1,n2', job", "mpiexec, 'n1,n2', av", "mpirun, n1, job",
        "mpirun, 'n1,n2', job", "mpirun, 'n1,n2', av"})
    void shouldRunTheSameJobAtOnceAfterItsLeadersWereKilledWhileCreating(final String launcher, final String crashHosts,
        final String at) throws Exception
    {
        try (TestDir nodes = TestDir.inShm("crash-nodes-"); TestDir logs = TestDir.inTmp("crash-it-logs-"))
        {
            final Map<String, String> launcherEnv = Map.of("FAKESSH_SHM_ROOT", nodes.path().toString());
            try (ChildJvm crash = run(launcher, Map.of("SHMAV_AV", NAME, "SHMAV_REAPER", "0", "CRASH_HOSTS", crashHosts,
                "CRASH_AT", at), CrashingLeaderRank.class.getName(), logs.path(), launcherEnv))
            {
                final int status = crash.waitFor(Duration.ofSeconds(120));
                assertTrue(status != 0, () -> "the launcher ends a job whose rank was killed: " + crash.output());
                assertFalse(crash.stdout().contains("survived "), "no rank of the killed job got through: " + crash.output());
            }
            final List<String> left = jobFiles(nodes.path());
            // the leader killed first makes the launcher end the others, which may not have reached their creation
            assertFalse(left.isEmpty(), "the killed leaders left their files: " + left);
            System.out.println(launcher + ", leaders on " + crashHosts + " killed at " + at + " left " + left);
            try (ChildJvm again = run(launcher, Map.of("SHMAV_AV", NAME), RingDemo.class.getName(), logs.path(), launcherEnv))
            {
                final String out = succeeded(again);
                assertTrue(out.contains("token came back with value 3 after 3 hops: ring OK"), out);
                assertTrue(again.stderr().contains("(local rank 0) of job ") && again.stderr().contains("left of AV 'job42'") ||
                    again.stderr().contains("left with no job file"), again.stderr());
                assertEquals(again.stderr().lines().filter(l -> l.contains("removed")).count(),
                    again.stderr().lines().filter(l -> l.contains("removed") && l.contains("and goes on")).count(),
                    "one line per node: " + again.stderr());
            }
            awaitNoJobFiles(nodes.path());
        }
    }

    /** What a leader left when it was killed after making the AV but before the job file was made anew: an AV, no job file. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"mpiexec", "mpirun"})
    void shouldRunTheJobOverAnAvAndLockFileLeftWithoutJobFile(final String launcher) throws Exception
    {
        try (TestDir nodes = TestDir.inShm("crash-nodes-"); TestDir logs = TestDir.inTmp("crash-it-logs-"))
        {
            final Path n2 = nodes.path().resolve("n2");
            Files.createDirectories(n2);
            // made by a process that is gone (this tool's child JVM), and no process has it open
            try (ChildJvm create = ChildJvm.start(ShmavCli.class, logs.path(), "--dir", n2.toString(), "create", NAME,
                "--count", "8"))
            {
                assertEquals(0, create.waitFor(Duration.ofSeconds(60)), create::output);
            }
            assertTrue(Files.exists(n2.resolve(".shmav-lock." + NAME)) && !Files.exists(n2.resolve(".shmav-job." + NAME)));
            try (ChildJvm again = run(launcher, Map.of("SHMAV_AV", NAME), RingDemo.class.getName(), logs.path(),
                Map.of("FAKESSH_SHM_ROOT", nodes.path().toString())))
            {
                final String out = succeeded(again);
                assertTrue(out.contains("ring OK"), out);
                assertTrue(again.stderr().contains("removed AV 'job42' in /dev/shm and its lock file, left with no job file"),
                    again.stderr());
            }
            awaitNoJobFiles(nodes.path());
        }
    }

    private static ChildJvm run(final String launcher, final Map<String, String> env, final String main, final Path logs,
        final Map<String, String> launcherEnv) throws Exception
    {
        return "mpiexec".equals(launcher) ? SimulatedNodes.mpiexec(HOSTS, 3, env, main, logs, launcherEnv) :
            SimulatedNodes.mpirun(HOSTS, 3, env, main, logs, launcherEnv);
    }

    /** The files of AV job42 in the nodes' folders, as {@code node/file}. */
    private static List<String> jobFiles(final Path nodes) throws IOException
    {
        try (Stream<Path> files = Files.walk(nodes, 2))
        {
            return files.filter(f -> f.getNameCount() - nodes.getNameCount() == 2 && f.getFileName().toString().contains(NAME))
                .map(f -> nodes.relativize(f).toString()).sorted().collect(Collectors.toList());
        }
    }

    /** The second job's own files go when it ends (its last rank, or its cleanup process 200 ms later). */
    private static void awaitNoJobFiles(final Path nodes) throws Exception
    {
        final long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!jobFiles(nodes).isEmpty() && System.nanoTime() - deadline < 0)
        {
            Thread.sleep(100);
        }
        assertEquals(List.of(), jobFiles(nodes), "nothing of job42 is left on any node");
    }

    private static String succeeded(final ChildJvm run) throws InterruptedException
    {
        final int status = run.waitFor(Duration.ofSeconds(150));
        final String out = run.stdout();
        assertEquals(0, status, () -> out + run.stderr());
        return out;
    }
}
