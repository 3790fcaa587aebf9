package org.shmav;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmav.AvTestSupport.assertErrno;
import static org.shmav.AvTestSupport.in4;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.shmav.it.TestDir;

/** The Java conveniences of {@link AddressVector}, on a private AV and on a named AV alike. */
class JavaConveniencesTest
{
    private static final InetSocketAddress A = new InetSocketAddress("10.0.0.1", 5000);
    private static final InetSocketAddress B = new InetSocketAddress("10.0.0.2", 5000);
    private static final InetSocketAddress C = new InetSocketAddress("10.0.0.3", 5001);

    private final AtomicInteger names = new AtomicInteger();
    private Path dir;

    @BeforeEach
    void createDirectory()
    {
        dir = TestDir.createInShm("shmav-conv-");
    }

    @AfterEach
    void deleteDirectory()
    {
        TestDir.delete(dir);
    }

    private Domain domain(final AddrFormat format)
    {
        return Domain.open(DomainAttr.builder().addrFormat(format).shmDirectory(dir).build());
    }

    private AddressVector open(final Domain domain, final boolean named, final AvAttr.Builder attr)
    {
        return domain.openAv((named ? attr.name("conv-" + names.incrementAndGet()) : attr).build());
    }

    @ParameterizedTest(name = "named={0}")
    @ValueSource(booleans = {false, true})
    void shouldInsertAndFindSocketAddresses(final boolean named)
    {
        try (Domain domain = domain(AddrFormat.SOCKADDR_IN);
             AddressVector av = open(domain, named, AvAttr.builder().count(8)))
        {
            assertEquals(0, av.insert(A));
            assertEquals(1, av.insert(B));
            assertEquals(0, av.insert(A), "an address already present returns its fi_addr");
            assertEquals(2, av.count());

            assertEquals(Optional.of(B), av.findAddress(1));
            assertEquals(Optional.of("fi_sockaddr_in://10.0.0.2:5000"), av.findString(1));
            assertEquals(OptionalLong.of(1), av.findFiAddr(B));
            assertEquals(OptionalLong.of(0), av.findFiAddr(in4("10.0.0.1", 5000)));
            assertEquals(OptionalLong.empty(), av.findFiAddr(C));
            assertEquals(OptionalLong.empty(), av.findFiAddr(InetSocketAddress.createUnresolved("nowhere", 1)));

            av.remove(0);
            assertEquals(Optional.of(A), av.findAddress(0), "the second insert of A took a reference");
            av.remove(0);
            assertEquals(Optional.empty(), av.findAddress(0), "removed");
            assertEquals(Optional.empty(), av.findString(0));
            assertEquals(Optional.empty(), av.findAddress(5), "never set");
            assertEquals(Optional.empty(), av.findAddress(Fi.ADDR_NOTAVAIL));
            assertErrno(FiErrno.EINVAL, () -> av.remove(0));
        }
    }

    @ParameterizedTest(name = "named={0}")
    @ValueSource(booleans = {false, true})
    void shouldThrowTheAddressErrnoWhenOneAddressFails(final boolean named)
    {
        try (Domain domain = domain(AddrFormat.SOCKADDR_IN);
             AddressVector av = open(domain, named, AvAttr.builder().count(8)))
        {
            assertErrno(FiErrno.EADDRNOTAVAIL, () -> av.insert(new InetSocketAddress("10.0.0.1", 0)));
            assertErrno(FiErrno.EADDRNOTAVAIL, () -> av.insert(new InetSocketAddress("0.0.0.0", 5)));
            final FabricException v6 = assertErrno(FiErrno.EADDRNOTAVAIL, () -> av.insert(new InetSocketAddress("::1", 5)));
            assertTrue(v6.getMessage().startsWith("fi_av_insert: "), v6.getMessage());
            assertTrue(v6.getMessage().contains("IPv6"), v6.getMessage());
            assertErrno(FiErrno.EADDRNOTAVAIL, () -> av.insert(InetSocketAddress.createUnresolved("host", 5)));
            assertErrno(FiErrno.EINVAL, () -> av.insert("a string"), "strings need an FI_ADDR_STR AV");
            assertEquals(0, av.count());
        }
    }

    @ParameterizedTest(name = "named={0}")
    @ValueSource(booleans = {false, true})
    void shouldReportEachFailedAddressOfABatch(final boolean named)
    {
        try (Domain domain = domain(AddrFormat.SOCKADDR_IN);
             AddressVector av = open(domain, named, AvAttr.builder().count(8)))
        {
            final InsertResult r = av.insertAll(Arrays.asList(A, new InetSocketAddress("10.0.0.9", 0), null, B,
                new InetSocketAddress("::1", 7)));
            assertEquals(5, r.size());
            assertEquals(2, r.inserted());
            assertFalse(r.allInserted());
            assertArrayEquals(new long[] {0, Fi.ADDR_NOTAVAIL, Fi.ADDR_NOTAVAIL, 1, Fi.ADDR_NOTAVAIL}, r.fiAddrs());
            assertEquals(List.of(new InsertResult.Failure(1, FiErrno.EADDRNOTAVAIL),
                new InsertResult.Failure(2, FiErrno.EADDRNOTAVAIL), new InsertResult.Failure(4, FiErrno.EADDRNOTAVAIL)),
                r.failures());
            assertEquals(0, r.errno(0));
            assertEquals(1, r.fiAddr(3));
            final FabricException e = assertErrno(FiErrno.EADDRNOTAVAIL, r::orThrow);
            assertTrue(e.getMessage().contains("3 of 5"), e.getMessage());
            assertEquals(2, av.count());

            final InsertResult ok = av.insert(in4("10.0.0.3", 5001), 1);
            assertTrue(ok.allInserted());
            assertEquals(ok, ok.orThrow());
            assertEquals(List.of(), ok.failures());
            assertEquals(2, ok.fiAddr(0));
        }
    }

    @Test
    void shouldReportAFullNamedAvAsEnospcPerAddress()
    {
        try (Domain domain = domain(AddrFormat.SOCKADDR_IN);
             AddressVector av = open(domain, true, AvAttr.builder().count(2).maxCount(2)))
        {
            final InsertResult r = av.insertAll(List.of(A, B, C));
            assertEquals(List.of(new InsertResult.Failure(2, FiErrno.ENOSPC)), r.failures());
            assertErrno(FiErrno.ENOSPC, () -> av.insert(C));
        }
    }

    @ParameterizedTest(name = "named={0}")
    @ValueSource(booleans = {false, true})
    void shouldIterateTheValidEntriesInFiAddrOrder(final boolean named)
    {
        try (Domain domain = domain(AddrFormat.SOCKADDR_IN);
             AddressVector av = open(domain, named, AvAttr.builder().count(8)))
        {
            assertEquals(0, av.entries().count());
            for (int i = 0; i < 5; i++)
            {
                assertEquals(i, av.insert(new InetSocketAddress("10.1.0." + (i + 1), 7000 + i)));
            }
            av.remove(2);
            final Map<Long, String> seen = av.entries().collect(Collectors.toMap(AvEntry::fiAddr, AvEntry::text,
                (x, y) -> x, LinkedHashMap::new));
            assertEquals(List.of(0L, 1L, 3L, 4L), List.copyOf(seen.keySet()));
            assertEquals("fi_sockaddr_in://10.1.0.4:7003", seen.get(3L));
            final AvEntry first = av.entries().findFirst().orElseThrow();
            assertEquals(new InetSocketAddress("10.1.0.1", 7000), first.socketAddress());
            assertEquals(16, first.address().remaining());
            assertTrue(first.address().isReadOnly());
        }
    }

    @Test
    void shouldSkipEntriesRemovedBeforeTheStreamReachesThem()
    {
        try (Domain domain = domain(AddrFormat.SOCKADDR_IN);
             AddressVector av = open(domain, true, AvAttr.builder().count(8)))
        {
            av.insertAll(List.of(A, B, C)).orThrow();
            final var stream = av.entries();
            av.remove(1);
            av.insert(new InetSocketAddress("10.9.9.9", 9)); // reuses index 1 after the scan: the new address is seen
            av.insert(new InetSocketAddress("10.9.9.8", 9)); // index 3, inserted after the scan: not seen
            assertEquals(List.of("fi_sockaddr_in://10.0.0.1:5000", "fi_sockaddr_in://10.9.9.9:9",
                "fi_sockaddr_in://10.0.0.3:5001"), stream.map(AvEntry::text).collect(Collectors.toList()));
        }
    }

    @Test
    void shouldGiveMapFiAddrsFromTheMapBase()
    {
        try (Domain domain = domain(AddrFormat.SOCKADDR_IN);
             AddressVector av = open(domain, true, AvAttr.builder().type(AvType.MAP).count(8).mapAddr(0x1000)))
        {
            final long base = av.attr().mapAddr();
            assertEquals(base, av.insert(A));
            assertEquals(base + 1, av.insert(B));
            assertEquals(List.of(base, base + 1), av.entries().map(AvEntry::fiAddr).collect(Collectors.toList()));
            assertEquals(Optional.of(B), av.findAddress(base + 1));
            assertEquals(OptionalLong.of(base + 1), av.findFiAddr(B));
        }
    }

    @ParameterizedTest(name = "named={0}")
    @ValueSource(booleans = {false, true})
    void shouldInsertAndFindStringsOnAnAddrStrAv(final boolean named)
    {
        try (Domain domain = domain(AddrFormat.ADDR_STR);
             AddressVector av = open(domain, named, AvAttr.builder().count(8)))
        {
            assertEquals(0, av.insert("fi_tcp://10.0.0.1:5000"));
            final InsertResult r = av.insertAllStrings(Arrays.asList("node-b", "", null, "node-c"));
            assertArrayEquals(new long[] {1, Fi.ADDR_NOTAVAIL, Fi.ADDR_NOTAVAIL, 2}, r.fiAddrs());
            assertEquals(FiErrno.EADDRNOTAVAIL, r.errno(1));
            assertEquals(Optional.of("node-b"), av.findString(1));
            assertEquals(OptionalLong.of(2), av.findFiAddr("node-c"));
            assertEquals(OptionalLong.empty(), av.findFiAddr("node-z"));
            assertEquals(List.of("fi_tcp://10.0.0.1:5000", "node-b", "node-c"),
                av.entries().map(AvEntry::text).collect(Collectors.toList()));
            assertErrno(FiErrno.EADDRNOTAVAIL, () -> av.insert("bad\u0001"));
            assertErrno(FiErrno.EINVAL, () -> av.insert(A), "socket addresses need a sockaddr AV");
            assertErrno(FiErrno.EINVAL, () -> av.findAddress(0));
            assertErrno(FiErrno.EINVAL, () -> av.insertAll(List.of(A)));
        }
    }

    /**
     * A string holding a NUL, or longer than an FI_ADDR_STR address may be, fails alone: before, the NUL
     * ended it early and moved every later string to the next one's fi_addr, and a long string failed the
     * whole call with FI_EINVAL.
     */
    @ParameterizedTest(name = "named={0}")
    @ValueSource(booleans = {false, true})
    void shouldFailAStringWithANulOrTooLongAlone(final boolean named)
    {
        try (Domain domain = domain(AddrFormat.ADDR_STR);
             AddressVector av = open(domain, named, AvAttr.builder().count(8)))
        {
            final String tooLong = "n".repeat(AddrFormat.MAX_STR_LEN);
            final InsertResult r = av.insertAllStrings(Arrays.asList("node-a", "node-b\0node-x", "node-c", tooLong, "node-d"));
            assertArrayEquals(new long[] {0, Fi.ADDR_NOTAVAIL, 1, Fi.ADDR_NOTAVAIL, 2}, r.fiAddrs());
            assertEquals(FiErrno.EADDRNOTAVAIL, r.errno(1));
            assertEquals(FiErrno.EADDRNOTAVAIL, r.errno(3));
            assertEquals(List.of("node-a", "node-c", "node-d"), av.entries().map(AvEntry::text).collect(Collectors.toList()));
            assertErrno(FiErrno.EADDRNOTAVAIL, () -> av.insert(tooLong));
            assertErrno(FiErrno.EADDRNOTAVAIL, () -> av.insert("node-e\0"));
            assertEquals(OptionalLong.of(2), av.findFiAddr("node-d"));

            // the same in the packed form: the long string ends at its NUL and fails alone
            final byte[] packed = (tooLong + "\0node-e\0").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            final long[] fiAddr = new long[2];
            final int[] errors = new int[2];
            assertEquals(1, av.insert(ByteBuffer.wrap(packed), 2, fiAddr, Fi.SYNC_ERR, errors));
            assertArrayEquals(new int[] {FiErrno.EADDRNOTAVAIL, 0}, errors);
            assertEquals(Optional.of("node-e"), av.findString(fiAddr[1]));
            assertErrno(FiErrno.EINVAL, () -> av.insert(ByteBuffer.wrap(new byte[] {'x', 'y'}), 1, null, 0, null),
                "no NUL before the limit");
        }
    }

    @Test
    void shouldRefuseConveniencesOnAnEventAvAndWritesOnAReadOnlyHandle()
    {
        try (Domain domain = domain(AddrFormat.SOCKADDR_IN);
             EventQueue eq = domain.openEq(8);
             AddressVector av = open(domain, true, AvAttr.builder().count(8).flags(Fi.EVENT)))
        {
            av.bind(eq, 0);
            assertErrno(FiErrno.EOPNOTSUPP, () -> av.insert(A));
            assertErrno(FiErrno.EOPNOTSUPP, () -> av.insertAll(List.of(A)));
            try (AddressVector reader = domain.openAv(AvAttr.builder().name(av.attr().name()).flags(Fi.READ).build()))
            {
                assertErrno(FiErrno.EPERM, () -> reader.insert(B));
                assertEquals(0, reader.entries().count());
            }
        }
    }

    @ParameterizedTest(name = "named={0}")
    @ValueSource(booleans = {false, true})
    void shouldThrowEinvalFromEveryCallOnAClosedHandle(final boolean named)
    {
        try (Domain domain = domain(AddrFormat.SOCKADDR_IN))
        {
            final AddressVector av = open(domain, named, AvAttr.builder().count(8));
            av.insert(A);
            av.close();
            av.close(); // idempotent
            final ByteBuffer out = ByteBuffer.allocate(16);
            final Map<String, Executable> calls = new LinkedHashMap<>();
            calls.put("count", av::count);
            calls.put("awaitCount", () -> av.awaitCount(1, Duration.ofMillis(10)));
            calls.put("insert", () -> av.insert(in4("10.0.0.5", 5), 1, new long[1], 0, null));
            calls.put("insertSvc", () -> av.insertSvc("10.0.0.6", "6", new long[1], 0, null));
            calls.put("insertSym", () -> av.insertSym("10.0.0.7", 1, "7", 1, new long[1], 0, null));
            calls.put("remove", () -> av.remove(new long[] {0}, 1, 0));
            calls.put("lookup", () -> av.lookup(0, out));
            calls.put("lookupString", () -> av.lookupString(0));
            calls.put("reverseLookup", () -> av.reverseLookup(in4("10.0.0.1", 5000)));
            calls.put("insertAt", () -> av.insertAt(3, in4("10.0.0.8", 8)));
            calls.put("setUserId", () -> av.setUserId(0, 1, 0));
            calls.put("userId", () -> av.userId(0));
            calls.put("lookupAuthKey", () -> av.lookupAuthKey(0, ByteBuffer.allocate(8)));
            calls.put("insertAuthKey", () -> av.insertAuthKey(ByteBuffer.allocate(8), 0));
            calls.put("openSet", () -> av.openSet(AvSetAttr.builder().flags(Fi.UNIVERSE).build()));
            calls.put("recover", av::recover);
            calls.put("insert(InetSocketAddress)", () -> av.insert(B));
            calls.put("insert(ByteBuffer, int)", () -> av.insert(in4("10.0.0.9", 9), 1));
            calls.put("insertAll", () -> av.insertAll(List.of(B)));
            calls.put("remove(long)", () -> av.remove(0));
            calls.put("findAddress", () -> av.findAddress(0));
            calls.put("findString", () -> av.findString(0));
            calls.put("findFiAddr", () -> av.findFiAddr(A));
            calls.put("findFiAddr(unresolved)", () -> av.findFiAddr(InetSocketAddress.createUnresolved("x", 1)));
            calls.put("entries", av::entries);
            calls.forEach((name, call) ->
            {
                final FabricException e = assertThrows(FabricException.class, call, name + " on a closed AV");
                assertEquals(FiErrno.EINVAL, e.errno(), name + ": " + e.getMessage());
                assertTrue(e.getMessage().contains("AV is closed"), name + ": " + e.getMessage());
            });
            // the call made, not the count it polls
            final String await = assertThrows(FabricException.class, () -> av.awaitCount(1, Duration.ofMillis(10))).getMessage();
            assertTrue(await.startsWith("shmav_av_await_count: "), await);
        }
    }

    @Test
    void shouldWaitForANamedAvToBeCreated() throws Exception
    {
        try (Domain domain = domain(AddrFormat.SOCKADDR_IN))
        {
            final AvAttr readOnly = AvAttr.builder().name("late").flags(Fi.READ).build();
            final Thread creator = new Thread(() ->
            {
                try
                {
                    Thread.sleep(300);
                    try (AddressVector av = domain.openAv(AvAttr.builder().name("late").count(4).build()))
                    {
                        av.insert(A);
                    }
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
            });
            final long start = System.nanoTime();
            creator.start();
            try (AddressVector reader = domain.awaitAv(readOnly, Duration.ofSeconds(20)))
            {
                assertTrue(System.nanoTime() - start >= Duration.ofMillis(250).toNanos(), "returned before creation");
                assertTrue(reader.awaitCount(1, Duration.ofSeconds(20)));
                assertEquals(Optional.of(A), reader.findAddress(0));
            }
            creator.join(20_000);
        }
    }

    @Test
    void shouldTimeOutWaitingForAnAvNobodyCreates()
    {
        try (Domain domain = domain(AddrFormat.SOCKADDR_IN))
        {
            final long start = System.nanoTime();
            final FabricException e = assertErrno(FiErrno.ETIMEDOUT,
                () -> domain.awaitAv(AvAttr.builder().name("never").flags(Fi.READ).build(), Duration.ofMillis(200)));
            final long waited = System.nanoTime() - start;
            assertTrue(waited >= Duration.ofMillis(200).toNanos(), "waited " + waited + " ns");
            assertTrue(waited < Duration.ofSeconds(10).toNanos(), "waited " + waited + " ns");
            assertTrue(e.getMessage().startsWith("fi_av_open: FI_ETIMEDOUT"), e.getMessage());
            assertTrue(e.getMessage().contains("'never'"), e.getMessage());
            assertErrno(FiErrno.EINVAL, () -> domain.awaitAv(AvAttr.builder().build(), Duration.ofMillis(1)),
                "a private AV has nothing to wait for");
        }
    }

    @Test
    void shouldNameAMissingDirectoryNotAMissingAv()
    {
        final Path missing = dir.resolve("no-such-dir");
        try (Domain domain = Domain.open(DomainAttr.builder().shmDirectory(missing).build()))
        {
            for (final Executable call : List.<Executable>of(
                () -> domain.openAv(AvAttr.builder().name("x").flags(Fi.READ).build()),
                () -> domain.openAv(AvAttr.builder().name("x").build()),
                () -> domain.awaitAv(AvAttr.builder().name("x").flags(Fi.READ).build(), Duration.ofSeconds(30))))
            {
                final FabricException e = assertErrno(FiErrno.ENOENT, call);
                assertTrue(e.getMessage().startsWith("fi_av_open: FI_ENOENT (No such file or directory): directory " +
                    missing + " does not exist: create it"), e.getMessage());
            }
        }
    }

    @Test
    void shouldNameTheCallTheUserMade()
    {
        try (Domain domain = domain(AddrFormat.SOCKADDR_IN))
        {
            final FabricException unlink = assertErrno(FiErrno.EINVAL, () -> domain.unlinkAv("a/b"));
            assertTrue(unlink.getMessage().startsWith("fi_av_unlink: "), unlink.getMessage());
            assertEquals("fi_av_unlink", unlink.call());
        }
        final FabricException put = assertErrno(FiErrno.EINVAL,
            () -> Addresses.put(ByteBuffer.allocate(16), InetSocketAddress.createUnresolved("host", 1)));
        assertTrue(put.getMessage().startsWith("Addresses.put: "), put.getMessage());
        assertTrue(put.getMessage().contains("resolve it first"), put.getMessage());
    }
}
