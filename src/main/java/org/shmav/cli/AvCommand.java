package org.shmav.cli;

import java.io.PrintWriter;

import org.shmav.DomainAttr;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** What every subcommand shares: the directory chosen with {@code --dir}, and the output streams. */
abstract class AvCommand
{
    @ParentCommand
    private ShmavCli root;

    @Spec
    private CommandSpec spec;

    AvDirectory directory()
    {
        return AvDirectory.of(root.directory(), root.directorySource());
    }

    /** The directory, created first (mode 0700, as avrun does) when it does not exist; saying so on stderr. */
    AvDirectory creatingDirectory()
    {
        if (AvDirectory.create(root.directory(), root.directorySource()))
        {
            err().println("shmav " + spec.commandLine().getCommandName() + ": created directory " +
                root.directory() + " (mode 0700; from " + root.directorySource() + ")");
        }
        return directory();
    }

    /**
     * A shmav command line to suggest, as the user can paste it: the command as they ran it
     * ({@link CommandNames}), {@code args}, and {@code --dir} when the directory is not /dev/shm (as avrun does).
     */
    String hint(final String args)
    {
        final java.nio.file.Path dir = root.directory();
        return CommandNames.shmav() + " " + args + (dir.equals(DomainAttr.DEFAULT_SHM_DIRECTORY) ? "" : " --dir " + dir);
    }

    /** Where {@link #out()} writes instead of the command line's output, or null. */
    private PrintWriter capture;

    PrintWriter out()
    {
        return capture != null ? capture : spec.commandLine().getOut();
    }

    /** Sends what {@link #out()} prints to {@code to} (null: back to the command line's output). */
    void capture(final PrintWriter to)
    {
        capture = to;
    }

    PrintWriter err()
    {
        return spec.commandLine().getErr();
    }
}
