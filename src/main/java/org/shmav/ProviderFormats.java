package org.shmav;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The fixed-length provider formats and opaque addresses ({@link AddrFormat#SOCKADDR_IB} ...
 * {@link AddrFormat#ADDR_CXI}, {@link AddrFormat#FORMAT_UNSPEC}): what a valid one is, and the text
 * {@code fi_av_straddr} gives, as libfabric's {@code ofi_straddr} (src/common.c) prints it. Fields
 * libfabric reads in host byte order are read in the native order; those it converts with ntohs/ntohll
 * are big-endian. Stateless.
 */
final class ProviderFormats
{
    /** Linux {@code AF_IB}: the family of a {@code struct sockaddr_ib}. */
    static final int AF_IB = 27;
    /** FI_ADDR_CXI's PID field, when insertsvc gets no service: libcxi's C_PID_ANY (all 9 bits set). */
    static final int CXI_PID_ANY = 0x1FF;

    private static final boolean LITTLE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private ProviderFormats()
    {
    }

    /**
     * 0 when the {@code len} bytes at {@code src[at]} are a valid address of {@code format}, else
     * FI_EADDRNOTAVAIL: the format's length (any length from 1 for FORMAT_UNSPEC, whose AV checks its
     * own), not all zero (libfabric's "bad address" is zeros, and no provider hands out one), and for
     * FI_SOCKADDR_IB family AF_IB. Reads 8 bytes at a time; allocates nothing.
     */
    static int validate(final AddrFormat format, final ByteBuffer src, final int at, final int len)
    {
        if (len < 1 || (format != AddrFormat.FORMAT_UNSPEC && len != format.addrlen()))
        {
            return FiErrno.EADDRNOTAVAIL;
        }
        if (format == AddrFormat.SOCKADDR_IB && SockaddrFields.family(src, at) != AF_IB)
        {
            return FiErrno.EADDRNOTAVAIL;
        }
        return allZero(src, at, len) ? FiErrno.EADDRNOTAVAIL : 0;
    }

    private static boolean allZero(final ByteBuffer src, final int at, final int len)
    {
        int i = 0;
        for (; i + 8 <= len; i += 8)
        {
            if (src.getLong(at + i) != 0)
            {
                return false;
            }
        }
        for (; i < len; i++)
        {
            if (src.get(at + i) != 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code ofi_straddr}'s text of the address at {@code addr}'s position, or null when the buffer is
     * shorter than the format's length, or for FORMAT_UNSPEC (libfabric has no text for it; the API
     * shows such an address in hex).
     */
    static String straddr(final AddrFormat format, final ByteBuffer addr)
    {
        final int at = addr.position();
        if (format == AddrFormat.FORMAT_UNSPEC || addr.remaining() < format.addrlen())
        {
            return null;
        }
        switch (format)
        {
            case SOCKADDR_IB: // family, pkey (be16), flowinfo, GID at 8, sid (be64) at 24, sid mask, scope id (be64) at 40
                return "fi_sockaddr_ib://[" + SockaddrFields.ntop6(addr, at + 8) + "]:0x" + Integer.toHexString(be16(addr, at + 2)) +
                    ":0x" + Long.toHexString((be64(addr, at + 24) >>> 16) & 0xFFF) + ":0x" +
                    Long.toHexString(be64(addr, at + 40) & 0xFF);
            case ADDR_PSMX: // libfabric 1.17's text; later releases dropped the psm provider and print none
                return "fi_addr_psmx://" + Long.toHexString(u64(addr, at));
            case ADDR_PSMX2:
                return "fi_addr_psmx2://" + Long.toHexString(u64(addr, at)) + ':' + Long.toHexString(u64(addr, at + 8));
            case ADDR_PSMX3:
                return "fi_addr_psmx3://" + Long.toHexString(u64(addr, at)) + ':' + Long.toHexString(u64(addr, at + 8)) +
                    ':' + Long.toHexString(u64(addr, at + 16)) + ':' + Long.toHexString(u64(addr, at + 24));
            case ADDR_OPX:
                return "fi_addr_opx://" + String.format("%016x", u64(addr, at));
            case ADDR_EFA: // GID, then qpn (u16) at 16 and qkey (u32) at 20, in decimal
                return "fi_addr_efa://[" + SockaddrFields.ntop6(addr, at) + "]:" + u16(addr, at + 16) + ':' +
                    Integer.toUnsignedString(u32(addr, at + 20));
            case ADDR_IB_UD: // GID, then qpn (u32) at 16, lid and pkey (u16) at 20 and 22, sl (u8) at 26, in hex
                return "fi_addr_ib_ud://" + SockaddrFields.ntop6(addr, at) + ':' + Integer.toHexString(u32(addr, at + 16)) + '/' +
                    Integer.toHexString(u16(addr, at + 20)) + '/' + Integer.toHexString(u16(addr, at + 22)) + '/' +
                    Integer.toHexString(addr.get(at + 26) & 0xFF);
            case ADDR_CXI:
                return "fi_addr_cxi://0x" + String.format("%08x", u32(addr, at));
            default:
                return null;
        }
    }

    /** FI_ADDR_CXI's u32 for NIC address {@code nic} and PID {@code pid}: PID in bits 0-8, NIC in 9-28. */
    static void putCxi(final ByteBuffer dst, final int at, final int nic, final int pid)
    {
        final int v = (pid & CXI_PID_ANY) | (nic & 0xFFFFF) << 9;
        for (int i = 0; i < 4; i++)
        {
            dst.put(at + i, (byte)(LITTLE ? v >>> 8 * i : v >>> 24 - 8 * i));
        }
    }

    private static long u64(final ByteBuffer b, final int at)
    {
        long v = 0;
        for (int i = 7; i >= 0; i--)
        {
            v = v << 8 | (b.get(at + (LITTLE ? i : 7 - i)) & 0xFF);
        }
        return v;
    }

    private static int u32(final ByteBuffer b, final int at)
    {
        int v = 0;
        for (int i = 3; i >= 0; i--)
        {
            v = v << 8 | (b.get(at + (LITTLE ? i : 3 - i)) & 0xFF);
        }
        return v;
    }

    private static int u16(final ByteBuffer b, final int at)
    {
        final int lo = b.get(at) & 0xFF;
        final int hi = b.get(at + 1) & 0xFF;
        return LITTLE ? hi << 8 | lo : lo << 8 | hi;
    }

    private static int be16(final ByteBuffer b, final int at)
    {
        return (b.get(at) & 0xFF) << 8 | (b.get(at + 1) & 0xFF);
    }

    private static long be64(final ByteBuffer b, final int at)
    {
        long v = 0;
        for (int i = 0; i < 8; i++)
        {
            v = v << 8 | (b.get(at + i) & 0xFF);
        }
        return v;
    }
}
