package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;


/**
 * A real Slurm for {@link SrunStoresIT}: Debian's Slurm 22.05 daemons, one
 * slurmctld and two slurmds, started once per test JVM by {@code integration-tests/nodes/slurm-cluster}
 * (each slurmd a simulated node, n1 and n2, with its own host name, /tmp and /dev/shm) on ports of its
 * own, and stopped when the JVM exits. Needs root and the packages slurmctld, slurmd, slurm-client and
 * munge: without them the tests skip, or fail under {@code SHMAV_IT_REQUIRE_SLURM=1}.
 */
final class SimulatedSlurm
{
    private static final Path SCRIPT = Path.of("integration-tests", "nodes", "slurm-cluster").toAbsolutePath();
    private static Path conf;

    private SimulatedSlurm()
    {
    }

    /** The cluster's slurm.conf, starting the cluster on first use. */
    static synchronized Path cluster() throws Exception
    {
        if (conf != null)
        {
            return conf;
        }
        final List<String> missing = new ArrayList<>();
        if (!"root".equals(System.getProperty("user.name")))
        {
            missing.add("root (the slurmds unshare and mount; running as " + System.getProperty("user.name") + ")");
        }
        for (final String binary : List.of("/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/srun", "/usr/sbin/munged"))
        {
            if (!Files.isExecutable(Path.of(binary)))
            {
                missing.add(binary + " (apt-get install slurmctld slurmd slurm-client munge)");
            }
        }
        Require.that("SLURM", missing.isEmpty(), "a real Slurm needs " + String.join(", ", missing));
        final Path dir = Path.of("/var/tmp", "shmav-slurm-it-" + ProcessHandle.current().pid());
        final String port = Integer.toString(20_000 + ThreadLocalRandom.current().nextInt(20_000));
        try (TestDir logs = TestDir.inTmp("slurm-cluster-");
             ChildJvm start = ChildJvm.command(List.of(SCRIPT.toString(), "start", dir.toString(), "2", port), Map.of(),
                 logs.path()))
        {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(dir), "slurm-cluster-stop"));
            assertEquals(0, start.waitFor(Duration.ofSeconds(90)), () -> "slurm-cluster start failed: " + start.stdout() +
                start.stderr());
        }
        conf = dir.resolve("slurm.conf");
        return conf;
    }

    /**
     * {@code srun --mpi=MPI} of {@code main MODE} with one task per entry of {@code nodes} (e.g. n1 n1 n1
     * n2: 3 ranks on n1, 1 on n2, in that rank order); asserts it exited 0 with no FAILED line; its stdout.
     */
    static String srun(final String mpi, final List<String> nodes, final Class<?> main, final String mode) throws Exception
    {
        return srun(mpi, nodes, main, mode, true);
    }

    /** As {@link #srun(String, List, Class, String)}; with {@code succeed} false, any exit status is taken. */
    static String srun(final String mpi, final List<String> nodes, final Class<?> main, final String mode,
        final boolean succeed) throws Exception
    {
        return srun(mpi, nodes, main, List.of(mode), succeed);
    }

    /** As {@link #srun(String, List, Class, String, boolean)}, with {@code main}'s arguments {@code args}. */
    static String srun(final String mpi, final List<String> nodes, final Class<?> main, final List<String> args,
        final boolean succeed) throws Exception
    {
        final Path slurmConf = cluster();
        try (TestDir logs = TestDir.inTmp("srun-it-"))
        {
            final Path hostfile = logs.path().resolve("hosts");
            Files.write(hostfile, nodes);
            final List<String> command = new ArrayList<>(List.of("/usr/bin/srun", "--mpi=" + mpi, "-n",
                Integer.toString(nodes.size()), "-m", "arbitrary", "-O", "--time=5",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-Xmx128m", "-cp", System.getProperty("java.class.path"), main.getName()));
            command.addAll(args);
            try (ChildJvm run = ChildJvm.command(command, Map.of("SLURM_CONF", slurmConf.toString(),
                "SLURM_HOSTFILE", hostfile.toString()), logs.path()))
            {
                final int status = run.waitFor(Duration.ofSeconds(120));
                final String out = run.stdout();
                if (succeed)
                {
                    assertEquals(0, status, () -> out + run.stderr());
                }
                assertFalse(out.contains("FAILED"), out);
                return out;
            }
        }
    }

    private static void stop(final Path dir)
    {
        try
        {
            final Process stop = new ProcessBuilder(SCRIPT.toString(), "stop", dir.toString()).inheritIO().start();
            if (!stop.waitFor(30, java.util.concurrent.TimeUnit.SECONDS))
            {
                stop.destroyForcibly();
                System.err.println("slurm-cluster stop " + dir + " did not end within 30 s");
            }
        }
        catch (final Exception e)
        {
            System.err.println("slurm-cluster stop " + dir + " failed: " + e);
        }
    }
}
