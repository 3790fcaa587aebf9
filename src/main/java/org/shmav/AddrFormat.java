package org.shmav;

/**
 * libfabric's address formats ({@code FI_SOCKADDR_IN} ...), with libfabric's enum values and the bytes of
 * one address. shmav stores every format of a fixed length (IPv4, IPv6, InfiniBand, PSM, EFA, OPX, CXI),
 * FI_ADDR_STR strings, and opaque addresses as {@link #FORMAT_UNSPEC} of a length chosen when the domain is
 * opened ({@code DomainAttr.Builder#addrLen}, or {@code maxAddrLen} for addresses of varying length such as
 * UCX worker addresses). {@link #SOCKADDR}, {@link #ADDR_GNI}, {@link #ADDR_BGQ} and {@link #ADDR_MLX} have
 * no fixed layout and are not storable: store such addresses as FORMAT_UNSPEC.
 */
public enum AddrFormat
{
    /**
     * {@code FI_FORMAT_UNSPEC}: opaque bytes of the length the domain sets ({@code addrLen}, or up to
     * {@code maxAddrLen}); {@code fi_av_straddr} has no text for them (null, as libfabric's), the Java
     * conveniences and the CLI show them in hex.
     */
    FORMAT_UNSPEC(0, 0, true),
    /** {@code FI_SOCKADDR}: a generic {@code struct sockaddr}; not storable (use IN or IN6). */
    SOCKADDR(1, 0, false),
    /** Linux {@code struct sockaddr_in}: 16 bytes. */
    SOCKADDR_IN(2, 16, true),
    /** Linux {@code struct sockaddr_in6}: 28 bytes. */
    SOCKADDR_IN6(3, 28, true),
    /** {@code FI_SOCKADDR_IB}: libfabric's {@code struct ofi_sockaddr_ib}, 48 bytes, family AF_IB (27). */
    SOCKADDR_IB(4, 48, true),
    /** {@code FI_ADDR_PSMX}: one u64 (psm), 8 bytes. */
    ADDR_PSMX(5, 8, true),
    /** {@code FI_ADDR_GNI}; no fixed layout: not storable (use FORMAT_UNSPEC). */
    ADDR_GNI(6, 0, false),
    /** {@code FI_ADDR_BGQ}; no fixed layout: not storable (use FORMAT_UNSPEC). */
    ADDR_BGQ(7, 0, false),
    /** {@code FI_ADDR_MLX}: a UCX address of varying length: not storable as such (use FORMAT_UNSPEC with maxAddrLen). */
    ADDR_MLX(8, 0, false),
    /**
     * {@code FI_ADDR_STR}: a NUL-terminated string of at most {@value #MAX_STR_LEN} bytes including the
     * NUL; lookup reports the stored string's length plus one, as libfabric's shm provider does.
     */
    ADDR_STR(9, AddrFormat.MAX_STR_LEN, true),
    /** {@code FI_ADDR_PSMX2}: two u64 (psm2), 16 bytes. */
    ADDR_PSMX2(10, 16, true),
    /** {@code FI_ADDR_IB_UD}: GID, QPN, LID, P_Key, SL (verbs datagram), 32 bytes. */
    ADDR_IB_UD(11, 32, true),
    /** {@code FI_ADDR_EFA}: GID, QPN, QKey (efa's {@code struct efa_ep_addr}), 32 bytes. */
    ADDR_EFA(12, 32, true),
    /** {@code FI_ADDR_PSMX3}: four u64 (psm3), 32 bytes. */
    ADDR_PSMX3(13, 32, true),
    /** {@code FI_ADDR_OPX}: one u64 (opx), 8 bytes. */
    ADDR_OPX(14, 8, true),
    /** {@code FI_ADDR_CXI}: a u32 of PID (low 9 bits) and NIC address (next 20), 4 bytes. */
    ADDR_CXI(15, 4, true);

    /** Longest FI_ADDR_STR address, NUL included. */
    public static final int MAX_STR_LEN = 128;
    /**
     * Longest FORMAT_UNSPEC address, fixed or varying: 4096 bytes, so that a slot stays within one page
     * and a UCX worker address of every transport of a node fits (248 bytes in unified mode, some 600 otherwise).
     */
    public static final int MAX_OPAQUE_LEN = 4096;

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
     * @return 16 for sockaddr_in, 28 for sockaddr_in6, the maximum {@value #MAX_STR_LEN} for {@link #ADDR_STR},
     *         0 for {@link #FORMAT_UNSPEC} (its length is the domain's) and the formats shmav cannot store
     */
    public int addrlen()
    {
        return addrlen;
    }

    /**
     * Whether an AV can store this format ({@code Domain.open} refuses the others with FI_EINVAL).
     *
     * @return false for {@link #SOCKADDR}, {@link #ADDR_GNI}, {@link #ADDR_BGQ} and {@link #ADDR_MLX}, true otherwise
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
