package org.shmav.bench;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The addresses every benchmark inserts: {@code struct sockaddr_in} number {@code i} of writer {@code w}
 * is {@code 10.(1 + w).x.y : 1024 + i % 50000} with {@code x.y = 1 + i / 50000}, the scheme of the C
 * harness (benchmarks/c/fabric_av_bench.c, writer 0), so that both sides hash and compare the same bytes.
 */
public final class BenchAddresses
{
    /** sizeof(struct sockaddr_in). */
    public static final int ADDRLEN = 16;

    private BenchAddresses()
    {
    }

    /**
     * {@code n} addresses of writer {@code writer}, packed in a direct buffer of default (big-endian)
     * byte order, as an application would allocate one; position 0, limit {@code n * 16}.
     */
    public static ByteBuffer direct(final int writer, final int n)
    {
        final ByteBuffer b = ByteBuffer.allocateDirect(n * ADDRLEN);
        for (int i = 0; i < n; i++)
        {
            put(b, i * ADDRLEN, writer, i);
        }
        return b;
    }

    /** Writes address {@code i} of {@code writer} at {@code at}. */
    public static void put(final ByteBuffer b, final int at, final int writer, final int i)
    {
        b.put(at, (byte)2);                                  // sin_family = AF_INET, host (little-endian) order
        b.put(at + 1, (byte)0);
        final int port = 1024 + i % 50000;                   // sin_port, network order
        b.put(at + 2, (byte)(port >>> 8));
        b.put(at + 3, (byte)port);
        final int ip = (10 << 24) + ((1 + writer) << 16) + i / 50000 + 1;
        b.order(ByteOrder.BIG_ENDIAN).putInt(at + 4, ip);    // sin_addr, network order
        b.putLong(at + 8, 0L);                               // sin_zero
    }

    /** The same address as a 16-byte array (for maps keyed by bytes). */
    public static byte[] bytes(final int writer, final int i)
    {
        final ByteBuffer b = ByteBuffer.allocate(ADDRLEN);
        put(b, 0, writer, i);
        return b.array();
    }
}
