package org.shmav;

/**
 * An AV set ({@code fi_av_set}): an ordered subset of an AV's entries, like an MPI group. Operations
 * keep order as {@code fi_av_set(3)} says. Not thread-safe: a set belongs to one thread at a time.
 */
public interface AvSet extends AutoCloseable
{
    /** {@code fi_av_set_union}: appends the members of {@code src} missing here, in src's order. */
    void union(AvSet src);

    /** {@code fi_av_set_intersect}: keeps only members also in {@code src}, in this set's order. */
    void intersect(AvSet src);

    /** {@code fi_av_set_diff}: removes the members that are in {@code src}, keeping this set's order. */
    void diff(AvSet src);

    /** {@code fi_av_set_insert}: appends; FI_EINVAL for a duplicate or an invalid entry, FI_ENOMEM when full. */
    void insert(long fiAddr);

    /** {@code fi_av_set_remove}: removes, keeping the order of the rest; FI_EINVAL when absent. */
    void remove(long fiAddr);

    /** {@code fi_av_set_addr}: the collective address of the current membership. */
    long addr();

    /** The members in order. */
    long[] members();

    /** {@code fi_close}: releases the set's reference on its AV. */
    @Override
    void close();
}
