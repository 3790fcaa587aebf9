package org.shmav.slots;

import java.nio.file.Path;
import org.shmav.shm.AvLayout;
import org.shmav.shm.SharedAvFile;

/**
 * AV files opened by path for tools (the {@code shmav} CLI), below the Domain API: a tool must read an
 * AV whatever its address format, see its attachers and slot states, and repair it without joining
 * it as a user. Opening goes through the same checks as {@code fi_av_open} ({@link SharedAvFile}):
 * regular file, no symbolic link, ready version word, {@link AvLayout#read} of the header page, then a
 * mapping of exactly the published length, so that an AV being grown (its file longer than that)
 * reads as it is.
 */
public final class ToolAccess
{
    private ToolAccess()
    {
    }

    /**
     * Maps {@code file} read-only and validates it. Nothing is ever written through the mapping.
     *
     * @throws org.shmav.FabricException FI_ENOENT, FI_EACCES, or FI_EINVAL when the file is not a valid shmav AV
     */
    public static Region openReadOnly(final Path file)
    {
        return Region.of(SharedAvFile.attach(file, file.getFileName().toString(), true, true), Region.Role.TOOL);
    }

    /**
     * Maps {@code file} read-write as a writer of the AV (taking an attacher entry), for repairs such
     * as {@link SlotTable#recoverDead()}. Call {@link Region#detach()} when done.
     */
    public static Region openForRepair(final Path file)
    {
        return Region.of(SharedAvFile.attach(file, file.getFileName().toString(), false, true), Region.Role.WRITER);
    }
}
