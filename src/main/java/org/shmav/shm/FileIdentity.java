package org.shmav.shm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;

/**
 * Which file a name leads to: its device and inode ({@code st_dev}, {@code st_ino}), as the AV header's
 * {@code lockFileDevice} and {@code lockFileInode} record a lock file's. Two names with equal identities
 * are one file; a name whose identity changed was removed and made anew. Immutable.
 */
public record FileIdentity(long device, long inode)
{
    /** The identity of the file named {@code file} itself (never a link's target), or null when there is none. */
    public static FileIdentity of(final Path file)
    {
        try
        {
            final Map<String, Object> a = Files.readAttributes(file, "unix:dev,ino", LinkOption.NOFOLLOW_LINKS);
            return new FileIdentity(((Number)a.get("dev")).longValue(), ((Number)a.get("ino")).longValue());
        }
        catch (final IOException | UnsupportedOperationException e)
        {
            return null; // gone, or not ours to stat
        }
    }

    /** The lock file an AV's header {@code m} names. */
    static FileIdentity lockFileOf(final Memory m)
    {
        return new FileIdentity(m.getLong(AvFileDescriptor.LOCK_FILE_DEVICE_OFFSET),
            m.getLong(AvFileDescriptor.LOCK_FILE_INODE_OFFSET));
    }

    @Override
    public String toString()
    {
        return "dev=" + device + " ino=" + inode;
    }
}
