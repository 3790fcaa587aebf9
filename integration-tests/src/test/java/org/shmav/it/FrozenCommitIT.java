package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.Addresses;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.cli.ShmavCli;
import org.shmav.slots.ClaimHolder;

/**
 * One truth for readers (shm-layout.md, Slot states, The readers' rule; Count): a writer frozen
 * (SIGSTOP) right after committing its insert, before its publish, while another JVM waits for the
 * count and then reads, as {@code Rank.awaitAll} and a lookup of the next rank do. The count, the
 * other JVM's awaitCount, lookup, reverse lookup and entries(), and {@code shmav show}, all agree that
 * the entry is there, and nobody waits for the frozen writer. Two places to freeze: after the commit's
 * journal update ({@code decided}: layout 7.0 counted it but its lookup failed, as the README's demo
 * did now and then), and between the commit's CAS and its journal update ({@code unjournaled}: 7.0
 * found it by lookup but counted 0, so awaitCount timed out). The writer is {@link ClaimHolder}; the
 * reader {@link CommittedEntryReader}.
 */
class FrozenCommitIT
{
    private static final int ADDRESS = 4343;

    private Path dir;

    @AfterEach
    void tearDown() throws Exception
    {
        TestDir.delete(dir);
    }

    @ParameterizedTest(name = "{0}, reader {1}")
    @CsvSource({"decided, write", "decided, read", "unjournaled, write", "unjournaled, read"})
    void shouldAgreeOnAnEntryWhoseWriterIsFrozenBetweenCommitAndPublish(final String mode, final String access) throws Exception
    {
        dir = TestDir.createInShm("shmav-it-");
        final Path gates = Files.createDirectories(dir.resolve("gates"));
        final String name = "frozen" + ProcessHandle.current().pid() + "x" + System.nanoTime() % 100_000;
        final String expected = Addresses.straddr(AddrFormat.SOCKADDR_IN, InetRange.of(ADDRESS, 1));
        try (Domain d = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build());
             AddressVector av = d.openAv(AvAttr.builder().name(name).type(AvType.TABLE).count(16).build());
             ChildJvm writer = ChildJvm.start(ClaimHolder.class, dir.resolve("writer"), dir.resolve(name).toString(),
                 Integer.toString(ADDRESS), mode, gates.toString()))
        {
            writer.awaitOutput("holding slot 0", Duration.ofSeconds(60));
            Freezer.stop(writer.pid());
            try
            {
                final ChildJvm reader = ChildJvm.start(CommittedEntryReader.class, dir.resolve("reader"), dir.toString(), name,
                    Integer.toString(ADDRESS), access);
                try (reader)
                {
                    assertEquals(0, reader.waitFor(Duration.ofSeconds(60)), reader.output());
                }
                final String out = reader.stdout();
                System.out.println("FrozenCommitIT " + mode + ", " + access + ": " + out.replace('\n', ';'));
                assertTrue(out.contains("count 1\n"), "the other JVM counts the committed entry\n" + out);
                assertTrue(out.contains("lookup " + expected + "\n"), "and finds it by lookup\n" + out);
                assertTrue(out.contains("reverse 0\n"), "and by reverse lookup\n" + out);
                assertTrue(out.contains("entries 1\n"), "and in entries()\n" + out);
                assertEquals(1, av.count(), "this JVM counts it too");
                final ByteBuffer addr = ByteBuffer.allocate(16);
                assertEquals(16, av.lookup(0, addr));
                assertEquals(expected, Addresses.straddr(AddrFormat.SOCKADDR_IN, addr));
                assertEquals(0, av.reverseLookup(InetRange.of(ADDRESS, 1)));
                assertEquals(1, av.entries().count());
                final String shown = show(name);
                assertTrue(shown.contains("\"count\":1") && shown.contains(expected), "shmav show agrees\n" + shown);
                av.remove(0); // a removal takes it as an entry (it publishes it first)
                assertEquals(0, av.count());
            }
            finally
            {
                Freezer.thaw(writer.pid());
            }
            Files.createFile(gates.resolve("go"));
            assertEquals(0, writer.waitFor(Duration.ofSeconds(60)), writer.output());
            assertTrue(writer.stdout().contains("published 0"),
                "the thawed writer's publish finds its entry published and removed\n" + writer.stdout());
            assertEquals(0, av.count(), "counted once, removed once");
        }
    }

    private String show(final String name)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = ShmavCli.execute(new PrintWriter(out), new PrintWriter(err), "--dir", dir.toString(), "show", name, "--json");
        assertTrue(code == 0, "shmav show: " + code + " " + err);
        return out.toString().replace(" ", "");
    }
}
