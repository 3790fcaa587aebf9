package org.shmav;

/**
 * {@code struct fi_av_set_attr}. Built with {@link #builder()}; start and end default to
 * {@link Fi#ADDR_NOTAVAIL} (an empty set). The rules are on {@link AddressVector#openSet(AvSetAttr)}.
 */
public final class AvSetAttr
{
    private final long count;
    private final long startAddr;
    private final long endAddr;
    private final long stride;
    private final byte[] commKey;
    private final long flags;

    private AvSetAttr(final Builder b)
    {
        this.count = b.count;
        this.startAddr = b.startAddr;
        this.endAddr = b.endAddr;
        this.stride = b.stride;
        this.commKey = b.commKey == null ? null : b.commKey.clone();
        this.flags = b.flags;
    }

    /**
     * A builder with the defaults: count 0, start and end {@link Fi#ADDR_NOTAVAIL} (an empty set),
     * stride 0, no comm key, no flags.
     *
     * @return a new builder
     */
    public static Builder builder()
    {
        return new Builder();
    }

    /**
     * {@code count}: the most members the set may hold; 0 lets the set grow without limit.
     *
     * @return the count
     */
    public long count()
    {
        return count;
    }

    /**
     * {@code start_addr}: first fi_addr of the initial range, or {@link Fi#ADDR_NOTAVAIL}.
     *
     * @return the start
     */
    public long startAddr()
    {
        return startAddr;
    }

    /**
     * {@code end_addr}: last fi_addr of the initial range, or {@link Fi#ADDR_NOTAVAIL}.
     *
     * @return the end
     */
    public long endAddr()
    {
        return endAddr;
    }

    /**
     * {@code stride}: step through the initial range; 0 means 1.
     *
     * @return the stride
     */
    public long stride()
    {
        return stride;
    }

    /**
     * {@code comm_key}: the communication key, or null; its length is {@code comm_key_size}: 0 (none)
     * or 8 in shmav.
     *
     * @return a copy of the key, or null
     */
    public byte[] commKey()
    {
        return commKey == null ? null : commKey.clone();
    }

    /**
     * {@code flags}: {@link Fi#UNIVERSE} and FI_BARRIER_SET ... FI_GATHER_SET.
     *
     * @return the flags
     */
    public long flags()
    {
        return flags;
    }

    /** Builder for {@link AvSetAttr}. */
    public static final class Builder
    {
        private long count;
        private long startAddr = Fi.ADDR_NOTAVAIL;
        private long endAddr = Fi.ADDR_NOTAVAIL;
        private long stride;
        private byte[] commKey;
        private long flags;

        private Builder()
        {
        }

        /**
         * Sets {@code count}, the most members; 0 (default) for no limit.
         *
         * @param count the cap, &gt;= 0
         * @return this builder
         */
        public Builder count(final long count)
        {
            this.count = count;
            return this;
        }

        /**
         * Sets {@code start_addr}, the first fi_addr of the initial range (FI_AV_TABLE only).
         *
         * @param startAddr the start, or {@link Fi#ADDR_NOTAVAIL} for no range
         * @return this builder
         */
        public Builder startAddr(final long startAddr)
        {
            this.startAddr = startAddr;
            return this;
        }

        /**
         * Sets {@code end_addr}, the last fi_addr of the initial range (FI_AV_TABLE only).
         *
         * @param endAddr the end, or {@link Fi#ADDR_NOTAVAIL} for no range
         * @return this builder
         */
        public Builder endAddr(final long endAddr)
        {
            this.endAddr = endAddr;
            return this;
        }

        /**
         * Sets {@code stride} through the initial range; 0 (default) means 1.
         *
         * @param stride the step
         * @return this builder
         */
        public Builder stride(final long stride)
        {
            this.stride = stride;
            return this;
        }

        /**
         * Sets {@code comm_key}: null or empty for none, otherwise exactly 8 bytes (copied), recorded and
         * not interpreted.
         *
         * @param commKey the key, or null
         * @return this builder
         */
        public Builder commKey(final byte[] commKey)
        {
            this.commKey = commKey == null ? null : commKey.clone();
            return this;
        }

        /**
         * Sets {@code flags}: {@link Fi#UNIVERSE} (start with every valid entry) and the collective
         * restrictions FI_BARRIER_SET ... FI_GATHER_SET, which are recorded.
         *
         * @param flags the set flags
         * @return this builder
         */
        public Builder flags(final long flags)
        {
            this.flags = flags;
            return this;
        }

        /**
         * The attributes; they are checked by {@link AddressVector#openSet(AvSetAttr)}.
         *
         * @return the attributes
         */
        public AvSetAttr build()
        {
            return new AvSetAttr(this);
        }
    }
}
