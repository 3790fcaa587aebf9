package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.parallel.Isolated;
import org.shmav.store.PmixStore;

/**
 * {@link PmixStore} under Debian's Open MPI 4.1.4 {@code mpirun} (its PMIx server runs on the system's
 * libpmix2 4.2.2), with ranks on simulated nodes: {@code integration-tests/nodes/fakessh} starts each
 * node's {@code orted} in a mount and UTS namespace of its own, so the values cross "nodes" only through
 * the launcher's store. Needs root (fakessh unshares and mounts); skipped otherwise. A missing
 * {@code mpirun} skips, or fails under {@code SHMAV_IT_REQUIRE_MPI=1} (see {@link MpiLaunchersIT}).
 * The last tests need neither: they show what a user without JNA or without libpmix is told.
 */
@Isolated("asserts when a timeout fires (2 to 5 s): runs alone, not beside other test classes")
class PmixStoreIT
{
    private static final Path FAKESSH = Path.of("integration-tests", "nodes", "fakessh").toAbsolutePath();
    private static final Pattern EVERY = Pattern.compile(
        "rank (\\d) of 4 on (n\\d) sees every rank: rank-0@(n\\d) rank-1@(n\\d) rank-2@(n\\d) rank-3@(n\\d) " +
            "\\(Open MPI mpirun \\(PMIx namespace \\d+\\)\\) (.*)");

    /** Every rank publishes, exchanges and reads every rank's value back, 2 and 2 or 3 and 1 per node. */
    @ParameterizedTest
    @ValueSource(strings = {"n1:2,n2:2", "n1:3,n2:1"})
    void shouldGiveEveryRankEveryRanksValueAcrossNodes(final String hosts) throws Exception
    {
        final String out = mpirun(hosts, "every");
        final List<String> placed = placement(hosts);
        final Matcher m = EVERY.matcher(out);
        int ranks = 0;
        while (m.find())
        {
            final int rank = Integer.parseInt(m.group(1));
            assertEquals(placed.get(rank), m.group(2), "rank " + rank + " runs on its node\n" + out);
            for (int r = 0; r < 4; r++)
            {
                assertEquals(placed.get(r), m.group(3 + r), "rank " + rank + " sees rank " + r + "'s node\n" + out);
            }
            if (rank == 0)
            {
                System.out.println("PMIx store, mpirun --host " + hosts + ", rank 0: " + m.group(7));
            }
            ranks++;
        }
        assertEquals(4, ranks, out);
    }

    /** A key no rank published: FI_ENODATA at once (not after the timeout), naming the rank and the launcher. */
    @Test
    void shouldAnswerAMissingKeyWithEnodataNamingRankAndLauncher() throws Exception
    {
        final String out = mpirun("n1:2,n2:2", "missing");
        final Matcher m = Pattern.compile("rank (\\d) got FI_ENODATA after (\\d+) ms: PMIx_Get: .*rank=(\\d) " +
            "key=no-such-key launcher=Open MPI mpirun \\(PMIx namespace \\d+\\) answered NOT-FOUND").matcher(out);
        int ranks = 0;
        while (m.find())
        {
            assertEquals((Integer.parseInt(m.group(1)) + 1) % 4, Integer.parseInt(m.group(3)), out);
            assertTrue(Long.parseLong(m.group(2)) < 4_000, "answered before the 5 s timeout\n" + out);
            ranks++;
        }
        assertEquals(4, ranks, out);
    }

    /**
     * A rank that never publishes: the others' exchange ends with FI_ETIMEDOUT at their 2 s deadline,
     * naming the launcher (Open MPI's server ignores PMIX_TIMEOUT; the client's own deadline ends it),
     * and every rank still finalizes, so mpirun exits normally.
     */
    @Test
    void shouldTimeOutTheExchangeWhenARankNeverPublishes() throws Exception
    {
        final String out;
        try (TestDir reports = TestDir.inVarTmp("pmix-silent-it-"))
        {
            out = mpirun("n1:2,n2:2", List.of("silent", reports.path().toString()), true);
        }
        final Matcher m = Pattern.compile("rank (\\d) got FI_ETIMEDOUT after (\\d+) ms: PMIx_Fence: .*launcher=Open " +
            "MPI mpirun \\(PMIx namespace \\d+\\): the exchange did not complete within 2000 ms: every rank").matcher(out);
        int ranks = 0;
        while (m.find())
        {
            final long ms = Long.parseLong(m.group(2));
            assertTrue(ms >= 2_000 && ms < 5_000, "within the deadline, not long after it\n" + out);
            ranks++;
        }
        assertEquals(3, ranks, out);
        assertTrue(out.contains("rank 3 stayed silent"), out);
    }

    /**
     * A rank that dies before it publishes: Open MPI's policy is to end the whole job (the others never
     * reach their 20 s deadline); mpirun exits with an error well within it, and nothing hangs.
     */
    @Test
    void shouldHaveMpirunEndTheJobWhenARankDiesBeforePublishing() throws Exception
    {
        final long t0 = System.nanoTime();
        final String out = mpirun("n1:2,n2:2", List.of("die"), false);
        assertTrue(out.contains("rank 3 dies before it publishes"), out);
        assertTrue((System.nanoTime() - t0) / 1_000_000 < 20_000, "ended before the others' deadline\n" + out);
    }

    /** Without JNA on the classpath: FI_ENOSYS naming the jar, and nothing else of shmav needs it. */
    @Test
    void shouldNameTheJarWhenJnaIsMissing() throws Exception
    {
        final List<String> kept = new ArrayList<>();
        for (final String entry : System.getProperty("java.class.path").split(":"))
        {
            if (!entry.contains("/net/java/dev/jna/"))
            {
                kept.add(entry);
            }
        }
        final String out = probe(List.of(), String.join(":", kept));
        assertTrue(out.contains("FI_ENOSYS") && out.contains("net.java.dev.jna:jna:5.19.1") &&
            out.contains("launcher=a PMIx launcher (PMIx namespace it-no-jna)"), out);
    }

    /** Without libpmix (here: a library name that does not exist): FI_ENOSYS naming the package. */
    @Test
    void shouldNameThePackageWhenLibpmixIsMissing() throws Exception
    {
        final String out = probe(List.of("-Dshmav.pmix.library=/nonexistent/libpmix.so.2"),
            System.getProperty("java.class.path"));
        assertTrue(out.contains("FI_ENOSYS") && out.contains("apt-get install libpmix2"), out);
    }

    /** {@code mpirun --host HOSTS -np 4} of {@link PmixStoreRank} through fakessh; its output, checked for FAILED. */
    private static String mpirun(final String hosts, final String mode) throws Exception
    {
        return mpirun(hosts, List.of(mode), true);
    }

    /**
     * As {@link #mpirun(String, String)}, with {@link PmixStoreRank}'s arguments {@code args}; with {@code succeed}
     * false, mpirun must fail (exit status not 0).
     */
    private static String mpirun(final String hosts, final List<String> args, final boolean succeed) throws Exception
    {
        Require.root("fakessh makes simulated nodes with unshare and mount");
        final List<String> command = new ArrayList<>(List.of(MpiLaunchersIT.Launcher.OPEN_MPI.binary().toString(),
            "--allow-run-as-root", "--mca", "plm_rsh_agent", FAKESSH.toString(), "--host", hosts, "-np", "4",
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-Xmx128m", "-cp", System.getProperty("java.class.path"),
            PmixStoreRank.class.getName()));
        command.addAll(args);
        try (TestDir logs = TestDir.inTmp("pmix-store-it-");
             ChildJvm run = ChildJvm.command(command, Map.of("OMPI_ALLOW_RUN_AS_ROOT", "1",
                 "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"), logs.path()))
        {
            final int status = run.waitFor(Duration.ofSeconds(120));
            final String out = run.stdout();
            if (succeed)
            {
                assertEquals(0, status, () -> out + run.stderr());
            }
            else
            {
                assertNotEquals(0, status, () -> out + run.stderr());
            }
            assertFalse(out.contains("FAILED"), out);
            return out;
        }
    }

    /** Node of each rank: mpirun fills the hosts in order ({@code n1:3,n2:1}: n1 n1 n1 n2). */
    private static List<String> placement(final String hosts)
    {
        final List<String> nodes = new ArrayList<>();
        for (final String host : hosts.split(","))
        {
            final String[] nameSlots = host.split(":");
            for (int i = 0; i < Integer.parseInt(nameSlots[1]); i++)
            {
                nodes.add(nameSlots[0]);
            }
        }
        return nodes;
    }

    /** Runs {@link PmixOpenProbe} with {@code PMIX_NAMESPACE} set; its output. */
    private static String probe(final List<String> flags, final String classpath) throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(flags);
        command.addAll(List.of("-cp", classpath, PmixOpenProbe.class.getName()));
        try (TestDir logs = TestDir.inTmp("pmix-probe-it-");
             ChildJvm run = ChildJvm.command(command, Map.of("PMIX_NAMESPACE", "it-no-jna"), logs.path()))
        {
            final int status = run.waitFor(Duration.ofSeconds(60));
            final String out = run.stdout() + run.stderr();
            assertEquals(0, status, out);
            return out;
        }
    }
}
