package org.shmav;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * One valid entry of an address vector, as {@link AddressVector#entries()} returns it.
 *
 * @param fiAddr  the entry's fi_addr (for FI_AV_MAP, {@code attr().mapAddr() + index})
 * @param address the stored address in libfabric's layout (sockaddr_in, sockaddr_in6, the NUL-terminated
 *                FI_ADDR_STR string, a provider format's bytes, or opaque bytes), a read-only buffer from
 *                position 0 to its length
 * @param text    the address as {@code fi_av_straddr} writes it, e.g. {@code fi_sockaddr_in://10.0.0.1:5000};
 *                hex for an opaque FORMAT_UNSPEC address
 */
public record AvEntry(long fiAddr, ByteBuffer address, String text)
{
    /**
     * Keeps a read-only view of {@code address}, so that the entry cannot be changed through it.
     *
     * @param fiAddr  the entry's fi_addr
     * @param address the stored address
     * @param text    its fi_av_straddr text
     */
    public AvEntry
    {
        address = address.asReadOnlyBuffer();
    }

    /**
     * The stored address as a read-only buffer positioned at 0.
     *
     * @return a new read-only view: reading it does not move this entry's position
     */
    @Override
    public ByteBuffer address()
    {
        return address.duplicate();
    }

    /**
     * The stored sockaddr_in or sockaddr_in6 as an {@link InetSocketAddress}.
     *
     * @return the address and port
     * @throws FabricException FI_EINVAL for an entry of another format (use {@link #text()} or {@link #address()})
     */
    public InetSocketAddress socketAddress()
    {
        return Addresses.toInetSocketAddress(address.duplicate());
    }
}
