package org.shmav.launch;

/**
 * The exit statuses of avrun that are its own. When a rank fails, avrun exits with that rank's status
 * instead, as mpirun does; the message on stderr says which it was.
 */
public final class ExitStatus
{
    /** Every rank exited with status 0. */
    public static final int OK = 0;
    /** The command line was wrong. */
    public static final int USAGE = 2;
    /** The job ran longer than --timeout; every rank was stopped. */
    public static final int TIMEOUT = 124;
    /** avrun could not set the job up (the AV exists already, the directory is unusable, ...). */
    public static final int SETUP = 125;
    /** The command could not be started (not found, not executable). */
    public static final int CANNOT_START = 127;

    private ExitStatus()
    {
    }

    /** A process status as a person reads it: {@code 3}, or {@code 137 (signal 9)} for a process killed by a signal. */
    public static String describe(final int status)
    {
        return status > 128 && status < 160 ? status + " (signal " + (status - 128) + ")" : Integer.toString(status);
    }
}
