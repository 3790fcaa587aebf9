package org.shmav.it;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * A class-data sharing archive (AppCDS) of the test classpath, made once per test JVM, so that the helper JVMs
 * {@link ChildJvm#start} runs (a storm's 150 writers, readers, lock holders) start on classes already parsed
 * and verified: about a third less CPU each. Only for the test's own helpers, never for the product's commands
 * under test (scripts, avrun's ranks), whose JVM flags are part of what is tested.
 *
 * <p>On only where the build asks for it (system property {@value #PROPERTY}, set by failsafe). CDS archives
 * only classes from jars: the classpath's directories (target/test-classes, target/classes) are copied into
 * jars under {@code target/helper-cds} first, and a helper started on the archive gets that jar classpath.
 * Anything that goes wrong leaves helpers on the plain classpath, with one line on stderr.
 */
final class HelperArchive
{
    static final String PROPERTY = "shmav.it.helperArchive";
    private static final Path DIR = Path.of(System.getProperty("user.dir"), "target", "helper-cds");
    private static List<String> flags;

    private HelperArchive()
    {
    }

    /**
     * What follows {@code java} and its options for a helper on {@code classpath} run by the JDK at
     * {@code javaHome}: the archive and the jar classpath, or {@code -cp classpath} when the archive is off,
     * failed, or does not fit (another JDK, another classpath).
     */
    static List<String> classpathArgs(final Path javaHome, final String classpath)
    {
        final String own = System.getProperty("java.class.path");
        if (!classpath.equals(own) || !javaHome.equals(Path.of(System.getProperty("java.home"))))
        {
            return List.of("-cp", classpath);
        }
        final List<String> archived = archived(own);
        return archived.isEmpty() ? List.of("-cp", classpath) : archived;
    }

    private static synchronized List<String> archived(final String classpath)
    {
        if (flags == null)
        {
            flags = Boolean.getBoolean(PROPERTY) ? make(classpath) : List.of();
        }
        return flags;
    }

    private static List<String> make(final String classpath)
    {
        try
        {
            final long start = System.nanoTime();
            TestDir.delete(DIR);
            Files.createDirectories(DIR);
            final List<String> entries = new ArrayList<>();
            int n = 0;
            for (final String entry : classpath.split(java.io.File.pathSeparator))
            {
                final Path p = Path.of(entry);
                if (Files.isDirectory(p))
                {
                    final Path jar = DIR.resolve("dir" + n++ + ".jar");
                    jar(p, jar);
                    entries.add(jar.toString());
                }
                else
                {
                    entries.add(entry);
                }
            }
            final String jars = String.join(java.io.File.pathSeparator, entries);
            final Path archive = DIR.resolve("helpers.jsa");
            final Path java = Path.of(System.getProperty("java.home"), "bin", "java");
            try (ChildJvm dump = ChildJvm.command(List.of(java.toString(), "-XX:ArchiveClassesAtExit=" + archive,
                "-XX:-UsePerfData", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", jars,
                ArchiveTraining.class.getName(), DIR.toString()), Map.of(), DIR))
            {
                final int code = dump.waitFor(Duration.ofSeconds(120));
                if (code != 0 || !Files.isRegularFile(archive))
                {
                    System.err.println("HelperArchive: no archive (exit " + code + "), helpers start without one:\n" + dump.output());
                    return List.of();
                }
            }
            System.err.printf("HelperArchive: %s made in %.1f s%n", archive, (System.nanoTime() - start) / 1e9);
            return List.of("-XX:SharedArchiveFile=" + archive, "-cp", jars);
        }
        catch (final IOException | InterruptedException | RuntimeException e)
        {
            System.err.println("HelperArchive: no archive (" + e + "), helpers start without one");
            return List.of();
        }
    }

    /** Copies the class tree {@code dir} into the jar {@code jar}. */
    private static void jar(final Path dir, final Path jar) throws IOException
    {
        try (OutputStream out = Files.newOutputStream(jar);
             JarOutputStream zip = new JarOutputStream(out);
             Stream<Path> files = Files.walk(dir))
        {
            for (final Path f : (Iterable<Path>)files.filter(Files::isRegularFile)::iterator)
            {
                zip.putNextEntry(new JarEntry(dir.relativize(f).toString().replace(java.io.File.separatorChar, '/')));
                Files.copy(f, zip);
                zip.closeEntry();
            }
        }
    }
}
