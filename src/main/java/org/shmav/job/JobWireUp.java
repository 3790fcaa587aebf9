package org.shmav.job;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import org.shmav.AddressVector;
import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.store.JobStore;

/**
 * A job across nodes, wired up through its launcher's key-value store: every rank publishes its
 * address there under {@value #ADDRESS_KEY}; in {@link #awaitAll} every rank takes part in the store's
 * exchange, then each node's local rank 0 fetches all N addresses and fills the node's AV in rank
 * order (entry r = rank r: fi_addr r under FI_AV_TABLE, {@code mapAddr + r} under FI_AV_MAP), and marks
 * it complete in the job file ({@link JobFile#AV_FILLED}, written after the last entry); the node's
 * other ranks, which opened the AV read-only, wait for that mark. A failure anywhere (a rank missing
 * from the store, the store's timeout, local rank 0 dying while it fills) reaches every rank as a
 * {@link FabricException} within its deadline, and the AV is never marked complete.
 *
 * <p>Safe for use by several threads ({@link #awaitAll} is serialised).
 */
public final class JobWireUp
{
    /** The store key under which each rank publishes its address (hex of its FI_SOCKADDR_IN bytes). */
    public static final String ADDRESS_KEY = "shmav-addr";
    /** System property: when set, local rank 0 prints the wire-up's phases (exchange, fetches, inserts) to stderr. */
    public static final String TIMINGS_PROPERTY = "shmav.wireup.timings";
    /** How a failed rank's value starts ({@link #announceFailure}); no address's hex starts so. */
    private static final String FAILED = "!";

    private final RankEnvironment job;
    private final JobStore store;
    private final NodeJob node;
    private boolean exchanged;
    private boolean complete;
    /** The ranks that announced they could not open (with their errno), from the last {@link #fetchAll}. */
    private final List<String> failed = new ArrayList<>();

    public JobWireUp(final RankEnvironment job, final JobStore store, final NodeJob node)
    {
        this.job = job;
        this.store = store;
        this.node = node;
    }

    /**
     * A rank that could not open its node's AV tells the others through the store, so that they fail at
     * once naming it instead of waiting for it until their deadline: it publishes {@code !<errno name>}
     * in place of its address and takes part in the exchange (at most {@code timeout}). Never throws.
     */
    public static void announceFailure(final JobStore store, final RuntimeException failure, final Duration timeout)
    {
        try
        {
            store.publish(ADDRESS_KEY, FAILED + (failure instanceof FabricException f ? FiErrno.name(f.errno()) :
                failure.getClass().getSimpleName()));
            store.exchange(timeout);
        }
        catch (final RuntimeException e)
        {
            failure.addSuppressed(e);
        }
    }

    /** Leaves the launcher's store ({@link JobStore#close()}, idempotent, never throws). */
    public void close()
    {
        store.close();
    }

    /** {@return the store, as its messages name it} */
    public String describeStore()
    {
        return store.describe();
    }

    /** Puts this rank's address (its FI_SOCKADDR_IN bytes, position to limit) in the launcher's store. */
    public void publish(final ByteBuffer sockaddr)
    {
        final byte[] bytes = new byte[sockaddr.remaining()];
        sockaddr.duplicate().get(bytes);
        store.publish(ADDRESS_KEY, HexFormat.of().formatHex(bytes));
    }

    /**
     * Exchanges (once) and waits until the node's AV holds every rank, at most {@code timeout}.
     *
     * @throws FabricException FI_ETIMEDOUT when the store's exchange or the fill did not end in time;
     *                         FI_ENODATA naming the ranks that published nothing (at local rank 0);
     *                         FI_ECANCELED or FI_EIO when local rank 0 could not fill the AV or died
     */
    public synchronized void awaitAll(final Duration timeout)
    {
        if (complete)
        {
            return;
        }
        final long deadline = System.nanoTime() + timeout.toNanos();
        try
        {
            final long start = System.nanoTime();
            if (!exchanged)
            {
                store.exchange(timeout);
                exchanged = true;
            }
            if (node.leader())
            {
                fill(deadline, start);
            }
            else
            {
                awaitFilled(deadline, timeout);
            }
            complete = true;
        }
        catch (final FabricException e)
        {
            if (node.leader())
            {
                node.markFillFailed();
            }
            throw new FabricException("shmav_rank_await_all", e.errno(), "rank " + job.rank() + " of " + job.size() +
                " (job " + job.job() + ", " + store.describe() + "): " + e.detail(), e);
        }
    }

    /** Another rank: waits for local rank 0's mark; when it could not fill, names the ranks missing from the store. */
    private void awaitFilled(final long deadline, final Duration timeout)
    {
        try
        {
            node.awaitFilled(deadline, "local rank 0 of this node did not fill AV '" + job.avName() + "' with the job's " +
                job.size() + " ranks within " + timeout.toMillis() + " ms");
        }
        catch (final FabricException e)
        {
            if (e.errno() != FiErrno.ECANCELED)
            {
                throw e;
            }
            final List<Integer> missing = new ArrayList<>();
            fetchAll(deadline, missing);
            throw new FabricException("shmav_rank_await_all", missing.isEmpty() ? e.errno() : FiErrno.ENODATA,
                e.detail() + (missing.isEmpty() ? "" : ": " + missingText(missing)), e);
        }
    }

    /** Local rank 0: every rank's address into entry = rank, then the completion mark. */
    private void fill(final long deadline, final long start)
    {
        final AddressVector av = node.av();
        final List<Integer> missing = new ArrayList<>();
        final long exchanged = System.nanoTime();
        final byte[][] addresses = fetchAll(deadline, missing);
        final long fetched = System.nanoTime();
        if (!missing.isEmpty())
        {
            throw new FabricException("shmav_rank_await_all", FiErrno.ENODATA, missingText(missing));
        }
        for (int r = 0; r < job.size(); r++)
        {
            av.insertAt(r, ByteBuffer.wrap(addresses[r]));
        }
        node.markFilled();
        if (System.getProperty(TIMINGS_PROPERTY) != null)
        {
            final long filled = System.nanoTime();
            System.err.printf("shmav wire-up rank %d: exchange %.1f ms, %d fetches %.1f ms, %d inserts %.2f ms " +
                "(%.2f us each)%n", job.rank(), (exchanged - start) / 1e6, job.size(), (fetched - exchanged) / 1e6,
                job.size(), (filled - fetched) / 1e6, (filled - fetched) / 1e3 / job.size());
        }
    }

    /** Every rank's address from the store (null where {@code missing} gets the rank). */
    private byte[][] fetchAll(final long deadline, final List<Integer> missing)
    {
        failed.clear();
        final byte[][] addresses = new byte[job.size()][];
        for (int r = 0; r < job.size(); r++)
        {
            try
            {
                final String value = store.fetch(r, ADDRESS_KEY, remaining(deadline));
                if (value.startsWith(FAILED))
                {
                    failed.add(r + " (" + value.substring(FAILED.length()) + ")");
                    missing.add(r);
                    continue;
                }
                addresses[r] = HexFormat.of().parseHex(value);
            }
            catch (final FabricException e)
            {
                if (e.errno() != FiErrno.ENODATA)
                {
                    throw e;
                }
                missing.add(r);
            }
            catch (final IllegalArgumentException e)
            {
                throw new FabricException("shmav_rank_await_all", FiErrno.EINVAL, "rank " + r + "'s value under " +
                    ADDRESS_KEY + " is not an address shmav published: " + e.getMessage());
            }
        }
        return addresses;
    }

    /** Names the ranks {@link #fetchAll} found no address of: those that announced a failure, and the others. */
    private String missingText(final List<Integer> missing)
    {
        final List<Integer> silent = new ArrayList<>(missing);
        silent.removeIf(r -> failed.stream().anyMatch(f -> f.startsWith(r + " ")));
        final String opened = failed.isEmpty() ? "" : "rank(s) " + failed + " of " + job.size() +
            " could not open their node's AV (their own errors say why)";
        return (silent.isEmpty() ? "" : "rank(s) " + silent + " of " + job.size() + " published no address under '" +
            ADDRESS_KEY + "' before the exchange (they died first, or called awaitAll without publish)" +
            (opened.isEmpty() ? "" : "; ")) + opened;
    }

    private static Duration remaining(final long deadline)
    {
        final long left = deadline - System.nanoTime();
        if (left <= 0)
        {
            throw new FabricException("shmav_rank_await_all", FiErrno.ETIMEDOUT, "the store's answers did not all " +
                "come before the deadline");
        }
        return Duration.ofNanos(left);
    }
}
