package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.Addresses;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;
import org.shmav.cli.ShmavCli;
import org.shmav.shm.AvFileDescriptor;

/**
 * The C reader shipped in src/main/c (shmav_av.h, shmav_read.c) against AVs written by Java: it is
 * compiled here with gcc, lists what Java's lookup gives entry by entry, refuses every corrupt file
 * Java refuses (with the same reason), and reads no torn address while Java writer JVMs churn.
 */
@Timeout(120)
class CReaderIT
{
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String[] CFLAGS = {"-std=c11", "-O2", "-Wall", "-Wextra", "-Werror"};

    private static Path reader;

    private TestDir dir;
    private TestDir logs;
    private final List<ChildJvm> children = new ArrayList<>();

    @BeforeAll
    static void compile() throws Exception
    {
        final Path base = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
        final Path source = base.resolve("src/main/c/shmav_read.c");
        final Path out = base.resolve("target/c/shmav_read");
        Files.createDirectories(out.getParent());
        final List<String> command = new ArrayList<>(List.of("gcc"));
        command.addAll(List.of(CFLAGS));
        command.addAll(List.of("-o", out.toString(), source.toString()));
        Require.tool("GCC", "gcc", "gcc (without it the C reader in src/main/c is NOT tested)");
        final ChildJvm.Outcome r = ChildJvm.run(command, out.getParent(), Duration.ofSeconds(60));
        assertEquals(0, r.code(), () -> "gcc " + String.join(" ", CFLAGS) + " failed:\n" + r.stdout() + r.stderr());
        reader = out;
    }

    @BeforeEach
    void setUp() throws IOException
    {
        dir = TestDir.inShm("creader");
        logs = TestDir.inTmp("creader-logs");
    }

    @AfterEach
    void tearDown() throws IOException
    {
        for (final ChildJvm c : children)
        {
            c.close();
        }
        dir.close();
        logs.close();
    }

    // ---------------------------------------------------------------- entries

    @Test
    void shouldListIpv4TableEntriesAsJavaLooksThemUp() throws Exception
    {
        try (Domain d = CReaderChurn.domain(dir.path(), AddrFormat.SOCKADDR_IN);
             AddressVector av = d.openAv(AvAttr.builder().name("v4").type(AvType.TABLE).count(64).build()))
        {
            final List<Long> f = new ArrayList<>();
            for (int i = 0; i < 20; i++)
            {
                f.add(insert(av, Addresses.toSockaddr(AvWorker.address(i * 37L))));
            }
            f.add(insert(av, Addresses.toSockaddr(inet("255.255.255.255", 65535))));
            f.add(insert(av, Addresses.toSockaddr(inet("1.2.3.4", 1))));
            insert(av, Addresses.toSockaddr(inet("1.2.3.4", 1))); // a second reference
            av.remove(new long[] {f.get(3), f.get(5), f.get(11), f.get(21)}, 4, 0); // 21: one reference left
            f.add(insert(av, Addresses.toSockaddr(inet("192.168.100.200", 5000)))); // reuses slot 3
            assertEquals(3L, f.get(f.size() - 1));
            assertEquals(20, compareWithJava(av, "v4"));
        }
    }

    /**
     * Layout 8.0: every provider format and opaque addresses, fixed and varying (up to 4096 bytes), listed
     * by the C reader as Java looks them up (ofi_straddr's text, hex for opaque), and found again by its
     * reverse lookup; the header's format and length are checked like Java's.
     */
    @Test
    void shouldListAndReverseLookUpEveryFormatAsJavaDoes() throws Exception
    {
        final Object[][] shapes = {
            {AddrFormat.SOCKADDR_IB, 0, 0}, {AddrFormat.ADDR_PSMX, 0, 0}, {AddrFormat.ADDR_PSMX2, 0, 0},
            {AddrFormat.ADDR_IB_UD, 0, 0}, {AddrFormat.ADDR_EFA, 0, 0}, {AddrFormat.ADDR_PSMX3, 0, 0},
            {AddrFormat.ADDR_OPX, 0, 0}, {AddrFormat.ADDR_CXI, 0, 0}, {AddrFormat.FORMAT_UNSPEC, 248, 0},
            {AddrFormat.FORMAT_UNSPEC, 0, 4096},
        };
        for (final Object[] shape : shapes)
        {
            final AddrFormat format = (AddrFormat)shape[0];
            final org.shmav.DomainAttr.Builder b = org.shmav.DomainAttr.builder().shmDirectory(dir.path()).addrFormat(format);
            if ((int)shape[1] > 0)
            {
                b.addrLen((int)shape[1]);
            }
            if ((int)shape[2] > 0)
            {
                b.maxAddrLen((int)shape[2]);
            }
            final String name = format.name().toLowerCase(java.util.Locale.ROOT) + shape[1] + "-" + shape[2];
            try (Domain d = Domain.open(b.build());
                 AddressVector av = d.openAv(AvAttr.builder().name(name).type(AvType.TABLE).count(8).build()))
            {
                final List<ByteBuffer> addrs = new ArrayList<>();
                for (int i = 0; i < 12; i++)
                {
                    final int len = av.varyingAddrLen() ? 1 + (i * 331) % av.addrLen() : av.addrLen();
                    final ByteBuffer a = ByteBuffer.allocate(len);
                    for (int k = 0; k < len; k++)
                    {
                        a.put(k, (byte)(k * 7 + i * 13 + 1));
                    }
                    a.put(0, (byte)(i + 1));
                    if (format == AddrFormat.SOCKADDR_IB)
                    {
                        a.put(0, (byte)27).put(1, (byte)0).put(20, (byte)(i + 1));
                    }
                    addrs.add(a);
                    assertEquals(i, insert(av, a), name + " address " + i);
                }
                av.remove(new long[] {3}, 1, 0);
                assertEquals(11, compareWithJava(av, name), name);
                try (CReaderSession s = CReaderSession.start(reader, dir.path().resolve(name), logs.path(), WAIT))
                {
                    s.line();
                    assertEquals("checked 11 mismatched 0", s.ask("check-reverse"), name);
                    assertEquals("reverse 7", s.ask("reverse " + hex(addrs.get(7))), name);
                    assertEquals("reverse none", s.ask("reverse " + hex(addrs.get(3))), name + ": removed");
                }
            }
        }
    }

    @Test
    void shouldListIpv6MapEntriesAsJavaLooksThemUp() throws Exception
    {
        try (Domain d = CReaderChurn.domain(dir.path(), AddrFormat.SOCKADDR_IN6);
             AddressVector av = d.openAv(AvAttr.builder().name("v6").type(AvType.MAP).count(40).mapAddr(0x10000).build()))
        {
            final String[][] cases = {
                {"0:0:0:0:0:0:0:1", "::1"},
                {"2001:db8:0:0:0:0:0:1", "2001:db8::1"},
                {"0:0:0:0:0:ffff:102:304", "::ffff:1.2.3.4"},
                {"0:0:0:0:0:0:102:304", "::1.2.3.4"},
                {"0:0:0:0:0:ffff:0:0", "::ffff:0.0.0.0"},
                {"1:0:0:1:0:0:0:1", "1:0:0:1::1"},
                {"1:0:0:1:1:0:0:1", "1::1:1:0:0:1"},
                {"1:0:1:0:1:0:1:0", "1:0:1:0:1:0:1:0"},
                {"2001:db8:85a3:0:0:8a2e:370:7334", "2001:db8:85a3::8a2e:370:7334"},
                {"1:0:0:0:0:0:0:0", "1::"},
                {"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"},
                {"fe80:0:0:0:0:0:0:1", "fe80::1"},
                {"0:0:0:1:0:0:0:0", "0:0:0:1::"},
            };
            final List<Long> f = new ArrayList<>();
            for (int i = 0; i < cases.length; i++)
            {
                f.add(insert(av, sockaddrIn6(cases[i][0], i == 0 ? 65535 : 1000 + i, i == 11 ? 3 : 0)));
            }
            for (long s = 1; s <= 10; s++)
            {
                f.add(insert(av, CReaderChurn.sockaddr(AddrFormat.SOCKADDR_IN6, s)));
            }
            av.remove(new long[] {f.get(1), f.get(14), f.get(22)}, 3, 0);
            f.add(insert(av, CReaderChurn.sockaddr(AddrFormat.SOCKADDR_IN6, 99)));
            assertEquals(0x10000 + 1, f.get(f.size() - 1));
            assertEquals(21, compareWithJava(av, "v6"));
            final Map<Long, String> c = readEntries("v6");
            for (int i = 0; i < cases.length; i++)
            {
                if (i != 1)
                {
                    assertEquals("fi_sockaddr_in6://[" + cases[i][1] + "]:" + (i == 0 ? 65535 : 1000 + i),
                        c.get(f.get(i)), "case " + cases[i][0]);
                }
            }
        }
    }

    @Test
    void shouldListStringEntriesOfTableAndMapAsJavaLooksThemUp() throws Exception
    {
        final String longest = "x".repeat(AddrFormat.MAX_STR_LEN - 1);
        final String[] strings = {"a", "hello world", "h\u00e9llo-\u00fcn\u00efc\u00f8d\u00e9 \u2713", longest,
            "fi://node-7:4711/p?q=1", CReaderChurn.string(1), CReaderChurn.string(2), "tab\u007eend"};
        for (final AvType type : List.of(AvType.TABLE, AvType.MAP))
        {
            final String name = "str-" + type;
            try (Domain d = CReaderChurn.domain(dir.path(), AddrFormat.ADDR_STR);
                 AddressVector av = d.openAv(AvAttr.builder().name(name).type(type).count(16).build()))
            {
                final long[] f = new long[strings.length];
                assertEquals(strings.length, av.insert(strings, f, 0, null));
                av.remove(new long[] {f[1], f[6]}, 2, 0);
                final long[] again = new long[1];
                av.insert(new String[] {"again"}, again, 0, null);
                assertEquals(f[1], again[0]);
                assertEquals(strings.length - 1, compareWithJava(av, name));
                final Map<Long, String> c = readEntries(name);
                assertEquals(longest, c.get(f[3]));
                assertEquals(strings[2], c.get(f[2]));
            }
        }
    }

    // ---------------------------------------------------------------- validation

    /** One corruption of a valid file: what to change, and the reason both readers must give. */
    private record Corruption(String what, Consumer<ByteBuffer> change, String reason)
    {
    }

    private static Consumer<ByteBuffer> putInt(final int offset, final int value)
    {
        return b -> b.putInt(offset, value);
    }

    private static Consumer<ByteBuffer> putLong(final int offset, final long value)
    {
        return b -> b.putLong(offset, value);
    }

    private static Consumer<ByteBuffer> addLong(final int offset, final long delta)
    {
        return b -> b.putLong(offset, b.getLong(offset) + delta);
    }

    /** A closed IPv4 TABLE AV "good" of capacity 8 with 3 entries, all counted in attacher entry 0; its bytes. */
    private byte[] goodFile() throws IOException
    {
        try (Domain d = CReaderChurn.domain(dir.path(), AddrFormat.SOCKADDR_IN);
             AddressVector av = d.openAv(AvAttr.builder().name("good").type(AvType.TABLE).count(8).build()))
        {
            for (int i = 0; i < 3; i++)
            {
                insert(av, Addresses.toSockaddr(AvWorker.address(i)));
            }
        }
        return Files.readAllBytes(dir.path().resolve("good"));
    }

    /** The change counter is the attachers' published + removed (shm-layout.md), never the growth claim at 192. */
    @Test
    void shouldSumTheChangeCounterFromTheAttachersNotTheGrowthClaim() throws Exception
    {
        final ByteBuffer claimed = ByteBuffer.wrap(goodFile().clone()).order(ByteOrder.LITTLE_ENDIAN);
        claimed.putLong(4096 + 56, 2).putLong(192, 0x7777L); // two removals; a growth claim standing
        Files.write(dir.path().resolve("claimed"), claimed.array());
        try (CReaderSession s = CReaderSession.start(reader, dir.path().resolve("claimed"), logs.path(), WAIT))
        {
            assertEquals("ready segments 1 capacity 8", s.line());
            assertEquals("changes 5", s.ask("changes"), "3 publishes and 2 removals in attacher entry 0");
        }
    }

    @Test
    void shouldCountModulo2To32AndClampTheHighWaterToTheAttachers() throws Exception
    {
        final byte[] good = goodFile();
        final int journal0 = 4096 + 8;
        final int journal1 = 4096 + 64 + 8;
        assertEquals(3L << 32, ByteBuffer.wrap(good).order(ByteOrder.LITTLE_ENDIAN).getLong(journal0));
        // Two attachers whose deltas each wrapped past 2^31 (-2147483647 and -2147483646 as i32): the true count is 3.
        final ByteBuffer wrapped = ByteBuffer.wrap(good.clone()).order(ByteOrder.LITTLE_ENDIAN);
        wrapped.putLong(journal0, 0x8000_0001L << 32).putLong(journal1, 0x8000_0002L << 32).putLong(320, 2);
        Files.write(dir.path().resolve("wrapped"), wrapped.array());
        final ChildJvm.Outcome w = runReader(dir.path().resolve("wrapped").toString());
        assertEquals(0, w.code(), w::toString);
        assertEquals(3, entries(w.stdout()).size(), w::toString);
        assertTrue(w.stdout().endsWith("\ncount 3\n"), w::toString);
        // attachersHighWater beyond attachersCapacity (1024): only the real entries are summed.
        final ByteBuffer high = ByteBuffer.wrap(good.clone()).order(ByteOrder.LITTLE_ENDIAN);
        high.putLong(320, 1L << 40);
        Files.write(dir.path().resolve("high"), high.array());
        final ChildJvm.Outcome h = runReader(dir.path().resolve("high").toString());
        assertEquals(0, h.code(), h::toString);
        assertTrue(h.stdout().endsWith("\ncount 3\n"), h::toString);
        // attachersHighWater with bit 63 set: negative as Java's long, so nothing is summed (count 0), in both.
        final ByteBuffer negativeHigh = ByteBuffer.wrap(good.clone()).order(ByteOrder.LITTLE_ENDIAN);
        negativeHigh.putLong(320, 1L << 63 | 1);
        Files.write(dir.path().resolve("neghigh"), negativeHigh.array());
        assertEquals(3, compareWithJava(null, "neghigh"));
        assertTrue(runReader(dir.path().resolve("neghigh").toString()).stdout().endsWith("\ncount 0\n"));
    }

    @Test
    void shouldClampANegativeCountAtZeroAsJavaDoes() throws Exception
    {
        final byte[] good = goodFile();
        final int journal0 = 4096 + 8;
        final int journal1 = 4096 + 64 + 8;
        // Deltas 3 and -5: the sum is -2 as an i32 (2^32 - 2 modulo 2^32), which both read as 0.
        final ByteBuffer negative = ByteBuffer.wrap(good.clone()).order(ByteOrder.LITTLE_ENDIAN);
        negative.putLong(journal1, -5L << 32).putLong(320, 2);
        assertBothCount("negative", negative, 0);
        // The sum 2^31 exactly (deltas 2^31 - 1 and 1): INT32_MIN as an i32, clamped to 0 too.
        final ByteBuffer min = ByteBuffer.wrap(good.clone()).order(ByteOrder.LITTLE_ENDIAN);
        min.putLong(journal0, 0x7FFF_FFFFL << 32).putLong(journal1, 1L << 32).putLong(320, 2);
        assertBothCount("min", min, 0);
        // The largest count, 2^31 - 1: not clamped.
        final ByteBuffer max = ByteBuffer.wrap(good.clone()).order(ByteOrder.LITTLE_ENDIAN);
        max.putLong(journal0, 0x7FFF_FFFEL << 32).putLong(journal1, 1L << 32).putLong(320, 2);
        assertBothCount("max", max, 2147483647);
    }

    /** Writes {@code image} as AV {@code name}: Java sees its 3 entries, and the C reader's count is {@code count}. */
    private void assertBothCount(final String name, final ByteBuffer image, final long count) throws Exception
    {
        Files.write(dir.path().resolve(name), image.array());
        assertEquals(3, compareWithJava(null, name));
        final ChildJvm.Outcome r = runReader(dir.path().resolve(name).toString());
        assertTrue(r.stdout().endsWith("\ncount " + count + "\n"), r::toString);
    }

    @Test
    void shouldRefuseEveryCorruptFileJavaRefusesForTheSameReason() throws Exception
    {
        final byte[] good = goodFile();
        final int seg = 512;
        final List<Corruption> cases = List.of(
            new Corruption("magic", b -> b.put(0, (byte)(b.get(0) ^ 1)), "bad magic"),
            new Corruption("layout 4.0 (an older shmav: one hash area per segment, rebuilt by stopping writers)",
                putInt(8, 4 << 16), "layout version 4.0 is not supported: app=8.0 file=4.0 (written by an older shmav"),
            new Corruption("layout 3.0 (an older shmav: every segment doubles)", putInt(8, 3 << 16),
                "layout version 3.0 is not supported: app=8.0 file=3.0 (written by an older shmav"),
            new Corruption("layout 2.0 (an older shmav)", putInt(8, 2 << 16),
                "layout version 2.0 is not supported: app=8.0 file=2.0 (written by an older shmav"),
            new Corruption("layout 1.1 (an older shmav)", putInt(8, 1 << 16 | 1),
                "layout version 1.1 is not supported: app=8.0 file=1.1 (written by an older shmav"),
            new Corruption("layout 5.0 (an older shmav: grows under a lock, each segment right after the last)",
                putInt(8, 5 << 16), "layout version 5.0 is not supported: app=8.0 file=5.0 (written by an older shmav"),
            new Corruption("layout 6.0 (an older shmav: waits on another writer's claim, knows no PUBLISHING or " +
                "CANCELLED, takes a new range over a frozen grower's)",
                putInt(8, 6 << 16), "layout version 6.0 is not supported: app=8.0 file=6.0 (written by an older shmav"),
            new Corruption("layout 7.0 (an older shmav: a committed slot is no entry to its readers, its count moves " +
                "at the journal store, a varying-length opaque AV is a fixed one to it)",
                putInt(8, 7 << 16), "layout version 7.0 is not supported: app=8.0 file=7.0 (written by an older shmav"),
            new Corruption("major version 9 (a newer shmav)", putInt(8, 9 << 16),
                "layout version 9.0 is not supported: app=8.0 file=9.0 (written by a newer shmav"),
            new Corruption("major version 0, minor 1", putInt(8, 1),
                "layout version 0.1 is not supported: app=8.0 file=0.1"),
            new Corruption("headerLength", putInt(12, 8192), "corrupt header: headerLength=8192"),
            new Corruption("indexState with bits no writer sets", putLong(384, 1L << 60),
                "corrupt header: indexState=" + (1L << 60)),
            new Corruption("indexState naming a target while idle", putLong(384, 1L | 1L << 35),
                "corrupt header: indexState=" + (1L | 1L << 35)),
            new Corruption("addrFormat FI_ADDR_GNI (no fixed layout)", putInt(16, 6), "corrupt header: addrFormat=6"),
            new Corruption("addrFormat 16 (unknown)", putInt(16, 16), "corrupt header: addrFormat=16"),
            new Corruption("addrFormat FI_ADDR_PSMX, of 8 bytes", putInt(16, 5), "corrupt header: addrLen=16"),
            new Corruption("addrFormat FI_SOCKADDR_IN6", putInt(16, 3), "corrupt header: addrLen=16"),
            new Corruption("addrLenVarying on FI_SOCKADDR_IN", putInt(132, 1), "corrupt header: addrLenVarying=1"),
            new Corruption("addrLenVarying 2", putInt(132, 2), "corrupt header: addrLenVarying=2"),
            new Corruption("FI_FORMAT_UNSPEC of 4097 bytes", b -> b.putInt(16, 0).putInt(20, 4097),
                "corrupt header: addrLen=4097"),
            new Corruption("FI_FORMAT_UNSPEC of 0 bytes", b -> b.putInt(16, 0).putInt(20, 0), "corrupt header: addrLen=0"),
            new Corruption("avType UNSPEC", putInt(24, 0), "corrupt header: avType=0"),
            new Corruption("avType 3", putInt(24, 3), "corrupt header: avType=3"),
            new Corruption("capacity 0", putLong(32, 0), "corrupt header: capacity=0"),
            new Corruption("capacity 2^28 + 1", putLong(32, (1L << 28) + 1), "corrupt header: capacity=268435457"),
            new Corruption("capacity 9", putLong(32, 9), "corrupt header: hashBuckets=16"),
            new Corruption("maxCapacity 7, below the capacity", putLong(144, 7), "corrupt header: maxCapacity=7"),
            new Corruption("maxCapacity 2^28 + 1", putLong(144, (1L << 28) + 1), "corrupt header: maxCapacity=268435457"),
            new Corruption("attachersCapacity 0", putInt(88, 0), "corrupt header: attachersCapacity=0"),
            new Corruption("attachersCapacity 65537", putInt(88, 65537), "corrupt header: attachersCapacity=65537"),
            new Corruption("attachersCapacity 2000", putInt(88, 2000), "corrupt header: authKeysOffset="),
            new Corruption("authKeySize 4097", putInt(84, 4097), "corrupt header: authKeySize=4097"),
            new Corruption("authKeySize -1", putInt(84, -1), "corrupt header: authKeySize=-1"),
            new Corruption("authKeysCapacity 65537", putInt(92, 65537), "corrupt header: authKeysCapacity=65537"),
            new Corruption("authKeysCapacity 10", putInt(92, 10), "corrupt header: hashOffset="),
            new Corruption("segmentCount 0", putInt(128, 0), "corrupt header: segmentCount=0"),
            new Corruption("segmentCount 33", putInt(128, 33), "corrupt header: segmentCount=33"),
            new Corruption("segmentCount -1", putInt(128, -1), "corrupt header: segmentCount=-1"),
            // a count no grower published: segment 1's table entry was never written
            new Corruption("segmentCount 2", putInt(128, 2), "corrupt header: segment[1].slotsOffset=0"),
            new Corruption("hashBuckets 48", putLong(120, 48), "corrupt header: hashBuckets=48"),
            // the four buckets per slot of layout 1.0 (the hash section would still fit its one page)
            new Corruption("hashBuckets 32", putLong(120, 32), "corrupt header: hashBuckets=32"),
            new Corruption("hashBuckets 8", putLong(120, 8), "corrupt header: hashBuckets=8"),
            new Corruption("addrLen", putInt(20, 17), "corrupt header: addrLen=17"),
            new Corruption("slotLength", putInt(28, 128), "corrupt header: slotLength=128"),
            new Corruption("attachersOffset", putLong(96, 8192), "corrupt header: attachersOffset=8192"),
            new Corruption("authKeysOffset", addLong(104, 4096), "corrupt header: authKeysOffset="),
            new Corruption("hashOffset", addLong(112, 4096), "corrupt header: hashOffset="),
            new Corruption("segment slotsOffset", addLong(seg, 4096), "corrupt header: segment[0].slotsOffset="),
            new Corruption("segment hashOffset", addLong(seg + 8, -4096), "corrupt header: segment[0].hashOffset="),
            new Corruption("fileLength", addLong(64, 4096), "corrupt header: fileLength="),
            new Corruption("mapAddrBase 0", putLong(40, 0), "corrupt header: mapAddrBase=0"),
            new Corruption("mapAddrBase 2^62 - 2^28 + 1 (fi_addr values would reach bit 62)",
                putLong(40, (1L << 62) - (1L << 28) + 1), "corrupt header: mapAddrBase=" + ((1L << 62) - (1L << 28) + 1)),
            new Corruption("mapAddrBase all ones", putLong(40, -1L), "corrupt header: mapAddrBase=-1"));
        int n = 0;
        for (final Corruption c : cases)
        {
            final ByteBuffer b = ByteBuffer.wrap(good.clone()).order(ByteOrder.LITTLE_ENDIAN);
            c.change.accept(b);
            assertBothRefuse("bad" + n++, b.array(), c.reason, c.what);
        }
        assertBothRefuse("short", new byte[100], "not a shmav AV", "a 100-byte file");
        assertBothRefuse("truncated", Arrays.copyOf(good, good.length - 4096), "but its header says " + good.length +
            ": truncated", "a file 4096 bytes short");
        Files.createSymbolicLink(dir.path().resolve("link"), dir.path().resolve("good"));
        assertBothRefuse("link", null, "symbolic link", "a symbolic link to a valid AV");
        Files.createDirectory(dir.path().resolve("adir"));
        assertBothRefuse("adir", null, "not a regular file", "a directory");
        final ChildJvm.Outcome missing = runReader("missing");
        assertEquals(2, missing.code(), missing::toString);
        assertTrue(missing.stderr().contains("does not exist"), missing::toString);

        // Accepted by both: a later minor version of layout 8 (AvLayout.read accepts any 8.x), and a file longer
        // than its published segments (a growth in progress, or the zeros of a grower that died).
        final ByteBuffer minor = ByteBuffer.wrap(good.clone()).order(ByteOrder.LITTLE_ENDIAN);
        minor.putInt(8, 8 << 16 | 7);
        Files.write(dir.path().resolve("minor"), minor.array());
        assertEquals(3, compareWithJava(null, "minor"));
        Files.write(dir.path().resolve("extended"), Arrays.copyOf(good, good.length + 3 * 4096));
        assertEquals(3, compareWithJava(null, "extended"));

        // Version 0 (not ready): both wait about 2 s for it, then refuse the file.
        final ByteBuffer notReady = ByteBuffer.wrap(good.clone()).order(ByteOrder.LITTLE_ENDIAN);
        notReady.putInt(8, 0);
        assertBothRefuse("notready", notReady.array(), "never became ready", "version 0");
    }

    /** Writes {@code bytes} (unless null) as {@code name}; the C reader and a Java FI_READ open must both refuse it. */
    private void assertBothRefuse(final String name, final byte[] bytes, final String reason, final String what)
        throws Exception
    {
        if (bytes != null)
        {
            Files.write(dir.path().resolve(name), bytes);
        }
        final ChildJvm.Outcome r = runReader(name);
        assertEquals(2, r.code(), () -> what + ": the C reader accepted it: " + r);
        assertTrue(r.stderr().contains(reason), () -> what + ": the C reader refused it, but not with '" + reason + "': " + r);
        assertEquals("", r.stdout(), what);
        try (Domain d = CReaderChurn.domain(dir.path(), AddrFormat.SOCKADDR_IN))
        {
            final FabricException e = assertThrows(FabricException.class,
                () -> d.openAv(AvAttr.builder().name(name).flags(Fi.READ).build()).close(), what + ": Java accepted it");
            assertEquals(FiErrno.EINVAL, e.errno(), what + ": " + e.getMessage());
            assertTrue(e.getMessage().contains(reason), () -> what + ": Java refused it, but not with '" + reason +
                "': " + e.getMessage());
        }
    }

    // ---------------------------------------------------------------- growth

    @Test
    void shouldFollowAnAvThatGrowsElevenTimesAfterItWasOpened() throws Exception
    {
        final AddrFormat format = AddrFormat.SOCKADDR_IN6;
        final String name = "grows";
        try (Domain d = CReaderChurn.domain(dir.path(), format);
             AddressVector av = d.openAv(AvAttr.builder().name(name).type(AvType.MAP).count(4).build()))
        {
            final long base = av.attr().mapAddr();
            final Map<Long, Long> live = new LinkedHashMap<>(); // seed -> fi_addr
            long seed = 0;
            while (seed < 2)
            {
                seed++;
                live.put(seed, CReaderChurn.insert(av, format, seed));
            }
            // Three readers opened before any growth; each meets the first growth of a stage by another path.
            final Path file = dir.path().resolve(name);
            try (CReaderSession byIndex = CReaderSession.start(reader, file, logs.path(), WAIT);
                 CReaderSession byReverse = CReaderSession.start(reader, file, logs.path(), WAIT);
                 CReaderSession byIteration = CReaderSession.start(reader, file, logs.path(), WAIT))
            {
                for (final CReaderSession s : List.of(byIndex, byReverse, byIteration))
                {
                    assertEquals("ready segments 1 capacity 4", s.line());
                }
                int segments = 1;
                long viewCapacity = 4;
                for (int stage = 0; segments < 12; stage++)
                {
                    // One growth a stage: more live entries than the readers' views hold, at most twice as many.
                    while (live.size() <= viewCapacity)
                    {
                        seed++;
                        live.put(seed, CReaderChurn.insert(av, format, seed));
                        if (seed % 7 == 0 && live.containsKey(seed - 3))
                        {
                            // a removal whose slot the next insert takes again
                            av.remove(live.remove(seed - 3));
                        }
                    }
                    final long topSeed = live.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
                    final long top = live.get(topSeed);
                    final String stage0 = "stage " + stage + ": ";
                    // Index past the view: lookup follows. Reverse lookup: follows before it probes. Iteration: at its end.
                    assertEquals(top + "\t" + av.lookupString(top), byIndex.ask("lookup " + top), stage0 + "lookup");
                    assertEquals("reverse " + top, byReverse.ask("reverse " + hex(CReaderChurn.sockaddr(format, topSeed))),
                        stage0 + "reverse");
                    final Map<Long, String> expected = javaEntries(av);
                    assertEquals(new ArrayList<>(expected.entrySet()), new ArrayList<>(byIteration.list().entrySet()),
                        stage0 + "list");
                    final String info = byIndex.ask("info");
                    final Matcher m = Pattern.compile("segments (\\d+) capacity (\\d+)").matcher(info);
                    assertTrue(m.matches(), info);
                    final int now = Integer.parseInt(m.group(1));
                    final long capacity = Long.parseLong(m.group(2));
                    final int before = segments;
                    assertTrue(now == before + 1 && capacity == 4L << (now - 1) && top - base < capacity,
                        () -> stage0 + info + " after " + before + " segments, highest index " + (top - base));
                    // The AV grows only when full: the view before the last growth held no free slot.
                    assertTrue(top - base >= capacity / 2, () -> stage0 + info + ", highest index " + (top - base));
                    segments = now;
                    viewCapacity = capacity;
                    assertEquals(info, byReverse.ask("info"), stage0);
                    assertEquals(info, byIteration.ask("info"), stage0);
                    for (final CReaderSession s : List.of(byIndex, byReverse))
                    {
                        assertEquals(new ArrayList<>(expected.entrySet()), new ArrayList<>(s.list().entrySet()),
                            stage0 + "list");
                    }
                    for (final CReaderSession s : List.of(byIndex, byReverse, byIteration))
                    {
                        assertEquals("count " + av.count(), s.ask("count"), stage0);
                        assertEquals(live.size(), av.count(), stage0);
                        assertEquals("checked " + live.size() + " mismatched 0", s.ask("check-reverse"), stage0);
                    }
                    // Every seed so far, the removed ones and one never inserted too, as Java's reverse lookup answers.
                    final List<String> commands = new ArrayList<>();
                    final List<String> answers = new ArrayList<>();
                    for (long s = 1; s <= seed + 1; s++)
                    {
                        final ByteBuffer addr = CReaderChurn.sockaddr(format, s);
                        final long f = av.reverseLookup(addr);
                        assertEquals(live.getOrDefault(s, Fi.ADDR_NOTAVAIL), f, stage0 + "Java, seed " + s);
                        commands.add("reverse " + hex(addr));
                        answers.add("reverse " + (f == Fi.ADDR_NOTAVAIL ? "none" : Long.toUnsignedString(f)));
                    }
                    assertEquals(answers, byReverse.askAll(commands), stage0 + "reverse lookups");
                }
                System.out.println("CReaderIT growth: " + live.size() + " entries in " + segments + " segments, " +
                    seed + " inserted");
            }
            assertEquals(live.size(), compareWithJava(av, name));
        }
    }

    /**
     * Layout 4.0: a last segment that is not a doubling. A reader opened at count 4 follows the AV to
     * exactly 1000 entries (segment 8 holds [512, 1000)), and refuses a tenth segment.
     */
    @Test
    void shouldFollowAnAvToAMaxCountThatIsNotADoubling() throws Exception
    {
        final AddrFormat format = AddrFormat.SOCKADDR_IN;
        try (Domain d = CReaderChurn.domain(dir.path(), format);
             AddressVector av = d.openAv(AvAttr.builder().name("thousand").type(AvType.TABLE).count(4).maxCount(1000).build());
             CReaderSession early = CReaderSession.start(reader, dir.path().resolve("thousand"), logs.path(), WAIT))
        {
            assertEquals("ready segments 1 capacity 4", early.line());
            for (long s = 1; s <= 1000; s++)
            {
                assertEquals(s - 1, CReaderChurn.insert(av, format, s), "seed " + s);
            }
            assertEquals("999\t" + av.lookupString(999), early.ask("lookup 999"), "an index in the last segment");
            assertEquals("segments 9 capacity 1000", early.ask("info"));
            assertEquals(new ArrayList<>(javaEntries(av).entrySet()), new ArrayList<>(early.list().entrySet()));
            assertEquals("checked 1000 mismatched 0", early.ask("check-reverse"));
            assertEquals(1000, compareWithJava(av, "thousand"), "a reader opened after the growth");
        }
        final byte[] full = Files.readAllBytes(dir.path().resolve("thousand"));
        assertBothRefuse("tenth", image(full, putInt(128, 10)).array(), "corrupt header: segmentCount=10",
            "a segment after the one that reached maxCapacity");
    }

    @Test
    void shouldRefuseASegmentCountTheFileOrTheMaxCountCannotHold() throws Exception
    {
        // count 4, maxCount 1024: segments end at 4, 8, 16, ... 1024, so at most 9 of them.
        final AddrFormat format = AddrFormat.SOCKADDR_IN;
        try (Domain d = CReaderChurn.domain(dir.path(), format);
             AddressVector av = d.openAv(AvAttr.builder().name("grown").type(AvType.TABLE).count(4).maxCount(1024).build()))
        {
            for (long s = 1; s <= 40; s++)
            {
                CReaderChurn.insert(av, format, s);
            }
        }
        final byte[] grown = Files.readAllBytes(dir.path().resolve("grown"));
        final ByteBuffer header = ByteBuffer.wrap(grown).order(ByteOrder.LITTLE_ENDIAN);
        final int segments = header.getInt(128);
        assertEquals(5, segments, "40 entries from count 4: segments of 4, 4, 8, 16 and 32 slots");
        assertEquals(1024, header.getLong(144));
        assertEquals(40, compareWithJava(null, "grown"), "a C reader opening an AV that grew before");
        Files.write(dir.path().resolve("tail"), Arrays.copyOf(grown, grown.length + 5 * 4096));
        assertEquals(40, compareWithJava(null, "tail"), "a dead grower's reservation past the published segments");

        final int seg = 512;
        final int lastEntry = seg + (segments - 1) * 16;
        // One segment more than published, its table entry never written.
        assertBothRefuse("unwritten", image(grown, putInt(128, segments + 1)).array(),
            "corrupt header: segment[" + segments + "].slotsOffset=0", "segmentCount past the written table");
        // One segment more, its entry forged right, but the file ends with the segments published.
        final long slots = grown.length;
        final long n = 4L << (segments - 1); // segment 5: slots [64, 128)
        final long map = align(slots + n * 64);
        final long hash = align(map + n * 8);
        assertBothRefuse("beyond", image(grown, putInt(128, segments + 1), putLong(seg + segments * 16, slots),
            putLong(seg + segments * 16 + 8, hash)).array(), "bytes but its " + (segments + 1) + " segments need",
            "segmentCount past the file's end");
        // The published segments, the file cut at the start of the last one.
        final byte[] cut = Arrays.copyOf(grown, (int)header.getLong(lastEntry));
        assertBothRefuse("cut", cut, "bytes but its " + segments + " segments need", "a file cut in its last segment");
        // Past maxCapacity: 10 segments would end at 2048 > 1024; 5 segments end at 64 > maxCapacity 32.
        assertBothRefuse("pastmax", image(grown, putInt(128, 10)).array(), "corrupt header: segmentCount=10",
            "segmentCount past maxCapacity");
        assertBothRefuse("maxlowered", image(grown, putLong(144, 32)).array(), "corrupt header: segmentCount=5",
            "maxCapacity lowered below the published segments");
        assertBothRefuse("maxbelow", image(grown, putLong(144, 3)).array(), "corrupt header: maxCapacity=3",
            "maxCapacity below the count");
        assertBothRefuse("entry", image(grown, addLong(lastEntry + 8, 4096)).array(),
            "corrupt header: segment[" + (segments - 1) + "].hashOffset=", "the last segment's hash moved");
        // Layout 6: a segment starts where its grower's range began, aligned and past the segment before.
        assertBothRefuse("overlap", image(grown, putLong(lastEntry, header.getLong(lastEntry - 16))).array(),
            "corrupt header: segment[" + (segments - 1) + "].slotsOffset=", "the last segment over the one before");
        assertBothRefuse("unaligned", image(grown, addLong(lastEntry, 8)).array(),
            "corrupt header: segment[" + (segments - 1) + "].slotsOffset=", "a segment start off a page");
    }

    /**
     * A segment table with a gap between two segments (layout 6.0 left one where a grower was taken over;
     * 7.0 writers place every segment right after the one before, but readers still accept a segment at
     * or past that end). Both readers follow the table across it: the file is a grown AV with every
     * segment past the first moved 3 pages up, and their table entries with them.
     */
    @Test
    void shouldReadAnAvWhoseSegmentsHaveAGapBetweenThem() throws Exception
    {
        final AddrFormat format = AddrFormat.SOCKADDR_IN;
        final int gap = 3 * 4096;
        final byte[] grown;
        try (Domain d = CReaderChurn.domain(dir.path(), format);
             AddressVector av = d.openAv(AvAttr.builder().name("ungapped").type(AvType.TABLE).count(4).maxCount(1024).build()))
        {
            for (long s = 1; s <= 40; s++)
            {
                CReaderChurn.insert(av, format, s);
            }
            grown = Files.readAllBytes(dir.path().resolve("ungapped"));
        }
        final ByteBuffer header = image(grown);
        final int end0 = (int)header.getLong(64);
        final int segments = header.getInt(128);
        assertTrue(segments >= 3, "grown: " + segments + " segments");
        final ByteBuffer gapped = ByteBuffer.allocate(grown.length + gap).order(ByteOrder.LITTLE_ENDIAN);
        gapped.put(grown, 0, end0).position(end0 + gap);
        gapped.put(grown, end0, grown.length - end0);
        for (int k = 1; k < segments; k++)
        {
            gapped.putLong(512 + 16 * k, gapped.getLong(512 + 16 * k) + gap);
            gapped.putLong(512 + 16 * k + 8, gapped.getLong(512 + 16 * k + 8) + gap);
        }
        Files.write(dir.path().resolve("gapped"), gapped.array());
        assertEquals(end0 + gap, image(Files.readAllBytes(dir.path().resolve("gapped"))).getLong(512 + 16),
            "segment 1 starts 3 pages past the end of segment 0");
        assertEquals(40, compareWithJava(null, "gapped"), "a reader of an AV with a gap");
    }

    /**
     * Zeros growers appended and never published (a late grower's, up to 1 MiB each) may take the file past
     * 2^31 - 1 bytes, the largest mapping, while its segments stay within it: C and Java map the published
     * length and read the AV. Both refused such a file by its size before.
     */
    @Test
    void shouldReadAnAvWhoseFileRunsPastTheLargestMapping() throws Exception
    {
        final AddrFormat format = AddrFormat.SOCKADDR_IN;
        try (Domain d = CReaderChurn.domain(dir.path(), format);
             AddressVector av = d.openAv(AvAttr.builder().name("long").type(AvType.TABLE).count(64).build()))
        {
            for (long s = 1; s <= 5; s++)
            {
                CReaderChurn.insert(av, format, s);
            }
        }
        try (RandomAccessFile f = new RandomAccessFile(dir.path().resolve("long").toFile(), "rw"))
        {
            f.setLength(AvFileDescriptor.MAX_FILE_LENGTH + 4097); // a hole: as long as late zeros, without the memory
        }
        assertEquals(5, compareWithJava(null, "long"), "a reader of an AV whose file runs past 2^31 - 1 bytes");
    }

    @SafeVarargs
    private static ByteBuffer image(final byte[] bytes, final Consumer<ByteBuffer>... changes)
    {
        final ByteBuffer b = ByteBuffer.wrap(bytes.clone()).order(ByteOrder.LITTLE_ENDIAN);
        for (final Consumer<ByteBuffer> c : changes)
        {
            c.accept(b);
        }
        return b;
    }

    private static long align(final long value)
    {
        return (value + 4095) & -4096L;
    }

    private static String hex(final ByteBuffer addr)
    {
        final StringBuilder b = new StringBuilder();
        for (int i = addr.position(); i < addr.limit(); i++)
        {
            b.append(String.format("%02x", addr.get(i)));
        }
        return b.toString();
    }

    // ---------------------------------------------------------------- concurrent writers

    @Test
    void shouldReadNoTornIpv6AddressWhileTwoJavaWritersChurnAMapAv() throws Exception
    {
        churn(AddrFormat.SOCKADDR_IN6, AvType.MAP);
    }

    @Test
    void shouldReadNoTornStringWhileTwoJavaWritersChurnATableAv() throws Exception
    {
        churn(AddrFormat.ADDR_STR, AvType.TABLE);
    }

    @Test
    void shouldReportAnAddressThatIsNotSeededAsTorn() throws Exception
    {
        // The torn-read detector is not vacuous: one address whose bytes do not follow its seed is reported.
        try (Domain d = CReaderChurn.domain(dir.path(), AddrFormat.SOCKADDR_IN6);
             AddressVector av = d.openAv(AvAttr.builder().name("forged").type(AvType.MAP).count(8).build()))
        {
            insert(av, CReaderChurn.sockaddr(AddrFormat.SOCKADDR_IN6, 5));
            final ByteBuffer forged = CReaderChurn.sockaddr(AddrFormat.SOCKADDR_IN6, 6);
            forged.put(20, (byte)(forged.get(20) ^ 0x40)); // one bit of the third 8-byte word
            insert(av, forged);
            final ChildJvm.Outcome r = runReader("--watch-torn", "0.2", dir.path().resolve("forged").toString());
            assertEquals(4, r.code(), r::toString);
            final Map<String, Long> stats = stats(r.stdout());
            assertEquals(stats.get("valid"), 2 * stats.get("torn"), r::toString);
            assertTrue(r.stderr().contains("torn read at fi_addr " + (av.attr().mapAddr() + 1)), r::toString);
        }
    }

    /**
     * Two Java writers churn an AV created with count 4 while one C reader, opened before they start,
     * looks up every slot again and again: the writers' windows widen from 1 to 1000 entries over 2 s, so
     * the AV grows from 16 slots (3 segments) to 2048 (10 segments) under the reader, which follows.
     */
    private void churn(final AddrFormat format, final AvType type) throws Exception
    {
        final int stable = 10;
        final int window = 1000;
        final String name = "churn";
        try (Domain d = CReaderChurn.domain(dir.path(), format);
             AddressVector av = d.openAv(AvAttr.builder().name(name).type(type).count(4).build()))
        {
            for (long s = 1; s <= stable; s++)
            {
                CReaderChurn.insert(av, format, s);
            }
            final Path stop = logs.path().resolve("stop");
            final Path go = logs.path().resolve("go");
            for (int w = 0; w < 2; w++)
            {
                children.add(ChildJvm.start(CReaderChurn.class, logs.path(), "churn", dir.path().toString(), name,
                    format.name(), type.name(), Integer.toString(w), Integer.toString(window), stop.toString(), "60",
                    go.toString(), "2"));
            }
            for (final ChildJvm c : children)
            {
                c.awaitOutput("STARTED", WAIT);
            }
            final ChildJvm.Outcome watch = watchWhileWritersStart(go, "4", dir.path().resolve(name).toString());
            Files.createFile(stop);
            final List<String> writers = new ArrayList<>();
            for (final ChildJvm c : children)
            {
                final int code = c.waitFor(WAIT);
                assertEquals(0, code, () -> c.output());
                writers.add(c.output().trim());
            }
            final Map<String, Long> stats = stats(watch.stdout());
            final String report = watch + "\nwriters: " + writers;
            System.out.println("CReaderIT " + format + " " + type + ": " + stats + ", writers " + writers);
            assertEquals(0, watch.code(), report);
            assertEquals(0L, stats.get("torn"), report);
            assertTrue(stats.get("lookups") >= 2048 && stats.get("valid") >= stable, report);
            // Each attacher's delta stays within [0, its live entries]: so does every sum the reader forms.
            assertTrue(stats.get("countmin") >= stable && stats.get("countmax") <= stable + 2 * (window + 1), report);
            // Opened at 16 slots, it followed every growth to the 2048 slots that hold 10 + 2 x 1000 entries.
            assertEquals(3L, stats.get("segments0"), report);
            assertEquals(10L, stats.get("segments"), report);
            assertEquals(2048L, stats.get("capacity"), report);
            for (final String w : writers)
            {
                final Matcher m = Pattern.compile("INSERTS (\\d+) REMOVES (\\d+)").matcher(w);
                assertTrue(m.find(), report);
                assertTrue(Long.parseLong(m.group(2)) > 0, () -> "a writer removed nothing: " + report);
            }
            // After the writers: the C reader and Java agree entry by entry, and on the count.
            assertEquals(stable + 2 * window, compareWithJava(av, name), report);
            assertEquals(stable + 2 * window, av.count());
        }
    }

    /**
     * Runs {@code shmav_read --watch-torn SECONDS FILE} and creates {@code go} once the reader has the AV
     * open (its first line, "segments0 N"); its result, bounded like {@link #run}.
     */
    private ChildJvm.Outcome watchWhileWritersStart(final Path go, final String seconds, final String file) throws Exception
    {
        final List<String> command = List.of(reader.toString(), "--watch-torn", seconds, file);
        try (ChildJvm watch = ChildJvm.command(command, Map.of(), logs.path()))
        {
            watch.awaitOutput("segments0 ", WAIT);
            Files.createFile(go);
            final int code = watch.waitFor(WAIT.plusSeconds(10));
            return new ChildJvm.Outcome(command, code, watch.stdout(), watch.stderr());
        }
    }

    // ---------------------------------------------------------------- helpers

    /**
     * Runs the C reader on AV {@code name} and checks it against Java: the same entries (fi_addr and
     * straddr, Java's {@code lookupString}) in slot order, the same count, and the same fi_addrs and count as
     * {@code shmav show --json}. {@code av} null: opened here with FI_READ. Returns the number of entries.
     */
    private int compareWithJava(final AddressVector av, final String name) throws Exception
    {
        if (av == null)
        {
            try (Domain d = CReaderChurn.domain(dir.path(), AddrFormat.SOCKADDR_IN);
                 AddressVector ro = d.openAv(AvAttr.builder().name(name).flags(Fi.READ).build()))
            {
                return compareWithJava(ro, name);
            }
        }
        final Map<Long, String> expected = javaEntries(av);
        final ChildJvm.Outcome r = runReader(dir.path().resolve(name).toString());
        assertEquals(0, r.code(), r::toString);
        final Map<Long, String> actual = entries(r.stdout());
        assertEquals(new ArrayList<>(expected.entrySet()), new ArrayList<>(actual.entrySet()), r::toString);
        final long count = av.count();
        assertTrue(r.stdout().endsWith("count " + count + "\n"), () -> "Java count " + count + ": " + r);

        final StringWriter json = new StringWriter();
        final StringWriter err = new StringWriter();
        assertEquals(0, ShmavCli.execute(new PrintWriter(json), new PrintWriter(err), "--dir", dir.path().toString(),
            "show", "--json", name), err::toString);
        final TreeSet<Long> shown = new TreeSet<>();
        final Matcher m = Pattern.compile("\"fiAddr\": (\\d+)").matcher(json.toString());
        while (m.find())
        {
            shown.add(Long.parseLong(m.group(1)));
        }
        assertEquals(new TreeSet<>(actual.keySet()), shown, json::toString);
        assertTrue(json.toString().contains("\"count\": " + count + ","), json::toString);
        return actual.size();
    }

    /**
     * What Java's lookup gives for every index from 0 to past the last entry (the creation count, or more
     * once the AV grew), in index order: fi_addr to straddr ({@code lookupString}), the indices that hold
     * no entry left out.
     */
    private static Map<Long, String> javaEntries(final AddressVector av)
    {
        final long base = av.attr().type() == AvType.MAP ? av.attr().mapAddr() : 0;
        final long indices = Math.max(av.attr().count(),
            av.entries().mapToLong(e -> e.fiAddr() - base + 1).max().orElse(0));
        final Map<Long, String> expected = new LinkedHashMap<>();
        for (long i = 0; i < indices; i++)
        {
            try
            {
                expected.put(base + i, av.lookupString(base + i));
            }
            catch (final FabricException e)
            {
                assertEquals(FiErrno.EINVAL, e.errno(), e.getMessage()); // not an entry
            }
        }
        return expected;
    }

    private Map<Long, String> readEntries(final String name) throws Exception
    {
        final ChildJvm.Outcome r = runReader(dir.path().resolve(name).toString());
        assertEquals(0, r.code(), r::toString);
        return entries(r.stdout());
    }

    /** The "fi_addr TAB straddr" lines of the reader's output, in order; checks the last line is "count N". */
    private static Map<Long, String> entries(final String out)
    {
        final String[] lines = out.split("\n", -1);
        assertTrue(lines.length >= 2 && lines[lines.length - 1].isEmpty() &&
            lines[lines.length - 2].matches("count \\d+"), () -> "no final count line: " + out);
        final Map<Long, String> entries = new LinkedHashMap<>();
        for (int i = 0; i < lines.length - 2; i++)
        {
            final int tab = lines[i].indexOf('\t');
            assertTrue(tab > 0, () -> "not an entry line: " + out);
            final long fiAddr = Long.parseUnsignedLong(lines[i].substring(0, tab));
            assertTrue(entries.put(fiAddr, lines[i].substring(tab + 1)) == null, () -> "fi_addr twice: " + out);
        }
        return entries;
    }

    @Test
    void shouldBeSeenAsAReaderByShmavRmAndGc() throws Exception
    {
        try (Domain d = CReaderChurn.domain(dir.path(), AddrFormat.SOCKADDR_IN);
             AddressVector av = d.openAv(AvAttr.builder().name("held").count(64).build()))
        {
            CReaderChurn.insert(av, AddrFormat.SOCKADDR_IN, 1);
        }
        // No writer has it open now: only the C reader, watching for 3 s, holds it.
        try (ChildJvm watcher = ChildJvm.command(List.of(reader.toString(), "--watch-torn", "3",
            dir.path().resolve("held").toString()), Map.of(), logs.path()))
        {
            Thread.sleep(500); // it opened the AV (a run with nothing held would let rm below succeed)
            assertTrue(watcher.isAlive(), "the C reader exited early");
            final StringWriter out = new StringWriter();
            final int rm = ShmavCli.execute(new PrintWriter(out), new PrintWriter(out), "--dir", dir.path().toString(),
                "rm", "held");
            assertEquals(7, rm, "shmav rm of an AV a C reader has open: " + out);
            assertTrue(out.toString().contains("FI_READ readers"), out.toString());
            assertEquals(0, watcher.waitFor(Duration.ofSeconds(30)), watcher::output);
            assertEquals(0, ShmavCli.execute(new PrintWriter(out), new PrintWriter(out), "--dir", dir.path().toString(),
                "rm", "held"), "rm once the reader is gone: " + out);
        }
    }

    /** The "key number" lines of --watch-torn. */
    private static Map<String, Long> stats(final String out)
    {
        final Map<String, Long> stats = new HashMap<>();
        for (final String line : out.split("\n"))
        {
            final String[] kv = line.split(" ");
            if (kv.length == 2)
            {
                stats.put(kv[0], Long.parseLong(kv[1]));
            }
        }
        for (final String key : List.of("segments0", "lookups", "valid", "retries", "torn", "countmin", "countmax",
            "segments", "capacity", "count"))
        {
            assertTrue(stats.containsKey(key), () -> "no '" + key + "' in: " + out);
        }
        return stats;
    }

    private static long insert(final AddressVector av, final ByteBuffer addr)
    {
        final long[] f = new long[1];
        assertEquals(1, av.insert(addr, 1, f, 0, null));
        return f[0];
    }

    private static InetSocketAddress inet(final String ip, final int port) throws IOException
    {
        return new InetSocketAddress(InetAddress.getByName(ip), port);
    }

    /** A sockaddr_in6 built byte by byte (InetAddress turns ::ffff:a.b.c.d into IPv4). */
    private static ByteBuffer sockaddrIn6(final String groups, final int port, final int scope)
    {
        final ByteBuffer b = ByteBuffer.allocate(28);
        b.put(0, (byte)10).put(2, (byte)(port >>> 8)).put(3, (byte)port);
        final String[] g = groups.split(":");
        for (int i = 0; i < 8; i++)
        {
            final int w = Integer.parseInt(g[i], 16);
            b.put(8 + 2 * i, (byte)(w >>> 8)).put(9 + 2 * i, (byte)w);
        }
        b.order(ByteOrder.LITTLE_ENDIAN).putInt(24, scope);
        return b.order(ByteOrder.BIG_ENDIAN);
    }

    private ChildJvm.Outcome runReader(final String... args) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of(reader.toString()));
        command.addAll(List.of(args));
        return ChildJvm.run(command, dir.path(), WAIT);
    }
}
