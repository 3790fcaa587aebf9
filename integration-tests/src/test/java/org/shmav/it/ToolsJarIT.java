package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * The executable jar that {@code mvn package} builds ({@code target/shmav-VERSION-tools.jar}), copied
 * out of the checkout and run with nothing but {@code java -jar}: avrun, and shmav commands including
 * {@code dump}, which needs Chronicle Bytes' flags from the jar's manifest. Runs in {@code verify},
 * after {@code package}.
 */
class ToolsJarIT
{
    private static final Duration WAIT = Duration.ofSeconds(90);

    @Test
    void shouldRunAvrunAndTheCliWithJavaJarAlone() throws Exception
    {
        try (TestDir dir = TestDir.inShm("tools-jar-it-"); TestDir elsewhere = TestDir.inTmp("tools-jar-it-"))
        {
            final Path jar = Files.copy(toolsJar(), elsewhere.path().resolve("shmav-tools.jar"));
            final Path logs = elsewhere.path().resolve("logs");
            final String d = dir.path().toString();
            assertTrue(run(jar, logs, "avrun", "-n", "2", "--demo", "ring", "--dir", d).contains("[0] token came back with " +
                "value 2 after 2 hops: ring OK"));
            assertTrue(run(jar, logs, "create", "jarav", "--count", "4", "--dir", d).contains("created AV 'jarav'"));
            assertTrue(run(jar, logs, "ls", "--dir", d).contains("jarav"));
            assertTrue(run(jar, logs, "dump", "jarav", "--dir", d).contains("# magic \"shmav-av\""));
            assertTrue(run(jar, logs, "rm", "jarav", "--dir", d).contains("removed AV 'jarav'"));
            assertTrue(run(jar, logs, "avrun", "--version").contains("avrun (shmav "));
            assertEquals(List.of(), dir.names());
        }
    }

    /** {@code java -jar JAR ARGS}, with an empty classpath variable and from another directory; its stdout. */
    private static String run(final Path jar, final Path logs, final String... args) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-jar", jar.toString()));
        command.addAll(List.of(args));
        try (ChildJvm java = ChildJvm.command(command, Map.of("CLASSPATH", ""), logs))
        {
            assertEquals(0, java.waitFor(WAIT), () -> String.join(" ", args) + ": " + java.stdout() + java.stderr());
            return java.stdout();
        }
    }

    private static Path toolsJar() throws IOException
    {
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(Path.of("target"), "shmav-*-tools.jar"))
        {
            for (final Path jar : jars)
            {
                return jar;
            }
        }
        throw new AssertionError("no target/shmav-*-tools.jar: run through mvn verify (package builds it)");
    }
}
