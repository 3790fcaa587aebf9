package org.shmav.av;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.DomainAttr;
import org.shmav.Endpoint;
import org.shmav.EventQueue;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;
import org.shmav.shm.AvLayout;
import org.shmav.shm.AvName;
import org.shmav.shm.SharedAvFile;
import org.shmav.slots.Region;

/** What a domain owns: its attributes and the objects open on it, so that close can refuse while any is. */
public final class DomainImpl
{
    private static final String CLOSED = "domain is closed";

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
        try
        {
            checkOpen();
            final AddressVectorImpl av = newAv(avAttr, context);
            open.add(av);
            return av;
        }
        catch (final FabricException e)
        {
            throw e.in("fi_av_open");
        }
    }

    /** {@code fi_av_open}: checks the attributes, then opens a private region or the named file. */
    private AddressVectorImpl newAv(final AvAttr requested, final Object context)
    {
        final AvAttr attr = AvCallChecks.resolveOpen(this, requested);
        if (attr.name() != null)
        {
            // the name is checked here, once: below it travels as an AvName, and the AV keeps its file
            final NamedAvOpener.Opened opened = NamedAvOpener.open(this.attr, attr, AvName.of(attr.name()),
                requested.type());
            final AddressVectorImpl av = new AddressVectorImpl(this, opened.attr(), context, opened.region(),
                opened.mapBase(), opened.file());
            if (opened.region().writer() != null)
            {
                LeftoverJanitor.register(av); // other processes would wait on what an Error leaves: see the janitor
            }
            return av;
        }
        final AvLayout layout = GrowableRegion.privateLayout(this.attr, attr);
        final long base = NamedAvOpener.generatedMapBase();
        final Region region = Region.allocatePrivate(layout, base, attr.flags() & (Fi.AV_USER_ID | Fi.SYMMETRIC),
            attr.rxCtxBits());
        return new AddressVectorImpl(this, attr, context, region, base, null);
    }

    public EventQueue openEq(final int size)
    {
        if (closed)
        {
            throw new FabricException("fi_eq_open", FiErrno.EINVAL, CLOSED);
        }
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
        if (closed)
        {
            throw new FabricException("fi_endpoint", FiErrno.EINVAL, CLOSED);
        }
        final EndpointImpl ep = new EndpointImpl(this);
        open.add(ep);
        return ep;
    }

    public boolean unlinkAv(final String name)
    {
        try
        {
            checkOpen();
            return SharedAvFile.unlink(attr.shmDirectory(), AvName.of(name));
        }
        catch (final FabricException e)
        {
            throw e.in("fi_av_unlink"); // the errors of the lock file's checks too, which fi_av_open shares
        }
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

    private void checkOpen()
    {
        if (closed)
        {
            throw new FabricException(FiErrno.EINVAL, CLOSED);
        }
    }
}
