package org.shmav.shm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Who this process is, and whether the process behind an owner token still runs. A token carries the
 * pid and the start time, so a pid reused by a new process is not taken for the old owner.
 */
public final class Processes
{
    public static final long SELF_PID = ProcessHandle.current().pid();
    public static final long SELF_START_MILLIS = ProcessHandle.current().info().startInstant()
        .map(java.time.Instant::toEpochMilli).orElse(0L);
    public static final long SELF_TOKEN = AttacherDescriptor.token(SELF_PID, SELF_START_MILLIS);

    private Processes()
    {
    }

    /**
     * True unless the token's process is known to be gone: no such pid, a zombie, or a process with
     * that pid that started at another time. When in doubt (start time unreadable) it says alive, so
     * that a live writer is never robbed.
     */
    public static boolean isAlive(final long token)
    {
        if (token == SELF_TOKEN)
        {
            return true;
        }
        final long pid = AttacherDescriptor.tokenPid(token);
        final Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isEmpty() || !handle.get().isAlive() || isZombie(pid))
        {
            return false;
        }
        final Optional<java.time.Instant> start = handle.get().info().startInstant();
        if (start.isEmpty() || AttacherDescriptor.tokenStartMillis(token) == 0)
        {
            return true;
        }
        final long expected = AttacherDescriptor.tokenStartMillis(token) / 10;
        final long actual = start.get().toEpochMilli() / 10;
        return Math.abs(actual - expected) <= 1;
    }

    private static boolean isZombie(final long pid)
    {
        try
        {
            final String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            final int close = stat.lastIndexOf(')');
            if (close < 0 || close + 2 >= stat.length())
            {
                return false;
            }
            final char state = stat.charAt(close + 2);
            return state == 'Z' || state == 'X';
        }
        catch (final IOException | RuntimeException e)
        {
            return false;
        }
    }
}
