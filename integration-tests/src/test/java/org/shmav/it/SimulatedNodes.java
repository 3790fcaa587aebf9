package org.shmav.it;


import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;


/**
 * Jobs across simulated nodes on this machine: a real launcher reaches each "node" through
 * {@code integration-tests/nodes/fakessh}, which runs the node's daemon and its ranks in a mount and
 * UTS namespace of their own, with their own tmpfs on {@code /dev/shm} and their own host name. Needs
 * root (unshare, mount) and the launcher; without them a test is skipped with the reason, unless
 * {@code SHMAV_IT_REQUIRE_MPI=1} (CI), which turns a missing launcher into a failure.
 */
final class SimulatedNodes
{
    static final Path FAKESSH = Path.of(System.getProperty("user.dir"), "integration-tests", "nodes", "fakessh");

    private SimulatedNodes()
    {
    }

    /** Skips (or, under CI's flag for MPI, fails) unless simulated nodes and {@code binary} are here. */
    static Path require(final String binary, final String debianPackage)
    {
        Require.that("MPI", "root".equals(System.getProperty("user.name")), "simulated nodes need root (unshare -m -u, " +
            "mount tmpfs); user is " + System.getProperty("user.name"));
        Require.tool("MPI", "unshare", "util-linux");
        return Require.tool("MPI", binary, debianPackage);
    }

    /**
     * {@code mpiexec.hydra -launcher ssh -launcher-exec fakessh -hosts HOSTS -n N [-genv K V]... java ... MAIN};
     * Hydra places ranks round robin over the hosts' slots ({@code n1:3} is 3 slots).
     */
    static ChildJvm mpiexec(final String hosts, final int ranks, final Map<String, String> genv, final String main,
        final Path logs) throws Exception
    {
        return mpiexec(hosts, ranks, genv, main, logs, Map.of());
    }

    /** {@link #mpiexec(String, int, Map, String, Path)} with {@code launcherEnv} added to mpiexec's environment (fakessh's). */
    static ChildJvm mpiexec(final String hosts, final int ranks, final Map<String, String> genv, final String main,
        final Path logs, final Map<String, String> launcherEnv) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of(require("mpiexec.hydra", "mpich").toString(), "-launcher",
            "ssh", "-launcher-exec", FAKESSH.toString(), "-hosts", hosts, "-n", Integer.toString(ranks)));
        for (final Map.Entry<String, String> e : genv.entrySet())
        {
            command.addAll(List.of("-genv", e.getKey(), e.getValue()));
        }
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-Xmx96m", "-XX:-UsePerfData", "-cp", System.getProperty("java.class.path"), main));
        // /dev/shm is each node's own tmpfs: whatever SHMAV_DIR the test JVM has, the nodes use theirs
        final Map<String, String> env = new HashMap<>(launcherEnv);
        env.put("SHMAV_DIR", "/dev/shm");
        return ChildJvm.command(command, env, logs);
    }

    /**
     * {@code mpirun --mca plm_rsh_agent fakessh --host HOSTS -np N [-x K=V]... java ... MAIN}; Open MPI
     * fills each host's slots in turn ({@code n1:3} is 3 slots).
     */
    static ChildJvm mpirun(final String hosts, final int ranks, final Map<String, String> env, final String main,
        final Path logs) throws Exception
    {
        return mpirun(hosts, ranks, env, main, logs, Map.of());
    }

    /** {@link #mpirun(String, int, Map, String, Path)} with {@code launcherEnv} added to mpirun's environment (fakessh's). */
    static ChildJvm mpirun(final String hosts, final int ranks, final Map<String, String> env, final String main,
        final Path logs, final Map<String, String> launcherEnv) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of(require("mpirun.openmpi", "openmpi-bin").toString(),
            "--mca", "plm_rsh_agent", FAKESSH.toString(), "--host", hosts, "-np", Integer.toString(ranks)));
        for (final Map.Entry<String, String> e : env.entrySet())
        {
            command.addAll(List.of("-x", e.getKey() + "=" + e.getValue()));
        }
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-Xmx96m", "-XX:-UsePerfData", "-cp", System.getProperty("java.class.path"), main));
        // Open MPI refuses root unless told twice
        final Map<String, String> launcher = new HashMap<>(launcherEnv);
        launcher.putAll(Map.of("SHMAV_DIR", "/dev/shm", "OMPI_ALLOW_RUN_AS_ROOT", "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"));
        return ChildJvm.command(command, launcher, logs);
    }

    /**
     * The look-ups each node's local rank 0 reported in its wire-up timings line
     * ({@code -Dshmav.wireup.timings=1}), by rank, checking that each filled {@code entries} entries.
     */
    static Map<Integer, Integer> leaderLookups(final String stderr, final int entries)
    {
        final Matcher m = Pattern.compile("shmav wire-up rank (\\d+): .*?, (\\d+) look-ups .*?, fill of (\\d+) entries")
            .matcher(stderr);
        final Map<Integer, Integer> lookups = new TreeMap<>();
        while (m.find())
        {
            lookups.put(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
            if (Integer.parseInt(m.group(3)) != entries)
            {
                throw new AssertionError("rank " + m.group(1) + " filled " + m.group(3) + " entries, not " + entries + ": " + stderr);
            }
        }
        return lookups;
    }

    /** Each node's local rank 0 and the round trips to the store its look-ups took, from the same timings lines. */
    static Map<Integer, Integer> leaderRoundTrips(final String stderr)
    {
        final Matcher m = Pattern.compile("shmav wire-up rank (\\d+): .*? look-ups \\(\\d+ characters, (\\d+) round trips\\)")
            .matcher(stderr);
        final Map<Integer, Integer> trips = new TreeMap<>();
        while (m.find())
        {
            trips.put(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
        }
        return trips;
    }
}
