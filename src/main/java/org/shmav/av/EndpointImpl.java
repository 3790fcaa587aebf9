package org.shmav.av;

import org.shmav.AddressVector;
import org.shmav.Endpoint;
import org.shmav.FabricException;
import org.shmav.FiErrno;

/** An endpoint reduced to its AV relationship: a reference on the bound AV and, once enabled, its auth keys. */
public final class EndpointImpl implements Endpoint
{
    private static final String CLOSED = "endpoint is closed";

    private final DomainImpl domain;
    private AddressVectorImpl av;
    private long[] authKeys = new long[0];
    private boolean enabled;
    private boolean closed;

    EndpointImpl(final DomainImpl domain)
    {
        this.domain = domain;
    }

    @Override
    public void bind(final AddressVector target, final long flags)
    {
        if (closed)
        {
            throw new FabricException("fi_ep_bind", FiErrno.EINVAL, CLOSED);
        }
        if (flags != 0)
        {
            throw new FabricException("fi_ep_bind", FiErrno.EINVAL, "flags=0x" + Long.toHexString(flags) + " must be 0");
        }
        if (!(target instanceof AddressVectorImpl) || ((AddressVectorImpl)target).domain() != domain)
        {
            throw new FabricException("fi_ep_bind", FiErrno.EINVAL, "the AV is null or belongs to another domain");
        }
        if (av != null)
        {
            throw new FabricException("fi_ep_bind", FiErrno.EINVAL, "an AV is already bound to this endpoint");
        }
        if (enabled)
        {
            throw new FabricException("fi_ep_bind", FiErrno.EOPBADSTATE, "the endpoint is already enabled");
        }
        final AddressVectorImpl candidate = (AddressVectorImpl)target;
        try
        {
            candidate.retain();
        }
        catch (final FabricException e)
        {
            throw e.in("fi_ep_bind");
        }
        av = candidate;
    }

    @Override
    public void enable()
    {
        if (closed)
        {
            throw new FabricException("fi_enable", FiErrno.EINVAL, CLOSED);
        }
        if (av == null)
        {
            throw new FabricException("fi_enable", FiErrno.ENOAV, "bind an AV before enabling the endpoint");
        }
        if (enabled)
        {
            throw new FabricException("fi_enable", FiErrno.EOPBADSTATE, "the endpoint is already enabled");
        }
        authKeys = av.validAuthKeys();
        enabled = true;
        av.endpointEnabled(this);
    }

    /** True when this enabled endpoint was configured with auth-key handle {@code handle}. */
    boolean usesAuthKey(final long handle)
    {
        for (final long k : authKeys)
        {
            if (k == handle)
            {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (av != null)
        {
            av.endpointClosed(this);
            av.release();
            av = null;
        }
        domain.forget(this);
    }
}
