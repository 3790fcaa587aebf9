package org.shmav.shm;

import java.io.IOException;

/**
 * What an {@link IOException} of a write says about room: Java gives no errno, only its text. Both cases
 * are FI_ENOSPC to shmav's callers, with advice of their own. Stateless.
 */
public final class NoRoom
{
    private NoRoom()
    {
    }

    /** The file system is full, or the user's quota is (ENOSPC, EDQUOT). */
    public static boolean fileSystemFull(final IOException e)
    {
        final String reason = String.valueOf(e.getMessage());
        return reason.contains("No space left") || reason.contains("Disk quota");
    }

    /** The write went past this process's file size limit (EFBIG: RLIMIT_FSIZE, ulimit -f). */
    public static boolean overFileSizeLimit(final IOException e)
    {
        return String.valueOf(e.getMessage()).contains("File too large");
    }

    /** Either of the above. */
    public static boolean any(final IOException e)
    {
        return fileSystemFull(e) || overFileSizeLimit(e);
    }
}
