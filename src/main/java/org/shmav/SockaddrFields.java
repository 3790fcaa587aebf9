package org.shmav;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Fields of socket addresses that the text of several formats reads: the family word, and IPv6 text (the
 * sockaddr formats' and the GIDs of FI_SOCKADDR_IB and FI_ADDR_EFA). Below the classes of the formats, so
 * that none of them calls another for these. Stateless.
 */
final class SockaddrFields
{
    private SockaddrFields()
    {
    }

    /** {@code sa_family} of the sockaddr at {@code src[at]}, read in host byte order. */
    static int family(final ByteBuffer src, final int at)
    {
        final int lo = src.get(at) & 0xFF;
        final int hi = src.get(at + 1) & 0xFF;
        return ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? (hi << 8) | lo : (lo << 8) | hi;
    }

    /** IPv6 text as glibc's inet_ntop writes it: lowercase, the longest run of 2+ zero groups as ::. */
    static String ntop6(final ByteBuffer b, final int at)
    {
        final int[] words = new int[8];
        for (int i = 0; i < 8; i++)
        {
            words[i] = ((b.get(at + 2 * i) & 0xFF) << 8) | (b.get(at + 2 * i + 1) & 0xFF);
        }
        int bestBase = -1;
        int bestLen = 0;
        for (int i = 0; i < 8; )
        {
            if (words[i] != 0)
            {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && words[j] == 0)
            {
                j++;
            }
            if (j - i > bestLen)
            {
                bestBase = i;
                bestLen = j - i;
            }
            i = j;
        }
        if (bestLen < 2)
        {
            bestBase = -1;
        }
        final StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++)
        {
            if (bestBase >= 0 && i >= bestBase && i < bestBase + bestLen)
            {
                if (i == bestBase)
                {
                    sb.append(':');
                }
                continue;
            }
            if (i != 0)
            {
                sb.append(':');
            }
            // IPv4-compatible (::a.b.c.d) and IPv4-mapped (::ffff:a.b.c.d) tails, as inet_ntop prints them.
            if (i == 6 && bestBase == 0 && (bestLen == 6 || (bestLen == 5 && words[5] == 0xFFFF)))
            {
                sb.append(words[6] >>> 8).append('.').append(words[6] & 0xFF).append('.')
                    .append(words[7] >>> 8).append('.').append(words[7] & 0xFF);
                return sb.toString();
            }
            sb.append(Integer.toHexString(words[i]));
        }
        if (bestBase >= 0 && bestBase + bestLen == 8)
        {
            sb.append(':');
        }
        return sb.toString();
    }
}
