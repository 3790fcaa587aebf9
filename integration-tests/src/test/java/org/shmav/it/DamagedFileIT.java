package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * An AV file truncated or overwritten (by the same user, with truncate and cp) under two live JVMs:
 * every later call on a handle of it fails with FI_EIO saying what was found, and the JVMs and their
 * handles of other AVs go on (before, calls threw InternalError, and an atomic update on a missing page
 * could kill the JVM with SIGBUS).
 */
class DamagedFileIT
{
    private static final Duration WAIT = Duration.ofSeconds(90);

    private TestDir dir;
    private TestDir logs;
    private Domain domain;

    @BeforeEach
    void open() throws IOException
    {
        dir = TestDir.inShm("damaged-file-it-");
        logs = TestDir.inTmp("damaged-file-it-logs-");
        domain = Domain.open(DomainAttr.builder().shmDirectory(dir.path()).build());
    }

    @AfterEach
    void close() throws IOException
    {
        domain.close();
        dir.close();
        logs.close();
    }

    @Test
    void shouldFailEveryCallOnATruncatedFileWithEioAndLetBothJvmsGoOn() throws Exception
    {
        try (AddressVector victim = domain.openAv(AvAttr.builder().name("victim").count(16).build());
             AddressVector bystander = domain.openAv(AvAttr.builder().name("bystander").count(16).build()))
        {
            victim.insert(new InetSocketAddress("10.0.0.1", 1));
            final String out = runOtherJvm(() -> run("truncate", "-s", "4096", dir.path().resolve("victim").toString()));
            for (final String call : List.of("insert", "lookup", "count", "insert again"))
            {
                assertTrue(out.contains("\n" + call + ": " + callName(call) + ": FI_EIO (Input/output error): the AV " +
                    "file " + dir.path().resolve("victim") + " is 4096 bytes, shorter than the "), out);
            }
            assertTrue(out.contains("bytes its header published: it was truncated under this process"), out);
            assertTrue(out.contains("close it. The processes that share the AV must close it too; then remove the file " +
                "(shmav rm victim --force) and create the AV again"), "says what to do: " + out);
            assertTrue(out.contains("bystander: /10.2.0.1:1\nalive\n"), out);

            // this JVM's handle: the same, for every call, and its other AV goes on. An insert first: it reads a
            // byte of every page before it writes. A lookup that met the damage first would read without that
            // probe (it stays fast), and compiled code may raise the fault asynchronously, after the call (README).
            final FabricException insert = assertEio(() -> victim.insert(new InetSocketAddress("10.0.0.2", 2)));
            assertTrue(insert.getMessage().contains("is 4096 bytes, shorter than the"), insert.getMessage());
            final FabricException lookup = assertEio(() -> victim.lookup(0, ByteBuffer.allocate(16)));
            assertTrue(lookup.getMessage().contains("is 4096 bytes, shorter than the"), lookup.getMessage());
            assertEio(victim::count);
            assertEio(() -> victim.findAddress(0));
            assertEquals(1, bystander.insert(new InetSocketAddress("10.3.0.1", 1)), "after the other JVM's entry");

            // what the message says to do: shmav rm --force removes it although it cannot be read
            final java.io.StringWriter rm = new java.io.StringWriter();
            assertEquals(0, org.shmav.cli.ShmavCli.execute(new java.io.PrintWriter(rm), new java.io.PrintWriter(rm),
                "--dir", dir.path().toString(), "rm", "victim", "--force"), rm::toString);
            assertTrue(rm.toString().contains("removed AV 'victim'") && rm.toString().contains("could not be read"),
                rm.toString());
            assertFalse(java.nio.file.Files.exists(dir.path().resolve("victim")));
        }
    }

    @Test
    void shouldNameACopyOfAnOlderStateWrittenOverTheFile() throws Exception
    {
        final Path file = dir.path().resolve("victim");
        final Path old = logs.path().resolve("victim.old");
        try (AddressVector victim = domain.openAv(AvAttr.builder().name("victim").count(16).build());
             AddressVector bystander = domain.openAv(AvAttr.builder().name("bystander").count(16).build()))
        {
            victim.insert(new InetSocketAddress("10.0.0.1", 1));
            run("cp", file.toString(), old.toString());
            victim.insert(new InetSocketAddress("10.0.0.2", 2));
            final String out = runOtherJvm(() -> run("cp", old.toString(), file.toString()));
            assertTrue(out.contains("\ninsert: fi_av_insert: FI_EIO (Input/output error): the AV file " + file + " went " +
                "back in time: its change counter is 1, lower than the 2 this handle saw at open: a copy of an older " +
                "state was written over it (cp)."), out);
            assertTrue(out.contains("\ncount: shmav_av_count: FI_EIO"), "every later call: " + out);
            assertTrue(out.contains("\nalive\n"), out);
        }
    }

    /** Starts the other JVM, damages the file once it is ready, lets it go on; returns its output. */
    private String runOtherJvm(final Damage damage) throws Exception
    {
        final Path go = logs.path().resolve("go");
        try (ChildJvm other = ChildJvm.start(DamagedFileRank.class, logs.path(), dir.path().toString(), "victim",
            "bystander", go.toString()))
        {
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (!other.stdout().contains("ready"))
            {
                assertTrue(other.isAlive() && System.nanoTime() < deadline, () -> "not ready: " + other.output());
                Thread.sleep(10);
            }
            damage.run();
            Files.createFile(go);
            assertEquals(0, other.waitFor(WAIT), other::output);
            return other.stdout();
        }
    }

    /** Damage done from outside both JVMs, as a user would. */
    private interface Damage
    {
        void run() throws Exception;
    }

    private static void run(final String... command) throws Exception
    {
        final ChildJvm.Outcome o = ChildJvm.run(List.of(command), WAIT);
        assertEquals(0, o.code(), o::toString);
    }

    private static String callName(final String call)
    {
        switch (call)
        {
            case "lookup": return "fi_av_lookup";
            case "count": return "shmav_av_count";
            default: return "fi_av_insert";
        }
    }

    private static FabricException assertEio(final org.junit.jupiter.api.function.Executable call)
    {
        final FabricException e = org.junit.jupiter.api.Assertions.assertThrows(FabricException.class, call);
        assertEquals(FiErrno.EIO, e.errno(), e.getMessage());
        return e;
    }
}
