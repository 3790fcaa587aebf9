package org.shmav.cli;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

import org.shmav.AddrFormat;
import org.shmav.Addresses;
import org.shmav.shm.AddrShape;

/**
 * One line of an {@code insert --from} file as an address of the AV's format: {@code host:port},
 * {@code [ipv6]:port}, or the {@code fi_av_straddr} text ({@code fi_sockaddr_in://10.0.0.1:5000},
 * {@code fi_sockaddr_in6://[::1]:5000}); for an FI_ADDR_STR AV, the line itself; for the other formats
 * (the provider formats and opaque FI_FORMAT_UNSPEC bytes) the address's bytes in hex, {@code 0x}
 * optional, of the AV's length (up to it for varying lengths). Only the syntax is
 * judged here; whether the address is a valid destination (port 0, 0.0.0.0) is the insert's call,
 * reported per address as fi_av_insert does.
 */
final class AddressParser
{
    private final AddrFormat format;
    private final AddrShape shape;

    AddressParser(final AddrShape shape)
    {
        this.shape = shape;
        this.format = shape.format();
    }

    /** A line that is not an address of the AV's format. */
    static final class BadLine extends Exception
    {
        private static final long serialVersionUID = 1L;

        BadLine(final String message)
        {
            super(message);
        }
    }

    /** The address on {@code line} in the AV's binary layout, position 0. */
    ByteBuffer parse(final String line) throws BadLine
    {
        if (format == AddrFormat.ADDR_STR)
        {
            return Addresses.toStrAddr(line);
        }
        if (format != AddrFormat.SOCKADDR_IN && format != AddrFormat.SOCKADDR_IN6)
        {
            return hex(line);
        }
        final String text = stripScheme(line);
        final int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1)
        {
            throw new BadLine("expected host:port, [ipv6]:port or fi_sockaddr_in[6]://...");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]"))
        {
            host = host.substring(1, host.length() - 1);
        }
        else if (host.indexOf(':') >= 0)
        {
            throw new BadLine("an IPv6 address needs brackets: [" + host + "]:port");
        }
        final int port = port(text.substring(colon + 1));
        final InetAddress ip = resolve(host);
        final boolean v6 = ip instanceof Inet6Address;
        if (v6 != (format == AddrFormat.SOCKADDR_IN6) || !(v6 || ip instanceof Inet4Address))
        {
            throw new BadLine(host + " is " + (v6 ? "IPv6" : "IPv4") + " but the AV holds " + format.fiName() + " addresses");
        }
        return Addresses.toSockaddr(new InetSocketAddress(ip, port));
    }

    /** The bytes of a hex line ({@code 0x} optional), as many as the AV's addresses have. */
    private ByteBuffer hex(final String line) throws BadLine
    {
        final String digits = line.startsWith("0x") || line.startsWith("0X") ? line.substring(2) : line;
        if (digits.isEmpty() || digits.length() % 2 != 0)
        {
            throw new BadLine("expected the address's bytes in hex, two digits a byte (" + shape.describe() + ")");
        }
        final int n = digits.length() / 2;
        if (shape.varying() ? n > shape.addrLen() : n != shape.addrLen())
        {
            throw new BadLine(n + " bytes, but the AV's addresses are " + shape.describe());
        }
        final ByteBuffer b = ByteBuffer.allocate(n);
        for (int i = 0; i < n; i++)
        {
            final int hi = Character.digit(digits.charAt(2 * i), 16);
            final int lo = Character.digit(digits.charAt(2 * i + 1), 16);
            if (hi < 0 || lo < 0)
            {
                throw new BadLine("'" + digits.substring(2 * i, 2 * i + 2) + "' is not a hex byte");
            }
            b.put(i, (byte)(hi << 4 | lo));
        }
        return b;
    }

    private static String stripScheme(final String line)
    {
        for (final String scheme : new String[] {"fi_sockaddr_in://", "fi_sockaddr_in6://"})
        {
            if (line.startsWith(scheme))
            {
                return line.substring(scheme.length());
            }
        }
        return line;
    }

    private static int port(final String text) throws BadLine
    {
        try
        {
            final int port = Integer.parseInt(text);
            if (port < 0 || port > 65535)
            {
                throw new BadLine("port " + port + " is outside 0..65535");
            }
            return port;
        }
        catch (final NumberFormatException e)
        {
            throw new BadLine("'" + text + "' is not a port number");
        }
    }

    private InetAddress resolve(final String host) throws BadLine
    {
        try
        {
            for (final InetAddress a : InetAddress.getAllByName(host))
            {
                if ((a instanceof Inet6Address) == (format == AddrFormat.SOCKADDR_IN6))
                {
                    return a;
                }
            }
            return InetAddress.getByName(host);
        }
        catch (final UnknownHostException e)
        {
            throw new BadLine("unknown host '" + host + "'");
        }
    }
}
