package org.shmav;

import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * Whether an address fits a job's format, for {@link Rank#publish}: checked where the rank publishes, so
 * that a wrong one fails at the rank that made it, in words that say what to do, rather than at the node's
 * local rank 0 as it fills the AV from the launcher's store. Stateless.
 */
final class RankAddresses
{
    private RankAddresses()
    {
    }

    /** Why a socket address cannot be published in a job of {@code format} (in or in6), or null when it can. */
    static String unfitSocket(final JobAddrFormat format, final InetSocketAddress address)
    {
        if (address == null)
        {
            return "address is null";
        }
        if (address.isUnresolved())
        {
            return "address " + address + " is unresolved: resolve it first (new InetSocketAddress(host, port))";
        }
        final boolean v6 = address.getAddress() instanceof Inet6Address;
        if (v6 == (format.format() == AddrFormat.SOCKADDR_IN6))
        {
            return null;
        }
        return "address " + address + " is " + (v6 ? "IPv6" : "IPv4") + ", but this job's AV holds " + format.describe() +
            " addresses (" + JobAddrFormat.ENV + "=" + format + "): listen on an " + (v6 ? "IPv4 address (e.g. 127.0.0.1)" :
            "IPv6 address (e.g. ::1)") + ", or run the job with " + JobAddrFormat.ENV + "=" + (v6 ? "in6" : "in") +
            " (avrun --addr-format " + (v6 ? "in6" : "in") + ")";
    }

    /**
     * Why the address from {@code addr}'s position to its limit cannot be published in a job of
     * {@code format}, or null when it can: its length is not the format's (not 1 to the most, for opaque
     * addresses of varying length), or the format calls it invalid ({@link Addresses#validate}).
     */
    static String unfit(final JobAddrFormat format, final ByteBuffer addr)
    {
        final int len = addr.remaining();
        final String choose = ", or run the job with the " + JobAddrFormat.ENV + " of its addresses (avrun --addr-format; " +
            "e.g. in6, efa, opaque:" + len + ")";
        if (format.varying() ? len < 1 || len > format.addrLen()
            : format.format() != AddrFormat.ADDR_STR && len != format.addrLen())
        {
            return "an address of " + len + " bytes, but this job's AV holds " + format.describe() + " addresses (" +
                JobAddrFormat.ENV + "=" + format + "): publish " + (format.varying() ? "1 to " : "exactly ") +
                format.addrLen() + " bytes" + choose;
        }
        if (Addresses.validate(format.format(), addr, addr.position(), len) != 0)
        {
            return "the address " + Addresses.text(format.format(), addr) + " (" + len + " bytes) is not a valid " +
                format.describe() + " address (" + validity(format.format()) + ")" + choose;
        }
        return null;
    }

    /** What the format asks of a valid address, as {@link Addresses#validate} checks it. */
    private static String validity(final AddrFormat format)
    {
        switch (format)
        {
            case SOCKADDR_IN:
                return "family AF_INET, a port and an address other than 0, sin_zero all zero";
            case SOCKADDR_IN6:
                return "family AF_INET6, a port and an address other than 0";
            case ADDR_STR:
                return "a NUL-terminated string of at most " + AddrFormat.MAX_STR_LEN + " bytes, no control characters";
            case SOCKADDR_IB:
                return "family AF_IB (27), not all zero";
            default:
                return "not all zero";
        }
    }
}
