package org.shmav;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Conversion between {@link InetSocketAddress} and libfabric's binary address layout (Linux
 * {@code struct sockaddr_in}, 16 bytes, and {@code struct sockaddr_in6}, 28 bytes: {@code sin_family}
 * in host byte order, port and address in network order), validation as libfabric's
 * {@code ofi_valid_dest_ipaddr} does it, and {@code fi_av_straddr} text.
 */
public final class Addresses
{
    /** Linux {@code AF_INET}. */
    public static final int AF_INET = 2;
    /** Linux {@code AF_INET6}. */
    public static final int AF_INET6 = 10;

    private static final boolean HOST_LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private Addresses()
    {
    }

    /**
     * A new buffer holding {@code address} as a sockaddr_in (IPv4) or sockaddr_in6 (IPv6).
     *
     * @param address a resolved address
     * @return a 16- or 28-byte heap buffer, position 0, limit its length
     * @throws FabricException FI_EINVAL (call {@code Addresses.put}) when the address is unresolved
     */
    public static ByteBuffer toSockaddr(final InetSocketAddress address)
    {
        final boolean v6 = address.getAddress() instanceof Inet6Address;
        final ByteBuffer b = ByteBuffer.allocate(v6 ? AddrFormat.SOCKADDR_IN6.addrlen() : AddrFormat.SOCKADDR_IN.addrlen());
        put(b, address);
        return b.flip();
    }

    /**
     * Writes {@code address} at {@code dst}'s position as a sockaddr_in (IPv4) or sockaddr_in6 (IPv6)
     * and advances the position by 16 or 28 bytes.
     *
     * @param dst     receives the address at its position
     * @param address a resolved address
     * @throws FabricException FI_EINVAL (call {@code Addresses.put}) when the address is unresolved
     */
    public static void put(final ByteBuffer dst, final InetSocketAddress address)
    {
        final InetAddress ip = address.getAddress();
        if (ip == null)
        {
            throw new FabricException("Addresses.put", FiErrno.EINVAL, "address " + address +
                " is unresolved: resolve it first (new InetSocketAddress(host, port) resolves, createUnresolved does not)");
        }
        final int start = dst.position();
        final byte[] raw = ip.getAddress();
        if (ip instanceof Inet4Address)
        {
            putFamily(dst, start, AF_INET);
            putPort(dst, start, address.getPort());
            dst.put(start + 4, raw);
            for (int i = 8; i < 16; i++)
            {
                dst.put(start + i, (byte)0);
            }
            dst.position(start + 16);
        }
        else
        {
            putFamily(dst, start, AF_INET6);
            putPort(dst, start, address.getPort());
            dst.putInt(start + 4, 0); // sin6_flowinfo
            dst.put(start + 8, raw);
            final int scope = ((Inet6Address)ip).getScopeId();
            for (int i = 0; i < 4; i++) // sin6_scope_id, host byte order
            {
                final int shift = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? 8 * i : 24 - 8 * i;
                dst.put(start + 24 + i, (byte)(scope >>> shift));
            }
            dst.position(start + 28);
        }
    }

    /**
     * The sockaddr at {@code src}'s position as an {@link InetSocketAddress}; the position is not changed.
     *
     * @param src a sockaddr_in or sockaddr_in6
     * @return the address and port
     * @throws FabricException FI_EINVAL (call {@code Addresses.toInetSocketAddress}) for another family or a
     *                         buffer shorter than the family's length
     */
    public static InetSocketAddress toInetSocketAddress(final ByteBuffer src)
    {
        final int at = src.position();
        final int family = family(src, at);
        try
        {
            if (family == AF_INET && src.remaining() >= 16)
            {
                final byte[] raw = new byte[4];
                src.get(at + 4, raw);
                return new InetSocketAddress(InetAddress.getByAddress(raw), port(src, at));
            }
            if (family == AF_INET6 && src.remaining() >= 28)
            {
                final byte[] raw = new byte[16];
                src.get(at + 8, raw);
                return new InetSocketAddress(InetAddress.getByAddress(raw), port(src, at));
            }
        }
        catch (final UnknownHostException e)
        {
            throw new IllegalStateException(e); // cannot happen for 4 or 16 raw bytes
        }
        throw new FabricException("Addresses.toInetSocketAddress", FiErrno.EINVAL, "not a sockaddr_in or sockaddr_in6: family=" +
            family + " length=" + src.remaining());
    }

    /**
     * {@code sa_family} of a sockaddr, read in host byte order.
     *
     * @param src the buffer
     * @param at  the sockaddr's absolute index in {@code src}
     * @return e.g. {@link #AF_INET}
     */
    public static int family(final ByteBuffer src, final int at)
    {
        return SockaddrFields.family(src, at);
    }

    /**
     * The port of a sockaddr, read in network byte order.
     *
     * @param src the buffer
     * @param at  the sockaddr's absolute index in {@code src}
     * @return the port, 0 to 65535
     */
    public static int port(final ByteBuffer src, final int at)
    {
        return ((src.get(at + 2) & 0xFF) << 8) | (src.get(at + 3) & 0xFF);
    }

    /**
     * Whether the {@code format} address at {@code src[at]} is a valid destination: 0, or the positive
     * errno that insert reports (FI_EADDRNOTAVAIL) when it is not. sockaddr_in: family AF_INET, port != 0,
     * address != 0.0.0.0, {@code sin_zero} all zero. sockaddr_in6: family AF_INET6, port != 0, address
     * != ::. FI_ADDR_STR: 2 to {@value AddrFormat#MAX_STR_LEN} bytes including the NUL (not empty), no control characters.
     * The provider formats: their length, not all zero, and for FI_SOCKADDR_IB family AF_IB (27). FORMAT_UNSPEC:
     * at least one byte, not all zero (the AV checks the length against its own).
     * Reads only, allocates nothing.
     *
     * @param format the AV's address format
     * @param src    the buffer
     * @param at     the address's absolute index in {@code src}
     * @param len    the address's length in bytes
     * @return 0 for a valid address, {@link FiErrno#EADDRNOTAVAIL} otherwise
     */
    public static int validate(final AddrFormat format, final ByteBuffer src, final int at, final int len)
    {
        switch (format)
        {
            case SOCKADDR_IN:
            {
                if (len != 16)
                {
                    return FiErrno.EADDRNOTAVAIL;
                }
                // Two 8-byte reads instead of six small ones: bytes 0-1 family, 2-3 port, 4-7 address, 8-15 sin_zero.
                final long first = src.getLong(at);
                final long le = src.order() == ByteOrder.LITTLE_ENDIAN ? first : Long.reverseBytes(first);
                final int family = HOST_LITTLE_ENDIAN ? (int)(le & 0xFFFF) : (int)((le & 0xFF) << 8 | (le >>> 8) & 0xFF);
                if (family != AF_INET || (le & 0xFFFF_0000L) == 0 || (le >>> 32) == 0 || src.getLong(at + 8) != 0)
                {
                    return FiErrno.EADDRNOTAVAIL;
                }
                return 0;
            }
            case SOCKADDR_IN6:
                if (len != 28 || family(src, at) != AF_INET6 || port(src, at) == 0 ||
                    (src.getLong(at + 8) == 0 && src.getLong(at + 16) == 0))
                {
                    return FiErrno.EADDRNOTAVAIL;
                }
                return 0;
            case ADDR_STR:
                if (len < 2 || len > AddrFormat.MAX_STR_LEN || src.get(at + len - 1) != 0)
                {
                    return FiErrno.EADDRNOTAVAIL;
                }
                for (int i = 0; i < len - 1; i++)
                {
                    final int c = src.get(at + i) & 0xFF;
                    if (c < 0x20 || c == 0x7F)
                    {
                        return FiErrno.EADDRNOTAVAIL;
                    }
                }
                return 0;
            default:
                return ProviderFormats.validate(format, src, at, len);
        }
    }

    /**
     * Length of the FI_ADDR_STR address at {@code src[at]}: bytes up to and including its NUL, or -1
     * when no NUL comes within {@value AddrFormat#MAX_STR_LEN} bytes or before {@code limit}.
     *
     * @param src   the buffer
     * @param at    the string's absolute index in {@code src}
     * @param limit the index the string must end before
     * @return the length with the NUL, or -1
     */
    public static int strLength(final ByteBuffer src, final int at, final int limit)
    {
        final int end = Math.min(limit, at + AddrFormat.MAX_STR_LEN);
        for (int i = at; i < end; i++)
        {
            if (src.get(i) == 0)
            {
                return i - at + 1;
            }
        }
        return -1;
    }

    /**
     * An FI_ADDR_STR address as libfabric stores it.
     *
     * @param address the string
     * @return its UTF-8 bytes and a NUL, position 0
     */
    public static ByteBuffer toStrAddr(final String address)
    {
        final byte[] utf8 = address.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(utf8.length + 1).put(utf8).put((byte)0).flip();
    }

    /**
     * {@code fi_av_straddr}: the address at {@code addr}'s position in libfabric's {@code ofi_straddr}
     * format: {@code fi_sockaddr_in://10.0.0.1:5000}, {@code fi_sockaddr_in6://[::1]:5000} (the address
     * as inet_ntop writes it), the string itself for FI_ADDR_STR, and for the provider formats the text
     * libfabric prints: {@code fi_sockaddr_ib://[gid]:0xpkey:0xps:0xscope}, {@code fi_addr_psmx://hex} (1.17's),
     * {@code fi_addr_psmx2://hex:hex}, {@code fi_addr_psmx3://hex:hex:hex:hex}, {@code fi_addr_opx://16 hex digits},
     * {@code fi_addr_efa://[gid]:qpn:qkey}, {@code fi_addr_ib_ud://gid:qpn/lid/pkey/sl},
     * {@code fi_addr_cxi://0x8 hex digits}. FORMAT_UNSPEC has none (null, as in libfabric; see {@link #hex}).
     *
     * @param format the AV's address format
     * @param addr   the address at the buffer's position (not changed)
     * @return the text, or null for a buffer shorter than its family's length, a sockaddr of neither IP family
     *         (for either sockaddr format, an address is printed by its own family, as libfabric does), or
     *         FORMAT_UNSPEC
     */
    public static String straddr(final AddrFormat format, final ByteBuffer addr)
    {
        final int at = addr.position();
        switch (format)
        {
            case SOCKADDR_IN:
            case SOCKADDR_IN6:
            {
                final int family = addr.remaining() >= 4 ? family(addr, at) : -1;
                if (family == AF_INET && addr.remaining() >= 16)
                {
                    return "fi_sockaddr_in://" + (addr.get(at + 4) & 0xFF) + '.' + (addr.get(at + 5) & 0xFF) + '.' +
                        (addr.get(at + 6) & 0xFF) + '.' + (addr.get(at + 7) & 0xFF) + ':' + port(addr, at);
                }
                if (family == AF_INET6 && addr.remaining() >= 28)
                {
                    return "fi_sockaddr_in6://[" + SockaddrFields.ntop6(addr, at + 8) + "]:" + port(addr, at);
                }
                return null;
            }
            case ADDR_STR:
            {
                final int len = strLength(addr, at, addr.limit());
                final int n = len < 0 ? addr.remaining() : len - 1;
                final byte[] b = new byte[n];
                addr.get(at, b);
                return new String(b, StandardCharsets.UTF_8);
            }
            default:
                return ProviderFormats.straddr(format, addr);
        }
    }

    /**
     * The bytes from {@code addr}'s position to its limit in lowercase hex, two digits a byte: how the
     * Java conveniences and the CLI show an opaque (FORMAT_UNSPEC) address, which has no straddr text.
     *
     * @param addr the bytes, position to limit (the position is not changed)
     * @return e.g. {@code 0a1bff}
     */
    public static String hex(final ByteBuffer addr)
    {
        final StringBuilder sb = new StringBuilder(addr.remaining() * 2);
        for (int i = addr.position(); i < addr.limit(); i++)
        {
            final int b = addr.get(i) & 0xFF;
            sb.append(Character.forDigit(b >>> 4, 16)).append(Character.forDigit(b & 0xF, 16));
        }
        return sb.toString();
    }

    /**
     * The text of an address: {@link #straddr} when the format has one, else {@link #hex} (FORMAT_UNSPEC).
     *
     * @param format the AV's address format
     * @param addr   the address, position to limit
     * @return its text; never null
     */
    public static String text(final AddrFormat format, final ByteBuffer addr)
    {
        final String s = straddr(format, addr);
        return s != null ? s : hex(addr);
    }

    /** FI_ADDR_CXI's PID for "any" (libcxi's C_PID_ANY), what cxi's insertsvc uses for a null service. */
    public static final int CXI_PID_ANY = ProviderFormats.CXI_PID_ANY;

    /**
     * An FI_ADDR_CXI address: the u32 of cxi's {@code struct cxip_addr}, PID in bits 0-8, NIC address in 9-28.
     *
     * @param nic the NIC address (its low 20 bits are used)
     * @param pid the PID (its low 9 bits are used)
     * @return a 4-byte buffer, position 0
     */
    public static ByteBuffer toCxiAddr(final int nic, final int pid)
    {
        final ByteBuffer b = ByteBuffer.allocate(4);
        ProviderFormats.putCxi(b, 0, nic, pid);
        return b;
    }

    private static void putFamily(final ByteBuffer dst, final int at, final int family)
    {
        if (ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN)
        {
            dst.put(at, (byte)family).put(at + 1, (byte)(family >>> 8));
        }
        else
        {
            dst.put(at, (byte)(family >>> 8)).put(at + 1, (byte)family);
        }
    }

    private static void putPort(final ByteBuffer dst, final int at, final int port)
    {
        dst.put(at + 2, (byte)(port >>> 8)).put(at + 3, (byte)port);
    }
}
