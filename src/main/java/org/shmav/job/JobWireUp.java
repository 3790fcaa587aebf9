package org.shmav.job;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvType;
import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.store.JobStore;

/**
 * A job across nodes, wired up through its launcher's key-value store with one block per node: every
 * rank hands its address to its node's local rank 0 through the job file ({@link NodeJob#handAddress});
 * local rank 0 publishes the node's block of (rank, length, address) entries under its own rank
 * ({@link NodeBlocks}: one value under PMIx, segments within the launcher's limit under PMI-1 and
 * PMI-2); in {@link #awaitAll} every rank takes part in the store's exchange, then each node's local
 * rank 0 fetches one block per node, walking the ranks (the smallest rank no block has covered yet is
 * the local rank 0 of the next node), fills the node's AV with the job's N entries in one batch insert
 * (entry r = rank r: fi_addr r under FI_AV_TABLE, {@code mapAddr + r} under FI_AV_MAP), and marks it
 * complete in the job file ({@link JobFile#AV_FILLED}, written after the last entry); the node's other
 * ranks, which opened the AV read-only, wait for that mark. A failure anywhere (a rank missing, a rank
 * that could not open, the store's timeout, local rank 0 dying while it fills) reaches every rank as a
 * {@link FabricException} within its deadline, and the AV is never marked complete.
 *
 * <p>The walk needs each node's local rank 0 to be the node's lowest rank, as Hydra, Open MPI and Slurm
 * number them; a block that does not hold the rank it was fetched from is refused as malformed.
 *
 * <p>Safe for use by several threads ({@link #awaitAll} is serialised).
 */
public final class JobWireUp
{
    /** System property: when set, local rank 0 prints the wire-up's phases (exchange, look-ups, fill) to stderr. */
    public static final String TIMINGS_PROPERTY = "shmav.wireup.timings";

    private final RankEnvironment job;
    private final JobStore store;
    private final NodeJob node;
    private boolean published;
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
     * in place of a node block and takes part in the exchange (at most {@code timeout}). Never throws.
     */
    public static void announceFailure(final JobStore store, final RuntimeException failure, final Duration timeout)
    {
        try
        {
            NodeBlocks.publishFailure(store, NodeJob.errnoName(failure));
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

    /** Hands this rank's address (its bytes, position to limit) to the node's local rank 0, which publishes the node's block. */
    public void publish(final ByteBuffer address)
    {
        final byte[] bytes = new byte[address.remaining()];
        address.duplicate().get(bytes);
        node.handAddress(bytes);
        published = true;
    }

    /**
     * Exchanges (once) and waits until the node's AV holds every rank, at most {@code timeout}. Local rank 0
     * first waits for its node's addresses, at most half of {@code timeout}, and publishes its node's block.
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
        cpuNanos(System.getProperty(TIMINGS_PROPERTY) != null); // loads the management classes before anything is timed
        final long start = System.nanoTime();
        final long deadline = start + timeout.toNanos();
        try
        {
            long handed = start;
            if (!exchanged)
            {
                if (!published)
                {
                    node.handNothing(); // local rank 0 need not wait for this rank's address
                }
                if (node.leader())
                {
                    final List<NodeRecords.Entry> entries = node.nodeEntries(start + timeout.toNanos() / 2);
                    if (!entries.isEmpty())
                    {
                        new NodeBlocks(store).publish(NodeRecords.pack(entries));
                    }
                    handed = System.nanoTime();
                    store.nodeLeaders(NodeBlocks.remaining(deadline)); // asked now: the fetch after the exchange is shorter
                }
                store.exchange(NodeBlocks.remaining(deadline));
                exchanged = true;
            }
            if (node.leader())
            {
                fill(deadline, start, handed);
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
            fetchAll(deadline, missing, new NodeBlocks(store));
            throw new FabricException("shmav_rank_await_all", missing.isEmpty() ? e.errno() : FiErrno.ENODATA,
                e.detail() + (missing.isEmpty() ? "" : ": " + missingText(missing)), e);
        }
    }

    /** Local rank 0: the job's N entries in one batch insert, checked at entry = rank, then the completion mark. */
    private void fill(final long deadline, final long start, final long handed)
    {
        final AddressVector av = node.av();
        final List<Integer> missing = new ArrayList<>();
        final long exchanged = System.nanoTime();
        final boolean timed = System.getProperty(TIMINGS_PROPERTY) != null;
        final long exchangedCpu = cpuNanos(timed);
        final NodeBlocks blocks = new NodeBlocks(store);
        final byte[][] addresses = fetchAll(deadline, missing, blocks);
        final long fetched = System.nanoTime();
        final long fetchedCpu = cpuNanos(timed);
        if (!missing.isEmpty())
        {
            throw new FabricException("shmav_rank_await_all", FiErrno.ENODATA, missingText(missing));
        }
        if (sameLength(addresses) && av.addrFormat() != AddrFormat.ADDR_STR)
        {
            insertInOneBatch(av, addresses);
        }
        else
        {
            // addresses of their own lengths (varying opaque, strings) go one a call, each at entry = rank
            for (int r = 0; r < job.size(); r++)
            {
                av.insertAt(r, ByteBuffer.wrap(addresses[r]));
            }
        }
        node.markFilled();
        if (timed)
        {
            final long filled = System.nanoTime();
            final long filledCpu = cpuNanos(timed);
            // one print, one write: the ranks of several nodes share the launcher's stderr; the CPU times are this
            // thread's, apart from waiting for a CPU (a simulated cluster shares a few among all its nodes' ranks)
            System.err.print(String.format("shmav wire-up rank %d: node hand-off %.1f ms, exchange %.1f ms, %d look-ups " +
                "(%d characters, %d round trips) %.1f ms (CPU %.1f ms), fill of %d entries %.2f ms (CPU %.2f ms)%n", job.rank(),
                (handed - start) / 1e6, (exchanged - handed) / 1e6, blocks.lookups(), blocks.bytes(), blocks.roundTrips(),
                (fetched - exchanged) / 1e6, (fetchedCpu - exchangedCpu) / 1e6, job.size(), (filled - fetched) / 1e6,
                (filledCpu - fetchedCpu) / 1e6));
        }
    }

    /** This thread's CPU time for the timings line, or 0 when it is not wanted or the JVM does not measure it. */
    private static long cpuNanos(final boolean timed)
    {
        if (!timed)
        {
            return 0; // the management classes cost every rank's start-up a little
        }
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : 0;
    }

    private static boolean sameLength(final byte[][] addresses)
    {
        for (final byte[] a : addresses)
        {
            if (a.length != addresses[0].length)
            {
                return false;
            }
        }
        return true;
    }

    /** The job's addresses of one length in one batch insert, checked at entry = rank. */
    private void insertInOneBatch(final AddressVector av, final byte[][] addresses)
    {
        final ByteBuffer all = ByteBuffer.allocate(addresses[0].length * job.size());
        for (final byte[] a : addresses)
        {
            all.put(a);
        }
        final long[] fiAddr = new long[job.size()];
        av.insert(all.flip(), job.size(), fiAddr, 0, null);
        final long base = av.attr().type() == AvType.MAP ? av.attr().mapAddr() : 0;
        for (int r = 0; r < job.size(); r++)
        {
            if (fiAddr[r] != base + r)
            {
                throw new FabricException("shmav_rank_await_all", FiErrno.EALREADY, "rank " + r + "'s address is not at " +
                    "entry " + r + " of the node's AV (fi_addr " + fiAddr[r] + "): another rank published the same address");
            }
        }
    }

    /**
     * Every rank's address from the nodes' blocks (null where {@code missing} gets the rank): one block per
     * node, fetched from the smallest rank not covered yet.
     */
    private byte[][] fetchAll(final long deadline, final List<Integer> missing, final NodeBlocks blocks)
    {
        failed.clear();
        final byte[][] addresses = new byte[job.size()][];
        final boolean[] covered = new boolean[job.size()];
        fetchKnownNodes(deadline, missing, blocks, addresses, covered);
        int next = 0;
        while (next < job.size() && covered[next])
        {
            next++;
        }
        while (next < job.size())
        {
            try
            {
                take(blocks.fetchEach(new int[] {next}, deadline).get(0), addresses, covered, missing);
            }
            catch (final FabricException e)
            {
                if (e.errno() != FiErrno.ENODATA)
                {
                    throw e;
                }
                missing.add(next); // not a node's local rank 0, or its local rank 0 published no block
                covered[next] = true;
            }
            while (next < job.size() && covered[next])
            {
                next++;
            }
        }
        return addresses;
    }

    /**
     * Where the launcher tells which ranks are the nodes' local ranks 0, their blocks in two round trips;
     * nothing when it does not, or when one of them published no block (the walk then names the ranks).
     */
    private void fetchKnownNodes(final long deadline, final List<Integer> missing, final NodeBlocks blocks,
        final byte[][] addresses, final boolean[] covered)
    {
        final Optional<int[]> leaders = store.nodeLeaders(NodeBlocks.remaining(deadline));
        if (leaders.isEmpty())
        {
            return;
        }
        final List<NodeBlocks.Fetched> fetched;
        try
        {
            fetched = blocks.fetchEach(leaders.get(), deadline);
        }
        catch (final FabricException e)
        {
            if (e.errno() != FiErrno.ENODATA)
            {
                throw e;
            }
            return;
        }
        for (final NodeBlocks.Fetched f : fetched)
        {
            take(f, addresses, covered, missing);
        }
    }

    /** The entries of the block a node's local rank 0 published, or the failure it published in its place. */
    private void take(final NodeBlocks.Fetched fetched, final byte[][] addresses, final boolean[] covered,
        final List<Integer> missing)
    {
        final int from = fetched.rank();
        final byte[] block = fetched.block();
        if (block == null)
        {
            failed.add(from + " (" + fetched.failure() + ")");
            missing.add(from);
            covered[from] = true;
            return;
        }
        final List<NodeRecords.Entry> entries;
        try
        {
            entries = NodeRecords.unpack(block, job.size());
        }
        catch (final IllegalArgumentException e)
        {
            throw new FabricException("shmav_rank_await_all", FiErrno.EINVAL, "the node block of rank " + from +
                " (its node's local rank 0) is malformed: " + e.getMessage());
        }
        if (entries.stream().noneMatch(e -> e.rank() == from))
        {
            missing.add(from); // local rank 0 published its node's block, but no address of its own
            covered[from] = true;
        }
        for (final NodeRecords.Entry e : entries)
        {
            if (covered[e.rank()])
            {
                throw new FabricException("shmav_rank_await_all", FiErrno.EINVAL, "the node block of rank " + from +
                    " (ranks " + ranks(entries) + ") holds rank " + e.rank() + ", which another node's block holds too");
            }
            covered[e.rank()] = true;
            if (e.address() == null && NodeRecords.NOTHING.equals(e.failure()))
            {
                missing.add(e.rank());
            }
            else if (e.address() == null)
            {
                failed.add(e.rank() + " (" + e.failure() + ")");
                missing.add(e.rank());
            }
            else
            {
                addresses[e.rank()] = e.address();
            }
        }
    }

    private static List<Integer> ranks(final List<NodeRecords.Entry> entries)
    {
        return entries.stream().map(NodeRecords.Entry::rank).toList();
    }

    /** Names the ranks {@link #fetchAll} found no address of: those that announced a failure, and the others. */
    private String missingText(final List<Integer> missing)
    {
        final List<Integer> silent = new ArrayList<>(missing);
        silent.removeIf(r -> failed.stream().anyMatch(f -> f.startsWith(r + " ")));
        java.util.Collections.sort(silent);
        final String opened = failed.isEmpty() ? "" : "rank(s) " + failed + " of " + job.size() +
            " could not open their node's AV (their own errors say why)";
        return (silent.isEmpty() ? "" : "rank(s) " + silent + " of " + job.size() + " published no address " +
            "(none in their node's block: they died first, or called awaitAll without publish)" +
            (opened.isEmpty() ? "" : "; ")) + opened;
    }
}
