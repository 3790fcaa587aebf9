package org.shmav;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

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
     * @param attr the domain's attributes
     * @return the open domain; close it after its AVs, queues and endpoints
     * @throws FabricException FI_EINVAL for a null attr, an address format shmav cannot store
     *                         ({@link AddrFormat#supported()}), FORMAT_UNSPEC without exactly one of addrLen and
     *                         maxAddrLen in 1..{@value AddrFormat#MAX_OPAQUE_LEN}, either of them on another format, an auth-key
     *                         size outside 1..4096 with avAuthKey, or a negative maxGroupId
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
                " has no fixed layout: store such addresses as FI_FORMAT_UNSPEC with DomainAttr.builder().addrLen(n) " +
                "(or maxAddrLen(n) when lengths vary)");
        }
        checkAddrLen(attr);
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

    /**
     * The attributes the domain was opened with (beyond libfabric's {@code fi_info}).
     *
     * @return the attributes, the shm directory resolved
     */
    public DomainAttr attr()
    {
        return impl.attr();
    }

    /**
     * {@code fi_av_open} with a null context; see {@link #openAv(AvAttr, Object)}.
     *
     * @param attr the AV's attributes
     * @return the open AV
     * @throws FabricException as {@link #openAv(AvAttr, Object)}
     */
    public AddressVector openAv(final AvAttr attr)
    {
        return openAv(attr, null);
    }

    /**
     * {@code fi_av_open}: opens a private AV ({@code name == null}), or creates or attaches to the named
     * AV {@code attr.name()} (read-only with {@link Fi#READ}). See {@link AddressVector} and shm-layout.md.
     * To wait for a named AV that another process will create, use {@link #awaitAv(AvAttr, Duration)}.
     *
     * @param attr    the AV's attributes
     * @param context returned in FI_EVENT completions of the AV
     * @return the open AV
     * @throws FabricException FI_EINVAL for bad attributes (type, flags, rxCtxBits outside 0..16, FI_READ
     *                         without a name, a bad name, a type or format that differs from the existing
     *                         named AV's, a count above the {@code maxCount} it may grow to; any count up
     *                         to that is accepted, since count is a hint; when creating, a count or
     *                         maxCount past the limits of {@link AvAttr#maxCount()}, named with the largest
     *                         that fits) or a closed domain; FI_ENOENT for
     *                         FI_READ of a missing name, or when the shm directory does not exist
     *                         ("directory ... does not exist"); FI_EACCES when the file is not ours to open;
     *                         FI_ENOSPC when the file system of the shm directory has less room than the
     *                         new AV's file (the message names the bytes needed and the bytes free), or
     *                         fills while it is written; FI_EBUSY for a writer (no FI_READ)
     *                         when every attacher entry of the named AV belongs to a live process
     *                         (shm-layout.md: 1024 writer handles at once), where FI_READ still opens
     */
    public AddressVector openAv(final AvAttr attr, final Object context)
    {
        final boolean named = attr != null && attr.name() != null;
        if (named)
        {
            checkDirectory("fi_av_open");
        }
        try
        {
            return impl.openAv(attr, context);
        }
        catch (final FabricException e)
        {
            if (named && e.errno() == FiErrno.ENOENT)
            {
                checkDirectory("fi_av_open"); // removed while we opened: name the directory, not the AV
            }
            throw e;
        }
    }

    /**
     * {@code fi_av_open} that waits, bounded, for a named AV to be created: for a reader (typically with
     * {@link Fi#READ}) that may start before the AV's creator. Retries {@link #openAv(AvAttr)} while it
     * fails with FI_ENOENT because the AV does not exist yet, sleeping 1 ms, then up to 50 ms, between tries;
     * every other error is thrown at once. Without {@link Fi#READ} the first try creates the AV, so this
     * waits only for read-only opens.
     *
     * @param attr    the attributes of a named AV, as for {@link #openAv(AvAttr)}
     * @param timeout how long to wait at most
     * @return the opened AV
     * @throws FabricException FI_ETIMEDOUT when the AV does not exist once {@code timeout} has passed;
     *                         FI_EINTR when the thread is interrupted (its interrupt flag is set again);
     *                         FI_EINVAL for a null attr or timeout, a private AV (no name) or a negative
     *                         timeout; FI_ENOENT at once when the shm directory does not exist; every
     *                         other error of {@link #openAv(AvAttr, Object)}
     */
    public AddressVector awaitAv(final AvAttr attr, final Duration timeout)
    {
        if (attr == null || attr.name() == null || timeout == null || timeout.isNegative())
        {
            throw new FabricException("fi_av_open", FiErrno.EINVAL, "awaitAv needs the attributes of a named AV " +
                "and a timeout >= 0: attr=" + attr + " timeout=" + timeout);
        }
        final long deadline = System.nanoTime() + timeout.toNanos();
        long sleepMillis = 1;
        while (true)
        {
            try
            {
                return openAv(attr);
            }
            catch (final FabricException e)
            {
                if (e.errno() != FiErrno.ENOENT || !Files.isDirectory(impl.attr().shmDirectory()))
                {
                    throw e;
                }
                final long left = deadline - System.nanoTime();
                if (left <= 0)
                {
                    throw new FabricException("fi_av_open", FiErrno.ETIMEDOUT, "named AV '" + attr.name() +
                        "' was not created in " + impl.attr().shmDirectory() + " within " + HumanDuration.of(timeout) +
                        ": start the process that creates it, or wait longer", e);
                }
                sleep(Math.min(sleepMillis, TimeUnit.NANOSECONDS.toMillis(left) + 1), attr.name());
                sleepMillis = Math.min(50, sleepMillis * 2);
            }
        }
    }

    /**
     * {@code fi_eq_open}: an event queue for FI_EVENT inserts.
     *
     * @param size a hint, &gt;= 0
     * @return the open queue
     * @throws FabricException FI_EINVAL for a negative size or a closed domain
     */
    public EventQueue openEq(final int size)
    {
        return impl.openEq(size);
    }

    /**
     * {@code fi_endpoint}: an endpoint that can be bound to an AV of this domain.
     *
     * @return the open endpoint
     * @throws FabricException FI_EINVAL on a closed domain
     */
    public Endpoint openEndpoint()
    {
        return impl.openEndpoint();
    }

    /**
     * Removes the named AV {@code name} from the shm directory (beyond libfabric, whose named AVs go with
     * their last close; errors name the call {@code fi_av_unlink}). Only a file that is a valid shmav AV is
     * removed; processes that have it open keep using their mapping.
     *
     * @param name the AV's name
     * @return true when it was removed, false when there was no such file
     * @throws FabricException FI_EINVAL for a bad name, a file that is not a shmav AV or a closed domain;
     *                         FI_EACCES when the file is not ours to remove
     */
    public boolean unlinkAv(final String name)
    {
        return impl.unlinkAv(name);
    }

    /** {@code fi_close}: FI_EBUSY while AVs, event queues or endpoints of the domain are open. */
    @Override
    /**
     * {@code fi_close}: closes the domain. Idempotent.
     *
     * @throws FabricException FI_EBUSY while AVs, event queues or endpoints of the domain are open
     */
    public void close()
    {
        impl.close();
    }

    /** FI_EINVAL unless FORMAT_UNSPEC has exactly one length in range and every other format none. */
    private static void checkAddrLen(final DomainAttr attr)
    {
        if (attr.addrFormat() != AddrFormat.FORMAT_UNSPEC)
        {
            if (attr.lengthsSet() != 0)
            {
                throw new FabricException("fi_domain", FiErrno.EINVAL, attr.addrFormat().fiName() + " addresses are " +
                    attr.addrFormat().addrlen() + " bytes" + (attr.addrFormat() == AddrFormat.ADDR_STR ? " at most" : "") +
                    ": addrLen and maxAddrLen are for FI_FORMAT_UNSPEC only");
            }
            return;
        }
        if (attr.lengthsSet() != 1 || attr.addrLen() < 1 || attr.addrLen() > AddrFormat.MAX_OPAQUE_LEN)
        {
            throw new FabricException("fi_domain", FiErrno.EINVAL, "FI_FORMAT_UNSPEC needs exactly one of " +
                "addrLen(n) (every address n bytes) and maxAddrLen(n) (each address up to n bytes), n in 1.." +
                AddrFormat.MAX_OPAQUE_LEN + ": got " + (attr.lengthsSet() == 2 ? "both" : "addrLen=" + attr.addrLen()));
        }
    }

    /** FI_ENOENT naming the shm directory when it is missing: a missing directory is not a missing AV. */
    private void checkDirectory(final String call)
    {
        final Path dir = impl.attr().shmDirectory();
        if (!Files.isDirectory(dir))
        {
            throw new FabricException(call, FiErrno.ENOENT, "directory " + dir + " does not exist: create it, " +
                "or open the domain with DomainAttr.builder().shmDirectory(dir) (or -D" + DomainAttr.SHM_DIR_PROPERTY +
                "=dir, or $" + DomainAttr.SHM_DIR_ENV + ") naming one that does");
        }
    }

    private static void sleep(final long millis, final String name)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new FabricException("fi_av_open", FiErrno.EINTR, "interrupted while waiting for named AV '" +
                name + "' to be created", e);
        }
    }
}
