package org.shmav.cli;

import java.io.PrintWriter;

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
        return AvDirectory.of(root.directory());
    }

    PrintWriter out()
    {
        return spec.commandLine().getOut();
    }

    PrintWriter err()
    {
        return spec.commandLine().getErr();
    }
}
