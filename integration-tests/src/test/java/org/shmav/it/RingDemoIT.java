package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/** The README's first command, {@code scripts/avrun -n 4 --demo ring}, run for real. */
class RingDemoIT
{
    private static final Pattern LISTENING = Pattern.compile("\\[(\\d+)] rank \\d+ of 4 \\(avrun\\) listening on " +
        "(\\S+), published at fi_addr (\\d+)");
    private static final Pattern NEXT = Pattern.compile("\\[(\\d+)] all 4 ranks in the AV; next is rank (\\d+) at (\\S+) \\(fi_addr (\\d+)\\)");

    @Test
    void shouldPassTheTokenRoundFourRanksAtTheAddressesFromTheAv() throws Exception
    {
        try (TestDir dir = TestDir.inShm("ring-it-");
             TestDir logs = TestDir.inTmp("ring-it-logs-");
             ChildJvm avrun = ChildJvm.script("avrun", Map.of("SHMAV_DIR", dir.path().toString()), logs.path(),
                 List.of("-n", "4", "--demo", "ring", "--timeout", "60")))
        {
            assertEquals(0, avrun.waitFor(Duration.ofSeconds(90)), avrun::stderr);
            final String out = avrun.stdout();
            assertTrue(out.contains("[0] token came back with value 4 after 4 hops: ring OK"), out);
            for (int r = 1; r < 4; r++)
            {
                assertTrue(out.contains("[" + r + "] received token " + r + ", passing " + (r + 1)), out);
            }
            assertEquals(published(out), lookedUpAsNext(out), "every rank found its neighbour where the neighbour published");
            final String wireUp = line(out, "[0] wire-up: ");
            final String ring = line(out, "[0] ring: ");
            System.out.println("ring demo, 4 ranks: " + wireUp + " | " + ring);
            assertEquals(List.of(), dir.names(), "the job's AV is removed at the end");
        }
    }

    /** rank -> address each rank printed as its own, checking it published at fi_addr = rank. */
    private static Map<Integer, String> published(final String out)
    {
        final Map<Integer, String> map = new HashMap<>();
        final Matcher m = LISTENING.matcher(out);
        while (m.find())
        {
            assertEquals(m.group(1), m.group(3));
            map.put(Integer.parseInt(m.group(1)), m.group(2));
        }
        assertEquals(4, map.size(), out);
        return map;
    }

    /** rank -> address its left neighbour looked up in the AV for it. */
    private static Map<Integer, String> lookedUpAsNext(final String out)
    {
        final Map<Integer, String> map = new HashMap<>();
        final Matcher m = NEXT.matcher(out);
        while (m.find())
        {
            assertEquals((Integer.parseInt(m.group(1)) + 1) % 4, Integer.parseInt(m.group(2)));
            map.put(Integer.parseInt(m.group(2)), m.group(3));
        }
        assertEquals(4, map.size(), out);
        return map;
    }

    private static String line(final String out, final String start)
    {
        final int at = out.indexOf(start);
        assertTrue(at >= 0, out);
        return out.substring(at + start.length(), out.indexOf('\n', at));
    }
}
