package org.shmav;

/** {@code enum fi_av_type}, with libfabric's values. */
public enum AvType
{
    /** {@code FI_AV_UNSPEC}: the provider chooses; shmav resolves it to {@link #TABLE}. */
    UNSPEC(0),
    /** {@code FI_AV_MAP}: fi_addr values are opaque; here they derive from the AV's map_addr base. */
    MAP(1),
    /** {@code FI_AV_TABLE}: fi_addr values are table indices, lowest unused index first. */
    TABLE(2);

    private final int value;

    AvType(final int value)
    {
        this.value = value;
    }

    /**
     * libfabric's numeric value.
     *
     * @return 0, 1 or 2
     */
    public int value()
    {
        return value;
    }

    /**
     * The type with a libfabric value.
     *
     * @param value libfabric's numeric value
     * @return the type, or null when there is none
     */
    public static AvType ofValue(final int value)
    {
        for (final AvType t : values())
        {
            if (t.value == value)
            {
                return t;
            }
        }
        return null;
    }

    /**
     * libfabric's {@code fi_tostr} text.
     *
     * @return e.g. {@code FI_AV_TABLE}
     */
    public String fiName()
    {
        return "FI_AV_" + name();
    }
}
