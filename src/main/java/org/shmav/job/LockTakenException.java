package org.shmav.job;

import java.io.IOException;
import java.nio.file.Path;

/** A participant's lock in a job file that another process held past the joiner's deadline. */
public final class LockTakenException extends IOException
{
    private static final long serialVersionUID = 1L;

    /** Whether the byte said "joined": another process with this participant's number, not only a lock. */
    private final boolean joined;

    LockTakenException(final Path file, final int slot, final boolean joined, final String holders)
    {
        super("participant " + slot + "'s lock in " + file + " is " + holders + (joined ?
            ", and that participant's place is taken" : ""));
        this.joined = joined;
    }

    /** {@return whether another process joined as this participant (its byte is 1)} */
    public boolean joined()
    {
        return joined;
    }
}
