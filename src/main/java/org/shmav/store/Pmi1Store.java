package org.shmav.store;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * MPICH Hydra's job-wide key-value store, spoken in the PMI-1 text protocol over the rank's socket to
 * the node's proxy ({@code PMI_FD}): {@code cmd=init pmi_version=1 pmi_subversion=1},
 * {@code cmd=get_my_kvsname} (answer {@code kvsname=kvs_<mpiexec pid>_<pgid>_<random>_<host>}, one name per
 * job, the same on every node), then {@code cmd=put kvsname=K key=<key>-<rank> value=V}, {@code cmd=barrier_in}
 * (answered {@code cmd=barrier_out} once every rank of the job entered) and {@code cmd=get}. Every
 * exchange is bounded by a deadline ({@link Pmi1Wire}).
 *
 * <p>Measured with MPICH 4.0 (a C program doing this exchange on the socket, then MPI_Init and a
 * collective; shell ranks doing only the exchange): the exchange before or after MPI_Init leaves MPI
 * working, but a {@code cmd=finalize} makes the proxy close the socket, and a later MPI_Init dies of
 * SIGPIPE; and a process that did {@code cmd=init} and exits without {@code cmd=finalize} makes Hydra
 * kill every other rank of the job with SIGKILL. So a process connects once ({@code cmd=init} once, the
 * connection shared by every {@code open}), and {@code cmd=finalize} is sent once, by a shutdown hook, as
 * the JVM exits; {@link #close()} only ends this handle. A rank must not use the store while another of
 * its threads is inside an MPI call that talks to the proxy, and an MPI program must not take part in
 * the store's barrier from both sides.
 *
 * <p>Safe for use by several threads (exchanges are serialised).
 */
public final class Pmi1Store implements JobStore
{
    /** How the store names itself in messages. */
    public static final String DESCRIPTION = "MPICH Hydra (PMI-1 over PMI_FD)";
    /**
     * How long the proxy may take to answer init and get_my_kvsname: it answers once it has started every
     * rank of its node, and 128 launches on a busy node took over 5 s (measured: a JVM's init answered after
     * 2-5.5 s, one not within 5 s, in a job of 1,024 ranks over 8 simulated nodes of one 2-core machine).
     */
    static final long INIT_MILLIS = 60_000;
    /** How long the proxy may take to answer a put, or finalize at exit. */
    static final long ANSWER_MILLIS = 30_000;
    /**
     * Hydra's limits ({@code cmd=get_maxes}: key 64, value 1024 bytes), with room for the rank suffix; the value's
     * 1024 count C's terminating NUL: Hydra accepts a longer {@code put} and its {@code get} returns the first 1023.
     */
    private static final int MAX_KEY = 52;
    private static final int MAX_VALUE = 1023;

    /** The process's one connection: null before the first attempt, empty when it failed. */
    private static Optional<Connected> process;

    private final Connected connection;
    private final int rank;
    private final int size;
    private Optional<int[]> leaders;

    /** An initialised connection and the job's KVS name. */
    record Connected(Pmi1Wire wire, String kvsName)
    {
    }

    Pmi1Store(final Connected connection, final int rank, final int size)
    {
        this.connection = connection;
        this.rank = rank;
        this.size = size;
    }

    /**
     * The store of the Hydra job this process belongs to, when {@code env} has {@code PMI_FD},
     * {@code PMI_RANK} and {@code PMI_SIZE}.
     *
     * @param env the process environment
     * @return the store, or empty when {@code env} names no Hydra rank
     * @throws FabricException FI_EIO when the proxy does not answer on {@code PMI_FD}
     */
    public static Optional<JobStore> open(final Map<String, String> env)
    {
        final String fd = env.get("PMI_FD");
        final String rank = env.get("PMI_RANK");
        final String size = env.get("PMI_SIZE");
        if (fd == null || rank == null || size == null)
        {
            return Optional.empty();
        }
        final Connected c = connection(fd).orElseThrow(() -> new FabricException("pmi1_open", FiErrno.EIO,
            DESCRIPTION + ": the node's proxy did not answer cmd=init on PMI_FD=" + fd + " within " + INIT_MILLIS +
            " ms (another PMI client in this process, or not a Hydra rank?)"));
        try
        {
            return Optional.of(new Pmi1Store(c, Integer.parseInt(rank.trim()), Integer.parseInt(size.trim())));
        }
        catch (final NumberFormatException e)
        {
            throw new FabricException("pmi1_open", FiErrno.EINVAL, DESCRIPTION + ": PMI_RANK='" + rank + "' PMI_SIZE='" +
                size + "' are not numbers");
        }
    }

    /**
     * The Hydra job's KVS name, asked once per process.
     *
     * @param pmiFd the value of {@code PMI_FD}
     * @return the name, or empty when {@code pmiFd} is not a PMI-1 socket that answers
     */
    public static Optional<String> kvsName(final String pmiFd)
    {
        return connection(pmiFd).map(Connected::kvsName);
    }

    private static synchronized Optional<Connected> connection(final String pmiFd)
    {
        if (process == null)
        {
            process = Pmi1Wire.ofDescriptor(pmiFd).flatMap(Pmi1Store::initialise);
            process.ifPresent(c -> Runtime.getRuntime().addShutdownHook(new Thread(() -> finalizeAtExit(c.wire()),
                "shmav-pmi1-finalize")));
        }
        return process;
    }

    /** {@code cmd=init} and {@code cmd=get_my_kvsname}; empty when the other end does not speak PMI-1. */
    static Optional<Connected> initialise(final Pmi1Wire wire)
    {
        try
        {
            final long deadline = System.nanoTime() + INIT_MILLIS * 1_000_000;
            final String init = wire.exchange("cmd=init pmi_version=1 pmi_subversion=1", deadline);
            if (!init.startsWith("cmd=response_to_init") || !"0".equals(Pmi1Wire.field(init, "rc")))
            {
                return Optional.empty();
            }
            final String reply = wire.exchange("cmd=get_my_kvsname", deadline);
            final String name = Pmi1Wire.field(reply, "kvsname");
            return reply.startsWith("cmd=my_kvsname") && name != null && !name.isEmpty() ?
                Optional.of(new Connected(wire, name)) : Optional.empty();
        }
        catch (final IOException | TimeoutException e)
        {
            return Optional.empty();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** {@code cmd=finalize}, so that Hydra takes this process's exit for a normal one; bounded, never throws. */
    private static void finalizeAtExit(final Pmi1Wire wire)
    {
        try
        {
            wire.finalizeAtExit(System.nanoTime() + ANSWER_MILLIS * 1_000_000);
        }
        catch (final IOException | TimeoutException | InterruptedException e)
        {
            // MPI_Finalize came first and the proxy closed the socket: nothing left to finalize
        }
    }

    @Override
    public String describe()
    {
        return DESCRIPTION;
    }

    @Override
    public int rank()
    {
        return rank;
    }

    @Override
    public int size()
    {
        return size;
    }

    /**
     * The job's KVS name.
     *
     * @return the name Hydra gave the job's key-value space
     */
    public String kvsName()
    {
        return connection.kvsName();
    }

    @Override
    public int maxValue()
    {
        return MAX_VALUE;
    }

    @Override
    public void publish(final String key, final String value)
    {
        checkWord("key", key, MAX_KEY);
        checkWord("value", value, MAX_VALUE);
        final String answer = ask("cmd=put kvsname=" + kvsName() + " key=" + key + "-" + rank + " value=" + value,
            Duration.ofMillis(ANSWER_MILLIS), "put of key " + key);
        if (!answer.startsWith("cmd=put_result") || !"0".equals(Pmi1Wire.field(answer, "rc")))
        {
            throw new FabricException("pmi1_put", FiErrno.EIO, DESCRIPTION + ": rank " + rank + " could not put key " +
                key + ": the proxy answered '" + answer + "'");
        }
    }

    @Override
    public void exchange(final Duration timeout)
    {
        final String answer = ask("cmd=barrier_in", timeout, "barrier");
        if (!answer.startsWith("cmd=barrier_out"))
        {
            throw new FabricException("pmi1_barrier", FiErrno.EIO, DESCRIPTION + ": rank " + rank +
                " entered the barrier and the proxy answered '" + answer + "'");
        }
    }

    @Override
    public String fetch(final int of, final String key, final Duration timeout)
    {
        return fetchAll(List.of(new Lookup(of, key)), timeout).get(0);
    }

    /** Every look-up in one write, the answers read back in order: one round trip to the proxy. */
    @Override
    public List<String> fetchAll(final List<Lookup> lookups, final Duration timeout)
    {
        final List<String> commands = new ArrayList<>(lookups.size());
        for (final Lookup l : lookups)
        {
            if (l.rank() < 0 || l.rank() >= size)
            {
                throw new FabricException("pmi1_get", FiErrno.EINVAL, "rank=" + l.rank() + " is outside 0.." + (size - 1));
            }
            commands.add("cmd=get kvsname=" + kvsName() + " key=" + l.key() + "-" + l.rank());
        }
        final Lookup first = lookups.get(0);
        final List<String> answers = askAll(commands, timeout, lookups.size() == 1 ?
            "get of rank " + first.rank() + "'s key " + first.key() : lookups.size() + " gets (from rank " + first.rank() +
            "'s key " + first.key() + ")");
        final List<String> values = new ArrayList<>(answers.size());
        for (int i = 0; i < answers.size(); i++)
        {
            final String answer = answers.get(i);
            final String value = Pmi1Wire.field(answer, "value");
            if (!answer.startsWith("cmd=get_result") || !"0".equals(Pmi1Wire.field(answer, "rc")) || value == null)
            {
                final Lookup l = lookups.get(i);
                throw new FabricException("pmi1_get", FiErrno.ENODATA, DESCRIPTION + ": rank " + l.rank() + " has no value " +
                    "under " + l.key() + " in job " + kvsName() + " (it did not publish it before the exchange; the proxy " +
                    "answered '" + answer + "')");
            }
            values.add(value);
        }
        return values;
    }

    /** From {@code PMI_process_mapping}, which Hydra's proxy answers itself; asked once. */
    @Override
    public synchronized Optional<int[]> nodeLeaders(final Duration timeout)
    {
        if (leaders == null)
        {
            final String answer = ask("cmd=get kvsname=" + kvsName() + " key=PMI_process_mapping", timeout,
                "get of PMI_process_mapping");
            leaders = "0".equals(Pmi1Wire.field(answer, "rc")) ?
                ProcessMapping.nodeLeaders(Pmi1Wire.field(answer, "value"), size) : Optional.empty();
        }
        return leaders.map(int[]::clone);
    }

    private String ask(final String command, final Duration timeout, final String what)
    {
        return askAll(List.of(command), timeout, what).get(0);
    }

    private List<String> askAll(final List<String> commands, final Duration timeout, final String what)
    {
        try
        {
            return connection.wire().exchangeAll(commands, System.nanoTime() + timeout.toNanos());
        }
        catch (final TimeoutException e)
        {
            throw new FabricException("pmi1", FiErrno.ETIMEDOUT, DESCRIPTION + ": rank " + rank + ": the " + what +
                " got no answer within " + timeout.toMillis() + " ms" + ("barrier".equals(what) ? ": at least one of the " +
                size + " ranks of job " + kvsName() + " has not entered it (it died, hangs, or never exchanged)" : ""));
        }
        catch (final IOException e)
        {
            throw new FabricException("pmi1", FiErrno.EIO, DESCRIPTION + ": rank " + rank + ": the " + what + " failed: " +
                e.getMessage(), e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new FabricException("pmi1", FiErrno.EINTR, DESCRIPTION + ": interrupted during the " + what, e);
        }
    }

    private static void checkWord(final String what, final String word, final int max)
    {
        if (word == null || word.isEmpty() || word.length() > max || !word.chars().allMatch(c -> c > ' ' && c < 127 && c != '='))
        {
            throw new FabricException("pmi1_put", FiErrno.EINVAL, what + " '" + word + "': need 1.." + max +
                " printable ASCII characters without spaces or '='");
        }
    }

    /** Ends this handle; the process's connection stays for MPI and is finalized as the JVM exits. */
    @Override
    public void close()
    {
        // nothing: cmd=finalize before MPI_Init would break MPI (see the class comment)
    }
}
