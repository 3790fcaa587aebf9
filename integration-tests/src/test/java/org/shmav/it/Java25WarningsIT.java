package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * shmav's own tools on Java 25 print no JVM warning: {@code scripts/shmav} and {@code scripts/avrun} (and the
 * ranks avrun starts), and the tools jar run with {@code java -jar} (its manifest's {@code Enable-Native-Access}).
 * Java 24+ warns once per JVM when JNA loads its native part without native access granted, which every lock
 * of an AV does. Runs on Temurin 25 ({@code -Dshmav.it.java25=HOME}, default {@value #JAVA25_DEFAULT}): skipped
 * without it, failing so under CI's flag (area JDK25).
 */
class Java25WarningsIT
{
    private static final String JAVA25_DEFAULT = "/usr/lib/jvm/temurin-25-jdk-amd64";
    private static final Duration WAIT = Duration.ofSeconds(120);

    private Path home;

    @BeforeEach
    void requireJava25()
    {
        home = Path.of(System.getProperty("shmav.it.java25", JAVA25_DEFAULT));
        Require.that("JDK25", Files.isExecutable(home.resolve("bin").resolve("java")), "no Java 25 JDK at " + home +
            " (set -Dshmav.it.java25=HOME): the tools are not checked for Java 24+ warnings here");
    }

    @Test
    void shouldRunTheScriptsWithoutAWarning() throws Exception
    {
        try (TestDir dir = TestDir.inShm("java25-it-"); TestDir logs = TestDir.inTmp("java25-it-logs-"))
        {
            final String d = dir.path().toString();
            assertTrue(script("shmav", logs, "--dir", d, "create", "j25", "--count", "4").contains("created AV 'j25'"));
            assertTrue(script("shmav", logs, "--dir", d, "ls").contains("j25"));
            assertTrue(script("shmav", logs, "--dir", d, "show", "j25").contains("j25"));
            assertTrue(script("shmav", logs, "--dir", d, "dump", "j25").contains("# magic \"shmav-av\""));
            assertTrue(script("shmav", logs, "--dir", d, "rm", "j25").contains("removed AV 'j25'"));
            assertTrue(script("avrun", logs, "-n", "2", "--dir", d, "--demo", "ring")
                .contains("[0] token came back with value 2 after 2 hops: ring OK"));
            assertEquals(List.of(), dir.names());
        }
    }

    @Test
    void shouldRunTheToolsJarWithoutAWarning() throws Exception
    {
        try (TestDir dir = TestDir.inShm("java25-jar-it-"); TestDir logs = TestDir.inTmp("java25-jar-it-logs-"))
        {
            final String d = dir.path().toString();
            assertTrue(jar(logs, "create", "j25", "--count", "4", "--dir", d).contains("created AV 'j25'"));
            assertTrue(jar(logs, "rm", "j25", "--dir", d).contains("removed AV 'j25'"));
            assertTrue(jar(logs, "avrun", "-n", "2", "--demo", "ring", "--dir", d)
                .contains("[0] token came back with value 2 after 2 hops: ring OK"));
        }
    }

    /** {@code scripts/NAME ARGS} on Java 25 (JAVA_HOME, the test classpath): its output, checked for warnings. */
    private String script(final String name, final TestDir logs, final String... args) throws Exception
    {
        try (ChildJvm run = ChildJvm.script(name, Map.of("JAVA_HOME", home.toString()), logs.path(), List.of(args)))
        {
            return checked(run, "scripts/" + name + " " + String.join(" ", args));
        }
    }

    /** {@code java -jar target/shmav-VERSION-tools.jar ARGS} on Java 25, no flags: the manifest's alone. */
    private String jar(final TestDir logs, final String... args) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of(home.resolve("bin").resolve("java").toString(), "-jar",
            toolsJar().toString()));
        command.addAll(List.of(args));
        try (ChildJvm run = ChildJvm.command(command, Map.of("CLASSPATH", ""), logs.path()))
        {
            return checked(run, "java -jar " + String.join(" ", args));
        }
    }

    private static String checked(final ChildJvm run, final String what) throws InterruptedException
    {
        assertEquals(0, run.waitFor(WAIT), () -> what + ": " + run.output());
        final String output = run.output();
        assertFalse(output.contains("WARNING"), () -> what + " on Java 25 printed a warning:\n" + output);
        return output;
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
