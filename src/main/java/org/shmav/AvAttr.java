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
    /** The most entries a named AV grows to unless {@link Builder#maxCount} says otherwise: 4,194,304. */
    public static final long DEFAULT_MAX_COUNT = 1L << 22;

    private final AvType type;
    private final int rxCtxBits;
    private final long count;
    private final long epPerNode;
    private final String name;
    private final long mapAddr;
    private final long flags;
    private final boolean groupAccess;
    private final boolean createOnly;
    private final long maxCount;
    private final boolean lowestIndex;

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
        this.maxCount = b.maxCount;
        this.lowestIndex = b.lowestIndex;
    }

    /**
     * A builder with the defaults: FI_AV_UNSPEC, count 0, private (no name), no flags.
     *
     * @return a new builder
     */
    public static Builder builder()
    {
        return new Builder();
    }

    /**
     * A builder holding these attributes, to derive others from them.
     *
     * @return a new builder
     */
    public Builder toBuilder()
    {
        return new Builder().type(type).rxCtxBits(rxCtxBits).count(count).epPerNode(epPerNode).name(name)
            .mapAddr(mapAddr).flags(flags).groupAccess(groupAccess).createOnly(createOnly).maxCount(maxCount)
            .lowestIndex(lowestIndex);
    }

    /**
     * {@code type}: TABLE, MAP or UNSPEC (resolved to TABLE in {@link AddressVector#attr()}).
     *
     * @return the AV type
     */
    public AvType type()
    {
        return type;
    }

    /**
     * {@code rx_ctx_bits}: how many top bits of an fi_addr select a receive context ({@link Fi#rxAddr}).
     *
     * @return 0 to 16
     */
    public int rxCtxBits()
    {
        return rxCtxBits;
    }

    /**
     * {@code count}: expected number of entries; a hint for a private AV; for a named one, the capacity
     * it is created with (1024 when 0), and in {@link AddressVector#attr()} its capacity now.
     *
     * @return the count
     */
    public long count()
    {
        return count;
    }

    /**
     * {@code ep_per_node}: a hint, recorded and not interpreted.
     *
     * @return the hint
     */
    public long epPerNode()
    {
        return epPerNode;
    }

    /**
     * {@code name}: the named AV's system name, or null for a private AV.
     *
     * @return the name or null
     */
    public String name()
    {
        return name;
    }

    /**
     * {@code map_addr}: the base of FI_AV_MAP fi_addr values of a named AV; 0 on input means "use the
     * stored base".
     *
     * @return the base
     */
    public long mapAddr()
    {
        return mapAddr;
    }

    /**
     * {@code flags}: {@link Fi#READ}, {@link Fi#EVENT}, {@link Fi#SYMMETRIC}, {@link Fi#AV_USER_ID}.
     *
     * @return the flags
     */
    public long flags()
    {
        return flags;
    }

    /**
     * Create a named AV's file with mode 0660 rather than 0600, and let a writer attach to a file of
     * another user whose group is one of this process's (group read and write): without it, a writer
     * refuses another user's file with FI_EACCES.
     *
     * @return true for group access
     */
    public boolean groupAccess()
    {
        return groupAccess;
    }

    /**
     * Whether a named AV is created by this open or not at all: FI_EEXIST when the name exists. The check
     * is the atomic publication of the new file, so of several concurrent create-only opens exactly one
     * wins (beyond libfabric).
     *
     * @return true for create-only
     */
    public boolean createOnly()
    {
        return createOnly;
    }

    /**
     * The most entries a named AV may grow to, set when it is created (beyond libfabric, where
     * {@code count} is a hint): a named AV starts with {@code count} slots and doubles when full, the
     * last growth stopping at exactly this many; past it inserts fail with FI_ENOSPC. 0 means
     * {@link #DEFAULT_MAX_COUNT}, or {@code count} when that is larger; for addresses so large (opaque
     * ones of up to 4096 bytes) that its file would pass the limit below, the largest that fits.
     *
     * <p>Limits (shm-layout.md, WRITER'S CHECKLIST, Limits), checked by {@code Domain.openAv} when it
     * creates the AV, with FI_EINVAL and a message naming the largest value that fits: not negative; not
     * below a non-zero {@code count}; and the AV's file at this many entries at most 2^31 - 1 bytes (one
     * mapping), which is the one limit, however far past it a value asks. With 64-byte slots (FI_SOCKADDR_IN,
     * FI_SOCKADDR_IN6) that is at most 14,911,168 for an
     * AV created with count 4 that grows (16,777,216 for one created with that count, which never
     * grows); with 192-byte slots (FI_ADDR_STR) 8,052,394 (8,388,608); auth keys take a few pages more. The file system's free space
     * is checked only for the file at creation: maxCount is a ceiling that growth honours as far as the
     * file system allows (FI_ENOSPC when a growth finds no room, the AV intact).
     *
     * @return the maximum, or 0 for the default
     */
    public long maxCount()
    {
        return maxCount;
    }

    /**
     * Whether an insert through this handle takes the lowest unused index, as fi_av(3) has it for
     * FI_AV_TABLE (true, the default). False (beyond libfabric) lets this handle's inserts of new
     * addresses take a higher unused index, chosen so that writers in several processes rarely claim
     * neighbouring slots: several processes then insert into one named AV about as fast as each into
     * an AV of its own, where with the rule they all claim at one frontier and wait on each other's
     * cache lines. Everything else holds either way: one entry per address across processes, fi_addr
     * values that never change, an exact count, crash safety; the AV still grows only when it is full.
     * Only the index order is given up, for this handle's inserts; other handles keep it for theirs.
     * Named AVs only: a private AV has one writer, and keeps the rule.
     *
     * @return true when inserts take the lowest unused index
     */
    public boolean lowestIndex()
    {
        return lowestIndex;
    }

    @Override
    public String toString()
    {
        return "AvAttr{type=" + (type == null ? "null" : type.fiName()) + ", rxCtxBits=" + rxCtxBits +
            ", count=" + count + ", epPerNode=" + epPerNode + ", name=" + (name == null ? "null" : "'" + name + "'") +
            ", mapAddr=0x" + Long.toHexString(mapAddr) + ", flags=0x" + Long.toHexString(flags) +
            ", groupAccess=" + groupAccess + ", createOnly=" + createOnly + ", maxCount=" + maxCount +
            ", lowestIndex=" + lowestIndex + '}';
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
        private long maxCount;
        private boolean lowestIndex = true;

        private Builder()
        {
        }

        /**
         * Sets {@code type}. Default {@link AvType#UNSPEC}, which resolves to TABLE.
         *
         * @param type TABLE, MAP or UNSPEC
         * @return this builder
         */
        public Builder type(final AvType type)
        {
            this.type = type;
            return this;
        }

        /**
         * Sets {@code rx_ctx_bits}; outside 0..16 is FI_EINVAL at open. Default 0.
         *
         * @param rxCtxBits top fi_addr bits that select a receive context
         * @return this builder
         */
        public Builder rxCtxBits(final int rxCtxBits)
        {
            this.rxCtxBits = rxCtxBits;
            return this;
        }

        /**
         * Sets {@code count}: a hint for a private AV; the capacity a named AV is created with (0: 1024, or
         * the {@link #maxCount} when smaller), which it doubles when full, up to exactly the maxCount; when
         * attaching, ignored unless it is more than the AV may grow to (FI_EINVAL). Default 0. Creating a
         * named AV refuses, with FI_EINVAL, a negative count, one above a non-zero maxCount, or one whose
         * file would pass 2^31 - 1 bytes, the one limit (16,777,216 entries of FI_SOCKADDR_IN or _IN6, 8,388,608
         * of FI_ADDR_STR; see {@link AvAttr#maxCount()}; a private AV's count is at most 2^28), and with FI_ENOSPC a
         * count whose file the file system holding the
         * AV has no room for now (the message names both numbers of bytes).
         *
         * @param count expected entries
         * @return this builder
         */
        public Builder count(final long count)
        {
            this.count = count;
            return this;
        }

        /**
         * Sets {@code ep_per_node}, a hint. Default 0.
         *
         * @param epPerNode endpoints per node
         * @return this builder
         */
        public Builder epPerNode(final long epPerNode)
        {
            this.epPerNode = epPerNode;
            return this;
        }

        /**
         * Sets {@code name}: non-null makes the AV named, shared through a file of that name in the
         * domain's shm directory. Default null (private).
         *
         * @param name the AV's system name, or null
         * @return this builder
         */
        public Builder name(final String name)
        {
            this.name = name;
            return this;
        }

        /**
         * Sets {@code map_addr}: for FI_AV_MAP, the base of fi_addr values when a named AV is created; 0 keeps
         * the stored base. Default 0.
         *
         * @param mapAddr the base
         * @return this builder
         */
        public Builder mapAddr(final long mapAddr)
        {
            this.mapAddr = mapAddr;
            return this;
        }

        /**
         * Sets {@code flags}: {@link Fi#READ} (attach read-only), {@link Fi#EVENT}, {@link Fi#SYMMETRIC},
         * {@link Fi#AV_USER_ID}; others are FI_EINVAL at open. Default 0.
         *
         * @param flags the open flags
         * @return this builder
         */
        public Builder flags(final long flags)
        {
            this.flags = flags;
            return this;
        }

        /**
         * Makes a named AV's open fail with FI_EEXIST instead of attaching when the name exists (beyond
         * libfabric). Default false.
         *
         * @param createOnly true to create or fail
         * @return this builder
         */
        public Builder createOnly(final boolean createOnly)
        {
            this.createOnly = createOnly;
            return this;
        }

        /**
         * Creates a named AV's file with mode 0660 rather than 0600, so that processes of the same group can
         * share it and a writer may attach to a group member's file (beyond libfabric). Default false.
         *
         * @param groupAccess true for group access
         * @return this builder
         */
        public Builder groupAccess(final boolean groupAccess)
        {
            this.groupAccess = groupAccess;
            return this;
        }

        /**
         * Sets the most entries a named AV created by this open may grow to, exactly (see
         * {@link AvAttr#maxCount()} for its limits). Default 0: {@link AvAttr#DEFAULT_MAX_COUNT}, or the
         * count when larger.
         *
         * @param maxCount the maximum, or 0 for the default
         * @return this builder
         */
        public Builder maxCount(final long maxCount)
        {
            this.maxCount = maxCount;
            return this;
        }

        /**
         * Whether this handle's inserts take the lowest unused index (see {@link AvAttr#lowestIndex()}).
         * Default true; false for faster concurrent inserts from several processes into one named AV.
         *
         * @param lowestIndex false to let inserts take a higher unused index
         * @return this builder
         */
        public Builder lowestIndex(final boolean lowestIndex)
        {
            this.lowestIndex = lowestIndex;
            return this;
        }

        /**
         * The attributes; they are checked by {@link Domain#openAv(AvAttr)}.
         *
         * @return the attributes
         */
        public AvAttr build()
        {
            return new AvAttr(this);
        }
    }
}
