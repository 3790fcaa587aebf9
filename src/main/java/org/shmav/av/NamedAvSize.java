package org.shmav.av;

import static org.shmav.shm.AvFileDescriptor.MAX_CAPACITY;
import static org.shmav.shm.AvFileDescriptor.MAX_FILE_LENGTH;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongPredicate;

import org.shmav.AvAttr;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.shm.AddrShape;
import org.shmav.shm.AvLayout;
import org.shmav.shm.ClosedMappings;

/**
 * The size a named AV is created with, and the limits it must keep (shm-layout.md, WRITER'S CHECKLIST,
 * Limits): {@code count} and {@code maxCount} resolved, the file refused when it could never be mapped
 * (FI_EINVAL) or when the file system cannot hold it now (FI_ENOSPC). The API and the CLI both create
 * through here, so they enforce the same limits. Stateless.
 */
final class NamedAvSize
{
    /** Capacity of a named AV created with count 0 (or its maxCount, when that is smaller). */
    static final long DEFAULT_COUNT = 1024;

    private NamedAvSize()
    {
    }

    /**
     * The layout of a new named AV for {@code attr}: segment 0 of {@code count} slots (0: 1024, or the
     * maxCount when smaller), growing to {@code maxCount} (0: {@link AvAttr#DEFAULT_MAX_COUNT}, or the
     * count when larger). FI_EINVAL for a negative count or maxCount, a count above the maxCount, or an
     * AV whose file at its count or its maxCount would pass {@code MAX_FILE_LENGTH}, however far past:
     * each message names the largest value that fits (one statement of the limits, as shmav create
     * reports them).
     */
    static AvLayout layout(final DomainAttr domain, final AvAttr attr)
    {
        // One statement of the limits: whatever a count or maxCount asks past them, the answer is the file
        // length it would need and the largest that fits (the MAX_CAPACITY bound is never the tighter one).
        if (attr.count() < 0)
        {
            throw invalid("count=" + attr.count() + " is negative: use 0 (the default) or a positive count");
        }
        if (attr.maxCount() < 0)
        {
            throw invalid("maxCount=" + attr.maxCount() + " is negative: use 0 (the default, " + AvAttr.DEFAULT_MAX_COUNT +
                ") or a positive maxCount");
        }
        if (attr.maxCount() != 0 && attr.count() > attr.maxCount())
        {
            throw invalid("count=" + attr.count() + " is more than maxCount=" + attr.maxCount() + ": a named AV never " +
                "holds more than its maxCount (pass a count up to it, or 0 for min(1024, maxCount))");
        }
        final long count = attr.count() != 0 ? attr.count()
            : Math.min(DEFAULT_COUNT, attr.maxCount() != 0 ? attr.maxCount() : AvAttr.DEFAULT_MAX_COUNT);
        final long max = attr.maxCount() != 0 ? attr.maxCount() : Math.max(AvAttr.DEFAULT_MAX_COUNT, count);
        final AvLayout first = count <= MAX_CAPACITY ? compute(domain, attr, count) : null;
        if (first == null || first.fileLength() > MAX_FILE_LENGTH)
        {
            final long top = Math.min(count, MAX_CAPACITY);
            final long largest = largest(1, top, c -> compute(domain, attr, c).fileLength() <= MAX_FILE_LENGTH);
            throw invalid("count=" + count + " needs " + fileLength(domain, attr, count) + "-byte file, more than the " +
                MAX_FILE_LENGTH + " bytes a named AV's file may have: at most " + largest + " entries of " +
                AddrShape.of(domain).describe() + "; use a count up to that");
        }
        final AvLayout layout = attr.maxCount() != 0 ? first.growingTo(max) : defaultMax(first, max, count);
        final String full = max <= MAX_CAPACITY ? "a " + layout.full().fileLength()
            : "over a " + first.growingTo(MAX_CAPACITY).full().fileLength();
        if (max > MAX_CAPACITY || layout.full().fileLength() > MAX_FILE_LENGTH)
        {
            final long top = Math.min(max, MAX_CAPACITY);
            final long largest = largest(count, top, m -> first.growingTo(m).full().fileLength() <= MAX_FILE_LENGTH);
            throw invalid("maxCount=" + max + " with count=" + count + " needs " + full + "-byte file once full, " +
                "more than the " + MAX_FILE_LENGTH + " bytes a named AV's file may have: at most " + largest +
                " for count=" + count + " (" + AddrShape.of(domain).describe() + "); use a maxCount up to that");
        }
        return layout;
    }

    /**
     * FI_ENOSPC, naming the numbers, when the file system holding {@code file} has less room than the new
     * AV's file (written whole at creation). Growth past it is checked when it happens, segment by
     * segment: maxCount is a ceiling that growth reaches as far as the file system allows. Room that AVs
     * closed in this JVM still hold is collected first ({@link ClosedMappings}).
     */
    static void checkRoom(final Path file, final String name, final AvLayout layout)
    {
        final long free;
        try
        {
            free = Files.getFileStore(file.getParent()).getUsableSpace();
        }
        catch (final IOException e)
        {
            return; // not known: writing the file fails with FI_ENOSPC if there is no room
        }
        if (layout.fileLength() > free && !ClosedMappings.freeRoom(file.getParent(), layout.fileLength()))
        {
            throw new FabricException(FiErrno.ENOSPC, "named AV '" + name + "' needs " +
                layout.fileLength() + " bytes for count=" + layout.capacity() + ", and " + file.getParent() + " has " +
                free + " bytes free: use a smaller count, or free space there (df -h " + file.getParent() +
                "; 'shmav gc' removes dead jobs' AVs)");
        }
    }

    /**
     * The default maximum: {@code max}, or for slots so large (opaque addresses of up to 4096 bytes) that its
     * file would pass {@code MAX_FILE_LENGTH}, the largest maximum whose file fits.
     */
    private static AvLayout defaultMax(final AvLayout first, final long max, final long count)
    {
        final long top = Math.min(max, MAX_CAPACITY);
        final AvLayout layout = first.growingTo(top);
        if (layout.full().fileLength() <= MAX_FILE_LENGTH)
        {
            return layout;
        }
        return first.growingTo(largest(count, top, m -> first.growingTo(m).full().fileLength() <= MAX_FILE_LENGTH));
    }

    /** "a N" for the file {@code count} slots need; past {@code MAX_CAPACITY}, "over a N" with N the largest layout's. */
    private static String fileLength(final DomainAttr domain, final AvAttr attr, final long count)
    {
        return count <= MAX_CAPACITY ? "a " + compute(domain, attr, count).fileLength()
            : "over a " + compute(domain, attr, MAX_CAPACITY).fileLength();
    }

    private static AvLayout compute(final DomainAttr domain, final AvAttr attr, final long count)
    {
        return AvLayout.compute(AddrShape.of(domain), attr.type(), count, NamedAvOpener.ATTACHERS_CAPACITY,
            domain.avAuthKey() ? domain.authKeySize() : 0, domain.avAuthKey() ? AddressVectorImpl.AUTH_KEYS_CAPACITY : 0);
    }

    /** The largest value in [low, high) that {@code fits} (low fits, high does not; fits is monotone). */
    private static long largest(final long low, final long high, final LongPredicate fits)
    {
        long yes = low;
        long no = high;
        while (no - yes > 1)
        {
            final long mid = yes + (no - yes) / 2;
            if (fits.test(mid))
            {
                yes = mid;
            }
            else
            {
                no = mid;
            }
        }
        return yes;
    }

    private static FabricException invalid(final String detail)
    {
        return new FabricException(FiErrno.EINVAL, detail);
    }
}
