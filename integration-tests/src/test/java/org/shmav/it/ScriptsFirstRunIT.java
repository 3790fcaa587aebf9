package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * The first run of {@code scripts/shmav} in a fresh checkout, where it builds the tools jar with Maven
 * before running: it says what it builds and about how long it takes, and shows each build step as it
 * starts, instead of one line and a minute of silence. The checkout is a copy of the scripts and the
 * pom; {@code mvn} is a stand-in on PATH that prints Maven's step lines and puts the real tools jar in
 * place, so that no second Maven runs inside the build being verified.
 */
class ScriptsFirstRunIT
{
    private static final Duration WAIT = Duration.ofSeconds(90);

    @Test
    void shouldShowWhatItBuildsAndEachBuildStepOnFirstRun() throws Exception
    {
        try (TestDir checkout = TestDir.inTmp("scripts-first-run-it-"); TestDir avs = TestDir.inShm("scripts-first-run-it-"))
        {
            final Path root = checkout.path();
            Files.createDirectories(root.resolve("scripts/lib"));
            for (final String script : List.of("shmav", "avrun", "lib/classpath.sh"))
            {
                Files.copy(Path.of("scripts", script), root.resolve("scripts").resolve(script), StandardCopyOption.COPY_ATTRIBUTES);
            }
            Files.copy(Path.of("pom.xml"), root.resolve("pom.xml"));
            Files.createDirectories(root.resolve("src/main"));
            final Path bin = Files.createDirectories(root.resolve("bin"));
            final Path mvn = Files.writeString(bin.resolve("mvn"), "#!/bin/sh\n" +
                "echo '[INFO] Scanning for projects...'\n" +
                "echo '[INFO] --- maven-compiler-plugin:3.16.0:compile (default-compile) @ shmav ---'\n" +
                "echo '[INFO] Compiling 101 source files'\n" +
                "echo '[INFO] --- maven-shade-plugin:3.6.2:shade (tools-jar) @ shmav ---'\n" +
                "mkdir -p target && cp '" + CliAnswersIT.toolsJar().toAbsolutePath() + "' target/shmav-0.0.0-tools.jar\n" +
                "echo '[INFO] BUILD SUCCESS'\n");
            Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwx------"));

            final List<String> command = List.of(root.resolve("scripts/shmav").toString(), "ls", "--dir", avs.path().toString());
            try (ChildJvm first = ChildJvm.command(command, Map.of("SHMAV_CLASSPATH", "", "PATH", bin + ":" +
                System.getenv("PATH")), root.resolve("logs")))
            {
                assertEquals(0, first.waitFor(WAIT), first::output);
                final List<String> err = first.stderr().lines().toList();
                assertEquals(4, err.size(), first.stderr());
                assertTrue(err.get(0).startsWith("shmav: building the shmav tools jar with Maven (first use, or the " +
                    "sources changed): about a minute"), err.get(0));
                assertTrue(err.get(0).endsWith("the whole log goes to " + root.resolve("target/scripts-build.log")), err.get(0));
                assertEquals(List.of("shmav: build step maven-compiler-plugin:3.16.0:compile",
                    "shmav: build step maven-shade-plugin:3.6.2:shade"), err.subList(1, 3));
                assertTrue(err.get(3).matches("shmav: built in \\d+ s"), err.get(3));
                assertEquals("no AVs in " + avs.path() + "\n", first.stdout(), "then it runs the command");
                assertTrue(Files.readString(root.resolve("target/scripts-build.log")).contains("Compiling 101 source files"),
                    "the whole log is kept");
            }
        }
    }
}
