package org.shmav;

/**
 * libfabric's address formats ({@code FI_SOCKADDR_IN} ...), with libfabric's enum values. shmav stores
 * {@link #SOCKADDR_IN}, {@link #SOCKADDR_IN6} and {@link #ADDR_STR}; the other values exist so that
 * a foreign value can be named in an error message.
 */
public enum AddrFormat
{
    FORMAT_UNSPEC(0, 0, false),
    SOCKADDR(1, 0, false),
    /** Linux {@code struct sockaddr_in}: 16 bytes. */
    SOCKADDR_IN(2, 16, true),
    /** Linux {@code struct sockaddr_in6}: 28 bytes. */
    SOCKADDR_IN6(3, 28, true),
    SOCKADDR_IB(4, 48, false),
    ADDR_PSMX(5, 8, false),
    ADDR_GNI(6, 0, false),
    ADDR_BGQ(7, 0, false),
    ADDR_MLX(8, 0, false),
    /**
     * {@code FI_ADDR_STR}: a NUL-terminated string of at most {@value #MAX_STR_LEN} bytes including the
     * NUL; lookup reports the stored string's length plus one, as libfabric's shm provider does.
     */
    ADDR_STR(9, AddrFormat.MAX_STR_LEN, true),
    ADDR_PSMX2(10, 16, false),
    ADDR_IB_UD(11, 32, false),
    ADDR_EFA(12, 32, false),
    ADDR_PSMX3(13, 32, false),
    ADDR_OPX(14, 8, false),
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

    /** libfabric's numeric value, as stored in a named AV's header. */
    public int value()
    {
        return value;
    }

    /** Bytes of one address in libfabric's binary layout (the maximum, for {@link #ADDR_STR}). */
    public int addrlen()
    {
        return addrlen;
    }

    /** True for the formats an AV can store. */
    public boolean supported()
    {
        return supported;
    }

    /** libfabric's symbol, e.g. {@code FI_SOCKADDR_IN}. */
    public String fiName()
    {
        return "FI_" + name();
    }

    /** The format with libfabric value {@code value}, or null when there is none. */
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
