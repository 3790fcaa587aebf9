package org.shmav.cli;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

import org.shmav.AddrFormat;
import org.shmav.Addresses;

/**
 * One line of an {@code insert --from} file as an address of the AV's format: {@code host:port},
 * {@code [ipv6]:port}, or the {@code fi_av_straddr} text ({@code fi_sockaddr_in://10.0.0.1:5000},
 * {@code fi_sockaddr_in6://[::1]:5000}); for an FI_ADDR_STR AV, the line itself. Only the syntax is
 * judged here; whether the address is a valid destination (port 0, 0.0.0.0) is the insert's call,
 * reported per address as fi_av_insert does.
 */
final class AddressParser
{
    private final AddrFormat format;

    AddressParser(final AddrFormat format)
    {
        this.format = format;
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
