package org.shmav.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.shmav.FabricException;

/**
 * A launcher's own job-wide key-value store (Hydra's PMI-1, Slurm's PMI-2, PMIx under Open MPI,
 * Slurm or PRRTE): the way a rank's address reaches the ranks on other nodes. shmav runs no server of
 * its own; each rank publishes, every rank takes part in one exchange, then any rank fetches any
 * rank's value.
 *
 * <p>Errors are {@link FabricException}s whose message names the launcher ({@link #describe()}) and,
 * for a missing value, the rank.
 */
public interface JobStore extends AutoCloseable
{
    /**
     * The launcher and the store's protocol, for messages.
     *
     * @return e.g. {@code MPICH Hydra (PMI-1 over PMI_FD)}
     */
    String describe();

    /**
     * This process's rank in the job.
     *
     * @return the rank as the store numbers it, 0 .. size-1
     */
    int rank();

    /**
     * The job's size.
     *
     * @return the number of ranks in the job
     */
    int size();

    /**
     * Puts this rank's {@code value} under {@code key}; the other ranks see it after {@link #exchange}.
     *
     * @param key   a short ASCII key without spaces or '='
     * @param value a short printable ASCII value without spaces
     */
    void publish(String key, String value);

    /**
     * The longest value {@link #publish} takes, in characters: the launcher's limit (1,024 under Hydra's
     * PMI-1 and Slurm's PMI-2), or {@link Integer#MAX_VALUE} when the store has none of its own (PMIx).
     *
     * @return the limit
     */
    default int maxValue()
    {
        return Integer.MAX_VALUE;
    }

    /**
     * Commits what this rank published and waits until every rank of the job has (a fence or barrier).
     * Every rank calls it once, after its publishes.
     *
     * @param timeout how long to wait for the other ranks; FI_ETIMEDOUT after it
     */
    void exchange(Duration timeout);

    /**
     * Rank {@code rank}'s value under {@code key}, as published before the exchange.
     *
     * @param rank    the rank whose value is wanted
     * @param key     the key it published under
     * @param timeout how long to wait for the store's answer
     * @return the value
     * @throws FabricException FI_ENODATA naming the rank when the store has no such value,
     *                         FI_ETIMEDOUT when the store does not answer within {@code timeout}
     */
    String fetch(int rank, String key, Duration timeout);

    /**
     * The values of several look-ups, in their order: one round trip where the store can send them
     * together (Hydra's PMI-1), else one {@link #fetch} each.
     *
     * @param lookups the ranks and keys wanted
     * @param timeout how long to wait for all the answers
     * @return the values, one per look-up
     * @throws FabricException as {@link #fetch}, for the first look-up that has no value
     */
    default List<String> fetchAll(final List<Lookup> lookups, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        final List<String> values = new ArrayList<>(lookups.size());
        for (final Lookup lookup : lookups)
        {
            values.add(fetch(lookup.rank(), lookup.key(), Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))));
        }
        return values;
    }

    /**
     * The lowest rank of each node (its local rank 0), in rank order, where the launcher tells the job's
     * layout (Hydra's {@code PMI_process_mapping}); empty where it does not, or where its answer cannot be read.
     *
     * @param timeout how long to wait for the store's answer
     * @return the ranks, or empty
     */
    default Optional<int[]> nodeLeaders(final Duration timeout)
    {
        return Optional.empty();
    }

    /**
     * One look-up: rank {@code rank}'s value under {@code key}.
     *
     * @param rank the rank whose value is wanted
     * @param key  the key it published under
     */
    record Lookup(int rank, String key)
    {
    }

    /** Leaves the store (finalize); idempotent, never throws. */
    @Override
    void close();
}
