package org.shmav.launch;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.shmav.DomainAttr;
import org.shmav.JobAddrFormat;
import org.shmav.cli.CommandNames;
import org.shmav.cli.ShmavVersion;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code scripts/avrun}: starts N ranks of a command, MPI style, that find each other through a named
 * AV. Every rank gets {@code SHMAV_RANK}, {@code SHMAV_SIZE}, {@code SHMAV_AV} and {@code SHMAV_DIR}
 * and uses {@link org.shmav.Rank} to publish its address at fi_addr = rank.
 */
@Command(name = "avrun", mixinStandardHelpOptions = true, versionProvider = ShmavVersion.class, sortOptions = false,
    description = {
        "Runs COMMAND as N ranks that share a named address vector (rank r's address at fi_addr r).",
        "Each rank gets SHMAV_RANK, SHMAV_SIZE, SHMAV_AV, SHMAV_DIR and SHMAV_ADDR_FORMAT; its output lines are prefixed " +
            "with [rank].",
        "When a rank fails or the timeout passes, the other ranks are stopped (SIGTERM, then SIGKILL).",
        "On SIGINT or SIGTERM avrun forwards the signal, copies every rank's output to the end, and exits 130 or 143."},
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
        "0:every rank exited with status 0",
        "1-255:the status of the first rank that failed, as mpirun (the message names the rank)",
        "2:usage error",
        "124:--timeout passed; every rank was stopped",
        "125:the job could not be set up (the AV exists already, a bad name, a directory that cannot be created)",
        "127:COMMAND could not be started",
        "130, 143:avrun itself was interrupted (SIGINT, SIGTERM); the ranks were stopped, their output shown"},
    footerHeading = "%nExamples:%n",
    footer = {"  scripts/avrun -n 4 --demo ring", "  scripts/avrun -n 4 --addr-format in6 --demo ring",
        "  scripts/avrun -n 8 --timeout 60 -- java -cp app.jar my.Main"})
public final class AvRun implements Callable<Integer>
{
    /** The demo programs avrun can run in place of a command. */
    enum Demo
    {
        ring(RingDemo.class);

        private final Class<?> main;

        Demo(final Class<?> main)
        {
            this.main = main;
        }
    }

    @Option(names = {"-n", "-np", "--np"}, required = true, paramLabel = "N",
        description = "number of ranks (-np as mpirun spells it)")
    private int size;

    @Option(names = "--name", paramLabel = "NAME", description = "name of the job's AV (default: avrun-<pid>)")
    private String name;

    @Option(names = "--dir", paramLabel = "DIR",
        description = "directory of the AV (default: $SHMAV_DIR, else /dev/shm); created (mode 0700) if missing")
    private Path directory;

    @Option(names = "--keep", description = "keep the AV after the job (inspect it with scripts/shmav show NAME)")
    private boolean keep;

    @Option(names = "--timeout", paramLabel = "S", description = "stop the job after S seconds (default: no limit)")
    private long timeoutSeconds;

    @Option(names = "--no-prefix", description = "print the ranks' output lines as they are, without [rank]")
    private boolean noPrefix;

    @Option(names = "--addr-format", paramLabel = "FORMAT", converter = AddrFormatConverter.class,
        description = {"address format of the job's AV, passed to every rank in SHMAV_ADDR_FORMAT: in (default), in6, str, " +
            "ib, psmx, psmx2, ib_ud, efa, psmx3, opx, cxi, opaque:N (N bytes each), opaque:max:N (up to N bytes each); " +
            "default: $SHMAV_ADDR_FORMAT, else in"})
    private JobAddrFormat addrFormat;

    @Option(names = "--demo", paramLabel = "DEMO", description = "run a demo instead of COMMAND: ${COMPLETION-CANDIDATES}")
    private Demo demo;

    @Parameters(paramLabel = "COMMAND", description = "the program each rank runs, after --")
    private List<String> command = new ArrayList<>();

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec commandSpec;

    public static void main(final String[] args)
    {
        System.exit(execute(args));
    }

    private final PrintStream out;
    private final PrintStream err;

    private AvRun(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    /** Runs avrun with {@code args} and returns its exit status. */
    public static int execute(final String... args)
    {
        return execute(System.out, System.err, args);
    }

    /** Runs avrun with {@code args}, printing to {@code out} and {@code err}; returns its exit status. */
    static int execute(final PrintStream out, final PrintStream err, final String... args)
    {
        final PrintWriter errWriter = new PrintWriter(err, true);
        return new CommandLine(new AvRun(out, err)).setOut(new PrintWriter(out, true)).setErr(errWriter)
            .setStopAtPositional(true).setParameterExceptionHandler(AvRun::usageError).execute(args);
    }

    /** A usage error: what is wrong and where the help is, not the whole help, which buries the one line that matters. */
    private static int usageError(final CommandLine.ParameterException e, final String[] args)
    {
        final PrintWriter err = e.getCommandLine().getErr();
        err.println("avrun: " + e.getMessage());
        if (e instanceof CommandLine.UnmatchedArgumentException u && !u.getSuggestions().isEmpty())
        {
            err.println("Did you mean: " + String.join(" or ", u.getSuggestions()) + "?");
        }
        err.println("Try '" + CommandNames.avrun() + " --help' for more information.");
        err.flush();
        return ExitStatus.USAGE;
    }

    @Override
    public Integer call() throws InterruptedException
    {
        final JobSpec spec = spec();
        final Job job;
        try
        {
            job = Job.create(spec, out, err);
        }
        catch (final Job.SetupException e)
        {
            err.println("avrun: " + e.getMessage());
            return ExitStatus.SETUP;
        }
        if (!Signals.handle(job::interrupt))
        {
            err.println("avrun: cannot handle SIGINT/SIGTERM here (no sun.misc.Signal): a signal stops " +
                "the ranks from a shutdown hook instead");
        }
        return job.run();
    }

    private JobSpec spec()
    {
        if (size < 1)
        {
            throw usage("-n must be at least 1, not " + size);
        }
        if ((demo == null) == command.isEmpty())
        {
            throw usage(demo == null ? "give a COMMAND after -- or --demo ring" : "give either --demo or a COMMAND, not both");
        }
        if (timeoutSeconds < 0)
        {
            throw usage("--timeout must be positive");
        }
        return new JobSpec(size, name != null ? name : "avrun-" + ProcessHandle.current().pid(),
            directory != null ? directory : DomainAttr.defaultShmDirectory(), keep,
            timeoutSeconds > 0 ? Duration.ofSeconds(timeoutSeconds) : null,
            demo != null ? JavaCommand.forMain(demo.main.getName(), List.of(), List.of()) : command, !noPrefix, false,
            addrFormat != null ? addrFormat : addrFormatFromEnvironment());
    }

    /** Without --addr-format, the format the ranks would read from avrun's own environment, which they inherit. */
    private JobAddrFormat addrFormatFromEnvironment()
    {
        try
        {
            return JobAddrFormat.fromEnvironment(System.getenv());
        }
        catch (final IllegalStateException e)
        {
            throw usage(e.getMessage());
        }
    }

    /** Reads --addr-format; a bad one is a usage error naming the formats. */
    static final class AddrFormatConverter implements CommandLine.ITypeConverter<JobAddrFormat>
    {
        @Override
        public JobAddrFormat convert(final String value)
        {
            try
            {
                return JobAddrFormat.parse(value);
            }
            catch (final IllegalArgumentException e)
            {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    private CommandLine.ParameterException usage(final String message)
    {
        return new CommandLine.ParameterException(commandSpec.commandLine(), message);
    }
}
