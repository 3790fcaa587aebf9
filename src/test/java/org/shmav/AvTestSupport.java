package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.jupiter.api.function.Executable;

/**
 * Helpers shared by the tests. Addresses are built here byte by byte from the Linux sockaddr layout,
 * independently of {@link Addresses}, so that a bug there cannot hide a bug in an AV (and
 * {@code AddressesTest} checks {@link Addresses} against the same layout).
 */
public final class AvTestSupport
{
    static final int AF_INET = 2;
    static final int AF_INET6 = 10;

    private AvTestSupport()
    {
    }

    /** A {@code struct sockaddr_in}: family in host order, port and address in network order, zero padding. */
    static ByteBuffer in4(final String dotted, final int port)
    {
        final ByteBuffer b = ByteBuffer.allocate(16);
        putFamily(b, AF_INET);
        b.put(2, (byte)(port >>> 8)).put(3, (byte)port);
        b.put(4, raw(dotted, 4));
        return b;
    }

    /** A {@code struct sockaddr_in6} with flowinfo and scope id 0. */
    static ByteBuffer in6(final String literal, final int port)
    {
        final ByteBuffer b = ByteBuffer.allocate(28);
        putFamily(b, AF_INET6);
        b.put(2, (byte)(port >>> 8)).put(3, (byte)port);
        b.put(8, raw(literal, 16));
        return b;
    }

    /** {@code n} distinct valid sockaddr_in addresses 10.(i>>8).(i&255).1:(5000+i) for i in 0..n-1. */
    static ByteBuffer[] distinctIn4(final int n)
    {
        final ByteBuffer[] out = new ByteBuffer[n];
        for (int i = 0; i < n; i++)
        {
            out[i] = in4("10." + ((i >>> 8) & 0xFF) + "." + (i & 0xFF) + ".1", 5000 + (i % 1000));
        }
        return out;
    }

    static void putFamily(final ByteBuffer b, final int family)
    {
        if (ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN)
        {
            b.put(0, (byte)family).put(1, (byte)(family >>> 8));
        }
        else
        {
            b.put(0, (byte)(family >>> 8)).put(1, (byte)family);
        }
    }

    private static byte[] raw(final String literal, final int length)
    {
        try
        {
            final byte[] raw = InetAddress.getByName(literal).getAddress();
            assertEquals(length, raw.length, literal);
            return raw;
        }
        catch (final UnknownHostException e)
        {
            throw new IllegalArgumentException(literal, e);
        }
    }

    /** The addresses one after another, position 0, limit at the end. */
    static ByteBuffer concat(final ByteBuffer... addrs)
    {
        int total = 0;
        for (final ByteBuffer a : addrs)
        {
            total += a.remaining();
        }
        final ByteBuffer out = ByteBuffer.allocate(total);
        for (final ByteBuffer a : addrs)
        {
            out.put(a.duplicate());
        }
        return out.flip();
    }

    /** The remaining bytes of {@code b}, without moving it. */
    static byte[] bytes(final ByteBuffer b)
    {
        final byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    /** A copy of {@code b} with byte {@code at} set to {@code value}. */
    static ByteBuffer with(final ByteBuffer b, final int at, final int value)
    {
        final ByteBuffer copy = ByteBuffer.allocate(b.remaining()).put(b.duplicate()).flip();
        copy.put(at, (byte)value);
        return copy;
    }

    /** Runs {@code call}, requires a {@link FabricException} with {@code errno}, and returns it. */
    static FabricException assertErrno(final int errno, final Executable call)
    {
        return assertErrno(errno, call, "");
    }

    /** {@link #assertErrno(int, Executable)} with a message saying why. */
    static FabricException assertErrno(final int errno, final Executable call, final String why)
    {
        final FabricException e = assertThrows(FabricException.class, call, why);
        assertEquals(errno, e.errno(), () -> why + ": expected " + FiErrno.name(errno) + " but got: " + e.getMessage());
        return e;
    }
}
