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

    public static Builder builder()
    {
        return new Builder();
    }

    /** The most members the set may hold; 0 lets the set grow without limit. */
    public long count()
    {
        return count;
    }

    public long startAddr()
    {
        return startAddr;
    }

    public long endAddr()
    {
        return endAddr;
    }

    public long stride()
    {
        return stride;
    }

    /** The communication key, or null; its length is {@code comm_key_size}: 0 (none) or 8 in shmav. */
    public byte[] commKey()
    {
        return commKey == null ? null : commKey.clone();
    }

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

        public Builder count(final long count)
        {
            this.count = count;
            return this;
        }

        public Builder startAddr(final long startAddr)
        {
            this.startAddr = startAddr;
            return this;
        }

        public Builder endAddr(final long endAddr)
        {
            this.endAddr = endAddr;
            return this;
        }

        public Builder stride(final long stride)
        {
            this.stride = stride;
            return this;
        }

        public Builder commKey(final byte[] commKey)
        {
            this.commKey = commKey == null ? null : commKey.clone();
            return this;
        }

        public Builder flags(final long flags)
        {
            this.flags = flags;
            return this;
        }

        public AvSetAttr build()
        {
            return new AvSetAttr(this);
        }
    }
}
