package org.shmav.av;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvName;
import org.shmav.shm.AddrShape;
import org.shmav.shm.AvLayout;
import org.shmav.shm.SharedAvFile;
import org.shmav.slots.Region;

/**
 * {@code fi_av_open} of a named AV: creates the file ({@link SharedAvFile#create}) or attaches to it,
 * then checks the caller's attributes against what the file holds. The file is never re-initialised.
 */
final class NamedAvOpener
{
    /** Processes that can have one named AV open for writing at once. */
    static final int ATTACHERS_CAPACITY = 1024;
    /** How long an open starts again while removers take the AV away under it. */
    private static final long RETRY_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
    /** Tries made however long they took (a process descheduled for the whole deadline still tries again). */
    private static final int MIN_ATTEMPTS = 5;

    private NamedAvOpener()
    {
    }

    /** What an open produced: the region, the attributes as resolved against the file, this handle's map base, the file. */
    record Opened(Region region, AvAttr attr, long mapBase, Path file)
    {
    }

    static Opened open(final DomainAttr domain, final AvAttr attr, final AvName name, final AvType requestedType)
    {
        final Path file = name.in(domain.shmDirectory());
        final boolean readOnly = (attr.flags() & Fi.READ) != 0;
        if (readOnly && attr.createOnly())
        {
            throw invalid("createOnly and FI_READ exclude each other: a reader never creates a named AV");
        }
        Region region = null;
        final long deadline = System.nanoTime() + RETRY_NANOS;
        for (int attempt = 1; region == null; attempt++)
        {
            try
            {
                region = readOnly || (!attr.createOnly() && Files.exists(file, LinkOption.NOFOLLOW_LINKS))
                    ? Region.of(SharedAvFile.attach(file, attr.name(), readOnly, attr.groupAccess()),
                        readOnly ? Region.Role.READER : Region.Role.WRITER)
                    : create(domain, attr, file);
            }
            catch (final FabricException e)
            {
                // The AV was removed between the look and the open, or between its open and its lock file's
                // (a remover at work): open the name again, which creates it anew unless another creator has.
                if (readOnly || e.errno() != FiErrno.ENOENT ||
                    attempt >= MIN_ATTEMPTS && System.nanoTime() - deadline > 0 ||
                    !Files.isDirectory(file.getParent(), LinkOption.NOFOLLOW_LINKS))
                {
                    throw e;
                }
            }
        }
        try
        {
            if (!readOnly && region.writer() == null)
            {
                // refused here, not at the first insert: openAv is where the caller can act on it
                throw new FabricException(FiErrno.EBUSY, "every attacher entry of named AV '" +
                    attr.name() + "' (" + region.layout().attachersCapacity() + ") belongs to a live process: a writer " +
                    "can join once one of them closes the AV or exits; open it with FI_READ to read it meanwhile");
            }
            return resolve(domain, attr, requestedType, region, file);
        }
        catch (final RuntimeException e)
        {
            region.detach();
            throw e;
        }
    }

    private static Region create(final DomainAttr domain, final AvAttr attr, final Path file)
    {
        final AvLayout layout = NamedAvSize.layout(domain, attr);
        NamedAvSize.checkRoom(file, attr.name(), layout);
        final long base = attr.mapAddr() != 0 ? attr.mapAddr() : generatedMapBase();
        final long avFlags = attr.flags() & (Fi.AV_USER_ID | Fi.SYMMETRIC);
        return SharedAvFile.create(file, attr.name(), layout, attr.groupAccess(), attr.createOnly(),
            m -> Region.initialize(m, layout, base, avFlags, attr.rxCtxBits()), f -> Region.of(f, Region.Role.WRITER));
    }

    /** The DomainAttr builder calls that give {@code shape}, for a message. */
    private static String builderFor(final AddrShape shape)
    {
        final String base = "DomainAttr.builder().addrFormat(AddrFormat." + shape.format().name() + ")";
        if (shape.format() != org.shmav.AddrFormat.FORMAT_UNSPEC)
        {
            return base;
        }
        return base + (shape.varying() ? ".maxAddrLen(" : ".addrLen(") + shape.addrLen() + ")";
    }

    /** A random FI_AV_MAP base: fi_addr values of different AVs rarely look alike. */
    static long generatedMapBase()
    {
        return ThreadLocalRandom.current().nextLong(1, 1L << 16) << 32;
    }

    private static Opened resolve(final DomainAttr domain, final AvAttr attr, final AvType requestedType,
        final Region region, final Path file)
    {
        final AvLayout layout = region.layout();
        final String name = attr.name();
        final AddrShape wanted = AddrShape.of(domain);
        if (!layout.shape().equals(wanted))
        {
            throw invalid("named AV '" + name + "' holds " + layout.shape().describe() + " addresses, and this " +
                "domain's are " + wanted.describe() + " (caller=" + wanted.describe() + " file=" +
                layout.shape().describe() + "): open it from a domain of " + builderFor(layout.shape()) +
                ", or give this AV another name");
        }
        if (requestedType != AvType.UNSPEC && requestedType != layout.avType())
        {
            throw invalid("named AV '" + name + "' has another type: caller=" + requestedType.fiName() +
                " file=" + layout.avType().fiName());
        }
        if (domain.avType() != AvType.UNSPEC && domain.avType() != layout.avType())
        {
            // an UNSPEC request takes the file's type, which must still be the domain's (fi_av_open's rule)
            throw invalid("named AV '" + name + "' is " + layout.avType().fiName() + ", and this domain's av_type is " +
                domain.avType().fiName() + ": open it from a domain of av_type " + layout.avType().fiName() +
                " or UNSPEC");
        }
        if (attr.count() > Math.max(layout.maxCapacity(), layout.capacity()))
        {
            throw invalid("named AV '" + name + "' grows to at most " + layout.maxCapacity() + " entries, fewer than " +
                "count=" + attr.count() + " (pass 0 to accept the file's; maxCount is set when an AV is created)");
        }
        if (domain.avAuthKey() && layout.authKeySize() != domain.authKeySize())
        {
            throw invalid("named AV '" + name + "' has another auth-key size: caller=" +
                domain.authKeySize() + " file=" + layout.authKeySize());
        }
        if (domain.avAuthKey() && layout.authKeysCapacity() == 0)
        {
            throw invalid("named AV '" + name + "' has no room for auth keys (authKeysCapacity 0: its creator " +
                "used none); open it from a domain without FI_AV_AUTH_KEY, or create another AV");
        }
        final long mapBase = attr.mapAddr() != 0 ? attr.mapAddr() : region.storedMapBase();
        if (region.writer() != null)
        {
            region.table().recoverDead();
            region.table().finishOrphanedMigration(region.writer());
        }
        // the AV as the file has it; rx_ctx_bits, FI_READ and FI_EVENT stay the opener's (each applies its own)
        final long fileFlags = region.memory().getLong(AvFileDescriptor.AV_FLAGS_OFFSET) & (Fi.AV_USER_ID | Fi.SYMMETRIC);
        final AvAttr resolved = attr.toBuilder().type(layout.avType()).count(layout.capacity())
            .maxCount(layout.maxCapacity()).flags(attr.flags() | fileFlags).mapAddr(mapBase).build();
        return new Opened(region, resolved, mapBase, file);
    }

    private static FabricException invalid(final String detail)
    {
        return new FabricException(FiErrno.EINVAL, detail);
    }
}
