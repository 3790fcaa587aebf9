package org.shmav;

/**
 * libfabric's address formats ({@code FI_SOCKADDR_IN} ...), with libfabric's enum values. shmav stores
 * {@link #SOCKADDR_IN}, {@link #SOCKADDR_IN6} and {@link #ADDR_STR}; the other values exist so that
 * a foreign value can be named in an error message.
 */
public enum AddrFormat
{
    /** {@code FI_FORMAT_UNSPEC}: no format; not storable. */
    FORMAT_UNSPEC(0, 0, false),
    /** {@code FI_SOCKADDR}: a generic {@code struct sockaddr}; not storable (use IN or IN6). */
    SOCKADDR(1, 0, false),
    /** Linux {@code struct sockaddr_in}: 16 bytes. */
    SOCKADDR_IN(2, 16, true),
    /** Linux {@code struct sockaddr_in6}: 28 bytes. */
    SOCKADDR_IN6(3, 28, true),
    /** {@code FI_SOCKADDR_IB}; not storable. */
    SOCKADDR_IB(4, 48, false),
    /** {@code FI_ADDR_PSMX}; not storable. */
    ADDR_PSMX(5, 8, false),
    /** {@code FI_ADDR_GNI}; not storable. */
    ADDR_GNI(6, 0, false),
    /** {@code FI_ADDR_BGQ}; not storable. */
    ADDR_BGQ(7, 0, false),
    /** {@code FI_ADDR_MLX}; not storable. */
    ADDR_MLX(8, 0, false),
    /**
     * {@code FI_ADDR_STR}: a NUL-terminated string of at most {@value #MAX_STR_LEN} bytes including the
     * NUL; lookup reports the stored string's length plus one, as libfabric's shm provider does.
     */
    ADDR_STR(9, AddrFormat.MAX_STR_LEN, true),
    /** {@code FI_ADDR_PSMX2}; not storable. */
    ADDR_PSMX2(10, 16, false),
    /** {@code FI_ADDR_IB_UD}; not storable. */
    ADDR_IB_UD(11, 32, false),
    /** {@code FI_ADDR_EFA}; not storable. */
    ADDR_EFA(12, 32, false),
    /** {@code FI_ADDR_PSMX3}; not storable. */
    ADDR_PSMX3(13, 32, false),
    /** {@code FI_ADDR_OPX}; not storable. */
    ADDR_OPX(14, 8, false),
    /** {@code FI_ADDR_CXI}; not storable. */
    ADDR_CXI(15, 4, false);

    /** Longest FI_ADDR_STR address, NUL included. */
    public static final int MAX_STR_LEN = 128;

    private final int value;
    private final int addrlen;
    private final boolean supported;

    AddrFormat(final int value, final int addrlen, final boolean supported)
    {
        this.value = value;
        this.addrlen = addrlen;
        this.supported = supported;
    }

    /**
     * libfabric's numeric value, as stored in a named AV's header.
     *
     * @return e.g. 2 for {@code FI_SOCKADDR_IN}
     */
    public int value()
    {
        return value;
    }

    /**
     * Bytes of one address in libfabric's binary layout.
     *
     * @return 16 for sockaddr_in, 28 for sockaddr_in6, the maximum {@value #MAX_STR_LEN} for {@link #ADDR_STR}
     */
    public int addrlen()
    {
        return addrlen;
    }

    /**
     * Whether an AV can store this format ({@code Domain.open} refuses the others with FI_EINVAL).
     *
     * @return true for {@link #SOCKADDR_IN}, {@link #SOCKADDR_IN6} and {@link #ADDR_STR}
     */
    public boolean supported()
    {
        return supported;
    }

    /**
     * libfabric's symbol.
     *
     * @return e.g. {@code FI_SOCKADDR_IN}
     */
    public String fiName()
    {
        return "FI_" + name();
    }

    /**
     * The format with a libfabric value.
     *
     * @param value libfabric's numeric value
     * @return the format, or null when there is none
     */
    public static AddrFormat ofValue(final int value)
    {
        for (final AddrFormat f : values())
        {
            if (f.value == value)
            {
                return f;
            }
        }
        return null;
    }
}
