package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmav.Addresses;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.cli.ShmavCli;
import org.shmav.shm.AvFileChannel;
import org.shmav.shm.AvFileDescriptor;

/**
 * The shmav CLI against real AV files: in this JVM through {@link ShmavCli#execute}, and through
 * scripts/shmav for {@code dump} (which needs the Chronicle flags the script sets). Exit codes are
 * those of the usage help.
 */
class ShmavCliIT
{
    private static final Duration WAIT = Duration.ofSeconds(60);

    private TestDir dir;
    private TestDir logs;

    /** What one CLI run printed and returned. */
    record Result(int code, String out, String err)
    {
    }

    @BeforeEach
    void createDirectories() throws IOException
    {
        dir = TestDir.inShm("shmav-cli-it-");
        logs = TestDir.inTmp("shmav-cli-it-logs-");
    }

    @AfterEach
    void removeDirectories() throws IOException
    {
        try (TestDir d = dir; TestDir l = logs)
        {
            // closing deletes both
        }
    }

    @Test
    void shouldCreateInsertListShowAndRemoveAnAv() throws IOException
    {
        final Result created = shmav("create", "job7", "--count", "8");
        assertEquals(0, created.code(), created.err());
        assertTrue(created.out().startsWith("created AV 'job7': table, in, capacity 8"), created.out());
        final Path input = addresses("# two ranks and a duplicate\n127.0.0.1:5000\n\nfi_sockaddr_in://10.0.0.2:5001\n127.0.0.1:5000\n");
        final Result inserted = shmav("insert", "job7", "--from", input.toString());
        assertEquals(0, inserted.code(), inserted.err());
        assertTrue(inserted.out().contains("AV 'job7': 2 inserted, 1 already present, 0 failed (of 3 addresses); " +
            "count now 2"), inserted.out());

        final Result ls = shmav("ls");
        assertEquals(0, ls.code(), ls.err());
        assertTrue(ls.out().matches("(?s)NAME +TYPE +FORMAT +CAPACITY +COUNT +LIVE +DEAD +SIZE +AGE\njob7 +table +in +8 +2 +0 +0 +\\d+ +\\d+s\n"),
            ls.out());
        final Result show = shmav("show", "job7");
        assertEquals(0, show.code(), show.err());
        assertTrue(show.out().matches("(?s).*\n0 +fi_sockaddr_in://127\\.0\\.0\\.1:5000 +- +2\n1 +fi_sockaddr_in://10\\.0\\.0\\.2:5001 +- +1\n"),
            show.out());
        final Result json = shmav("show", "job7", "--json");
        assertTrue(json.out().contains("\"address\": \"fi_sockaddr_in://10.0.0.2:5001\""), json.out());
        assertTrue(shmav("ls", "--json").out().contains("\"count\": 2"));

        final Result rm = shmav("rm", "job7");
        assertEquals(0, rm.code(), rm.err());
        assertEquals(List.of(), dir.names());
        assertEquals("no AVs in " + dir.path() + "\n", shmav("ls").out());
    }

    @Test
    void shouldRejectBadNamesAndLeaveFilesThatAreNotAvsAlone() throws Exception
    {
        for (final String bad : List.of("../escape", ".hidden", "", "a/b", "tab\there"))
        {
            assertEquals(5, shmav("show", bad).code(), "show '" + bad + "'");
            assertEquals(5, shmav("rm", bad).code(), "rm '" + bad + "'");
            assertEquals(5, shmav("create", bad, "--count", "4").code(), "create '" + bad + "'");
        }
        final Path notes = Files.writeString(dir.path().resolve("notes"), "not an AV, but 4096 bytes long\n".repeat(200));
        final byte[] before = Files.readAllBytes(notes);
        final Path fifo = dir.path().resolve("pipe");
        final Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertTrue(mkfifo.waitFor(30, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");

        final Result rmNotes = shmav("rm", "notes");
        assertEquals(4, rmNotes.code(), rmNotes.err());
        assertTrue(rmNotes.err().contains("bad magic"), rmNotes.err());
        assertEquals(4, shmav("rm", "pipe").code(), "a FIFO is refused, not opened (opening one would block)");
        assertEquals(4, shmav("insert", "notes", "--from", addresses("127.0.0.1:1\n").toString()).code());
        assertEquals(4, shmav("show", "notes").code());
        final Result gc = shmav("gc", "--grace", "0");
        assertEquals(0, gc.code(), gc.err());
        assertTrue(gc.out().contains("2 other files left alone"), gc.out());
        assertTrue(gc.out().contains("left      notes: not a shmav AV (") && gc.out().contains("bad magic"),
            "gc says why it left each file: " + gc.out());

        final Result ls = shmav("ls");
        assertTrue(ls.out().contains("(2 other files in " + dir.path() + " not shown"), ls.out());
        final Result all = shmav("ls", "--all");
        assertTrue(all.out().contains("notes  not an AV: file: bad magic"), all.out());
        assertTrue(all.out().contains("pipe   not an AV: file is not a regular file"), all.out());
        assertEquals(List.of("notes", "pipe"), dir.names());
        assertTrue(java.util.Arrays.equals(before, Files.readAllBytes(notes)), "a file that is not an AV is never written");
    }

    @Test
    void shouldGiveEachErrorItsExitCode() throws IOException
    {
        assertEquals(0, shmav("create", "full", "--count", "2", "--max-count", "2").code());
        assertEquals(3, shmav("show", "missing").code());
        assertEquals(3, shmav("rm", "missing").code());
        assertEquals(6, shmav("create", "full", "--count", "2").code());
        final Result badInput = shmav("insert", "full", "--from", addresses("127.0.0.1:1\nnot an address\n").toString());
        assertEquals(11, badInput.code());
        assertTrue(badInput.err().contains("line 2: 'not an address'"), badInput.err());
        assertTrue(shmav("show", "full").out().contains("no entries"), "nothing was inserted");
        final Result invalid = shmav("insert", "full", "--from", addresses("127.0.0.1:1\n0.0.0.0:2\n").toString());
        assertEquals(9, invalid.code(), "an invalid address, room left: " + invalid.err());
        assertTrue(invalid.out().contains("line 2: 0.0.0.0:2: failed: FI_EADDRNOTAVAIL"), invalid.out());
        final Result full = shmav("insert", "full", "--from",
            addresses("127.0.0.1:1\n0.0.0.0:2\n127.0.0.1:3\n127.0.0.1:4\n").toString());
        assertEquals(10, full.code(), "the AV is full: " + full.err());
        assertTrue(full.out().contains("line 2: 0.0.0.0:2: failed: FI_EADDRNOTAVAIL"), full.out());
        assertTrue(full.out().contains("line 4: 127.0.0.1:4: failed: FI_ENOSPC"), full.out());
        assertTrue(full.err().startsWith("shmav insert: AV 'full' is full (it holds 2 entries and may not grow " +
            "further): remove entries it no longer needs (shmav remove full ADDR --dir " + dir.path() + ")"), full.err());
        assertEquals(3, shmav("insert", "full", "--from", dir.path().resolve("no-such-file").toString()).code());
        assertEquals(3, ShmavCli.execute(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()),
            "--dir", dir.path().resolve("no-such-dir").toString(), "ls"));
        assertEquals(2, shmav("frobnicate").code());
        assertEquals(2, shmav("create", "x", "--count", "4", "--type", "tree").code());
        assertEquals(2, shmav("create", "x").code(), "--count is required");
    }

    @Test
    void shouldRefuseToRemoveAnAvThatALiveProcessHasOpenUnlessForced() throws IOException
    {
        try (Domain domain = Domain.open(DomainAttr.builder().shmDirectory(dir.path()).build());
             AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).count(4).name("busy").build()))
        {
            final Result refused = shmav("rm", "busy");
            assertEquals(7, refused.code(), refused.err());
            assertTrue(refused.err().contains("open in live process(es) " + ProcessHandle.current().pid()), refused.err());
            assertEquals(List.of(".shmav-lock.busy", "busy"), dir.names());
            assertEquals(0, shmav("rm", "busy", "--force").code());
            assertEquals(List.of(), dir.names());
        }
    }

    @Test
    void shouldRemoveAnAvLeftByAKilledProcessAndRepairOneStillInUse() throws Exception
    {
        try (Domain domain = Domain.open(DomainAttr.builder().shmDirectory(dir.path()).build());
             AddressVector shared = domain.openAv(AvAttr.builder().type(AvType.TABLE).count(8).name("shared").build()))
        {
            try (ChildJvm writer = ChildJvm.start(StaleWriter.class, logs.path(), dir.path().toString(), "stale", "shared"))
            {
                writer.awaitOutput("ready", WAIT);
                writer.kill(); // SIGKILL: no close, no detach
            }
            final Result ls = shmav("ls");
            assertTrue(ls.out().matches("(?s).*\nshared +table +in +8 +1 +1 +1 .*"), ls.out());
            assertTrue(ls.out().matches("(?s).*\nstale +table +in +8 +3 +0 +1 .*"), ls.out());

            final Result dryRun = shmav("gc", "--dry-run");
            assertTrue(dryRun.out().contains("would repair stale: 1 dead attacher"), "within the grace period: " + dryRun.out());
            assertTrue(dryRun.out().contains("would repair shared: 1 dead attacher"), dryRun.out());
            assertTrue(shmav("ls").out().matches("(?s).*\nstale +table +in +8 +3 +0 +1 .*"), "a dry run changes nothing");

            final Result gc = shmav("gc", "--grace", "0");
            assertEquals(0, gc.code(), gc.err());
            assertTrue(gc.out().contains("removed   stale: no live process has it open (1 dead attacher)"), gc.out());
            assertTrue(gc.out().contains("repaired  shared: 1 dead attacher, 0 abandoned slots"), gc.out());
            assertTrue(gc.out().contains("gc: 1 AV removed, 1 repaired, 0 kept"), gc.out());
            assertEquals(List.of(".shmav-lock.shared", "shared"), dir.names());
            assertTrue(shmav("show", "shared").out().contains("attachers: 1 live, 0 dead"));
            assertEquals(1, shared.count(), "the dead writer's entry stays: it was published");
            shared.insert(Addresses.toSockaddr(new InetSocketAddress("127.0.0.1", 7101)), 1, null, 0, null);
            assertEquals(2, shared.count());
        }
    }

    @Test
    void shouldRemoveTheTemporaryFileOfACreatorThatDiedAndNothingElse() throws Exception
    {
        final Process gone = new ProcessBuilder("true").start();
        assertTrue(gone.waitFor(30, TimeUnit.SECONDS) && gone.exitValue() == 0, "true");
        final long deadPid = gone.pid();
        final long hourAgo = System.currentTimeMillis() - 3_600_000;
        // A creator killed while it allocated pages (all zeros), and one killed after writing the magic.
        final Path dead = oldFile(".shmav-tmp.job." + deadPid + ".1a2b", new byte[4096], hourAgo);
        final byte[] header = new byte[4096];
        ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).putLong(0, AvFileDescriptor.MAGIC);
        final Path deadHeader = oldFile(".shmav-tmp.job2." + deadPid + ".1a2e", header, hourAgo);
        // Named like one, but not an AV being built: left alone, whatever its pid says.
        final Path imposter = oldFile(".shmav-tmp.notes." + deadPid + ".1a2f", "my notes".getBytes(StandardCharsets.UTF_8), hourAgo);
        // A live creator holds the creator lock byte: left alone, even with a pid that means nothing here.
        final Path live = oldFile(".shmav-tmp.job3." + deadPid + ".1a2c", new byte[4096], hourAgo);
        final Path foreign = Files.writeString(dir.path().resolve(".shmav-tmp.notes"), "not ours: no pid");
        final Path link = Files.createSymbolicLink(dir.path().resolve(".shmav-tmp.link." + deadPid + ".1"), foreign);
        // (through this JVM's one open file of it, as a creator in this JVM holds it: see AvFileChannel)
        final AvFileChannel creator = AvFileChannel.open(live, true);
        try
        {
            assertTrue(creator.locks().tryLock(AvFileDescriptor.CREATOR_LOCK_OFFSET));
            final Result young = shmav("gc");
            assertTrue(young.out().contains("removed   .shmav-tmp.job." + deadPid + ".1a2b: an AV being built by pid " + deadPid),
                "older than the 60 s grace period: " + young.out());
            assertFalse(Files.exists(dead) || Files.exists(deadHeader), young.out());
            final Path recent = Files.write(dir.path().resolve(".shmav-tmp.job." + deadPid + ".1a2d"), new byte[100]);
            final Result dryRun = shmav("gc", "--dry-run", "--grace", "0");
            assertTrue(dryRun.out().contains("would remove .shmav-tmp.job." + deadPid + ".1a2d"), dryRun.out());
            assertTrue(Files.exists(recent), "a dry run changes nothing");
            assertTrue(shmav("gc").out().contains("0 temporary files removed"), "within the grace period");
            final Result gc = shmav("gc", "--grace", "0");
            assertEquals(0, gc.code(), gc.err());
            assertTrue(gc.out().contains("; 1 temporary file removed"), gc.out());
            assertFalse(Files.exists(recent));
            assertTrue(Files.exists(live) && Files.exists(imposter) && Files.exists(foreign) && Files.isSymbolicLink(link),
                "a live creator's file, a file that is no AV, a name with no pid and a symbolic link stay");
        }
        finally
        {
            creator.close();
        }
    }

    private Path oldFile(final String name, final byte[] content, final long modifiedMillis) throws IOException
    {
        final Path file = Files.write(dir.path().resolve(name), content);
        Files.setLastModifiedTime(file, FileTime.fromMillis(modifiedMillis));
        return file;
    }

    @Test
    void shouldWatchInsertsAndRemovalsAsTheyHappen() throws Exception
    {
        assertEquals(0, shmav("create", "watched", "--count", "4").code());
        final StringWriter out = new StringWriter();
        final CompletableFuture<Integer> watch = CompletableFuture.supplyAsync(() -> ShmavCli.execute(
            new PrintWriter(out), new PrintWriter(new StringWriter()), "--dir", dir.path().toString(), "watch", "watched",
            "--duration", "5", "--interval", "20"));
        awaitText(out, "watching AV 'watched': 0 entries");
        try (Domain domain = Domain.open(DomainAttr.builder().shmDirectory(dir.path()).build());
             AddressVector av = domain.openAv(AvAttr.builder().name("watched").build()))
        {
            final long[] fiAddr = new long[1];
            av.insert(Addresses.toSockaddr(new InetSocketAddress("127.0.0.1", 6000)), 1, fiAddr, 0, null);
            awaitText(out, "+ fi_addr 0 fi_sockaddr_in://127.0.0.1:6000");
            av.remove(fiAddr, 1, 0);
            awaitText(out, "- fi_addr 0 fi_sockaddr_in://127.0.0.1:6000");
        }
        assertEquals(0, shmav("rm", "watched").code());
        awaitText(out, "AV 'watched' was removed");
        assertEquals(0, watch.get(10, TimeUnit.SECONDS));
    }

    @Test
    void shouldDumpAnnotatedHexThroughTheScript() throws Exception
    {
        assertEquals(0, shmav("create", "dumped", "--count", "4", "--type", "map").code());
        assertEquals(0, shmav("insert", "dumped", "--from", addresses("127.0.0.1:5000\n").toString()).code());
        try (ChildJvm dump = ChildJvm.script("shmav", Map.of(), logs.path(),
            List.of("--dir", dir.path().toString(), "dump", "dumped")))
        {
            assertEquals(0, dump.waitFor(WAIT), dump::stderr);
            final String out = dump.stdout();
            assertTrue(out.contains("00000000 73 68 6d 61 76 2d 61 76                         # magic \"shmav-av\""), out);
            assertTrue(out.contains("# avType 1 = FI_AV_MAP"), out);
            assertTrue(out.contains("# growthClaim: none, ticket 0, progress 0"), out);
            assertTrue(out.contains("# fileTop 81920 (unused since layout 7)"), out);
            assertTrue(out.contains("# state VALID, refs 1, generation 0"), out);
            assertTrue(out.contains("02 00 13 88 7f 00 00 01 00 00 00 00 00 00 00 00 # address fi_sockaddr_in://127.0.0.1:5000"), out);
            assertEquals("", dump.stderr().strip(), "no warnings from Chronicle with the script's flags");
        }
        try (ChildJvm missing = ChildJvm.script("shmav", Map.of(), logs.path(),
            List.of("--dir", dir.path().toString(), "dump", "missing")))
        {
            assertEquals(3, missing.waitFor(WAIT), missing::stderr);
        }
    }

    private Result shmav(final String... args)
    {
        final List<String> all = new ArrayList<>(List.of("--dir", dir.path().toString()));
        all.addAll(List.of(args));
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = ShmavCli.execute(new PrintWriter(out), new PrintWriter(err), all.toArray(String[]::new));
        return new Result(code, out.toString(), err.toString());
    }

    private Path addresses(final String lines) throws IOException
    {
        return Files.writeString(Files.createTempFile(logs.path(), "addresses-", ".txt"), lines);
    }

    private static void awaitText(final StringWriter out, final String text) throws InterruptedException
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (!out.toString().contains(text))
        {
            assertTrue(System.nanoTime() < deadline, () -> "no '" + text + "' within " + WAIT + ": " + out);
            Thread.sleep(10);
        }
        assertFalse(out.toString().isEmpty());
    }
}
