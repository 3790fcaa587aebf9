package org.shmav.av;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.DomainAttr;
import org.shmav.Endpoint;
import org.shmav.EventQueue;
import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.shm.SharedAvFile;

/** What a domain owns: its attributes and the objects open on it, so that close can refuse while any is. */
public final class DomainImpl
{
    private final DomainAttr attr;
    private final Set<Object> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    public DomainImpl(final DomainAttr attr)
    {
        this.attr = attr;
    }

    public DomainAttr attr()
    {
        return attr;
    }

    public AddressVector openAv(final AvAttr avAttr, final Object context)
    {
        checkOpen("fi_av_open");
        final AddressVectorImpl av = AddressVectorImpl.open(this, avAttr, context);
        open.add(av);
        return av;
    }

    public EventQueue openEq(final int size)
    {
        checkOpen("fi_eq_open");
        if (size < 0)
        {
            throw new FabricException("fi_eq_open", FiErrno.EINVAL, "size=" + size + " must be >= 0");
        }
        final EventQueueImpl eq = new EventQueueImpl(this, size);
        open.add(eq);
        return eq;
    }

    public Endpoint openEndpoint()
    {
        checkOpen("fi_endpoint");
        final EndpointImpl ep = new EndpointImpl(this);
        open.add(ep);
        return ep;
    }

    public boolean unlinkAv(final String name)
    {
        checkOpen("fi_av_unlink");
        return SharedAvFile.unlink(attr.shmDirectory(), name);
    }

    void forget(final Object o)
    {
        open.remove(o);
    }

    public void close()
    {
        if (closed)
        {
            return;
        }
        if (!open.isEmpty())
        {
            throw new FabricException("fi_close", FiErrno.EBUSY, "domain still has " + open.size() +
                " open object(s) (AVs, event queues, endpoints): close them first");
        }
        closed = true;
    }

    private void checkOpen(final String call)
    {
        if (closed)
        {
            throw new FabricException(call, FiErrno.EINVAL, "domain is closed");
        }
    }
}
