package org.shmav.av;

import java.math.BigInteger;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * The nodes of {@code fi_av_insertsym}: {@code node, node+1, ...}. An IPv4 or IPv6 literal counts
 * upward as a number; a host name counts its numeric suffix, keeping its width ({@code host09},
 * {@code host10}).
 */
final class NodeRange
{
    private final InetAddress literal;
    private final String prefix;
    private final long first;
    private final int width;

    private NodeRange(final InetAddress literal, final String prefix, final long first, final int width)
    {
        this.literal = literal;
        this.prefix = prefix;
        this.first = first;
        this.width = width;
    }

    static NodeRange parse(final String node, final int nodeCnt)
    {
        final InetAddress ip = literal(node);
        if (ip != null)
        {
            final int bits = ip.getAddress().length * Byte.SIZE;
            if (nodeCnt > 1 && new BigInteger(1, ip.getAddress()).add(BigInteger.valueOf(nodeCnt - 1L)).bitLength() > bits)
            {
                throw new FabricException(FiErrno.EINVAL, "node '" + node + "' + nodeCnt=" + nodeCnt +
                    " passes the last " + (bits == 32 ? "IPv4" : "IPv6") + " address: the range would wrap to 0");
            }
            return new NodeRange(ip, null, 0, 0);
        }
        int digits = node.length();
        while (digits > 0 && Character.isDigit(node.charAt(digits - 1)))
        {
            digits--;
        }
        if (digits == node.length())
        {
            if (nodeCnt > 1)
            {
                throw new FabricException(FiErrno.EINVAL, "node '" + node +
                    "' has no numeric suffix, so nodeCnt=" + nodeCnt + " cannot count from it");
            }
            return new NodeRange(null, node, -1, 0);
        }
        final String suffix = node.substring(digits);
        if (suffix.length() > 18)
        {
            throw new FabricException(FiErrno.EINVAL, "node '" + node + "' has a numeric suffix too long");
        }
        return new NodeRange(null, node.substring(0, digits), Long.parseLong(suffix), suffix.length());
    }

    /** The {@code n}-th node, as text a resolver accepts. */
    String node(final int n)
    {
        if (literal != null)
        {
            final byte[] raw = literal.getAddress();
            final BigInteger value = new BigInteger(1, raw).add(BigInteger.valueOf(n));
            final byte[] bytes = value.toByteArray();
            final byte[] out = new byte[raw.length];
            final int copy = Math.min(bytes.length, out.length);
            System.arraycopy(bytes, bytes.length - copy, out, out.length - copy, copy);
            try
            {
                return InetAddress.getByAddress(out).getHostAddress();
            }
            catch (final UnknownHostException e)
            {
                throw new IllegalStateException(e);
            }
        }
        if (first < 0)
        {
            return prefix;
        }
        final String number = Long.toString(first + n);
        return prefix + "0".repeat(Math.max(0, width - number.length())) + number;
    }

    /** The address a numeric IPv4 or IPv6 literal denotes, or null when {@code node} is not one. */
    private static InetAddress literal(final String node)
    {
        final boolean v4 = node.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        final boolean v6 = node.indexOf(':') >= 0 && node.matches("[0-9A-Fa-f:.%\\[\\]a-zA-Z0-9]+");
        if (!v4 && !v6)
        {
            return null;
        }
        try
        {
            final InetAddress ip = InetAddress.getByName(node); // a literal: no lookup happens
            return ip instanceof Inet4Address || ip instanceof Inet6Address ? ip : null;
        }
        catch (final UnknownHostException e)
        {
            return null;
        }
    }
}
