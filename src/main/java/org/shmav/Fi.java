package org.shmav;

/**
 * libfabric's flag bits and fi_addr helpers, with the same numeric values as {@code rdma/fabric.h}
 * and {@code rdma/fi_domain.h}, so that a flag word written in C reads the same here.
 *
 * <p>Several bits are reused in different contexts, exactly as in libfabric: {@link #AUTH_KEY} and
 * {@link #UNIVERSE} are both bit 57, and {@link #AV_USER_ID} is the same bit as
 * {@link #BROADCAST_SET}.
 */
public final class Fi
{
    /** {@code FI_READ}: open a named AV read-only. */
    public static final long READ = 1L << 8;
    /** {@code FI_WRITE}: not an AV flag; listed so that it can be rejected by name. */
    public static final long WRITE = 1L << 9;
    /** {@code FI_MORE}: more inserts follow; accepted and ignored. */
    public static final long MORE = 1L << 18;
    /** {@code FI_EVENT}: inserts complete through a bound {@link EventQueue} (deprecated in libfabric). */
    public static final long EVENT = 1L << 24;

    /** {@code FI_BARRIER_SET}: an AV set supports barrier. */
    public static final long BARRIER_SET = 1L << 40;
    /** {@code FI_BROADCAST_SET}. */
    public static final long BROADCAST_SET = 1L << 41;
    /** {@code FI_ALLTOALL_SET}. */
    public static final long ALLTOALL_SET = 1L << 42;
    /** {@code FI_ALLREDUCE_SET}. */
    public static final long ALLREDUCE_SET = 1L << 43;
    /** {@code FI_ALLGATHER_SET}. */
    public static final long ALLGATHER_SET = 1L << 44;
    /** {@code FI_REDUCE_SCATTER_SET}. */
    public static final long REDUCE_SCATTER_SET = 1L << 45;
    /** {@code FI_REDUCE_SET}. */
    public static final long REDUCE_SET = 1L << 46;
    /** {@code FI_SCATTER_SET}. */
    public static final long SCATTER_SET = 1L << 47;
    /** {@code FI_GATHER_SET}. */
    public static final long GATHER_SET = 1L << 48;

    /** {@code FI_AV_USER_ID}: as an open flag, user ids are set with setUserId; as an insert flag, fiAddr[i] is the user id. */
    public static final long AV_USER_ID = 1L << 41;
    /** {@code FI_PEER}: accepted by libfabric's util AV for peer providers; not supported here. */
    public static final long PEER = 1L << 43;
    /** {@code FI_AUTH_KEY}: the fi_addr is (or the address is bound to) an authorization-key handle. */
    public static final long AUTH_KEY = 1L << 57;
    /** {@code FI_UNIVERSE}: an AV set holds every valid entry of its AV. */
    public static final long UNIVERSE = 1L << 57;
    /** {@code FI_SYNC_ERR}: the insert context is an {@code int[]} receiving a positive errno per address. */
    public static final long SYNC_ERR = 1L << 58;
    /** {@code FI_SYMMETRIC}: every node has the same number of endpoints at sequential addresses. */
    public static final long SYMMETRIC = 1L << 59;

    /** {@code FI_ADDR_NOTAVAIL}: no address; also the default user id. */
    public static final long ADDR_NOTAVAIL = -1L;
    /** {@code FI_ADDR_UNSPEC}, the same value as {@link #ADDR_NOTAVAIL}. */
    public static final long ADDR_UNSPEC = -1L;

    private Fi()
    {
    }

    /**
     * {@code fi_rx_addr}: the fi_addr that targets receive context {@code rxIndex}, which lives in the
     * top {@code rxCtxBits} bits. As on x86, {@code rxCtxBits == 0} shifts by zero (Java's {@code << 64}),
     * so {@code rxAddr(5, 3, 0) == 7}.
     *
     * @param fiAddr    the peer's fi_addr
     * @param rxIndex   the receive context
     * @param rxCtxBits the AV's {@code rx_ctx_bits}
     * @return the fi_addr with the context in its top bits
     */
    public static long rxAddr(final long fiAddr, final int rxIndex, final int rxCtxBits)
    {
        return ((long)rxIndex << (64 - rxCtxBits)) | fiAddr;
    }

    /**
     * {@code fi_group_addr}: puts {@code groupId} in bits 32..63 of {@code fiAddr}.
     *
     * @param fiAddr  the peer's fi_addr
     * @param groupId the group, at most the domain's maxGroupId
     * @return the fi_addr with the group id in its top 32 bits
     */
    public static long groupAddr(final long fiAddr, final int groupId)
    {
        return (Integer.toUnsignedLong(groupId) << 32) | fiAddr;
    }
}
