package org.shmav.av;

import org.shmav.AvType;
import org.shmav.Fi;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.slots.Region;

/**
 * The fi_addr values of one AV handle: a slot index is an FI_AV_TABLE index or, for FI_AV_MAP, the AV's
 * map base plus the index; decoding drops the rx-context bits ({@code fi_rx_addr}, top {@code rx_ctx_bits})
 * and, on a TABLE AV of a domain with groups, the group bits 32..63 ({@code fi_group_addr}). Auth-key
 * handles are {@link #AUTH_KEY_HANDLE_BIT} or'ed with the key's index. Immutable, so safe for use by many
 * threads.
 */
final class FiAddrCodec
{
    /** Auth-key handles are this bit or'ed with the key's index, so they never look like an entry's fi_addr. */
    static final long AUTH_KEY_HANDLE_BIT = 1L << 62;
    private static final long KEY_INDEX_MASK = 0xFFFF_FFFFL;
    /** The largest FI_AV_MAP base a named AV takes: the file's own bound ({@link AvFileDescriptor#MAX_MAP_ADDR_BASE}). */
    static final long MAX_MAP_BASE = AvFileDescriptor.MAX_MAP_ADDR_BASE;

    private final AvType type;
    private final long mapBase;
    private final long addrMask;
    /** What {@link #indexOf} subtracts: the masked map base of a MAP AV, 0 for TABLE (no branch on the type). */
    private final long maskedBase;

    /**
     * @param groupBits true when the domain has groups ({@code maxGroupId > 0}); they are masked off a TABLE
     *                  AV's fi_addr only
     */
    FiAddrCodec(final AvType type, final long mapBase, final int rxCtxBits, final boolean groupBits)
    {
        this.type = type;
        this.mapBase = mapBase;
        long mask = rxCtxBits == 0 ? -1L : -1L >>> rxCtxBits;
        if (type == AvType.TABLE && groupBits)
        {
            mask &= 0xFFFF_FFFFL; // fi_group_addr puts the group in bits 32..63
        }
        this.addrMask = mask;
        this.maskedBase = type == AvType.MAP ? mapBase & mask : 0;
    }

    /** The fi_addr of slot {@code index}. */
    long encode(final long index)
    {
        return type == AvType.MAP ? mapBase + index : index;
    }

    /**
     * The slot index an fi_addr names, or -1 when it is FI_ADDR_NOTAVAIL; the caller checks it against
     * the capacity of its view (a named AV may have grown past it).
     */
    long indexOf(final long fiAddr)
    {
        if (fiAddr == Fi.ADDR_NOTAVAIL)
        {
            return -1;
        }
        final long index = ((fiAddr & addrMask) - maskedBase) & addrMask; // a TABLE index: fiAddr & addrMask
        return index >= 0 ? index : -1;
    }

    /** The map base stored in {@code r} for a MAP AV (the slot table's per-entry fi_addr array), else 0. */
    long mapArrayBase(final Region r)
    {
        return type == AvType.MAP ? r.storedMapBase() : 0;
    }

    /** The handle of auth key {@code keyIndex}. */
    static long authKeyHandle(final long keyIndex)
    {
        return AUTH_KEY_HANDLE_BIT | keyIndex;
    }

    /** The key index {@code handle} is spelled with, or -1 when it is not spelled as an auth-key handle. */
    static long authKeyHandleIndex(final long handle)
    {
        return (handle & ~KEY_INDEX_MASK) != AUTH_KEY_HANDLE_BIT ? -1 : handle & KEY_INDEX_MASK;
    }
}
