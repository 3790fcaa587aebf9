package org.shmav.it;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Runs of distinct FI_SOCKADDR_IN addresses, numbered, for tests that fill large AVs quickly. */
final class InetRange
{
    private InetRange()
    {
    }

    /** {@code n} addresses from number {@code first}, packed: number k is 10.(k >> 16).(k >> 8).k, port 1 + (k >> 24). */
    static ByteBuffer of(final int first, final int n)
    {
        final ByteBuffer all = ByteBuffer.allocate(16 * n);
        for (int i = 0; i < n; i++)
        {
            final int k = first + i;
            final int at = 16 * i;
            all.order(ByteOrder.nativeOrder()).putShort(at, (short)2); // AF_INET, host order
            all.order(ByteOrder.BIG_ENDIAN).putShort(at + 2, (short)(1 + (k >>> 24)));
            all.put(at + 4, (byte)10).put(at + 5, (byte)(k >>> 16)).put(at + 6, (byte)(k >>> 8)).put(at + 7, (byte)k);
        }
        return all.order(ByteOrder.BIG_ENDIAN);
    }
}
