package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;

/**
 * Hostile AV names: path traversal, absolute paths, empty, too long, NUL, control characters (C0, DEL,
 * C1), unpaired surrogates. Each is refused with FI_EINVAL by open (read-write and read-only) and
 * unlink, and nothing appears anywhere: the AV directory sits four levels deep in a scratch tree
 * that is compared before and after. Valid non-ASCII names are allowed and land exactly in the AV
 * directory. In a JVM whose file-name encoding is not UTF-8 (LC_ALL=C) a non-ASCII name is FI_EINVAL
 * too, never an InvalidPathException.
 */
class HostileNamesIT
{
    private static final String ESCAPE = "shmav-escape-" + ProcessHandle.current().pid();

    /** Names that must be refused. */
    static final List<String> HOSTILE = List.of(
        "", "/", "///", ".", "..", "./x", ".hidden", "../x", "../../x", "../../../../x", "a/../../etc/passwd",
        "/etc/passwd", "//etc/passwd", "/../x", "a/b", "a/", "../../../../../../../../../tmp/" + ESCAPE,
        "/tmp/" + ESCAPE, "x\0y", "\0", "\0/../x", "a\nb", "a\tb", "a\rb", "\u001b[31mred", "a\u007fb", "a\u0085b",
        "a\u009bb", "x\ud800", "\udc00y", "\ud800\ud800", "a".repeat(201), "\u20ac".repeat(67), "\u20ac".repeat(66) + "abc");

    /** Names that must work, and the file name each must get. */
    static final Map<String, String> ALLOWED = Map.of(
        "job7", "job7",
        "a b", "a_b",
        "/leading", "leading",
        "\u00fcn\u00ef-\u65e5\u672c-\ud83d\ude80", "\u00fcn\u00ef-\u65e5\u672c-\ud83d\ude80",
        "\\..\\x", "\\..\\x",
        "a..b", "a..b",
        "-rf *?[]", "-rf_*?[]",
        "\u202eevil", "\u202eevil",
        "a".repeat(200), "a".repeat(200),
        "\u20ac".repeat(66) + "ab", "\u20ac".repeat(66) + "ab");

    private Path base;
    private Path avDir;
    private Domain domain;

    @BeforeEach
    void setUp() throws IOException
    {
        base = TestDir.createInShm("robust");
        avDir = Files.createDirectories(base.resolve("l1/l2/l3/avs"));
        Files.writeString(base.resolve("l1/sentinel"), "keep");
        domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(avDir).build());
    }

    @AfterEach
    void tearDown() throws IOException
    {
        domain.close();
        TestDir.delete(base);
    }

    @Test
    void shouldRefuseHostileNamesAndCreateNothingAnywhere() throws IOException
    {
        final TreeSet<String> before = tree(base);
        final FileTime passwd = Files.getLastModifiedTime(Path.of("/etc/passwd"));
        int refused = 0;
        for (final String name : HOSTILE)
        {
            for (final long flags : new long[] {0, Fi.READ})
            {
                final FabricException e = assertThrows(FabricException.class,
                    () -> domain.openAv(AvAttr.builder().name(name).count(4).flags(flags).build()).close(),
                    "open of " + printable(name));
                assertEquals(FiErrno.EINVAL, e.errno(), printable(name) + ": " + e.getMessage());
                refused++;
            }
            final FabricException e = assertThrows(FabricException.class, () -> domain.unlinkAv(name), "unlink " + printable(name));
            assertEquals(FiErrno.EINVAL, e.errno(), printable(name) + ": " + e.getMessage());
            refused++;
        }
        assertEquals(before, tree(base), "something was created or removed in the scratch tree");
        assertFalse(Files.exists(Path.of("/tmp", ESCAPE), LinkOption.NOFOLLOW_LINKS));
        assertFalse(Files.exists(Path.of("/dev/shm", ESCAPE), LinkOption.NOFOLLOW_LINKS));
        assertEquals(passwd, Files.getLastModifiedTime(Path.of("/etc/passwd")));
        System.out.println("HostileNamesIT: " + HOSTILE.size() + " hostile names, " + refused + " calls refused with FI_EINVAL");
    }

    @Test
    void shouldCreateAllowedNamesExactlyInTheAvDirectory() throws IOException
    {
        for (final Map.Entry<String, String> e : ALLOWED.entrySet())
        {
            try (AddressVector av = domain.openAv(AvAttr.builder().name(e.getKey()).count(4).build()))
            {
                assertEquals(1, av.insert(FuzzRunner.inet(1), 1, null, 0, null));
            }
            final Path file = avDir.resolve(e.getValue());
            assertTrue(Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS), printable(e.getKey()) + " -> " + file);
            try (Stream<Path> files = Files.list(avDir))
            {
                assertEquals(List.of(file, file.resolveSibling(".shmav-lock." + e.getValue())),
                    files.sorted(java.util.Comparator.comparing((Path p) -> p.getFileName().toString().startsWith(".")))
                        .toList(), "only the AV's file and its lock file, no temporary file left");
            }
            try (AddressVector av = domain.openAv(AvAttr.builder().name(e.getKey()).flags(Fi.READ).build()))
            {
                assertEquals(1, av.count());
            }
            assertTrue(domain.unlinkAv(e.getKey()));
            assertFalse(Files.exists(file, LinkOption.NOFOLLOW_LINKS));
        }
        assertEquals(new TreeSet<>(List.of("l1", "l1/l2", "l1/l2/l3", "l1/l2/l3/avs", "l1/sentinel")), tree(base));
    }

    @Test
    void shouldRefuseNonAsciiNamesWhereTheFileNameEncodingIsNotUtf8() throws Exception
    {
        try (ChildJvm child = ChildJvm.start(List.of(), System.getProperty("java.class.path"),
            Map.of("LC_ALL", "C", "LANG", "C"), NameProbe.class, base.resolve("out"), avDir.toString(),
            "\u00fcn\u00ef-\u65e5\u672c"))
        {
            assertEquals(0, child.waitFor(Duration.ofSeconds(60)), child.output());
            final String out = child.output();
            assertTrue(out.contains("RESULT errno=" + FiErrno.EINVAL) || out.contains("RESULT ok UTF-8"), out);
            System.out.println("HostileNamesIT: LC_ALL=C child: " + out.lines().filter(l -> l.startsWith("RESULT")).findFirst().orElse(out));
        }
        try (Stream<Path> files = Files.list(avDir))
        {
            assertEquals(List.of(), files.toList());
        }
    }

    /** Child: opens the AV named {@code args[1]} in {@code args[0]} and prints the outcome. */
    public static final class NameProbe
    {
        public static void main(final String[] args)
        {
            final String encoding = System.getProperty("sun.jnu.encoding");
            try (Domain d = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(Path.of(args[0])).build()))
            {
                try (AddressVector av = d.openAv(AvAttr.builder().name(args[1]).count(4).build()))
                {
                    System.out.println("RESULT ok " + encoding + " count=" + av.count());
                    d.unlinkAv(args[1]);
                }
                catch (final FabricException e)
                {
                    System.out.println("RESULT errno=" + e.errno() + " encoding=" + encoding + " " + e.getMessage());
                }
            }
        }
    }

    /** Every path under {@code root}, relative, as text. */
    static TreeSet<String> tree(final Path root) throws IOException
    {
        try (Stream<Path> files = Files.walk(root))
        {
            final TreeSet<String> out = new TreeSet<>();
            files.filter(p -> !p.equals(root) && !p.startsWith(root.resolve("out"))).forEach(p -> out.add(root.relativize(p).toString()));
            return out;
        }
    }

    static String printable(final String s)
    {
        final StringBuilder b = new StringBuilder("'");
        for (final char c : s.toCharArray())
        {
            b.append(c < 0x20 || (c >= 0x7F && c < 0xA0) || Character.isSurrogate(c) ? String.format("\\u%04x", (int)c) : String.valueOf(c));
        }
        return b.append("'").toString();
    }
}
