package org.shmav.av;

import static org.shmav.av.AvCallChecks.invalid;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

import org.shmav.AddrFormat;
import org.shmav.Addresses;
import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * fi_av_insertsvc and fi_av_insertsym: turns a node and service (a host range from {@link NodeRange} and
 * a port range for insertsym) into packed addresses of the domain's format and inserts them through the
 * AV's ordinary insert. A host that does not resolve to the domain's family becomes an all-zero address,
 * which insert reports per address as FI_EADDRNOTAVAIL. Immutable, so safe for use by many threads.
 */
final class ServiceAddresses
{
    private static final int MAX_PORT = 65535;

    private final AddressVectorImpl av;
    private final AddrFormat format;
    private final int addrlen;

    ServiceAddresses(final AddressVectorImpl av, final AddrFormat format)
    {
        this.av = av;
        this.format = format;
        this.addrlen = format.addrlen();
    }

    /** {@code fi_av_insertsvc}: one address; on an FI_ADDR_STR domain {@code node} is the address. */
    int insertSvc(final String node, final String service, final long[] fiAddr, final long flags, final Object ctx)
    {
        if (format == AddrFormat.ADDR_STR)
        {
            if (node == null || service != null)
            {
                throw invalid("fi_av_insertsvc", "on an FI_ADDR_STR domain node is the address and service must be null");
            }
            return av.insert(new String[] {node}, fiAddr, flags, ctx);
        }
        if (node == null || service == null)
        {
            throw invalid("fi_av_insertsvc", "node and service are both required");
        }
        final int port = parsePort("fi_av_insertsvc", service);
        final ByteBuffer one = ByteBuffer.allocate(addrlen);
        putResolved(one, node, port);
        return av.insert(one.flip(), 1, fiAddr, flags, ctx);
    }

    /** {@code fi_av_insertsym}: {@code nodeCnt} nodes x {@code svcCnt} ports, node-major. */
    int insertSym(final String node, final int nodeCnt, final String service, final int svcCnt,
        final long[] fiAddr, final long flags, final Object ctx)
    {
        if (format == AddrFormat.ADDR_STR)
        {
            throw new FabricException("fi_av_insertsym", FiErrno.ENOSYS, "insertsym takes IP nodes; this domain is FI_ADDR_STR");
        }
        if (node == null || service == null || nodeCnt < 0 || svcCnt < 0)
        {
            throw invalid("fi_av_insertsym", "node and service are required; nodeCnt and svcCnt must be >= 0");
        }
        final int port = parsePort("fi_av_insertsym", service);
        if (port + (long)svcCnt - 1 > MAX_PORT)
        {
            throw invalid("fi_av_insertsym", "service range " + port + ".." + (port + svcCnt - 1) + " passes 65535");
        }
        final long total = (long)nodeCnt * svcCnt;
        if (total > Integer.MAX_VALUE / addrlen)
        {
            throw invalid("fi_av_insertsym", "nodeCnt x svcCnt = " + total + " is too many addresses for one call");
        }
        final ByteBuffer all = ByteBuffer.allocate((int)total * addrlen);
        final NodeRange nodes = NodeRange.parse(node, nodeCnt);
        for (int n = 0; n < nodeCnt; n++)
        {
            final String host = nodes.node(n);
            for (int s = 0; s < svcCnt; s++)
            {
                putResolved(all, host, port + s);
            }
        }
        return av.insert(all.flip(), (int)total, fiAddr, flags, ctx);
    }

    /**
     * Writes the address of {@code host}:{@code port} for this domain's family; a host that does not
     * resolve to that family is written as an all-zero address.
     */
    private void putResolved(final ByteBuffer dst, final String host, final int port)
    {
        final InetAddress ip = resolve(host);
        if (ip == null)
        {
            dst.position(dst.position() + addrlen);
            return;
        }
        Addresses.put(dst, new InetSocketAddress(ip, port));
    }

    private InetAddress resolve(final String host)
    {
        try
        {
            for (final InetAddress candidate : InetAddress.getAllByName(host))
            {
                if ((format == AddrFormat.SOCKADDR_IN) == (candidate instanceof java.net.Inet4Address))
                {
                    return candidate;
                }
            }
        }
        catch (final UnknownHostException | SecurityException e)
        {
            return null;
        }
        return null;
    }

    private static int parsePort(final String call, final String service)
    {
        try
        {
            final int port = Integer.parseInt(service.trim());
            if (port >= 0 && port <= MAX_PORT)
            {
                return port;
            }
        }
        catch (final NumberFormatException e)
        {
            // fall through
        }
        throw invalid(call, "service '" + service + "' is not a port number 0..65535");
    }
}
