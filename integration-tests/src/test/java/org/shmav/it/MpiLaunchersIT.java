package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.parallel.Isolated;
import org.shmav.launch.RingDemo;

/**
 * {@link org.shmav.Rank} under the launchers users already have: Debian's Open MPI {@code mpirun}
 * (package openmpi-bin) and MPICH's {@code mpiexec} (package mpich), 4 ranks on this machine, called
 * by their unambiguous names ({@code mpirun} itself is whichever the alternatives system picked).
 * A launcher that is not installed skips its tests with the package to install, unless
 * {@code SHMAV_IT_REQUIRE_MPI=1} (set by {@code .ci/run}, which installs both): then it fails.
 */
@Isolated("asserts the order in which ranks exit, paced by sleeps: runs alone, not beside other test classes")
class MpiLaunchersIT
{
    /** The two launchers, with the command line that starts 4 ranks on a machine with fewer cores, as root too. */
    enum Launcher
    {
        OPEN_MPI("Open MPI mpirun", "openmpi-bin", List.of("mpirun.openmpi", "mpiexec.openmpi"),
            List.of("--oversubscribe", "-np", "4")),
        MPICH("MPICH mpiexec (Hydra)", "mpich", List.of("mpiexec.hydra", "mpiexec.mpich"), List.of("-n", "4"));

        final String description;
        final String debianPackage;
        final List<String> binaries;
        final List<String> args;

        Launcher(final String description, final String debianPackage, final List<String> binaries, final List<String> args)
        {
            this.description = description;
            this.debianPackage = debianPackage;
            this.binaries = binaries;
            this.args = args;
        }

        Path binary()
        {
            final Optional<Path> found = binaries.stream().flatMap(b -> pathEntries().stream().map(d -> d.resolve(b)))
                .filter(Files::isExecutable).findFirst();
            Require.that("MPI", found.isPresent(), "none of " + binaries + " on PATH: apt-get install " + debianPackage);
            return found.get();
        }

        private static List<Path> pathEntries()
        {
            final List<Path> dirs = new ArrayList<>();
            for (final String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(":"))
            {
                if (!d.isEmpty())
                {
                    dirs.add(Path.of(d));
                }
            }
            dirs.add(Path.of("/usr/bin"));
            return dirs;
        }
    }

    /** Waits (at most 120 s) for the launcher to exit, asserts it exited with 0; its stdout. */
    private static String succeeded(final ChildJvm run) throws InterruptedException
    {
        final int status = run.waitFor(Duration.ofSeconds(120));
        final String out = run.stdout();
        assertEquals(0, status, () -> out + run.stderr());
        return out;
    }

    private static final Pattern LISTENING = Pattern.compile("rank (\\d+) of 4 \\((.*)\\) listening on (\\S+), published at fi_addr (\\d+)");

    @ParameterizedTest
    @EnumSource(Launcher.class)
    void shouldRunTheRingDemo(final Launcher launcher) throws Exception
    {
        try (TestDir dir = TestDir.inShm("mpi-ring-it-"); TestDir logs = TestDir.inTmp("mpi-ring-it-logs-");
             ChildJvm run = launch(launcher, dir.path(), logs.path(), RingDemo.class.getName()))
        {
            final String out = succeeded(run);
            assertTrue(out.contains("token came back with value 4 after 4 hops: ring OK"), out);
            final Matcher m = LISTENING.matcher(out);
            int ranks = 0;
            while (m.find())
            {
                assertEquals(m.group(1), m.group(4), "fi_addr = rank on one node");
                assertEquals(launcher.description, m.group(2));
                ranks++;
            }
            assertEquals(4, ranks, out);
            System.out.println("ring demo under " + launcher.description + ": " + line(out, "wire-up: ") + " | " +
                line(out, "ring: "));
            assertEquals(List.of(), dir.names(), "the last rank to leave removed the node's AV");
        }
    }

    @ParameterizedTest
    @EnumSource(Launcher.class)
    void shouldGiveEveryRankEveryPeerAtFiAddrRank(final Launcher launcher) throws Exception
    {
        try (TestDir dir = TestDir.inShm("mpi-peers-it-"); TestDir logs = TestDir.inTmp("mpi-peers-it-logs-");
             ChildJvm run = launch(launcher, dir.path(), logs.path(), PeerCheckRank.class.getName()))
        {
            final String out = succeeded(run);
            final Matcher av = Pattern.compile("av=(\\S+)").matcher(out);
            assertTrue(av.find(), out);
            final String name = av.group(1);
            assertTrue(name.startsWith(launcher == Launcher.OPEN_MPI ? "ompi-" : "mpich-"), name);
            for (int r = 0; r < 4; r++)
            {
                assertTrue(out.contains("rank " + r + " of 4 env=null,null peers=4 launcher=" + launcher.description +
                    " local=" + r + "/4 av=" + name), out);
            }
            assertEquals(List.of(), dir.names(), "the last rank to leave removed the node's AV");
        }
    }

    /**
     * Ranks that exit one after another all run to their end: under MPICH, shmav asked the proxy for the
     * job's name on the PMI socket (cmd=init), and Hydra kills the rest of a job when such a process
     * exits without cmd=finalize, which shmav sends as the JVM exits.
     */
    @ParameterizedTest
    @EnumSource(Launcher.class)
    void shouldLetEveryRankRunToItsEndWhenRankZeroExitsFirst(final Launcher launcher) throws Exception
    {
        try (TestDir dir = TestDir.inShm("mpi-exit-it-"); TestDir logs = TestDir.inTmp("mpi-exit-it-logs-");
             ChildJvm run = launch(launcher, dir.path(), logs.path(), StaggeredExitRank.class.getName()))
        {
            final String out = succeeded(run);
            for (int r = 0; r < 4; r++)
            {
                assertTrue(out.contains("rank " + r + " exits"), () -> out + run.stderr());
            }
            assertEquals(List.of(), dir.names());
        }
    }

    /** {@code LAUNCHER ARGS java -cp <test classpath> MAIN}, ranks' AVs in {@code dir}. */
    private static ChildJvm launch(final Launcher launcher, final Path dir, final Path logs, final String main)
        throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(launcher.binary().toString());
        command.addAll(launcher.args);
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), main));
        // Open MPI refuses root unless told twice; harmless for other users and for MPICH
        return ChildJvm.command(command, Map.of("SHMAV_DIR", dir.toString(), "OMPI_ALLOW_RUN_AS_ROOT", "1",
            "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"), logs);
    }

    private static String line(final String out, final String start)
    {
        final int at = out.indexOf(start);
        assertTrue(at >= 0, out);
        return out.substring(at + start.length(), out.indexOf('\n', at));
    }
}
