package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Running child JVMs as other (non-root) users through {@code setpriv}: whether we can, and a classpath they can read. */
final class OtherUsers
{
    private OtherUsers()
    {
    }

    /** Whether this process can run a command as uid {@code uid} (root with setpriv). */
    static boolean canRunAs(final int uid)
    {
        try
        {
            final Process p = new ProcessBuilder("setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups",
                "--", "true").redirectErrorStream(true).start();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        }
        catch (final IOException | InterruptedException e)
        {
            return false;
        }
    }

    /** Runs {@code command} and asserts that it exits with 0 within 10 s. */
    static void run(final String... command) throws Exception
    {
        final Process p = new ProcessBuilder(command).inheritIO().start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, String.join(" ", command));
    }

    /** Copies this JVM's classpath where other users can read it (~/.m2 usually is not), returns the new one. */
    static String copyClasspath(final Path to) throws Exception
    {
        final List<String> entries = new ArrayList<>();
        int n = 0;
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator))
        {
            final Path from = Path.of(entry);
            if (!Files.exists(from))
            {
                continue;
            }
            final Path copy = to.resolve(Integer.toString(n++) + (Files.isDirectory(from) ? "" : ".jar"));
            try (Stream<Path> files = Files.walk(from))
            {
                for (final Path p : (Iterable<Path>)files::iterator)
                {
                    final Path target = Files.isDirectory(from) ? copy.resolve(from.relativize(p).toString()) : copy;
                    Files.createDirectories(Files.isDirectory(p) ? target : target.getParent());
                    if (!Files.isDirectory(p))
                    {
                        Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
            entries.add(copy.toString());
        }
        run("chmod", "-R", "a+rX", to.toString());
        return String.join(File.pathSeparator, entries);
    }
}
