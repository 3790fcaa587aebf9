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
import org.shmav.shm.AddrShape;

/**
 * fi_av_insertsvc and fi_av_insertsym: turns a node and service (a host range from {@link NodeRange} and
 * a port range for insertsym) into packed addresses of the domain's format and inserts them through the
 * AV's ordinary insert. A host that does not resolve to the domain's family becomes an all-zero address,
 * which insert reports per address as FI_EADDRNOTAVAIL. Immutable, so safe for use by many threads.
 */
final class ServiceAddresses
{
    private static final int MAX_PORT = 65535;

    /** Inserts what the node and service resolve to; the handle's insertsvc/insertsym name the call. */
    private final AvInserter inserter;
    private final AddrFormat format;
    private final int addrlen;

    ServiceAddresses(final AvInserter inserter, final AddrShape shape)
    {
        this.inserter = inserter;
        this.format = shape.format();
        this.addrlen = shape.addrLen();
    }

    /** {@code fi_av_insertsvc}: one address; on an FI_ADDR_STR domain {@code node} is the address. */
    int insertSvc(final String node, final String service, final long[] fiAddr, final long flags, final Object ctx)
    {
        if (format == AddrFormat.ADDR_CXI)
        {
            return insertCxi(node, service, fiAddr, flags, ctx);
        }
        if (!ipFormat())
        {
            throw new FabricException(FiErrno.ENOSYS, "insertsvc takes IP nodes or FI_ADDR_CXI NIC " +
                "addresses; this domain is " + format.fiName() + ", whose libfabric providers have no insertsvc " +
                "(fi_no_av_insertsvc): insert the endpoint's address with fi_av_insert");
        }
        if (format == AddrFormat.ADDR_STR)
        {
            if (node == null || service != null)
            {
                throw invalid("on an FI_ADDR_STR domain node is the address and service must be null");
            }
            return inserter.insert(new String[] {node}, fiAddr, flags, ctx);
        }
        if (node == null || service == null)
        {
            throw invalid("node and service are both required");
        }
        final int port = parsePort(service);
        final ByteBuffer one = ByteBuffer.allocate(addrlen);
        putResolved(one, node, port);
        return inserter.insert(one.flip(), 1, fiAddr, flags, ctx);
    }

    /** {@code fi_av_insertsym}: {@code nodeCnt} nodes x {@code svcCnt} ports, node-major. */
    int insertSym(final String node, final int nodeCnt, final String service, final int svcCnt,
        final long[] fiAddr, final long flags, final Object ctx)
    {
        if (format == AddrFormat.ADDR_STR || !ipFormat())
        {
            throw new FabricException(FiErrno.ENOSYS, "insertsym takes IP nodes; this domain is " +
                format.fiName());
        }
        if (node == null || service == null || nodeCnt < 0 || svcCnt < 0)
        {
            throw invalid("node and service are required; nodeCnt and svcCnt must be >= 0");
        }
        final int port = parsePort(service);
        if (port + (long)svcCnt - 1 > MAX_PORT)
        {
            throw invalid("service range " + port + ".." + (port + svcCnt - 1) + " passes 65535");
        }
        final long total = (long)nodeCnt * svcCnt;
        if (total > Integer.MAX_VALUE / addrlen)
        {
            throw invalid("nodeCnt x svcCnt = " + total + " is too many addresses for one call");
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
        return inserter.insert(all.flip(), (int)total, fiAddr, flags, ctx);
    }

    private boolean ipFormat()
    {
        return format == AddrFormat.SOCKADDR_IN || format == AddrFormat.SOCKADDR_IN6 || format == AddrFormat.ADDR_STR;
    }

    /**
     * cxi's insertsvc: {@code node} is the NIC address (a C integer: decimal, 0x hex or 0 octal) or a MAC
     * address (its low 20 bits), {@code service} the PID (a C integer), null for C_PID_ANY; FI_ENODATA when
     * either does not parse, as cxi answers.
     */
    private int insertCxi(final String node, final String service, final long[] fiAddr, final long flags, final Object ctx)
    {
        if (node == null)
        {
            throw invalid("node (the NIC address) is required");
        }
        final long nic = node.indexOf(':') >= 0 ? macToNic(node) : cInteger(node);
        final long pid = service == null ? Addresses.CXI_PID_ANY : cInteger(service);
        if (nic < 0 || pid < 0)
        {
            throw new FabricException(FiErrno.ENODATA, "node='" + node + "' service='" + service +
                "' is not a CXI address: node a NIC address (number or MAC), service a PID number or null");
        }
        return inserter.insert(Addresses.toCxiAddr((int)nic, (int)pid), 1, fiAddr, flags, ctx);
    }

    /** A non-negative C integer as sscanf's %i reads it (decimal, 0x hex, 0 octal), or -1. */
    private static long cInteger(final String text)
    {
        try
        {
            final long v = Long.decode(text.trim());
            return v >= 0 && v <= 0xFFFF_FFFFL ? v : -1;
        }
        catch (final NumberFormatException e)
        {
            return -1;
        }
    }

    /** cxi's NIC address of a MAC address {@code aa:bb:cc:dd:ee:ff}: its last 20 bits, or -1. */
    private static long macToNic(final String mac)
    {
        final String[] parts = mac.trim().split(":");
        if (parts.length != 6)
        {
            return -1;
        }
        long v = 0;
        for (final String p : parts)
        {
            if (p.isEmpty() || p.length() > 2 || Character.digit(p.charAt(0), 16) < 0 ||
                (p.length() == 2 && Character.digit(p.charAt(1), 16) < 0))
            {
                return -1;
            }
            v = v << 8 | Integer.parseInt(p, 16);
        }
        return v & 0xFFFFF;
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

    private static int parsePort(final String service)
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
        throw invalid("service '" + service + "' is not a port number 0..65535");
    }
}
