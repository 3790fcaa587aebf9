package org.shmav.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * {@link Pmi2Store} against {@link Pmi2TestServer}, a server that speaks PMI-2 as Slurm's {@code mpi/pmi2}
 * plugin does (no slurmd runs here). Ranks are threads with a TCP socket each; {@code Pmi2StoreIT} runs
 * real JVMs on an inherited descriptor.
 */
class Pmi2StoreTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final List<Socket> sockets = new ArrayList<>();
    private final ExecutorService ranks = Executors.newCachedThreadPool();

    @AfterEach
    void closeSockets() throws Exception
    {
        ranks.shutdownNow();
        for (final Socket s : sockets)
        {
            s.close();
        }
    }

    @Test
    void shouldFindNoStoreWithoutPmiFdAndPmiJobid()
    {
        assertTrue(Pmi2Store.open(Map.of()).isEmpty());
        // Hydra's ranks have PMI_FD, PMI_RANK and PMI_SIZE but no PMI_JOBID: PMI-1, not this store
        assertTrue(Pmi2Store.open(Map.of("PMI_FD", "3", "PMI_RANK", "0", "PMI_SIZE", "2")).isEmpty());
        assertEquals(FiErrno.EINVAL, assertThrows(FabricException.class, () -> Pmi2Store.open(null)).errno());
        final FabricException e = assertThrows(FabricException.class,
            () -> Pmi2Store.open(Map.of("PMI_FD", "x", "PMI_JOBID", "7.0", "SLURM_JOB_ID", "7")));
        assertEquals(FiErrno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("PMI_FD='x'") && e.getMessage().contains("Slurm srun"), e.getMessage());
    }

    @Test
    void shouldGiveEveryRankEveryRanksValueInSlurmsWireFormat() throws Exception
    {
        try (Pmi2TestServer server = Pmi2TestServer.start(3))
        {
            final List<Future<List<String>>> seen = new ArrayList<>();
            for (int r = 0; r < 3; r++)
            {
                final int rank = r;
                seen.add(ranks.submit(() -> {
                    try (JobStore store = connect(server, rank, TIMEOUT))
                    {
                        assertEquals(rank, store.rank());
                        assertEquals(3, store.size());
                        store.publish("addr", "v-" + rank);
                        store.exchange(TIMEOUT);
                        final List<String> values = new ArrayList<>();
                        for (int peer = 0; peer < 3; peer++)
                        {
                            values.add(store.fetch(peer, "addr", TIMEOUT));
                        }
                        return values;
                    }
                }));
            }
            for (final Future<List<String>> f : seen)
            {
                assertEquals(List.of("v-0", "v-1", "v-2"), f.get(60, TimeUnit.SECONDS));
            }
            final List<String> wire = server.received();
            assertTrue(wire.contains("cmd=init pmi_version=2 pmi_subversion=0\n"), wire.toString());
            assertTrue(wire.contains(framed("cmd=kvs-put;key=addr-1;value=v-1;")), "length left-aligned in 6: " + wire);
            assertTrue(wire.contains(framed("cmd=fullinit;pmijobid=42.0;pmirank=2;threaded=FALSE;")), wire.toString());
            assertTrue(wire.contains(framed("cmd=kvs-get;jobid=42.0;srcid=0;key=addr-0;")), wire.toString());
            assertEquals(3, wire.stream().filter(framed("cmd=kvs-fence;")::equals).count(), wire.toString());
            assertEquals(3, wire.stream().filter(framed("cmd=finalize;")::equals).count(), "one finalize each: " + wire);
        }
    }

    @Test
    void shouldAnswerAMissingKeyWithEnodataNamingTheRankAndTheLauncher() throws Exception
    {
        try (Pmi2TestServer server = Pmi2TestServer.start(1); JobStore store = connect(server, 0, TIMEOUT))
        {
            store.publish("addr", "v-0");
            store.exchange(TIMEOUT);
            final FabricException e = assertThrows(FabricException.class, () -> store.fetch(0, "other", TIMEOUT));
            assertEquals(FiErrno.ENODATA, e.errno());
            assertTrue(e.getMessage().contains("rank=0 key=other") &&
                e.getMessage().contains("launcher=Slurm srun (PMI-2 over PMI_FD, job 42.0)"), e.getMessage());
            assertEquals(FiErrno.EINVAL, assertThrows(FabricException.class, () -> store.fetch(1, "addr", TIMEOUT)).errno());
        }
    }

    @Test
    void shouldTimeOutTheExchangeAtItsDeadlineWhenARankNeverFences() throws Exception
    {
        try (Pmi2TestServer server = Pmi2TestServer.start(2); JobStore store = connect(server, 0, TIMEOUT))
        {
            store.publish("addr", "v-0");
            final long t0 = System.nanoTime();
            final FabricException e = assertThrows(FabricException.class, () -> store.exchange(Duration.ofSeconds(1)));
            final long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(FiErrno.ETIMEDOUT, e.errno());
            assertTrue(ms >= 1_000 && ms < 6_000, "at the deadline, not long after: " + ms + " ms");
            assertTrue(e.getMessage().contains("launcher=Slurm srun") &&
                e.getMessage().contains("did not complete within 1000 ms"), e.getMessage());
            // the late answer would be taken for the next command's: the connection refuses further use
            assertEquals(FiErrno.EOPBADSTATE, assertThrows(FabricException.class,
                () -> store.fetch(0, "addr", TIMEOUT)).errno());
        }
    }

    @Test
    void shouldReportAFenceTheLauncherFailed() throws Exception
    {
        try (Pmi2TestServer server = Pmi2TestServer.start(1); JobStore store = connect(server, 0, TIMEOUT))
        {
            server.failFences(-1, "mpi/pmi2: failed to send temp kvs");
            final FabricException e = assertThrows(FabricException.class, () -> store.exchange(TIMEOUT));
            assertEquals(FiErrno.EIO, e.errno());
            assertTrue(e.getMessage().contains("rc=-1 errmsg=mpi/pmi2: failed to send temp kvs"), e.getMessage());
        }
    }

    @Test
    void shouldTimeOutWhenTheStepDaemonNeverAnswers() throws Exception
    {
        try (Pmi2TestServer server = Pmi2TestServer.silent())
        {
            final long t0 = System.nanoTime();
            final FabricException e = assertThrows(FabricException.class, () -> connect(server, 0, Duration.ofMillis(500)));
            assertEquals(FiErrno.ETIMEDOUT, e.errno());
            assertTrue((System.nanoTime() - t0) / 1_000_000 < 5_000, e.getMessage());
            assertTrue(e.getMessage().contains("did not answer cmd=init within 500 ms"), e.getMessage());
        }
    }

    @Test
    void shouldRejectWhatThePmi2WireCannotCarry() throws Exception
    {
        try (Pmi2TestServer server = Pmi2TestServer.start(1); JobStore store = connect(server, 0, TIMEOUT))
        {
            for (final String bad : new String[] {"a;b", "a b", "a=b", ""})
            {
                assertEquals(FiErrno.EINVAL, assertThrows(FabricException.class, () -> store.publish("addr", bad)).errno());
            }
            final FabricException e = assertThrows(FabricException.class, () -> store.publish("k".repeat(63), "v"));
            assertTrue(e.getMessage().contains("Slurm's 64 characters"), e.getMessage());
            store.close();
            store.close();
            assertEquals(1, server.received().stream().filter(m -> m.endsWith("cmd=finalize;")).count());
        }
    }

    /** {@code body} as it goes over the wire: its length left-aligned in 6 characters, then the body. */
    private static String framed(final String body)
    {
        return String.format("%-6d", body.length()) + body;
    }

    /** Rank {@code rank} of job 42.0 of a Slurm step, connected to {@code server}. */
    private JobStore connect(final Pmi2TestServer server, final int rank, final Duration timeout) throws Exception
    {
        final Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port());
        synchronized (sockets)
        {
            sockets.add(socket);
        }
        final Map<String, String> env = Map.of("PMI_FD", "99", "PMI_JOBID", "42.0", "PMI_RANK", Integer.toString(rank),
            "PMI_SIZE", "3", "SLURM_JOB_ID", "42");
        final String launcher = Pmi2Store.launcherName(env, "42.0");
        return Pmi2Store.connect(new Pmi2Wire(socket.getInputStream(), socket.getOutputStream(), launcher), env,
            launcher, timeout);
    }
}
