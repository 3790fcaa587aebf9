package org.shmav.job;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.store.JobStore;

/**
 * A node's block in the launcher's store: local rank 0 publishes it under its own rank, hex encoded, as
 * one value when the store has no limit of its own (PMIx), else cut into segments that fit the
 * launcher's value limit (Hydra's PMI-1 and Slurm's PMI-2: 1,024 characters; keys stay far below 64).
 *
 * <pre>
 *   {@value #KEY}       "K:" then segment 0 (K = how many segments)
 *   {@value #KEY}j      segment j, 1 &lt;= j &lt; K
 *   a rank that could not open publishes "!" and its errno's name under {@value #KEY} instead
 * </pre>
 *
 * Look-ups go to the store together (one round trip where it allows it).
 * Counts the store look-ups it makes. Not thread-safe (the wire-up serialises its use).
 */
final class NodeBlocks
{
    /** The key of a node's block (its first segment). */
    static final String KEY = "shmav-node";
    /** How a failed rank's value starts; no block does. */
    static final String FAILED = "!";
    /** Room left under the launcher's limit: the "K:" prefix, and a margin for the launcher's own terminator. */
    private static final int MARGIN = 24;

    private final JobStore store;
    private int lookups;
    private int roundTrips;
    private long bytes;

    NodeBlocks(final JobStore store)
    {
        this.store = store;
    }

    /** {@return the look-ups {@link #fetchEach} made} */
    int lookups()
    {
        return lookups;
    }

    /** {@return the times {@link #fetchEach} asked the store (look-ups asked together count once)} */
    int roundTrips()
    {
        return roundTrips;
    }

    /** {@return the characters {@link #fetchEach} received} */
    long bytes()
    {
        return bytes;
    }

    /** Publishes this node's block under this rank (its local rank 0's): one value, or segments within the limit. */
    void publish(final byte[] block)
    {
        final String hex = HexFormat.of().formatHex(block);
        final int limit = store.maxValue();
        final int per = limit == Integer.MAX_VALUE ? Math.max(hex.length(), 1) : (limit - MARGIN) & ~1;
        final int segments = Math.max(1, (hex.length() + per - 1) / per);
        for (int j = segments - 1; j >= 0; j--)
        {
            final String part = hex.substring(j * per, Math.min(hex.length(), (j + 1) * per));
            store.publish(j == 0 ? KEY : KEY + j, j == 0 ? segments + ":" + part : part);
        }
    }

    /** A rank that could not open: its errno's name in place of a block. */
    static void publishFailure(final JobStore store, final String errno)
    {
        store.publish(KEY, FAILED + errno);
    }

    /**
     * The blocks of {@code ranks} (each a node's local rank 0) in two round trips where the store sends
     * look-ups together: every first segment, then every other segment.
     *
     * @throws FabricException FI_ENODATA when one of them published no block; FI_EINVAL when one is malformed
     */
    List<Fetched> fetchEach(final int[] ranks, final long deadline)
    {
        final List<JobStore.Lookup> firsts = new ArrayList<>(ranks.length);
        for (final int rank : ranks)
        {
            firsts.add(new JobStore.Lookup(rank, KEY));
        }
        final List<String> first = get(firsts, deadline);
        final List<JobStore.Lookup> rest = new ArrayList<>();
        final int[] segments = new int[ranks.length];
        for (int i = 0; i < ranks.length; i++)
        {
            segments[i] = first.get(i).startsWith(FAILED) ? 0 : segments(ranks[i], first.get(i));
            for (int j = 1; j < segments[i]; j++)
            {
                rest.add(new JobStore.Lookup(ranks[i], KEY + j));
            }
        }
        final List<String> parts = rest.isEmpty() ? List.of() : get(rest, deadline);
        final List<Fetched> fetched = new ArrayList<>(ranks.length);
        int part = 0;
        for (int i = 0; i < ranks.length; i++)
        {
            final String value = first.get(i);
            if (segments[i] == 0)
            {
                fetched.add(new Fetched(ranks[i], null, value.substring(FAILED.length())));
                continue;
            }
            final StringBuilder hex = new StringBuilder(value.length() * segments[i]).append(value, value.indexOf(':') + 1,
                value.length());
            for (int j = 1; j < segments[i]; j++)
            {
                hex.append(parts.get(part++));
            }
            try
            {
                fetched.add(new Fetched(ranks[i], HexFormat.of().parseHex(hex), null));
            }
            catch (final IllegalArgumentException e)
            {
                throw malformed(ranks[i], "not hex: " + e.getMessage());
            }
        }
        return fetched;
    }

    /**
     * A fetched block: its bytes, or the errno name of a rank that could not open.
     *
     * @param rank    the node's local rank 0, which published it
     * @param block   the block's bytes, or null
     * @param failure the errno name, or null
     */
    record Fetched(int rank, byte[] block, String failure)
    {
    }

    /** How many segments a block's first segment announces. */
    private static int segments(final int rank, final String first)
    {
        final int colon = first.indexOf(':');
        final int segments;
        try
        {
            segments = colon < 1 ? -1 : Integer.parseInt(first.substring(0, colon));
        }
        catch (final NumberFormatException e)
        {
            throw malformed(rank, "no segment count");
        }
        if (segments < 1 || segments > 1 << 16)
        {
            throw malformed(rank, "segment count '" + first.substring(0, Math.max(colon, 0)) + "'");
        }
        return segments;
    }

    private List<String> get(final List<JobStore.Lookup> wanted, final long deadline)
    {
        lookups += wanted.size();
        roundTrips++;
        final List<String> values = store.fetchAll(wanted, remaining(deadline));
        for (final String v : values)
        {
            bytes += v.length();
        }
        return values;
    }

    private static FabricException malformed(final int rank, final String why)
    {
        return new FabricException("shmav_rank_await_all", FiErrno.EINVAL, "the node block of rank " + rank +
            " (its node's local rank 0) is malformed: " + why);
    }

    static Duration remaining(final long deadline)
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
