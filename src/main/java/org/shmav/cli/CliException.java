package org.shmav.cli;

import org.shmav.FabricException;
import org.shmav.FiErrno;

/** A command failed in a way the user can act on: the message says what, the exit code says which kind. */
final class CliException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final ExitCode exitCode;

    CliException(final ExitCode exitCode, final String message)
    {
        super(message);
        this.exitCode = exitCode;
    }

    ExitCode exitCode()
    {
        return exitCode;
    }

    /** The exit code for a library error that no command turned into a more precise one. */
    static ExitCode exitCodeOf(final FabricException e)
    {
        switch (e.errno())
        {
            case FiErrno.ENOENT: return ExitCode.NOT_FOUND;
            case FiErrno.EACCES:
            case FiErrno.EPERM: return ExitCode.PERMISSION;
            case FiErrno.ENOSPC: return ExitCode.NO_SPACE;
            default: return ExitCode.FAILED;
        }
    }
}
