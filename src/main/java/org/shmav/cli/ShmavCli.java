package org.shmav.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.shmav.DomainAttr;
import org.shmav.FabricException;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code scripts/shmav}: the administration tool for named AVs. Read-only commands ({@code ls},
 * {@code show}, {@code dump}, {@code watch}) map files read-only; commands that change things
 * ({@code rm}, {@code gc}, {@code create}, {@code insert}, {@code remove}) never touch a file that is not a valid
 * shmav AV. Every kind of failure has its own exit code ({@link ExitCode}).
 */
@Command(name = "shmav", mixinStandardHelpOptions = true, versionProvider = ShmavVersion.class,
    description = "Inspect and manage shmav named address vectors (files in /dev/shm).",
    subcommands = {LsCommand.class, ShowCommand.class, DumpCommand.class, WatchCommand.class, CreateCommand.class,
        InsertCommand.class, RemoveCommand.class, RmCommand.class, GcCommand.class, CommandLine.HelpCommand.class})
public final class ShmavCli implements Runnable
{
    @Option(names = "--dir", paramLabel = "DIR", scope = CommandLine.ScopeType.INHERIT,
        description = "directory of the AVs (default: -Dshmav.dir, else $SHMAV_DIR, else /dev/shm)")
    private Path directory;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    public static void main(final String[] args)
    {
        System.exit(execute(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /** Runs shmav with {@code args}, printing to {@code out} and {@code err}; returns the exit code. */
    public static int execute(final PrintWriter out, final PrintWriter err, final String... args)
    {
        final CommandLine cli = new CommandLine(new ShmavCli()).setOut(out).setErr(err)
            .setExecutionExceptionHandler(ShmavCli::handle).setParameterExceptionHandler(ShmavCli::usageError);
        // every command answers --help (and --version), not only the top level
        cli.getSubcommands().values().stream().filter(sub -> !(sub.getCommand() instanceof CommandLine.HelpCommand))
            .forEach(sub -> sub.getCommandSpec().mixinStandardHelpOptions(true));
        describeExitCodes(cli);
        final int code = cli.execute(args);
        out.flush();
        err.flush();
        return code;
    }

    Path directory()
    {
        return directory != null ? directory : DomainAttr.defaultShmDirectory();
    }

    /** Where {@link #directory()} came from, for messages about it: the option, the property, the variable or the default. */
    String directorySource()
    {
        if (directory != null)
        {
            return "--dir";
        }
        final String property = System.getProperty(DomainAttr.SHM_DIR_PROPERTY);
        if (property != null && !property.isEmpty())
        {
            return "-D" + DomainAttr.SHM_DIR_PROPERTY;
        }
        final String env = System.getenv(DomainAttr.SHM_DIR_ENV);
        return env != null && !env.isEmpty() ? "$" + DomainAttr.SHM_DIR_ENV : "the default";
    }

    /** Without a subcommand: the usage, and the usage-error code. */
    @Override
    public void run()
    {
        throw new CommandLine.ParameterException(spec.commandLine(), "give a command: ls, show, dump, watch, " +
            "create, insert, remove, rm or gc");
    }

    private static void describeExitCodes(final CommandLine cli)
    {
        final Map<String, String> codes = new LinkedHashMap<>();
        for (final ExitCode c : ExitCode.values())
        {
            codes.put(Integer.toString(c.code), c.meaning);
        }
        cli.getCommandSpec().usageMessage().exitCodeListHeading("%nExit codes:%n").exitCodeList(codes);
        cli.getSubcommands().values().forEach(sub ->
            sub.getCommandSpec().usageMessage().exitCodeListHeading("%nExit codes:%n").exitCodeList(codes));
    }

    /**
     * A usage error: the one line that says what is wrong, and where the full usage is, instead of the whole
     * usage help (which buries the line).
     */
    private static int usageError(final CommandLine.ParameterException e, final String[] args)
    {
        final CommandLine cmd = e.getCommandLine();
        final String path = qualifiedName(cmd);
        cmd.getErr().println(path + ": " + e.getMessage());
        final CommandLine.UnmatchedArgumentException unmatched =
            e instanceof CommandLine.UnmatchedArgumentException u ? u : null;
        if (unmatched != null)
        {
            final java.util.List<String> suggestions = unmatched.getSuggestions();
            if (!suggestions.isEmpty())
            {
                cmd.getErr().println("Did you mean: " + String.join(" or ", suggestions) + "?");
            }
        }
        cmd.getErr().println(tryHelp(cmd));
        cmd.getErr().flush();
        return ExitCode.USAGE.code;
    }

    /** "shmav" or "shmav ls": the command's name, which prefixes its messages. */
    private static String qualifiedName(final CommandLine cmd)
    {
        return cmd.getParent() == null ? cmd.getCommandName() : qualifiedName(cmd.getParent()) + " " + cmd.getCommandName();
    }

    /** The one line of help after a usage error, naming the command as the user ran it ({@link CommandNames}). */
    static String tryHelp(final CommandLine cmd)
    {
        final String sub = cmd.getParent() == null ? "" : qualifiedName(cmd).substring(qualifiedName(cmd).indexOf(' '));
        return "Try '" + CommandNames.shmav() + sub + " --help' for more information.";
    }

    private static int handle(final Exception e, final CommandLine cmd, final CommandLine.ParseResult parsed)
    {
        if (e instanceof CliException ce)
        {
            cmd.getErr().println("shmav " + cmd.getCommandName() + ": " + ce.getMessage());
            if (ce.exitCode() == ExitCode.USAGE)
            {
                cmd.getErr().println(tryHelp(cmd)); // an option value the parser accepted but the command did not
            }
            return ce.exitCode().code;
        }
        if (e instanceof FabricException fe)
        {
            cmd.getErr().println("shmav " + cmd.getCommandName() + ": " + fe.getMessage());
            return CliException.exitCodeOf(fe).code;
        }
        cmd.getErr().println("shmav " + cmd.getCommandName() + ": unexpected failure: " + e);
        e.printStackTrace(cmd.getErr());
        return ExitCode.FAILED.code;
    }
}
