package org.shmav;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * The work behind {@link AddressVector}'s Java conveniences, built only on its man-page methods, so
 * that every implementation gets them. Stateless.
 */
final class AvConveniences
{
    private AvConveniences()
    {
    }

    /** Checks that the AV reports batch results synchronously: an FI_EVENT AV posts them to its queue. */
    static void checkSynchronous(final AddressVector av, final String call)
    {
        if ((av.attr().flags() & Fi.EVENT) != 0)
        {
            throw new FabricException(call, FiErrno.EOPNOTSUPP, "the AV was opened with FI_EVENT, so insert " +
                "results go to its event queue: use insert(ByteBuffer, int, long[], long, Object) and read the queue");
        }
    }

    /** FI_EINVAL unless the AV stores sockaddr_in or sockaddr_in6. */
    static void checkSockaddrFormat(final AddressVector av, final String call, final String instead)
    {
        final AddrFormat format = av.addrFormat();
        if (format != AddrFormat.SOCKADDR_IN && format != AddrFormat.SOCKADDR_IN6)
        {
            throw new FabricException(call, FiErrno.EINVAL, "the AV stores " + format.fiName() +
                " addresses, not socket addresses: use " + instead);
        }
    }

    /** FI_EINVAL unless the AV stores FI_ADDR_STR strings. */
    static void checkStrFormat(final AddressVector av, final String call, final String instead)
    {
        if (av.addrFormat() != AddrFormat.ADDR_STR)
        {
            throw new FabricException(call, FiErrno.EINVAL, "the AV stores " + av.addrFormat().fiName() +
                " addresses, not FI_ADDR_STR strings: use " + instead);
        }
    }

    /**
     * Why {@code address} cannot be stored in an AV of {@code format} (a sentence), or null when it can.
     * Such an address is a per-address failure (FI_EADDRNOTAVAIL), as an invalid sockaddr is in C.
     */
    static String unfit(final AddrFormat format, final InetSocketAddress address)
    {
        if (address == null)
        {
            return "address is null";
        }
        if (address.isUnresolved())
        {
            return "address " + address + " is unresolved: resolve it first (new InetSocketAddress(host, port))";
        }
        if (format == AddrFormat.SOCKADDR_IN && !(address.getAddress() instanceof Inet4Address))
        {
            return "address " + address + " is IPv6 but the AV stores FI_SOCKADDR_IN (IPv4) addresses";
        }
        if (format == AddrFormat.SOCKADDR_IN6 && !(address.getAddress() instanceof Inet6Address))
        {
            return "address " + address + " is IPv4 but the AV stores FI_SOCKADDR_IN6 addresses";
        }
        return null;
    }

    /**
     * The addresses laid out as one {@code fi_av_insert} batch. An address that does not fit the format
     * is written as zeros, which insert rejects as that address's failure (FI_EADDRNOTAVAIL).
     */
    static ByteBuffer pack(final AddrFormat format, final List<InetSocketAddress> addresses)
    {
        final int len = format.addrlen();
        final ByteBuffer out = ByteBuffer.allocate(addresses.size() * len);
        for (int i = 0; i < addresses.size(); i++)
        {
            final InetSocketAddress a = addresses.get(i);
            out.position(i * len);
            if (unfit(format, a) == null)
            {
                Addresses.put(out, a);
            }
        }
        return out.clear();
    }

    /** Inserts one address already laid out; returns its fi_addr or throws with its errno. */
    static long insertOne(final AddressVector av, final ByteBuffer addr, final String shown)
    {
        final InsertResult r = av.insert(addr, 1);
        if (r.allInserted())
        {
            return r.fiAddr(0);
        }
        throw new FabricException("fi_av_insert", r.errno(0), "address " + shown + " not inserted" +
            advice(r.errno(0)));
    }

    /** What to do about a per-address insert failure, as a sentence fragment starting with ": ". */
    static String advice(final int errno)
    {
        switch (errno)
        {
            case FiErrno.EADDRNOTAVAIL:
                return ": not a valid destination (port 0, an unspecified address such as 0.0.0.0, or another " +
                    "address family than the AV's)";
            case FiErrno.ENOSPC:
                return ": the named AV is at its maximum (AvAttr.maxCount, set at creation) or its file system is full; " +
                    "remove entries, free space in its directory, or create it anew with a larger maxCount";
            default:
                return "";
        }
    }

    /** The entry at {@code fiAddr}, or empty when lookup says it is unset or removed (FI_EINVAL on an open AV). */
    static Optional<AvEntry> entry(final AddressVector av, final long fiAddr)
    {
        final ByteBuffer b = lookup(av, fiAddr);
        return b == null ? Optional.empty() : Optional.of(new AvEntry(fiAddr, b, text(av, b)));
    }

    /**
     * The address at {@code fiAddr} in a new buffer (position 0, limit its length), or null when the
     * fi_addr is unset, removed or out of range. A closed AV still throws: its FI_EINVAL is not absence.
     */
    static ByteBuffer lookup(final AddressVector av, final long fiAddr)
    {
        final int addrlen = av.addrLen();
        final ByteBuffer b = ByteBuffer.allocate(addrlen);
        final int len;
        try
        {
            len = av.lookup(fiAddr, b);
        }
        catch (final FabricException e)
        {
            if (e.errno() != FiErrno.EINVAL)
            {
                throw e;
            }
            av.count(); // throws FI_EINVAL when the handle is closed: that is an error, not an absent entry
            return null;
        }
        return b.limit(Math.min(len, addrlen));
    }

    /** The text of an address: its straddr, or hex for FORMAT_UNSPEC. */
    static String text(final AddressVector av, final ByteBuffer b)
    {
        final String s = av.straddr(b);
        return s != null ? s : Addresses.hex(b);
    }

    /** See {@link AddressVector#insertBytes}. */
    static long insertBytes(final AddressVector av, final byte[] address)
    {
        if (address == null)
        {
            throw new FabricException("fi_av_insert", FiErrno.EINVAL, "address is null");
        }
        if (!av.varyingAddrLen() && av.addrFormat() != AddrFormat.ADDR_STR && address.length != av.addrLen())
        {
            av.count(); // a closed handle throws FI_EINVAL first
            throw new FabricException("fi_av_insert", FiErrno.EADDRNOTAVAIL, "address is " + address.length +
                " bytes, and every " + av.addrFormat().fiName() + " address of this AV is " + av.addrLen());
        }
        return insertOne(av, ByteBuffer.wrap(address), Addresses.hex(ByteBuffer.wrap(address)));
    }

    /** See {@link AddressVector#insert}. */
    static long insertAddress(final AddressVector av, final InetSocketAddress address)
    {
        checkSockaddrFormat(av, "fi_av_insert", "insert(String)");
        final String unfit = unfit(av.addrFormat(), address);
        if (unfit != null)
        {
            throw new FabricException("fi_av_insert", FiErrno.EADDRNOTAVAIL, unfit);
        }
        return insertOne(av, Addresses.toSockaddr(address), address.toString());
    }

    /** See {@link AddressVector#insert}. */
    static long insertString(final AddressVector av, final String address)
    {
        checkStrFormat(av, "fi_av_insert", "insert(InetSocketAddress)");
        if (address == null || address.indexOf('\0') >= 0)
        {
            throw new FabricException("fi_av_insert", FiErrno.EADDRNOTAVAIL, address == null ? "address is null"
                : "address holds a NUL, which would end it early");
        }
        return insertOne(av, Addresses.toStrAddr(address), "'" + address + "'");
    }

    /** See {@link AddressVector#insert}. */
    static InsertResult insertBatch(final AddressVector av, final ByteBuffer addrs, final int count)
    {
        checkSynchronous(av, "fi_av_insert");
        if (count < 0)
        {
            throw new FabricException("fi_av_insert", FiErrno.EINVAL, "count=" + count + " must be >= 0");
        }
        final long[] fiAddr = new long[count];
        final int[] errno = new int[count];
        final int inserted = av.insert(addrs, count, fiAddr, Fi.SYNC_ERR, errno);
        return new InsertResult(fiAddr, errno, inserted);
    }

    /** See {@link AddressVector#insertAll}. */
    static InsertResult insertAll(final AddressVector av, final List<InetSocketAddress> addresses)
    {
        checkSockaddrFormat(av, "fi_av_insert", "insertAllStrings(List)");
        if (addresses == null)
        {
            throw new FabricException("fi_av_insert", FiErrno.EINVAL, "addresses is null");
        }
        return av.insert(pack(av.addrFormat(), addresses), addresses.size());
    }

    /** See {@link AddressVector#insertAllStrings}. */
    static InsertResult insertAllStrings(final AddressVector av, final List<String> addresses)
    {
        checkStrFormat(av, "fi_av_insert", "insertAll(List)");
        checkSynchronous(av, "fi_av_insert");
        if (addresses == null)
        {
            throw new FabricException("fi_av_insert", FiErrno.EINVAL, "addresses is null");
        }
        final int n = addresses.size();
        final long[] fiAddr = new long[n];
        final int[] errno = new int[n];
        final int inserted = av.insert(addresses.toArray(new String[0]), fiAddr, Fi.SYNC_ERR, errno);
        return new InsertResult(fiAddr, errno, inserted);
    }

    /** See {@link AddressVector#findFiAddr}. */
    static OptionalLong findFiAddr(final AddressVector av, final InetSocketAddress address)
    {
        checkSockaddrFormat(av, "shmav_av_reverse_lookup", "findFiAddr(String)");
        if (unfit(av.addrFormat(), address) != null)
        {
            av.count(); // a closed handle still throws
            return OptionalLong.empty();
        }
        return av.findFiAddr(Addresses.toSockaddr(address));
    }

    /** See {@link AddressVector#findFiAddr}. */
    static OptionalLong findFiAddr(final AddressVector av, final String address)
    {
        checkStrFormat(av, "shmav_av_reverse_lookup", "findFiAddr(InetSocketAddress)");
        if (address == null)
        {
            throw new FabricException("shmav_av_reverse_lookup", FiErrno.EINVAL, "address is null");
        }
        return av.findFiAddr(Addresses.toStrAddr(address));
    }

    /** See {@link AddressVector#entries}. */
    static Stream<AvEntry> entries(final AddressVector av)
    {
        final long[] fiAddrs;
        try (AvSet all = av.openSet(AvSetAttr.builder().flags(Fi.UNIVERSE).build()))
        {
            fiAddrs = all.members();
        }
        return Arrays.stream(fiAddrs).mapToObj(fiAddr -> entry(av, fiAddr))
            .flatMap(Optional::stream);
    }
}
