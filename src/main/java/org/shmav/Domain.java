package org.shmav;

import org.shmav.av.DomainImpl;

/**
 * A resource domain ({@code fi_domain}): the address format and options its AVs share, and the factory
 * for AVs, event queues and endpoints. Safe for use by many threads.
 *
 * <pre>{@code
 * try (Domain domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).build());
 *      AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).name("job7").build())) { ... }
 * }</pre>
 */
public final class Domain implements AutoCloseable
{
    private final DomainImpl impl;

    private Domain(final DomainImpl impl)
    {
        this.impl = impl;
    }

    /**
     * {@code fi_domain}: opens a domain.
     *
     * @throws FabricException FI_EINVAL for an address format shmav cannot store, an auth-key size outside
     *                         1..4096 with avAuthKey, or a negative maxGroupId
     */
    public static Domain open(final DomainAttr attr)
    {
        if (attr == null)
        {
            throw new FabricException("fi_domain", FiErrno.EINVAL, "attr is null");
        }
        if (!attr.addrFormat().supported())
        {
            throw new FabricException("fi_domain", FiErrno.EINVAL, "addrFormat=" + attr.addrFormat().fiName() +
                " is not supported: use FI_SOCKADDR_IN, FI_SOCKADDR_IN6 or FI_ADDR_STR");
        }
        if (attr.avAuthKey() && (attr.authKeySize() < 1 || attr.authKeySize() > 4096))
        {
            throw new FabricException("fi_domain", FiErrno.EINVAL, "authKeySize=" + attr.authKeySize() +
                " must be 1..4096 with avAuthKey");
        }
        if (attr.maxGroupId() < 0)
        {
            throw new FabricException("fi_domain", FiErrno.EINVAL, "maxGroupId=" + attr.maxGroupId() + " must be >= 0");
        }
        return new Domain(new DomainImpl(attr));
    }

    /** The attributes the domain was opened with (the shm directory resolved). */
    public DomainAttr attr()
    {
        return impl.attr();
    }

    /** {@code fi_av_open} with a null context. */
    public AddressVector openAv(final AvAttr attr)
    {
        return impl.openAv(attr, null);
    }

    /**
     * {@code fi_av_open}: opens a private AV ({@code name == null}), or creates or attaches to the named
     * AV {@code attr.name()} (read-only with {@link Fi#READ}). See {@link AddressVector} and shm-layout.md.
     *
     * @throws FabricException FI_EINVAL for bad attributes (type, flags, rxCtxBits outside 0..16, FI_READ
     *                         without a name, a bad name, a count, type or format that differs from the
     *                         existing named AV's), FI_ENOENT for FI_READ of a missing name, FI_EACCES when
     *                         the file is not ours to open, FI_ENOSPC when the shm directory is full
     */
    public AddressVector openAv(final AvAttr attr, final Object context)
    {
        return impl.openAv(attr, context);
    }

    /** {@code fi_eq_open}: an event queue for FI_EVENT inserts; {@code size} is a hint. */
    public EventQueue openEq(final int size)
    {
        return impl.openEq(size);
    }

    /** {@code fi_endpoint}: an endpoint that can be bound to an AV of this domain. */
    public Endpoint openEndpoint()
    {
        return impl.openEndpoint();
    }

    /**
     * Removes the named AV {@code name} from the shm directory. Only a file that is a valid shmav AV is
     * removed; processes that have it open keep using their mapping. Returns false when there was no
     * such file.
     *
     * @throws FabricException FI_EINVAL for a bad name or a file that is not a shmav AV
     */
    public boolean unlinkAv(final String name)
    {
        return impl.unlinkAv(name);
    }

    /** {@code fi_close}: FI_EBUSY while AVs, event queues or endpoints of the domain are open. */
    @Override
    public void close()
    {
        impl.close();
    }
}
