package org.shmav;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A rank's node AV read by rank, for {@link Rank}: the fi_addr of a rank (or of a local rank, when the AV
 * holds only the node's ranks), and the address published there as bytes or as a socket address.
 * {@code Rank} brings the job to the AV through the job layer (open, publish, await, close); reading it
 * back needs the AV alone, so this sits with the API's vocabulary, under the job layer. Holds no state of
 * its own beyond what is fixed when the rank opens: safe for use by many threads, as the AV's lookup is.
 */
final class RankPeers
{
    private final AddressVector av;
    private final int size;
    /** Entries of the node's AV: the job's size, or the node's ranks when it holds only those. */
    private final int entries;
    /** Null when the AV holds the whole job; else why it holds only the node's ranks (the store it lacks). */
    private final String nodeOnly;

    /**
     * @param av       the node's AV
     * @param size     the number of ranks in the job
     * @param entries  {@code size} when the AV holds every rank of the job; the node's ranks when it holds only those
     * @param nodeOnly null when the AV holds every rank; else why not, for the FI_EOPNOTSUPP of the peer methods
     */
    RankPeers(final AddressVector av, final int size, final int entries, final String nodeOnly)
    {
        this.av = av;
        this.size = size;
        this.entries = entries;
        this.nodeOnly = nodeOnly;
    }

    /** {@return the fi_addr of entry {@code index}: the index under FI_AV_TABLE, the AV's base + index under FI_AV_MAP} */
    long fiAddr(final int index)
    {
        return av.attr().type() == AvType.MAP ? av.attr().mapAddr() + index : index;
    }

    /** {@link Rank#fiAddrOf(int)}. */
    long fiAddrOf(final int peer)
    {
        checkPeer(peer);
        return fiAddr(peer);
    }

    /** {@link Rank#peer(int)}. */
    InetSocketAddress peer(final int peer)
    {
        checkPeer(peer);
        return socketAddress(fiAddr(peer), "peerAddress(int)");
    }

    /** {@link Rank#peerAddress(int)}. */
    byte[] peerAddress(final int peer)
    {
        checkPeer(peer);
        return bytes(entry(fiAddr(peer)));
    }

    /** {@link Rank#peerAddress(int, ByteBuffer)}: allocates nothing. */
    int peerAddress(final int peer, final ByteBuffer dst)
    {
        checkPeer(peer);
        return av.lookup(fiAddr(peer), dst);
    }

    /** {@link Rank#nodePeer(int)}. */
    InetSocketAddress nodePeer(final int index)
    {
        checkNodeIndex(index);
        return socketAddress(fiAddr(index), "nodePeerAddress(int)");
    }

    /** {@link Rank#nodePeerAddress(int)}. */
    byte[] nodePeerAddress(final int index)
    {
        checkNodeIndex(index);
        return bytes(entry(fiAddr(index)));
    }

    /** {@link Rank#missingRanks()}: the entries no address is at yet, in ascending order. */
    List<Integer> missing()
    {
        final List<Integer> missing = new ArrayList<>();
        final ByteBuffer addr = ByteBuffer.allocate(av.addrLen());
        for (int r = 0; r < entries; r++)
        {
            try
            {
                av.lookup(fiAddr(r), addr.clear());
            }
            catch (final FabricException e)
            {
                missing.add(r);
            }
        }
        return missing;
    }

    /** {@return the job's address format, the AV's} */
    JobAddrFormat format()
    {
        return new JobAddrFormat(av.addrFormat(), av.addrLen(), av.varyingAddrLen());
    }

    /** The entry at {@code fiAddr}, position 0, limit its stored length. */
    ByteBuffer entry(final long fiAddr)
    {
        final ByteBuffer addr = ByteBuffer.allocate(av.addrLen());
        final int len = av.lookup(fiAddr, addr);
        return addr.clear().limit(Math.min(len, addr.capacity()));
    }

    private void checkPeer(final int peer)
    {
        if (peer < 0 || peer >= size)
        {
            throw new IllegalArgumentException("peer=" + peer + " is outside 0.." + (size - 1));
        }
        if (nodeOnly != null)
        {
            throw new FabricException("shmav_rank_peer", FiErrno.EOPNOTSUPP, nodeOnly + ": this node's AV '" + av.attr().name() +
                "' holds only this node's ranks, at fi_addr = local rank; use nodePeer(localRank)");
        }
    }

    private void checkNodeIndex(final int index)
    {
        if (index < 0 || index >= entries)
        {
            throw new IllegalArgumentException("fiAddr=" + index + " is outside 0.." + (entries - 1));
        }
    }

    private InetSocketAddress socketAddress(final long fiAddr, final String instead)
    {
        final JobAddrFormat format = format();
        if (!format.socketAddresses())
        {
            throw new FabricException("shmav_rank_peer", FiErrno.EINVAL, "this job's AV holds " + format.describe() +
                " addresses, not socket addresses: use " + instead + " for their bytes");
        }
        return Addresses.toInetSocketAddress(entry(fiAddr));
    }

    private static byte[] bytes(final ByteBuffer addr)
    {
        final byte[] out = new byte[addr.remaining()];
        addr.get(addr.position(), out);
        return out;
    }
}
