package org.shmav;

/**
 * {@code struct fi_av_attr}. Built with {@link #builder()}; {@link AddressVector#attr()} returns the
 * resolved attributes (type UNSPEC resolved, the named AV's capacity and map_addr base).
 *
 * <p>Beyond libfabric: {@link Builder#groupAccess(boolean)} creates a named AV's file with mode 0660
 * instead of 0600, so that processes of the same group can share it (and lets a writer attach to a
 * group member's file); {@link Builder#createOnly(boolean)} makes the open fail with FI_EEXIST
 * instead of attaching when the named AV exists already.
 */
public final class AvAttr
{
    private final AvType type;
    private final int rxCtxBits;
    private final long count;
    private final long epPerNode;
    private final String name;
    private final long mapAddr;
    private final long flags;
    private final boolean groupAccess;
    private final boolean createOnly;

    private AvAttr(final Builder b)
    {
        this.type = b.type;
        this.rxCtxBits = b.rxCtxBits;
        this.count = b.count;
        this.epPerNode = b.epPerNode;
        this.name = b.name;
        this.mapAddr = b.mapAddr;
        this.flags = b.flags;
        this.groupAccess = b.groupAccess;
        this.createOnly = b.createOnly;
    }

    public static Builder builder()
    {
        return new Builder();
    }

    /** A builder holding these attributes. */
    public Builder toBuilder()
    {
        return new Builder().type(type).rxCtxBits(rxCtxBits).count(count).epPerNode(epPerNode).name(name)
            .mapAddr(mapAddr).flags(flags).groupAccess(groupAccess).createOnly(createOnly);
    }

    public AvType type()
    {
        return type;
    }

    public int rxCtxBits()
    {
        return rxCtxBits;
    }

    /** Expected number of entries: a hint for a private AV, the fixed capacity of a named one; 0 = default. */
    public long count()
    {
        return count;
    }

    public long epPerNode()
    {
        return epPerNode;
    }

    /** The named AV's system name, or null for a private AV. */
    public String name()
    {
        return name;
    }

    /** The base of FI_AV_MAP fi_addr values of a named AV; 0 on input means "use the stored base". */
    public long mapAddr()
    {
        return mapAddr;
    }

    public long flags()
    {
        return flags;
    }

    /**
     * Create a named AV's file with mode 0660 rather than 0600, and let a writer attach to a file of
     * another user whose group is one of this process's (group read and write): without it, a writer
     * refuses another user's file with FI_EACCES.
     */
    public boolean groupAccess()
    {
        return groupAccess;
    }

    /**
     * A named AV is created by this open or not at all: FI_EEXIST when the name exists. The check is the
     * atomic publication of the new file, so of several concurrent create-only opens exactly one wins.
     */
    public boolean createOnly()
    {
        return createOnly;
    }

    @Override
    public String toString()
    {
        return "AvAttr{type=" + (type == null ? "null" : type.fiName()) + ", rxCtxBits=" + rxCtxBits +
            ", count=" + count + ", epPerNode=" + epPerNode + ", name=" + (name == null ? "null" : "'" + name + "'") +
            ", mapAddr=0x" + Long.toHexString(mapAddr) + ", flags=0x" + Long.toHexString(flags) +
            ", groupAccess=" + groupAccess + ", createOnly=" + createOnly + '}';
    }

    /** Builder for {@link AvAttr}; defaults: UNSPEC, count 0, private, no flags. */
    public static final class Builder
    {
        private AvType type = AvType.UNSPEC;
        private int rxCtxBits;
        private long count;
        private long epPerNode;
        private String name;
        private long mapAddr;
        private long flags;
        private boolean groupAccess;
        private boolean createOnly;

        private Builder()
        {
        }

        public Builder type(final AvType type)
        {
            this.type = type;
            return this;
        }

        public Builder rxCtxBits(final int rxCtxBits)
        {
            this.rxCtxBits = rxCtxBits;
            return this;
        }

        public Builder count(final long count)
        {
            this.count = count;
            return this;
        }

        public Builder epPerNode(final long epPerNode)
        {
            this.epPerNode = epPerNode;
            return this;
        }

        public Builder name(final String name)
        {
            this.name = name;
            return this;
        }

        public Builder mapAddr(final long mapAddr)
        {
            this.mapAddr = mapAddr;
            return this;
        }

        public Builder flags(final long flags)
        {
            this.flags = flags;
            return this;
        }

        /** See {@link AvAttr#createOnly()}. */
        public Builder createOnly(final boolean createOnly)
        {
            this.createOnly = createOnly;
            return this;
        }

        public Builder groupAccess(final boolean groupAccess)
        {
            this.groupAccess = groupAccess;
            return this;
        }

        public AvAttr build()
        {
            return new AvAttr(this);
        }
    }
}
