package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.Fi;

/**
 * What a new user sees from the real {@code scripts/shmav}, {@code scripts/avrun} and the tools jar
 * ({@code java -jar}): per-address answers of {@code insert}, {@code remove} of one entry, usage errors
 * of one line plus one line of help, and hints that name the command the user ran.
 */
class CliAnswersIT
{
    private static final Duration WAIT = Duration.ofSeconds(90);

    private TestDir dir;
    private TestDir logs;

    /** What one run printed and returned. */
    record Run(int code, String out, String err)
    {
        List<String> errLines()
        {
            return err.lines().toList();
        }
    }

    @BeforeEach
    void createDirectories() throws IOException
    {
        dir = TestDir.inShm("cli-answers-it-");
        logs = TestDir.inTmp("cli-answers-it-logs-");
    }

    @AfterEach
    void removeDirectories() throws IOException
    {
        dir.close();
        logs.close();
    }

    @Test
    void shouldSayPerAddressWhatInsertDidAndRemoveOneReference() throws Exception
    {
        assertEquals(0, script("shmav", "create", "av", "--count", "2", "--max-count", "2").code());
        final Run first = script("shmav", "insert", "av", "127.0.0.1:5000", "127.0.0.1:5000", "0.0.0.0:1");
        assertEquals(9, first.code(), first.err());
        assertEquals(List.of("127.0.0.1:5000: inserted at fi_addr 0",
            "127.0.0.1:5000: already present at fi_addr 0, refs 2 (one more reference)",
            "0.0.0.0:1: failed: FI_EADDRNOTAVAIL (Cannot assign requested address)",
            "AV 'av': 1 inserted, 1 already present, 1 failed (of 3 addresses); count now 1"), first.out().lines().toList());

        // an address already present is not "inserted": it takes a reference, and the CLI says so
        final Path again = Files.writeString(logs.path().resolve("again.txt"), "127.0.0.1:5000\n");
        final Run present = script("shmav", "insert", "av", "--from", again.toString());
        assertEquals(0, present.code(), present.err());
        assertTrue(present.out().startsWith("line 1: 127.0.0.1:5000: already present at fi_addr 0, refs 3 (one more " +
            "reference)\n"), present.out());

        final Run full = script("shmav", "insert", "av", "10.0.0.1:1", "10.0.0.2:1");
        assertEquals(10, full.code(), full.err());
        assertTrue(full.out().contains("10.0.0.2:1: failed: FI_ENOSPC"), full.out());
        assertTrue(full.err().contains("remove entries it no longer needs (" + scripts() + "/shmav remove av ADDR --dir " +
            dir.path() + ")"), full.err());
        assertFalse(full.err().contains(" rm "), "a full AV is no reason to delete it: " + full.err());

        final Run oneRef = script("shmav", "remove", "av", "127.0.0.1:5000");
        assertEquals(0, oneRef.code(), oneRef.err());
        assertEquals("removed one reference of fi_sockaddr_in://127.0.0.1:5000 at fi_addr 0 from 'av'; 2 left, so the " +
            "entry stays\n", oneRef.out());
        final Run last = script("shmav", "remove", "av", "--fi-addr", "1");
        assertEquals(0, last.code(), last.err());
        assertEquals("removed fi_sockaddr_in://10.0.0.1:1 at fi_addr 1 from 'av' (it was its last reference); count " +
            "now 1\n", last.out());
        final Run gone = script("shmav", "remove", "av", "--fi-addr", "1");
        assertEquals(3, gone.code(), gone.err());
        assertTrue(gone.err().startsWith("shmav remove: no entry at fi_addr 1 of 'av'; nothing was removed"), gone.err());
        assertEquals(3, script("shmav", "remove", "av", "10.9.9.9:1").code(), "an address the AV does not hold");

        try (Domain domain = Domain.open(DomainAttr.builder().shmDirectory(dir.path()).build());
             AddressVector av = domain.openAv(AvAttr.builder().name("av").flags(Fi.READ).build()))
        {
            assertEquals(1, av.count());
            assertEquals(0, av.findFiAddr(new InetSocketAddress("127.0.0.1", 5000)).orElse(-1));
            assertTrue(av.findFiAddr(new InetSocketAddress("10.0.0.1", 1)).isEmpty());
        }
    }

    @Test
    void shouldAnswerAUsageErrorWithTheErrorAndOneLineOfHelpNamingTheScript() throws Exception
    {
        final Run option = script("shmav", "ls", "--long");
        assertEquals(2, option.code());
        assertEquals(List.of("shmav ls: Unknown option: '--long'", "Try '" + scripts() + "/shmav ls --help' for more " +
            "information."), option.errLines());
        final Run value = script("shmav", "create", "x", "--count", "-1");
        assertEquals(2, value.code());
        assertEquals(List.of("shmav create: count=-1 is negative: use 0 (the default) or a positive count", "Try '" + scripts() + "/shmav create " +
            "--help' for more information."), value.errLines());

        final Run avrun = script("avrun", "-n", "0", "--demo", "ring");
        assertEquals(2, avrun.code());
        assertEquals(List.of("avrun: -n must be at least 1, not 0", "Try '" + scripts() + "/avrun --help' for more " +
            "information."), avrun.errLines());
        assertEquals("", avrun.out());
    }

    @Test
    void shouldNameTheJarInTheHintsWhenRunFromTheJar() throws Exception
    {
        final Path jar = toolsJar();
        final String asRun = "java -jar " + jar;
        final Run avrun = jar(jar, "avrun", "--demo", "ring");
        assertEquals(2, avrun.code());
        assertEquals(List.of("avrun: Missing required option: '--np=N'", "Try '" + asRun + " avrun --help' for more " +
            "information."), avrun.errLines());
        final Run ls = jar(jar, "ls", "--long");
        assertEquals(List.of("shmav ls: Unknown option: '--long'", "Try '" + asRun + " ls --help' for more information."),
            ls.errLines());

        final Run kept = jar(jar, "avrun", "-n", "1", "--name", "kept", "--keep", "--dir", dir.path().toString(), "--",
            "true");
        assertEquals(0, kept.code(), kept.err());
        assertTrue(kept.err().contains("(" + asRun + " show kept --dir " + dir.path() + "; " + asRun + " rm kept --dir " +
            dir.path() + ")"), kept.err());
        assertFalse(kept.err().contains("scripts/"), kept.err());
        final Run exists = jar(jar, "create", "kept", "--count", "2", "--dir", dir.path().toString());
        assertEquals(6, exists.code());
        assertTrue(exists.err().contains("(" + asRun + " show kept --dir " + dir.path() + " shows it)"), exists.err());
    }

    @Test
    void shouldCreateAMissingShmavDirOnCreateAndNameItElsewhere() throws Exception
    {
        final Path missing = dir.path().resolve("job").resolve("avs");
        final Run ls = scriptWith(Map.of("SHMAV_DIR", missing.toString()), "ls");
        assertEquals(3, ls.code(), ls.err());
        assertEquals(List.of("shmav ls: directory " + missing + " (from $SHMAV_DIR) does not exist: '" + scripts() +
            "/shmav create NAME --count N' makes it (mode 0700), or create it with: mkdir -p -m 0700 " + missing),
            ls.errLines());

        final Run created = scriptWith(Map.of("SHMAV_DIR", missing.toString()), "create", "first", "--count", "2");
        assertEquals(0, created.code(), created.err());
        assertEquals("shmav create: created directory " + missing + " (mode 0700; from $SHMAV_DIR)\n", created.err());
        assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(
            Files.getPosixFilePermissions(missing)));
        assertTrue(Files.isRegularFile(missing.resolve("first")), created.out());
        assertEquals("", scriptWith(Map.of("SHMAV_DIR", missing.toString()), "create", "second", "--count", "2").err(),
            "an existing directory is used as it is");
    }

    /** The scripts' directory as the tests run them (ChildJvm.script: an absolute path). */
    private static String scripts()
    {
        return Path.of("scripts").toAbsolutePath().toString();
    }

    /** {@code scripts/NAME --dir DIR ARGS} (shmav) or {@code scripts/avrun ARGS}, with the test classpath. */
    private Run script(final String name, final String... args) throws Exception
    {
        final List<String> all = new ArrayList<>();
        if (name.equals("shmav"))
        {
            all.addAll(List.of("--dir", dir.path().toString()));
        }
        all.addAll(List.of(args));
        try (ChildJvm child = ChildJvm.script(name, Map.of(), logs.path(), all))
        {
            final int code = child.waitFor(WAIT);
            return new Run(code, child.stdout(), child.stderr());
        }
    }

    /** {@code scripts/shmav ARGS} with extra environment variables and no --dir. */
    private Run scriptWith(final Map<String, String> env, final String... args) throws Exception
    {
        try (ChildJvm child = ChildJvm.script("shmav", env, logs.path(), List.of(args)))
        {
            final int code = child.waitFor(WAIT);
            return new Run(code, child.stdout(), child.stderr());
        }
    }

    private Run jar(final Path jar, final String... args) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
            .toString(), "-jar", jar.toString()));
        command.addAll(List.of(args));
        try (ChildJvm child = ChildJvm.command(command, Map.of("CLASSPATH", ""), logs.path()))
        {
            final int code = child.waitFor(WAIT);
            return new Run(code, child.stdout(), child.stderr());
        }
    }

    static Path toolsJar() throws IOException
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
