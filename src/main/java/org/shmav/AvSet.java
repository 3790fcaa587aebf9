package org.shmav;

/**
 * An AV set ({@code fi_av_set(3)}): an ordered subset of the valid entries of one AV handle, like an
 * MPI group. Opened by {@link AddressVector#openSet(AvSetAttr)}; the rules for its attributes are on
 * that method's implementation and in {@link AvSetAttr}. Operations keep order as the man page says
 * (libfabric's util/coll code does not): union appends, intersect, diff and remove keep the order of
 * what stays. Members are fi_addr values taken as given; removing an entry from the AV later does not
 * remove it from a set.
 *
 * <p>An open set holds a reference on its AV: {@link AddressVector#close()} throws FI_EBUSY until every
 * set on it is closed. Every call on a closed set, except {@link #close()}, throws FI_EINVAL.
 *
 * <p><b>Thread safety.</b> Not thread-safe: a set, including one passed as {@code src}, must be used by
 * one thread at a time.
 */
public interface AvSet extends AutoCloseable
{
    /**
     * Bits 63..62 of every {@link #addr()} are {@code 10}: a collective address is never
     * {@link Fi#ADDR_NOTAVAIL} (all ones), never an auth-key handle (bit 62 alone) and never a plain
     * TABLE or MAP fi_addr (bit 63 clear).
     */
    long COLL_ADDR_TAG = 1L << 63;

    /**
     * {@code fi_av_set_union}: appends the members of {@code src} that are not members here, in
     * {@code src}'s order. All or nothing: when the result would exceed a non-zero count this set is
     * left unchanged.
     *
     * @param src the set whose members are added
     * @throws FabricException FI_EINVAL when either set is closed, {@code src} is null or belongs to
     *                         another AV handle; FI_ENOMEM when the result would exceed the set's count
     */
    void union(AvSet src);

    /**
     * {@code fi_av_set_intersect}: removes the members that are not members of {@code src}; the order of
     * the rest is unchanged.
     *
     * @param src the set whose members are kept
     * @throws FabricException FI_EINVAL when either set is closed, {@code src} is null or belongs to
     *                         another AV handle
     */
    void intersect(AvSet src);

    /**
     * {@code fi_av_set_diff}: removes the members that are also members of {@code src}; the order of the
     * rest is unchanged. {@code set.diff(set)} empties the set.
     *
     * @param src the set whose members are removed
     * @throws FabricException FI_EINVAL when either set is closed, {@code src} is null or belongs to
     *                         another AV handle
     */
    void diff(AvSet src);

    /**
     * {@code fi_av_set_insert}: appends {@code fiAddr} at the end.
     *
     * @param fiAddr a valid entry of the AV
     * @throws FabricException FI_EINVAL when the set is closed, {@code fiAddr} is not a valid entry of the
     *                         AV now, or is already a member; FI_ENOMEM when the set holds count members
     *                         (count &gt; 0)
     */
    void insert(long fiAddr);

    /**
     * {@code fi_av_set_remove}: removes {@code fiAddr}; the order of the rest is unchanged.
     *
     * @param fiAddr a member
     * @throws FabricException FI_EINVAL when the set is closed or {@code fiAddr} is not a member
     */
    void remove(long fiAddr);

    /**
     * {@code fi_av_set_addr}: the collective address of the current membership. In C libfabric it is a
     * process-local pointer; here it is a value every process computes alike:
     * <pre>
     * h = FNV-1a-64 (offset basis 0xcbf29ce484222325, prime 0x100000001b3) over the members in order,
     *     each member as its 8 bytes little-endian
     * addr = COLL_ADDR_TAG | (h &gt;&gt;&gt; 2)
     * </pre>
     * So two sets with the same members in the same order have the same address, in any process, and
     * any change of membership or order changes it (up to a 2<sup>-62</sup> chance of a collision). The
     * empty set's address is {@code 0xb2fca739210888c9L}. Kept up to date by every operation: this call is
     * O(1).
     *
     * @return the collective address, tagged with {@link #COLL_ADDR_TAG}
     * @throws FabricException FI_EINVAL when the set is closed
     */
    long addr();

    /**
     * The members in order (beyond libfabric).
     *
     * @return a copy of the members' fi_addr values
     * @throws FabricException FI_EINVAL when the set is closed
     */
    long[] members();

    /**
     * The attributes given to {@code fi_av_set}, as given (beyond libfabric, which has no query): count,
     * range, stride, communication key and flags (FI_UNIVERSE, FI_BARRIER_SET ... FI_GATHER_SET).
     *
     * @return the attributes
     * @throws FabricException FI_EINVAL when the set is closed
     */
    AvSetAttr attr();

    /**
     * {@code fi_close}: closes the set and releases its reference on the AV. Idempotent.
     */
    @Override
    void close();
}
