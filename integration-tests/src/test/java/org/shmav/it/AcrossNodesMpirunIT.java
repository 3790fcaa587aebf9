package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.parallel.Isolated;
import org.shmav.launch.RingDemo;

/**
 * One job across simulated nodes under Open MPI's mpirun, whose store is PMIx ({@code store/PmixStore}):
 * every rank of the job in each node's AV at fi_addr = rank.
 */
@Isolated("runs jobs across simulated nodes with timeouts, as AcrossNodesIT: runs alone, not beside other test classes")
class AcrossNodesMpirunIT
{
    private static final Pattern VIEW = Pattern.compile("view (\\d+): ([\\d ]+)");

    @ParameterizedTest(name = "{0} -np {1} {2}")
    @CsvSource({"'n1:2,n2:2', 4, table", "'n1:3,n2:1', 4, map", "'n1:1,n2:2,n3:1,n4:3', 7, table"})
    void shouldLetEveryRankFindEveryRankInItsNodesAv(final String hosts, final int n, final String type) throws Exception
    {
        try (TestDir logs = TestDir.inTmp("nodes-ompi-it-logs-");
             ChildJvm run = SimulatedNodes.mpirun(hosts, n, Map.of("SHMAV_AV_TYPE", type), NodesRank.class.getName(),
                 logs.path()))
        {
            final String out = succeeded(run);
            final Matcher view = VIEW.matcher(out);
            String first = null;
            int views = 0;
            while (view.find())
            {
                first = first == null ? view.group(2) : first;
                assertEquals(first, view.group(2), "every rank sees the same ranks: " + out);
                assertEquals(n, view.group(2).trim().split(" ").length, out);
                views++;
            }
            assertEquals(n, views, out);
            assertTrue(out.contains("store='"), "the ranks used mpirun's store: " + out);
        }
    }

    @Test
    void shouldRunTheRingDemoAcrossNodes() throws Exception
    {
        try (TestDir logs = TestDir.inTmp("nodes-ompi-ring-it-logs-");
             ChildJvm run = SimulatedNodes.mpirun("n1:2,n2:2", 4, Map.of(), RingDemo.class.getName(), logs.path()))
        {
            final String out = succeeded(run);
            assertTrue(out.contains("token came back with value 4 after 4 hops: ring OK"), out);
        }
    }

    /**
     * Each node's local rank 0 looks up one block per node after the exchange (one segment each: a few ranks
     * a node), not one address per rank: the look-ups its wire-up timings report (ranks 0, 2 and 3 lead nodes
     * of 2, 1 and 3 ranks), and the fill of the job's 6 entries in one pass.
     */
    @Test
    void shouldLookUpOneBlockPerNodeAtEachNodesLocalRankZero() throws Exception
    {
        try (TestDir logs = TestDir.inTmp("nodes-ompi-lookups-it-logs-");
             ChildJvm run = SimulatedNodes.mpirun("n1:2,n2:1,n3:3", 6, Map.of("JAVA_TOOL_OPTIONS",
                 "-Dshmav.wireup.timings=1"), NodesRank.class.getName(), logs.path()))
        {
            succeeded(run);
            final String err = run.stderr();
            final Map<Integer, Integer> lookups = SimulatedNodes.leaderLookups(err, 6);
            assertEquals(Map.of(0, 3, 2, 3, 3, 3), lookups, "nodes x segments look-ups at each node's local rank 0: " + err);
            System.out.println("mpirun, 6 ranks over 3 simulated nodes: " + err.lines().filter(l -> l.contains("shmav wire-up"))
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
}
