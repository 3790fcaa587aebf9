package org.shmav.shm;

import java.security.SecureRandom;

/**
 * Who this process is, for the fields people read ({@code shmav ls}): pid and start time. Neither
 * decides whether a process is alive; the kernel's record locks do ({@link Liveness}).
 */
public final class Processes
{
    public static final long SELF_PID = ProcessHandle.current().pid();
    public static final long SELF_START_MILLIS = ProcessHandle.current().info().startInstant()
        .map(java.time.Instant::toEpochMilli).orElse(0L);
    /** This process's attacher token: random and non-zero, so that a detach only frees this process's entries. */
    public static final long SELF_TOKEN = new SecureRandom().nextLong() | 1L;

    private Processes()
    {
    }
}
