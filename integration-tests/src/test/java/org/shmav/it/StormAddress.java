package org.shmav.it;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.shmav.Addresses;

/**
 * Self-checking sockaddr_in6 addresses for the crash storm: every byte after the family is derived
 * from a 64-bit id (lane, incarnation, sequence), so a reader can tell a whole address from a torn
 * mix of two: the id is in the first 8 address bytes and everything else must match it.
 *
 * <pre>
 *   family (host order) | port = f(id) | flowinfo = g(id) | id (8 bytes, BE) | h(id) (8 bytes) | scope = g'(id)
 * </pre>
 */
final class StormAddress
{
    static final int LENGTH = 28;

    private StormAddress()
    {
    }

    /** An id: lane 1..255, incarnation, sequence; never 0. */
    static long id(final int lane, final int incarnation, final long seq)
    {
        return ((long)lane << 56) | ((long)(incarnation & 0xFF_FFFF) << 32) | (seq & 0xFFFF_FFFFL);
    }

    static int lane(final long id)
    {
        return (int)(id >>> 56);
    }

    /** Writes the address of {@code id} at {@code dst[at]}. */
    static void put(final ByteBuffer dst, final int at, final long id)
    {
        final long h = mix(id);
        final long g = mix(h);
        final ByteBuffer b = dst.duplicate().order(ByteOrder.BIG_ENDIAN);
        if (ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN)
        {
            b.put(at, (byte)Addresses.AF_INET6).put(at + 1, (byte)0);
        }
        else
        {
            b.put(at, (byte)0).put(at + 1, (byte)Addresses.AF_INET6);
        }
        b.putShort(at + 2, (short)(((h >>> 48) & 0xFFFF) | 1)); // port, never 0
        b.putInt(at + 4, (int)g);                              // flowinfo
        b.putLong(at + 8, id);                                 // address bytes 0..7
        b.putLong(at + 16, h);                                 // address bytes 8..15
        b.putInt(at + 24, (int)(g >>> 32));                    // scope id
    }

    static ByteBuffer of(final long id)
    {
        final ByteBuffer b = ByteBuffer.allocate(LENGTH);
        put(b, 0, id);
        return b;
    }

    /** The id of a whole address at {@code src[at]}, or 0 when the bytes are not one address (torn or garbage). */
    static long check(final ByteBuffer src, final int at)
    {
        final long id = src.duplicate().order(ByteOrder.BIG_ENDIAN).getLong(at + 8);
        if (id == 0)
        {
            return 0;
        }
        final ByteBuffer expected = of(id);
        for (int i = 0; i < LENGTH; i++)
        {
            if (src.get(at + i) != expected.get(i))
            {
                return 0;
            }
        }
        return id;
    }

    static String hex(final ByteBuffer src, final int at)
    {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < LENGTH; i++)
        {
            sb.append(String.format("%02x", src.get(at + i)));
        }
        return sb.toString();
    }

    private static long mix(final long x)
    {
        long z = x + 0x9E37_79B9_7F4A_7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }
}
