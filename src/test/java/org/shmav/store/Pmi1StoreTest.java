package org.shmav.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.shmav.FabricException;
import org.shmav.FiErrno;

/** {@link Pmi1Store} against a stand-in for Hydra's proxy speaking PMI-1 over a pair of pipes. */
class Pmi1StoreTest
{
    private final Map<String, String> kvs = new ConcurrentHashMap<>();
    private final AtomicInteger writes = new AtomicInteger();
    private volatile boolean answerBarrier = true;
    private volatile long initDelayMillis;
    private Thread proxy;

    @AfterEach
    void stop()
    {
        if (proxy != null)
        {
            proxy.interrupt();
        }
    }

    @Test
    void shouldPutExchangeAndGetThroughTheProxy() throws Exception
    {
        final Pmi1Store store = connect(1, 2);
        assertEquals("kvs_1_0_2_test", store.kvsName());
        store.publish("shmav-addr", "0200abcd");
        kvs.put("shmav-addr-0", "02001234"); // rank 0's, from the other node
        store.exchange(Duration.ofSeconds(5));
        assertEquals("02001234", store.fetch(0, "shmav-addr", Duration.ofSeconds(5)));
        assertEquals("0200abcd", store.fetch(1, "shmav-addr", Duration.ofSeconds(5)));
        assertEquals("0200abcd", kvs.get("shmav-addr-1"), "keys carry the rank: one job-wide key space");
    }

    /** Hydra answers get_maxes with vallen_max=1024 but hands back at most 1,023 characters of a value: refuse more. */
    @Test
    void shouldKeepValuesWithinWhatHydraHandsBack() throws Exception
    {
        final Pmi1Store store = connect(1, 2);
        assertEquals(1023, store.maxValue());
        store.publish("k", "a".repeat(1023));
        final FabricException e = assertThrows(FabricException.class, () -> store.publish("k", "a".repeat(1024)));
        assertEquals(FiErrno.EINVAL, e.errno(), e.getMessage());
    }

    @Test
    void shouldNameTheRankWhoseKeyIsMissing() throws Exception
    {
        final Pmi1Store store = connect(0, 4);
        final FabricException e = assertThrows(FabricException.class, () -> store.fetch(3, "shmav-addr", Duration.ofSeconds(5)));
        assertEquals(FiErrno.ENODATA, e.errno());
        assertTrue(e.getMessage().contains("rank 3 has no value under shmav-addr") &&
            e.getMessage().contains(Pmi1Store.DESCRIPTION), e.getMessage());
    }

    /** A barrier another rank never enters: FI_ETIMEDOUT at the deadline, then the wire refuses at once. */
    @Test
    void shouldTimeOutABarrierAndRefuseLaterCallsAtOnce() throws Exception
    {
        final Pmi1Store store = connect(0, 2);
        answerBarrier = false;
        final long start = System.nanoTime();
        final FabricException e = assertThrows(FabricException.class, () -> store.exchange(Duration.ofMillis(300)));
        assertEquals(FiErrno.ETIMEDOUT, e.errno());
        assertTrue(e.getMessage().contains("the barrier got no answer within 300 ms: at least one of the 2 ranks"),
            e.getMessage());
        assertTrue(System.nanoTime() - start < 5_000_000_000L, "bounded by its deadline");
        final FabricException later = assertThrows(FabricException.class, () -> store.fetch(1, "k", Duration.ofSeconds(5)));
        assertEquals(FiErrno.EIO, later.errno());
        assertTrue(later.getMessage().contains("out of step"), later.getMessage());
    }

    @Test
    void shouldRefuseKeysAndValuesThePlainTextProtocolCannotCarry() throws Exception
    {
        final Pmi1Store store = connect(0, 1);
        assertEquals(FiErrno.EINVAL, assertThrows(FabricException.class, () -> store.publish("a key", "v")).errno());
        assertEquals(FiErrno.EINVAL, assertThrows(FabricException.class, () -> store.publish("k", "a=b")).errno());
    }

    /**
     * Hydra's proxy answers init only once it has started every rank of its node, which took over 5 s for
     * 128 ranks a node on a busy machine: a rank waits for it (it gave up at 5 s).
     */
    @Test
    void shouldWaitForAProxyThatAnswersInitOnlyOnceItStartedItsNodesRanks() throws Exception
    {
        initDelayMillis = 6_000;
        final Pmi1Store store = connect(0, 2);
        assertEquals("kvs_1_0_2_test", store.kvsName());
    }

    /** Many look-ups go out in one write and come back in order: one round trip to the proxy, not one per value. */
    @Test
    void shouldFetchManyValuesInOneWrite() throws Exception
    {
        final Pmi1Store store = connect(0, 4);
        for (int r = 0; r < 4; r++)
        {
            kvs.put("seg-" + r, "v" + r);
        }
        final int before = writes.get();
        final List<String> values = store.fetchAll(List.of(new JobStore.Lookup(3, "seg"), new JobStore.Lookup(1, "seg"),
            new JobStore.Lookup(2, "seg"), new JobStore.Lookup(0, "seg")), Duration.ofSeconds(5));
        assertEquals(List.of("v3", "v1", "v2", "v0"), values);
        assertEquals(1, writes.get() - before, "the four gets in one write");
        final FabricException e = assertThrows(FabricException.class, () -> store.fetchAll(List.of(
            new JobStore.Lookup(0, "seg"), new JobStore.Lookup(2, "none"), new JobStore.Lookup(1, "seg")), Duration.ofSeconds(5)));
        assertEquals(FiErrno.ENODATA, e.errno(), e.getMessage());
        assertTrue(e.getMessage().contains("rank 2 has no value under none"), e.getMessage());
        assertEquals("v1", store.fetch(1, "seg", Duration.ofSeconds(5)), "the answers after the missing one were all read");
    }

    /** The nodes' local ranks 0 from Hydra's PMI_process_mapping, asked once. */
    @Test
    void shouldTellTheNodesLowestRanksFromTheProcessMapping() throws Exception
    {
        kvs.put("PMI_process_mapping", "(vector,(0,3,2))");
        final Pmi1Store store = connect(0, 6);
        assertArrayEquals(new int[] {0, 2, 4}, store.nodeLeaders(Duration.ofSeconds(5)).orElseThrow());
        kvs.put("PMI_process_mapping", "(vector,(0,6,1))");
        assertArrayEquals(new int[] {0, 2, 4}, store.nodeLeaders(Duration.ofSeconds(5)).orElseThrow(), "asked once");
        kvs.remove("PMI_process_mapping");
        assertTrue(connectAgain(0, 6).nodeLeaders(Duration.ofSeconds(5)).isEmpty(), "no mapping: the walk finds them");
    }

    private Pmi1Store connectAgain(final int rank, final int size) throws IOException
    {
        stop();
        return connect(rank, size);
    }

    private Pmi1Store connect(final int rank, final int size) throws IOException
    {
        final PipedInputStream fromRank = new PipedInputStream(1 << 16);
        final PipedOutputStream rankOut = new PipedOutputStream(fromRank);
        final PipedInputStream rankIn = new PipedInputStream(1 << 16);
        final PipedOutputStream toRank = new PipedOutputStream(rankIn);
        proxy = new Thread(() -> serve(fromRank, toRank), "fake-hydra-proxy");
        proxy.setDaemon(true);
        proxy.start();
        final OutputStream counted = new FilterOutputStream(rankOut)
        {
            @Override
            public void write(final byte[] b, final int off, final int len) throws IOException
            {
                writes.incrementAndGet();
                out.write(b, off, len);
            }
        };
        final Pmi1Store.Connected c = Pmi1Store.initialise(new Pmi1Wire(counted, rankIn)).orElseThrow();
        return new Pmi1Store(c, rank, size);
    }

    /** The proxy's side: one answer line per command line. */
    private void serve(final PipedInputStream in, final OutputStream out)
    {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII)))
        {
            for (String line = r.readLine(); line != null; line = r.readLine())
            {
                final String answer = answer(line);
                if (answer != null)
                {
                    out.write((answer + "\n").getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                }
            }
        }
        catch (final IOException e)
        {
            // the test ended
        }
    }

    private String answer(final String line)
    {
        if (line.startsWith("cmd=init"))
        {
            pause(initDelayMillis);
            return "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0";
        }
        if (line.startsWith("cmd=get_my_kvsname"))
        {
            return "cmd=my_kvsname kvsname=kvs_1_0_2_test";
        }
        if (line.startsWith("cmd=put"))
        {
            kvs.put(Pmi1Wire.field(line, "key"), Pmi1Wire.field(line, "value"));
            return "cmd=put_result rc=0";
        }
        if (line.startsWith("cmd=barrier_in"))
        {
            return answerBarrier ? "cmd=barrier_out" : null;
        }
        if (line.startsWith("cmd=get"))
        {
            final String v = kvs.get(Pmi1Wire.field(line, "key"));
            return v == null ? "cmd=get_result rc=-1 msg=key_not_found" : "cmd=get_result rc=0 msg=success value=" + v;
        }
        return "cmd=unknown rc=-1";
    }

    private static void pause(final long millis)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
