package org.shmav.av;

import static org.shmav.shm.AvFileDescriptor.CREATED_MILLIS_OFFSET;
import static org.shmav.shm.AvFileDescriptor.CREATOR_PID_OFFSET;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.slots.Region;

/**
 * Tells a named AV handle when its file was truncated or replaced by someone else (the same user:
 * {@code truncate}, {@code cp} of a copy over it, a file moved over the name), and what was found.
 *
 * <p>A mapped page past the file's end faults: the JVM turns a read or a compiled write into an
 * {@link InternalError}, but an atomic update run by the interpreter kills the JVM with SIGBUS. So a
 * writer reads the last byte of its mapping before every call that changes the AV ({@link #probe}):
 * a truncated file faults there, in a plain read the JVM survives, before any atomic update runs. A
 * truncation that lands during a call can still fault in it (the JVM reports such a fault at its next
 * check, possibly after the call returned; see README, Sharing a named AV). Whatever faulted, or
 * whatever made the slot protocol give up with FI_EIO, {@link #diagnose} looks at the file and names
 * the cause.
 */
final class AvFileHealth
{
    private final Path file;
    private final String name;
    private final Object fileKey;
    private final long createdMillis;
    private final long creatorPid;
    private final long changesAtOpen;

    /** The state of {@code region}'s file at open, to compare with when something fails. */
    AvFileHealth(final Path file, final String name, final Region region)
    {
        this.file = file;
        this.name = name;
        this.fileKey = fileKey(file);
        this.createdMillis = region.memory().getLong(CREATED_MILLIS_OFFSET);
        this.creatorPid = region.memory().getLong(CREATOR_PID_OFFSET);
        this.changesAtOpen = changes(region);
    }

    /**
     * The AV's change counter, or -1 when it cannot be read: it sums per-attacher counters up to a
     * high-water mark in the header, which a damaged file may set beyond the attacher table, and
     * opening must not fail where it used to succeed.
     */
    private static long changes(final Region region)
    {
        try
        {
            return region.table().changes();
        }
        catch (final IndexOutOfBoundsException e)
        {
            return -1;
        }
    }

    /**
     * Reads the last byte {@code region} maps: faults (InternalError, which the JVM survives in a plain
     * read) when the file was cut short of it, so that no atomic update runs on a missing page.
     */
    static void probe(final Region region)
    {
        final int last = region.memory().capacity() - 1;
        region.memory().buffer().get(last);
    }

    /**
     * FI_EIO saying what is wrong with the file behind {@code region}, or null when the file looks as
     * this handle opened it (then the failure has another cause and is rethrown as it is).
     */
    FabricException diagnose(final Region region)
    {
        final long published = region.layout().fileLength();
        final long size = size(region);
        final Object keyNow = fileKey(file);
        if (size >= 0 && size < published)
        {
            return failure("the AV file " + file + " is " + size + " bytes, shorter than the " + published +
                " bytes its header published: it was truncated under this process (truncate, or a cp over it)");
        }
        if (keyNow == null || !keyNow.equals(fileKey))
        {
            return failure(keyNow == null ? "the AV file " + file + " is gone: it was removed while this " +
                "handle had it open" : "the path " + file + " is another file now (this handle maps the file that " +
                "was there at open): the AV was removed and created again, or a file was moved or copied over it");
        }
        try
        {
            return changed(region);
        }
        catch (final InternalError e)
        {
            return failure("the AV file " + file + " faulted while this process read it: it is being truncated " +
                "or rewritten under this process (truncate, or a cp over it)");
        }
    }

    /** FI_EIO when the file's header or its change counter are not what this handle opened; else null. */
    private FabricException changed(final Region region)
    {
        final long created = region.memory().getLong(CREATED_MILLIS_OFFSET);
        final long pid = region.memory().getLong(CREATOR_PID_OFFSET);
        if (created != createdMillis || pid != creatorPid)
        {
            return failure("the AV file " + file + " holds another AV now (created at " + created + " ms by pid " +
                pid + "; this handle opened the one created at " + createdMillis + " ms by pid " + creatorPid + "): a " +
                "copy of another AV was written over it");
        }
        final long changes = changes(region);
        if (changes >= 0 && changes < changesAtOpen)
        {
            return failure("the AV file " + file + " went back in time: its change counter is " + changes +
                ", lower than the " + changesAtOpen + " this handle saw at open: a copy of an older state was written " +
                "over it (cp)");
        }
        return null;
    }

    private FabricException failure(final String found)
    {
        return new FabricException(FiErrno.EIO, found + ". This handle can no longer use AV '" + name + "' and " +
            "every later call on it fails: close it. The processes that share the AV must close it too; then remove " +
            "the file (shmav rm " + name + " --force) and create the AV again");
    }

    /** The size of the file this handle maps (not of whatever the path names now); -1 when it cannot be told. */
    private static long size(final Region region)
    {
        try
        {
            return region.file().channelFor(false).size();
        }
        catch (final IOException e)
        {
            return -1;
        }
    }

    /** The file's identity (device and inode), or null when the path names nothing now. */
    private static Object fileKey(final Path file)
    {
        try
        {
            return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        }
        catch (final NoSuchFileException e)
        {
            return null;
        }
        catch (final IOException e)
        {
            return "unknown: " + e.getMessage();
        }
    }
}
