package org.shmav.cli;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The commands as the user runs them, for the hints shmav and avrun print ("Try 'scripts/shmav ls
 * --help'", "inspect it with java -jar shmav-tools.jar show job7"): a hint is only useful when it can
 * be pasted back. {@code scripts/shmav} and {@code scripts/avrun} pass the directory they were run
 * from (as typed) in {@value #SCRIPTS_PROPERTY}; {@code java -jar JAR} is recognised from the command
 * line the JVM was started with; anything else (in-process calls, a classpath of one's own) gets the
 * bare names {@code shmav} and {@code avrun}.
 */
public final class CommandNames
{
    /** System property the scripts set to their own directory, e.g. {@code scripts}. */
    public static final String SCRIPTS_PROPERTY = "shmav.scripts";

    private CommandNames()
    {
    }

    /** {@return how to run the shmav CLI: {@code scripts/shmav}, {@code java -jar JAR} or {@code shmav}} */
    public static String shmav()
    {
        final String scripts = System.getProperty(SCRIPTS_PROPERTY);
        if (scripts != null && !scripts.isEmpty())
        {
            return scripts + "/shmav";
        }
        final String jar = toolsJar();
        return jar != null ? "java -jar " + jar : "shmav";
    }

    /** {@return how to run avrun: {@code scripts/avrun}, {@code java -jar JAR avrun} or {@code avrun}} */
    public static String avrun()
    {
        final String scripts = System.getProperty(SCRIPTS_PROPERTY);
        if (scripts != null && !scripts.isEmpty())
        {
            return scripts + "/avrun";
        }
        final String jar = toolsJar();
        return jar != null ? "java -jar " + jar + " avrun" : "avrun";
    }

    /**
     * The jar holding shmav when this JVM was started with {@code java -jar} on it, as it was typed
     * (HotSpot's {@code sun.java.command} is the jar's path and the arguments); null otherwise (another
     * program's jar, such as a test runner's, is not ours to name).
     */
    private static String toolsJar()
    {
        final String command = System.getProperty("sun.java.command", "");
        final int space = command.indexOf(' ');
        final String first = space < 0 ? command : command.substring(0, space);
        try
        {
            final Path ours = Path.of(CommandNames.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return first.endsWith(".jar") && Files.isRegularFile(ours) && Files.isSameFile(Path.of(first), ours) ?
                quoted(first) : null;
        }
        catch (final IOException | URISyntaxException | RuntimeException e)
        {
            return null; // no code source, or a path this file system cannot resolve: the bare name will do
        }
    }

    /** A path as a shell reads it back: quoted when it holds anything beyond the safe characters. */
    private static String quoted(final String path)
    {
        return path.matches("[A-Za-z0-9_./+=:@%-]+") ? path : "'" + path.replace("'", "'\\''") + "'";
    }
}
