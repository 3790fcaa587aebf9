package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.Fi;
import org.shmav.cli.ShmavCli;

/**
 * An AV that only FI_READ readers have open is in use: a child JVM holds two AVs open read-only;
 * {@code shmav rm NAME} (without --force) refuses with exit code 7 and {@code shmav gc --grace 0}
 * keeps both. Once the reader has exited, rm removes one and gc the other.
 */
class LiveReaderIT
{
    /** The exit code of {@code shmav rm} for an AV open in a live process (cli.ExitCode.IN_USE). */
    private static final int IN_USE = 7;

    private Path dir;

    @AfterEach
    void tearDown() throws IOException
    {
        TestDir.delete(dir);
    }

    @Test
    void shouldKeepAnAvThatALiveReaderHasOpen() throws Exception
    {
        dir = TestDir.createInShm("robust");
        final Path avs = Files.createDirectories(dir.resolve("avs"));
        final Path stop = dir.resolve("stop");
        assertEquals(0, shmav(avs, "create", "read1", "--count", "8"));
        assertEquals(0, shmav(avs, "create", "read2", "--count", "8"));
        try (ChildJvm reader = ChildJvm.start(Reader.class, dir.resolve("out"), avs.toString(), stop.toString(), "read1", "read2"))
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!reader.stdout().contains("ready"))
            {
                if (!reader.isAlive() || System.nanoTime() - deadline > 0)
                {
                    reader.kill();
                    fail("the reader never opened the AVs:\n" + reader.output());
                }
                Thread.sleep(10);
            }
            final List<String> log = new ArrayList<>();
            assertEquals(IN_USE, shmav(avs, log, "rm", "read1"), "rm of an AV a live reader has open: " + log);
            assertEquals(0, shmav(avs, log, "gc", "--grace", "0"), log.toString());
            assertTrue(Files.exists(avs.resolve("read1")) && Files.exists(avs.resolve("read2")),
                "rm or gc removed an AV a live reader has open: " + log);
            assertTrue(log.get(1).contains("kept      read1: open in FI_READ readers"), "gc's reason: " + log);
            System.out.println("LiveReaderIT: with the reader: " + log);

            Files.createFile(stop);
            assertEquals(0, reader.waitFor(Duration.ofSeconds(60)), reader.output());
        }
        final List<String> log = new ArrayList<>();
        assertEquals(0, shmav(avs, log, "rm", "read1"), log.toString());
        assertEquals(0, shmav(avs, log, "gc", "--grace", "0"), log.toString());
        assertFalse(Files.exists(avs.resolve("read1")) || Files.exists(avs.resolve("read2")),
            "rm and gc must remove AVs nobody has open: " + log);
        System.out.println("LiveReaderIT: after the reader: " + log);
    }

    private static int shmav(final Path avs, final String... args)
    {
        return shmav(avs, new ArrayList<>(), args);
    }

    /** Runs the CLI in this JVM; appends what it printed and its exit code to {@code log}. */
    private static int shmav(final Path avs, final List<String> log, final String... args)
    {
        final StringWriter out = new StringWriter();
        final List<String> all = new ArrayList<>(List.of("--dir", avs.toString()));
        all.addAll(List.of(args));
        final int code = ShmavCli.execute(new PrintWriter(out), new PrintWriter(out), all.toArray(String[]::new));
        log.add(String.join(" ", args) + " -> " + code + ": " + out.toString().trim().replace('\n', ';'));
        return code;
    }

    /** Child: opens the AVs {@code args[2..]} of directory {@code args[0]} with FI_READ, prints "ready", waits for file {@code args[1]}. */
    public static final class Reader
    {
        public static void main(final String[] args) throws Exception
        {
            final List<AddressVector> avs = new ArrayList<>();
            try (Domain d = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(Path.of(args[0])).build()))
            {
                for (int i = 2; i < args.length; i++)
                {
                    avs.add(d.openAv(AvAttr.builder().name(args[i]).flags(Fi.READ).build()));
                }
                System.out.println("ready");
                System.out.flush();
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!Files.exists(Path.of(args[1])) && System.nanoTime() - deadline < 0)
                {
                    Thread.sleep(10);
                }
                for (final AddressVector av : avs)
                {
                    av.close();
                }
            }
        }
    }
}
