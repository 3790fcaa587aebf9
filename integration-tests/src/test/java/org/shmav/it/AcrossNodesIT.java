package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.parallel.Isolated;
import org.shmav.launch.RingDemo;

/**
 * One job across simulated nodes ({@link SimulatedNodes}) under MPICH's mpiexec (Hydra, PMI-1 store):
 * every rank finds every rank at fi_addr = rank (FI_AV_TABLE) or {@code mapAddr + rank} (FI_AV_MAP) in
 * its node's one AV, on 2 and 4 nodes with even and uneven rank counts; the ring demo runs across nodes;
 * and the faults (a rank that publishes nothing, a rank that never exchanges, ranks of two nodes sharing
 * one SHMAV_DIR) reach every rank as a clear error within its deadline.
 */
@Isolated("asserts which ranks report a timeout, which a loaded machine can reorder: runs alone, not beside other test classes")
class AcrossNodesIT
{
    private static final Pattern SELF = Pattern.compile("self (\\d+) host=(\\S+) local=(\\d+)/(\\d+) at=(\\d+) " +
        "fiaddr=(\\d+) type=(\\S+) count=(\\d+)");
    private static final Pattern VIEW = Pattern.compile("view (\\d+): ([\\d ]+)");

    @ParameterizedTest(name = "{0} -n {1} {2}")
    @CsvSource({"'n1,n2', 4, table", "'n1,n2,n3,n4', 4, map", "'n1:3,n2:1', 4, table", "'n1:2,n2:1,n3:3,n4:2', 8, map",
        "'n1:3,n2:1,n3:2', 7, table"})
    void shouldLetEveryRankFindEveryRankInItsNodesAv(final String hosts, final int n, final String type) throws Exception
    {
        try (TestDir logs = TestDir.inTmp("nodes-it-logs-");
             ChildJvm run = SimulatedNodes.mpiexec(hosts, n, Map.of("SHMAV_AV_TYPE", type), NodesRank.class.getName(),
                 logs.path()))
        {
            final String out = succeeded(run);
            final Map<Integer, String> published = new HashMap<>();
            final Map<String, Integer> perNode = new HashMap<>();
            final Matcher self = SELF.matcher(out);
            while (self.find())
            {
                final int rank = Integer.parseInt(self.group(1));
                published.put(rank, self.group(5));
                perNode.merge(self.group(2), 1, Integer::sum);
                assertEquals(type.toUpperCase(), self.group(7), out);
                assertEquals(Integer.toString(n), self.group(8), "the node's AV holds every rank: " + out);
                if ("table".equals(type))
                {
                    assertEquals(self.group(1), self.group(6), "fi_addr = rank: " + out);
                }
            }
            assertEquals(n, published.size(), out);
            assertEquals(hosts.split(",").length, perNode.size(), "every node ran ranks: " + perNode);
            final List<String> expected = new ArrayList<>();
            for (int r = 0; r < n; r++)
            {
                expected.add(published.get(r));
            }
            final Matcher view = VIEW.matcher(out);
            int views = 0;
            while (view.find())
            {
                assertEquals(String.join(" ", expected), view.group(2).trim(), "rank " + view.group(1) + "'s view: " + out);
                views++;
            }
            assertEquals(n, views, out);
        }
    }

    @Test
    void shouldRunTheRingDemoAcrossNodes() throws Exception
    {
        try (TestDir logs = TestDir.inTmp("nodes-ring-it-logs-");
             ChildJvm run = SimulatedNodes.mpiexec("n1:2,n2:1,n3:2", 5, Map.of(), RingDemo.class.getName(), logs.path()))
        {
            final String out = succeeded(run);
            assertTrue(out.contains("token came back with value 5 after 5 hops: ring OK"), out);
            assertTrue(out.contains("(local rank 1 of 2 on its node)"), out);
            System.out.println("ring demo across 3 simulated nodes: " + line(out, "wire-up: "));
        }
    }

    @Test
    void shouldNameTheRankThatPublishedNothingAtEveryRank() throws Exception
    {
        final String out = faulty("skip-publish:2", "n1,n2", 4);
        for (int r = 0; r < 4; r++)
        {
            final String line = line(out, "error " + r + " ");
            assertTrue(line.contains("errno=61") && line.contains("rank(s) [2] of 4 published no address") &&
                line.contains("MPICH Hydra (PMI-1 over PMI_FD)"), out);
        }
    }

    /** Rank 3 hangs before its exchange, or rank 1 exits (normally, so Hydra does not kill the job) before it publishes. */
    @ParameterizedTest
    @CsvSource({"hang:3, 3", "exit:1, 1"})
    void shouldTimeOutEveryRankThatExchangesWhenOneNeverDoes(final String fault, final int absent) throws Exception
    {
        final String out = faulty(fault, "n1,n2", 4);
        for (int r = 0; r < 4; r++)
        {
            if (r == absent)
            {
                continue;
            }
            final String line = line(out, "error " + r + " ");
            // within what is left of the 5 s deadline: local rank 0 first waited for its node's addresses
            assertTrue(line.contains("errno=110") && line.matches(".*the barrier got no answer within \\d+ ms.*") &&
                line.contains("MPICH Hydra (PMI-1 over PMI_FD)"), out);
        }
    }

    @Test
    void shouldTellRanksOfTwoNodesSharingOneDirectoryThatNamedAvsAreNodeLocal() throws Exception
    {
        try (TestDir shared = TestDir.inTmp("nodes-shared-dir-"); TestDir logs = TestDir.inTmp("nodes-shared-it-logs-");
             ChildJvm run = SimulatedNodes.mpiexec("n1,n2", 4, Map.of("SHMAV_DIR", shared.path().toString(),
                 "NODES_WAIT", "5"), NodesRank.class.getName(), logs.path()))
        {
            final String out = succeeded(run);
            assertTrue(out.contains("Named AVs are node-local (shared memory): set SHMAV_DIR to a node-local directory"), out);
            assertTrue(out.contains("errno=16"), out);
            // the ranks that could open learn at once, through the store, which rank could not (no timeout)
            assertTrue(out.contains("could not open their node's AV"), out);
            assertTrue(!out.contains("errno=110"), "no rank waited until its deadline: " + out);
            assertEquals(List.of(), shared.names(), "the job's files are removed all the same");
        }
    }

    private static String faulty(final String fault, final String hosts, final int n) throws Exception
    {
        try (TestDir logs = TestDir.inTmp("nodes-fault-it-logs-"); TestDir reports = TestDir.inVarTmp("nodes-fault-it-");
             ChildJvm run = SimulatedNodes.mpiexec(hosts, n, Map.of("NODES_FAULT", fault, "NODES_WAIT", "5",
                 "NODES_REPORTS", reports.path().toString()), NodesRank.class.getName(), logs.path()))
        {
            return succeeded(run);
        }
    }

    /**
     * Each node's local rank 0 looks up one block per node after the exchange (one segment each: a few ranks
     * a node), not one address per rank: the look-ups its wire-up timings report (ranks 0, 2 and 3 lead nodes
     * of 2, 1 and 3 ranks) in one round trip to the node's proxy, and the fill of the job's 6 entries in one pass.
     */
    @Test
    void shouldLookUpOneBlockPerNodeAtEachNodesLocalRankZero() throws Exception
    {
        try (TestDir logs = TestDir.inTmp("nodes-lookups-it-logs-");
             ChildJvm run = SimulatedNodes.mpiexec("n1:2,n2:1,n3:3", 6, Map.of("JAVA_TOOL_OPTIONS",
                 "-Dshmav.wireup.timings=1"), NodesRank.class.getName(), logs.path(), Map.of("HYDRA_DEBUG", "1")))
        {
            final String out = succeeded(run);
            final String err = run.stderr();
            // mpiexec -verbose (HYDRA_DEBUG=1, on stdout): every get a node's proxy receives, and any it forwards upstream.
            // Hydra writes a line's "[proxy:...@nX] " prefix and its message in two writes (HYDU_dump), so the three
            // proxies' lines may interleave on the shared stdout (one CI run counted 4, 3, 3): count the messages,
            // each written whole; the look-ups of each node's local rank 0 are counted below, from its own timings.
            final long proxyGets = Pattern.compile("got pmi command \\(from \\d+\\): get\\n").matcher(out).results().count();
            assertEquals(3 * 4, proxyGets, "the layout and 3 blocks, asked by each of the 3 nodes' local ranks 0: " + out);
            assertTrue(out.contains("forwarding command (cmd=barrier_in) upstream") && !out.contains("forwarding command (cmd=get"),
                "every get answered by the node's own proxy: " + out);
            final Map<Integer, Integer> lookups = SimulatedNodes.leaderLookups(err, 6);
            assertEquals(Map.of(0, 3, 2, 3, 3, 3), lookups, "nodes x segments look-ups at each node's local rank 0: " + err);
            // Hydra tells the nodes' local ranks 0 (PMI_process_mapping): every block's first segment in one write (and
            // here no other segment), not one look-up after another
            assertEquals(Map.of(0, 1, 2, 1, 3, 1), SimulatedNodes.leaderRoundTrips(err), "one round trip at each: " + err);
            System.out.println("mpiexec, 6 ranks over 3 simulated nodes: " + err.lines().filter(l -> l.contains("shmav wire-up"))
                .toList());
        }
    }

    private static String succeeded(final ChildJvm run) throws InterruptedException
    {
        final int status = run.waitFor(Duration.ofSeconds(150));
        final String out = run.stdout();
        assertEquals(0, status, () -> out + run.stderr());
        return out;
    }

    private static String line(final String out, final String start)
    {
        final int at = out.indexOf(start);
        assertTrue(at >= 0, "no line starting '" + start + "' in:\n" + out);
        final int end = out.indexOf('\n', at);
        return out.substring(at + start.length(), end < 0 ? out.length() : end);
    }
}
