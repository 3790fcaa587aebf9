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
import org.shmav.launch.RingDemo;

/**
 * Jobs whose AV holds another address format than FI_SOCKADDR_IN ({@code SHMAV_ADDR_FORMAT}), across
 * simulated nodes ({@link SimulatedNodes}) under real launchers: the ring demo over IPv6 ({@code ::1},
 * FI_SOCKADDR_IN6) under MPICH's mpiexec (PMI-1 store) and Open MPI's mpirun (PMIx store), and ranks
 * publishing provider and opaque addresses, of lengths of their own, that every rank finds whole.
 */
class AddrFormatsAcrossNodesIT
{
    private static final Pattern LISTENING = Pattern.compile("rank (\\d+) of (\\d+) \\(.*\\) listening on (\\S+), ");
    private static final Pattern FORMATS = Pattern.compile("formats (\\d+) of (\\d+) format=(\\S+) lens=(\\S+) local=\\S+ ok");

    @Test
    void shouldRunTheRingOverIpv6AcrossNodesUnderMpiexec() throws Exception
    {
        try (TestDir logs = TestDir.inTmp("in6-ring-it-logs-");
             ChildJvm run = SimulatedNodes.mpiexec("n1:2,n2:1,n3:2", 5, Map.of("SHMAV_ADDR_FORMAT", "in6"),
                 RingDemo.class.getName(), logs.path()))
        {
            checkIpv6Ring(succeeded(run), 5);
        }
    }

    @Test
    void shouldRunTheRingOverIpv6AcrossNodesUnderMpirun() throws Exception
    {
        try (TestDir logs = TestDir.inTmp("in6-ring-ompi-it-logs-");
             ChildJvm run = SimulatedNodes.mpirun("n1:2,n2:2", 4, Map.of("SHMAV_ADDR_FORMAT", "in6"),
                 RingDemo.class.getName(), logs.path()))
        {
            checkIpv6Ring(succeeded(run), 4);
        }
    }

    /**
     * Provider (EFA, 32 bytes) and opaque addresses, fixed and of varying lengths, through each launcher's store.
     * Node blocks longer than a PMI-1 value (1023 characters under Hydra) travel in segments, so the longest
     * address an AV stores (4096 bytes) crosses under mpiexec as under mpirun.
     */
    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource({"mpiexec, 'n1:2,n2:2', efa", "mpiexec, 'n1:1,n2:2,n3:1', opaque:max:4096", "mpirun, 'n1:2,n2:2', opaque:248",
        "mpirun, 'n1:3,n2:1', opaque:max:4096"})
    void shouldCarryEveryRanksAddressBytesAcrossNodes(final String launcher, final String hosts, final String format)
        throws Exception
    {
        final int n = 4;
        try (TestDir logs = TestDir.inTmp("formats-nodes-it-logs-");
             ChildJvm run = "mpiexec".equals(launcher)
                 ? SimulatedNodes.mpiexec(hosts, n, Map.of("SHMAV_ADDR_FORMAT", format), AddrFormatRank.class.getName(), logs.path())
                 : SimulatedNodes.mpirun(hosts, n, Map.of("SHMAV_ADDR_FORMAT", format), AddrFormatRank.class.getName(), logs.path()))
        {
            final String out = succeeded(run);
            final Matcher m = FORMATS.matcher(out);
            String lens = null;
            int ranks = 0;
            while (m.find())
            {
                assertEquals(format, m.group(3), out);
                lens = lens == null ? m.group(4) : lens;
                assertEquals(lens, m.group(4), "every rank found the same lengths: " + out);
                ranks++;
            }
            assertEquals(n, ranks, out);
            if (format.startsWith("opaque:max:"))
            {
                assertTrue(lens.endsWith("," + format.substring("opaque:max:".length()) + "]"), "the longest address whole: " + lens);
                assertTrue(lens.chars().filter(c -> c == ',').count() == n - 1 && !lens.matches("\\[(\\d+)(,\\1)*]"),
                    "lengths of their own: " + lens);
            }
        }
    }

    private static void checkIpv6Ring(final String out, final int n)
    {
        assertTrue(out.contains("token came back with value " + n + " after " + n + " hops: ring OK"), out);
        final Matcher m = LISTENING.matcher(out);
        int ranks = 0;
        while (m.find())
        {
            assertTrue(m.group(3).startsWith("[::1]:"), "rank " + m.group(1) + " listens on IPv6: " + out);
            ranks++;
        }
        assertEquals(n, ranks, out);
        assertTrue(out.contains("(local rank 1 of 2 on its node)"), "the job spans nodes: " + out);
    }

    private static String succeeded(final ChildJvm run) throws InterruptedException
    {
        final int status = run.waitFor(Duration.ofSeconds(150));
        final String out = run.stdout();
        assertEquals(0, status, () -> out + run.stderr());
        return out;
    }
}
