package org.shmav.launch;

import java.util.Arrays;

import org.shmav.cli.ShmavCli;

/**
 * The main class of the executable jar ({@code shmav-VERSION-tools.jar}, built by {@code mvn package}
 * with every dependency inside): {@code java -jar shmav-tools.jar avrun ARGS} runs {@link AvRun},
 * {@code java -jar shmav-tools.jar ARGS} runs the {@code shmav} CLI ({@code ls}, {@code show}, ...).
 * The jar's manifest carries the {@code Add-Opens}/{@code Add-Exports} Chronicle Bytes needs for
 * {@code shmav dump}, so that only a JDK is needed; this class sets the system properties that keep
 * Chronicle quiet, which a manifest cannot.
 */
public final class Tools
{
    /** The first argument that selects the launcher instead of the CLI. */
    public static final String AVRUN = "avrun";

    private Tools()
    {
    }

    public static void main(final String[] args)
    {
        if (args.length > 0 && AVRUN.equals(args[0]))
        {
            AvRun.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        defaultProperty("chronicle.analytics.disable", "true");
        defaultProperty("slf4j.internal.verbosity", "ERROR");
        ShmavCli.main(args);
    }

    private static void defaultProperty(final String name, final String value)
    {
        if (System.getProperty(name) == null)
        {
            System.setProperty(name, value);
        }
    }
}
