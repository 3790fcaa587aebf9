package org.shmav;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The README's quick-start code is this test's code: the test runs it and checks the README shows it unchanged. */
class ReadmeExampleTest
{
    private Path dir;

    @BeforeEach
    void setUp() throws Exception
    {
        dir = Files.createTempDirectory(Path.of("/dev/shm"), "readme");
        System.setProperty(DomainAttr.SHM_DIR_PROPERTY, dir.toString());
    }

    @AfterEach
    void tearDown() throws Exception
    {
        System.clearProperty(DomainAttr.SHM_DIR_PROPERTY);
        try (var files = Files.list(dir))
        {
            for (final Path p : files.toList())
            {
                Files.delete(p);
            }
        }
        Files.delete(dir);
    }

    @Test
    void shouldRunTheQuickStart()
    {
        final int inserted;
        final long[] fiAddr;
        final String text;
        final long seenByOtherOpener;
        // README-EXAMPLE-START
        try (Domain domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).build());
             AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).name("quickstart").count(64).build()))
        {
            ByteBuffer addrs = ByteBuffer.allocate(2 * AddrFormat.SOCKADDR_IN.addrlen());
            Addresses.put(addrs, new InetSocketAddress("10.0.0.1", 5000));
            Addresses.put(addrs, new InetSocketAddress("10.0.0.2", 5000));
            fiAddr = new long[2];
            inserted = av.insert(addrs.flip(), 2, fiAddr, 0, null);      // 2, fiAddr = {0, 1}

            ByteBuffer out = ByteBuffer.allocate(AddrFormat.SOCKADDR_IN.addrlen());
            av.lookup(fiAddr[1], out);
            text = av.straddr(out);                                       // "fi_sockaddr_in://10.0.0.2:5000"

            // Any process that opens "quickstart" sees the same entries at the same fi_addr values.
            try (AddressVector reader = domain.openAv(AvAttr.builder().name("quickstart").flags(Fi.READ).build()))
            {
                seenByOtherOpener = reader.reverseLookup(Addresses.toSockaddr(new InetSocketAddress("10.0.0.2", 5000)));
            }
            domain.unlinkAv("quickstart");                                // the file stays until unlinked
        }
        // README-EXAMPLE-END
        assertEquals(2, inserted);
        assertArrayEquals(new long[] {0, 1}, fiAddr);
        assertEquals("fi_sockaddr_in://10.0.0.2:5000", text);
        assertEquals(1, seenByOtherOpener);
        assertFalse(Files.exists(dir.resolve("quickstart")));
    }

    @Test
    void shouldShowTheQuickStartInTheReadme() throws Exception
    {
        final String fromTest = block(Files.readAllLines(Path.of("src/test/java/org/shmav/ReadmeExampleTest.java")),
            "// README-EXAMPLE-START", "// README-EXAMPLE-END");
        final String fromReadme = block(Files.readAllLines(Path.of("README.md")), "```java", "```");
        assertEquals(fromTest, fromReadme, "README.md's first java block must be ReadmeExampleTest's example");
    }

    private static String block(final List<String> lines, final String start, final String end)
    {
        final int from = lines.indexOf(lines.stream().filter(l -> l.trim().equals(start)).findFirst().orElseThrow()) + 1;
        int to = from;
        while (!lines.get(to).trim().equals(end))
        {
            to++;
        }
        return lines.subList(from, to).stream().map(String::strip).filter(l -> !l.isEmpty())
            .collect(Collectors.joining("\n"));
    }
}
