package org.shmav.shm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;

/**
 * Tells a temporary file left by an AV creator that died ({@code .shmav-tmp.<name>.<pid>.<hex>}, see
 * {@link SharedAvFile#create}) from anything else named like one. {@code shmav gc} removes a file only
 * when all of this holds: it is a regular file (not a link) owned by this user, older than the grace
 * period, its content is an AV being built (an all-zero header, the creator died while allocating,
 * or one that starts with the magic), and its creator lock byte is free, so that no live creator
 * holds it, in any pid namespace. Stateless.
 */
public final class CreatorLeftovers
{
    private CreatorLeftovers()
    {
    }

    /** True when {@code file} is provably a dead creator's temporary file older than {@code graceMillis}. */
    public static boolean isDeadCreators(final Path file, final long graceMillis)
    {
        if (SharedAvFile.temporaryCreator(file.getFileName().toString()) < 0 || Files.isSymbolicLink(file) ||
            !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS))
        {
            return false;
        }
        try
        {
            final Map<String, Object> attrs = Files.readAttributes(file, "unix:uid,lastModifiedTime",
                LinkOption.NOFOLLOW_LINKS);
            final FileOwnership.Identity me = FileOwnership.Identity.SELF;
            if (me == null || (Integer)attrs.get("uid") != me.uid())
            {
                return false;
            }
            final long age = System.currentTimeMillis() -
                ((java.nio.file.attribute.FileTime)attrs.get("lastModifiedTime")).toMillis();
            if (age < graceMillis)
            {
                return false;
            }
            final AvFileChannel ch = AvFileChannel.open(file, true);
            try
            {
                return looksBeingBuilt(ch) &&
                    ch.locks().probeExclusive(AvFileDescriptor.CREATOR_LOCK_OFFSET, 1) == AvFileLocks.Probe.FREE;
            }
            finally
            {
                ch.close();
            }
        }
        catch (final IOException | UnsupportedOperationException | ClassCastException e)
        {
            return false;
        }
    }

    /** An empty file, an all-zero start (pages being allocated), or the AV magic at offset 0. */
    private static boolean looksBeingBuilt(final AvFileChannel ch) throws IOException
    {
        final ByteBuffer head = ByteBuffer.allocate(AvFileDescriptor.HEADER_LENGTH).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        final int read = Math.max(ch.channelFor(false).read(head, 0), 0);
        if (read >= Long.BYTES && head.getLong(0) == AvFileDescriptor.MAGIC)
        {
            return true;
        }
        for (int i = 0; i < read; i++)
        {
            if (head.get(i) != 0)
            {
                return false;
            }
        }
        return true;
    }
}
