package org.shmav;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmav.AvTestSupport.assertErrno;
import static org.shmav.AvTestSupport.bytes;
import static org.shmav.AvTestSupport.concat;
import static org.shmav.AvTestSupport.distinctIn4;
import static org.shmav.AvTestSupport.in4;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLockFile;

/** What only a named AV does: a file in the shm directory, shared by handles and processes, attach rules. */
class NamedAvTest
{
    private static final ByteBuffer A = in4("10.0.0.1", 5000);
    private static final ByteBuffer B = in4("10.0.0.2", 5000);
    private static final ByteBuffer C = in4("10.0.0.3", 5000);

    @RegisterExtension
    final ShmDomain shm = new ShmDomain("shmav-named-");

    private static AvAttr.Builder named(final String name, final long count)
    {
        return AvAttr.builder().type(AvType.TABLE).count(count).name(name);
    }

    private AddressVector open(final AvAttr.Builder attr)
    {
        return shm.domain().openAv(attr.build());
    }

    private static byte[] lookupBytes(final AddressVector av, final long fiAddr)
    {
        final ByteBuffer dst = ByteBuffer.allocate(64);
        return Arrays.copyOf(dst.array(), av.lookup(fiAddr, dst));
    }

    private List<String> files() throws IOException
    {
        try (Stream<Path> s = Files.list(shm.dir()))
        {
            // Each AV's lock file lives and goes with it (AvLockFileTest): these tests count the AVs.
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(AvLockFile.PREFIX)).sorted().toList();
        }
    }

    // ---------------------------------------------------------------- capacity

    @Test
    void shouldFailEachAddressWithEnospcWhenFullAndStayUsable()
    {
        try (AddressVector av = open(named("full", 4).maxCount(4)))
        {
            assertEquals(4, av.attr().count(), "a named AV's count is its capacity until it grows");
            final ByteBuffer[] addrs = distinctIn4(6);
            final long[] fiAddr = new long[6];
            final int[] errors = new int[6];
            assertEquals(4, av.insert(concat(addrs), 6, fiAddr, Fi.SYNC_ERR, errors));
            assertArrayEquals(new long[] {0, 1, 2, 3, Fi.ADDR_NOTAVAIL, Fi.ADDR_NOTAVAIL}, fiAddr);
            assertArrayEquals(new int[] {0, 0, 0, 0, FiErrno.ENOSPC, FiErrno.ENOSPC}, errors);
            assertEquals(4, av.count());

            final long[] dup = new long[1];
            assertEquals(1, av.insert(addrs[2].duplicate(), 1, dup, 0, null), "a duplicate needs no new slot");
            assertEquals(2, dup[0]);
            av.remove(new long[] {1}, 1, 0);
            final long[] again = new long[1];
            assertEquals(1, av.insert(addrs[5].duplicate(), 1, again, 0, null));
            assertEquals(1, again[0], "the freed slot is used");
            assertArrayEquals(bytes(addrs[5]), lookupBytes(av, 1));
            assertArrayEquals(bytes(addrs[3]), lookupBytes(av, 3));
        }
    }

    // ---------------------------------------------------------------- FI_READ

    @Test
    void shouldAttachReadOnlyAndSeeEveryEntry()
    {
        try (AddressVector writer = open(named("ro", 16)))
        {
            assertEquals(2, writer.insert(concat(A, B), 2, null, 0, null));
            try (AddressVector reader = open(AvAttr.builder().name("ro").flags(Fi.READ)))
            {
                assertTrue(reader.isReadOnly());
                assertFalse(writer.isReadOnly());
                assertEquals(16, reader.attr().count(), "count 0 takes the file's");
                assertEquals(AvType.TABLE, reader.attr().type());
                assertEquals(2, reader.count());
                assertArrayEquals(bytes(B), lookupBytes(reader, 1));
                assertEquals(0, reader.reverseLookup(A.duplicate()));

                assertEquals(1, writer.insert(C.duplicate(), 1, null, 0, null));
                assertTrue(reader.awaitCount(3, Duration.ofSeconds(5)));
                assertArrayEquals(bytes(C), lookupBytes(reader, 2), "inserts after the attach are seen");
                writer.remove(new long[] {0}, 1, 0);
                assertErrno(FiErrno.EINVAL, () -> reader.lookup(0, ByteBuffer.allocate(16)));
            }
        }
    }

    @Test
    void shouldRejectEveryMutationOnAReadOnlyHandleWithEperm()
    {
        try (Domain keys = Domain.open(DomainAttr.builder().shmDirectory(shm.dir()).avAuthKey(true).authKeySize(8).build());
             AddressVector writer = keys.openAv(named("ro-perm", 16).flags(Fi.AV_USER_ID).build());
             AddressVector reader = keys.openAv(AvAttr.builder().name("ro-perm").flags(Fi.READ).build()))
        {
            assertEquals(1, writer.insert(A.duplicate(), 1, null, 0, null));
            assertErrno(FiErrno.EPERM, () -> reader.insert(B.duplicate(), 1, null, 0, null));
            assertErrno(FiErrno.EPERM, () -> reader.insertSvc("127.0.0.1", "5000", null, 0, null));
            assertErrno(FiErrno.EPERM, () -> reader.insertSym("10.1.1.1", 2, "5000", 1, null, 0, null));
            assertErrno(FiErrno.EPERM, () -> reader.remove(new long[] {0}, 1, 0));
            assertErrno(FiErrno.EPERM, () -> reader.insertAuthKey(ByteBuffer.allocate(8), 0));
            assertErrno(FiErrno.EPERM, () -> reader.setUserId(0, 7, 0));
            assertErrno(FiErrno.EPERM, () -> reader.insertAt(5, B.duplicate()));
            assertErrno(FiErrno.EPERM, reader::recover);
            assertEquals(1, writer.count(), "nothing changed");
            assertArrayEquals(bytes(A), lookupBytes(reader, 0));
        }
    }

    /**
     * A file of another creator with an auth-key size but no key entries: an opener using auth keys is
     * refused, and told that the file has no room (it said "another auth-key size: caller=16 file=16").
     */
    @Test
    void shouldNameTheMissingKeyRoomWhenAFileHasAKeySizeButNoKeyEntries() throws IOException
    {
        open(named("keyless", 16)).close();
        try (FileChannel ch = FileChannel.open(shm.dir().resolve("keyless"), StandardOpenOption.WRITE))
        {
            // as a creator of another implementation may write it: a key size, and no entries for keys
            ch.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 16),
                org.shmav.shm.AvFileDescriptor.AUTH_KEY_SIZE_OFFSET);
        }
        try (Domain keys = Domain.open(DomainAttr.builder().shmDirectory(shm.dir()).avAuthKey(true).authKeySize(16).build()))
        {
            final FabricException e = assertErrno(FiErrno.EINVAL,
                () -> keys.openAv(AvAttr.builder().name("keyless").build()).close());
            assertTrue(e.getMessage().contains("no room for auth keys") && !e.getMessage().contains("another auth-key size"),
                e.getMessage());
        }
        open(named("keyless", 16)).close(); // a domain without auth keys still opens it
    }

    @Test
    void shouldRejectReadOnlyOfAMissingNameWithEnoent() throws IOException
    {
        final FabricException e = assertErrno(FiErrno.ENOENT,
            () -> open(AvAttr.builder().name("missing").flags(Fi.READ)).close());
        assertTrue(e.getMessage().startsWith("fi_av_open: FI_ENOENT (No such file or directory): "), e.getMessage());
        assertTrue(e.getMessage().contains("missing"), e.getMessage());
        assertEquals(List.of(), files(), "a read-only open creates nothing");
    }

    // ---------------------------------------------------------------- attach checks

    @Test
    void shouldRejectACountPastTheMaximumNamingBoth() throws IOException
    {
        try (AddressVector av = open(named("counted", 16).maxCount(32)))
        {
            av.insert(A.duplicate(), 1, null, 0, null);
            open(named("counted", 8)).close(); // count is a hint: any up to what the AV grows to
            final FabricException e = assertErrno(FiErrno.EINVAL, () -> open(named("counted", 33)).close());
            assertTrue(e.getMessage().contains("33") && e.getMessage().contains("at most 32"), e.getMessage());
            assertErrno(FiErrno.EINVAL, () -> open(named("counted", 33).flags(Fi.READ)).close());
            try (AddressVector same = open(named("counted", 16)); AddressVector any = open(named("counted", 0)))
            {
                assertEquals(16, any.attr().count());
                assertEquals(1, same.count(), "attaching never re-initialises");
            }
        }
        assertEquals(List.of("counted"), files(), "failed opens never unlink");
    }

    @Test
    void shouldRejectATypeOrFormatMismatch()
    {
        try (AddressVector av = open(named("typed", 16)))
        {
            av.insert(A.duplicate(), 1, null, 0, null);
            final FabricException type = assertErrno(FiErrno.EINVAL,
                () -> open(AvAttr.builder().type(AvType.MAP).count(16).name("typed")).close());
            assertTrue(type.getMessage().contains("FI_AV_MAP") && type.getMessage().contains("FI_AV_TABLE"), type.getMessage());
            try (AddressVector unspec = open(AvAttr.builder().type(AvType.UNSPEC).name("typed")))
            {
                assertEquals(AvType.TABLE, unspec.attr().type(), "UNSPEC takes the file's type");
            }
            try (Domain in6 = Domain.open(DomainAttr.builder().shmDirectory(shm.dir()).addrFormat(AddrFormat.SOCKADDR_IN6).build()))
            {
                final FabricException format = assertErrno(FiErrno.EINVAL, () -> in6.openAv(named("typed", 16).build()).close());
                assertTrue(format.getMessage().contains("FI_SOCKADDR_IN6") && format.getMessage().contains("FI_SOCKADDR_IN"),
                    format.getMessage());
            }
            assertEquals(1, av.count());
            assertArrayEquals(bytes(A), lookupBytes(av, 0));
        }
    }

    // ---------------------------------------------------------------- sharing and lifetime

    @Test
    void shouldShareEntriesBetweenTwoHandles()
    {
        try (AddressVector first = open(named("pair", 16)); AddressVector second = open(named("pair", 16)))
        {
            assertEquals(0, first.insert(A.duplicate(), 1, new long[1], 0, null) - 1);
            final long[] b = new long[1];
            assertEquals(1, second.insert(B.duplicate(), 1, b, 0, null));
            assertEquals(1, b[0], "the lowest index is shared between handles");
            assertArrayEquals(bytes(A), lookupBytes(second, 0));
            assertArrayEquals(bytes(B), lookupBytes(first, 1));
            final long[] dup = new long[1];
            assertEquals(1, second.insert(A.duplicate(), 1, dup, 0, null));
            assertEquals(0, dup[0], "a duplicate across handles returns the existing fi_addr");
            assertEquals(2, first.count());
            assertEquals(2, second.count());

            first.remove(new long[] {0}, 1, 0);
            assertArrayEquals(bytes(A), lookupBytes(second, 0), "one reference left");
            second.remove(new long[] {0}, 1, 0);
            assertErrno(FiErrno.EINVAL, () -> first.lookup(0, ByteBuffer.allocate(16)));
            assertEquals(1, first.count());
        }
    }

    @Test
    void shouldNeverUnlinkOnClose() throws IOException
    {
        try (AddressVector av = open(named("kept", 16)))
        {
            assertEquals(2, av.insert(concat(A, B), 2, null, 0, null));
        }
        assertEquals(List.of("kept"), files());
        try (AddressVector again = open(named("kept", 0)))
        {
            assertEquals(2, again.count(), "entries outlive every handle");
            assertArrayEquals(bytes(B), lookupBytes(again, 1));
        }
        assertEquals(List.of("kept"), files(), "no temporary files are left behind");
    }

    /** An UNSPEC open takes the file's type, which must be the domain's av_type when that is not UNSPEC. */
    @Test
    void shouldRefuseANamedAvOfAnotherTypeThanTheDomains()
    {
        try (AddressVector creator = open(named("typed", 16).type(AvType.MAP)))
        {
            creator.insert(A.duplicate(), 1, null, 0, null);
            try (Domain table = Domain.open(DomainAttr.builder().shmDirectory(shm.dir()).avType(AvType.TABLE).build());
                 Domain map = Domain.open(DomainAttr.builder().shmDirectory(shm.dir()).avType(AvType.MAP).build()))
            {
                final FabricException e = assertErrno(FiErrno.EINVAL,
                    () -> table.openAv(AvAttr.builder().name("typed").type(AvType.UNSPEC).build()).close());
                assertTrue(e.getMessage().contains("FI_AV_MAP") && e.getMessage().contains("av_type is FI_AV_TABLE"),
                    e.getMessage());
                try (AddressVector same = map.openAv(AvAttr.builder().name("typed").type(AvType.UNSPEC).build());
                     AddressVector any = open(named("typed", 0).type(AvType.UNSPEC)))
                {
                    assertEquals(AvType.MAP, same.attr().type());
                    assertEquals(AvType.MAP, any.attr().type(), "an UNSPEC domain takes the file's type");
                }
            }
        }
    }

    /**
     * A closed handle its user still holds lets go of the AV's mappings: the pages of a removed AV are
     * the file system's again once collected (on a full /dev/shm, the room a new AV needs).
     */
    @Test
    void shouldNotKeepTheMappingsOfAClosedHandleItsUserStillHolds() throws Exception
    {
        final AddressVector av = open(named("held", 16).maxCount(1024));
        assertEquals(100, av.insert(concat(distinctIn4(100)), 100, null, 0, null), "grown: several segments mapped");
        final long capacity = av.attr().count();
        final long inode = (Long)Files.getAttribute(shm.dir().resolve("held"), "unix:ino");
        assertFalse(mappingsOf(inode).isEmpty(), "mapped while open");
        av.close();
        assertTrue(shm.domain().unlinkAv("held"));
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<String> mapped;
        while (!(mapped = mappingsOf(inode)).isEmpty() && System.nanoTime() - deadline < 0)
        {
            System.gc();
            Thread.sleep(10);
        }
        assertEquals(List.of(), mapped, "mappings of the removed AV 10 s after its handle closed");
        assertEquals(capacity, av.attr().count(), "a closed handle reports its last capacity");
        assertErrno(FiErrno.EINVAL, av::count);
        java.lang.ref.Reference.reachabilityFence(av);
    }

    /**
     * The lines of /proc/self/maps that map a file of {@code /dev/shm} with inode {@code inode} (by inode: a
     * mapping shows the name its file had when mapped, a new AV's temporary one).
     */
    private static List<String> mappingsOf(final long inode) throws IOException
    {
        return Files.readAllLines(Path.of("/proc/self/maps")).stream()
            .filter(l -> l.contains(" /dev/shm/"))
            .filter(l -> l.trim().split(" +")[4].equals(Long.toString(inode))).toList();
    }

    @Test
    void shouldUnlinkOnlyAValidAvFile() throws IOException
    {
        try (AddressVector av = open(named("doomed", 16)))
        {
            av.insert(A.duplicate(), 1, null, 0, null);
            assertTrue(shm.domain().unlinkAv("doomed"));
            assertFalse(Files.exists(shm.dir().resolve("doomed")));
            assertArrayEquals(bytes(A), lookupBytes(av, 0), "an open handle keeps its mapping");
            assertFalse(shm.domain().unlinkAv("doomed"), "nothing left to unlink");
        }
        try (AddressVector fresh = open(named("doomed", 16)))
        {
            assertEquals(0, fresh.count(), "the name starts over");
        }

        final byte[] garbage = new byte[8192];
        Arrays.fill(garbage, (byte)0x41);
        Files.write(shm.dir().resolve("garbage"), garbage);
        assertErrno(FiErrno.EINVAL, () -> shm.domain().unlinkAv("garbage"));
        assertArrayEquals(garbage, Files.readAllBytes(shm.dir().resolve("garbage")), "a foreign file is left alone");
        Files.write(shm.dir().resolve("tiny"), new byte[3]);
        assertErrno(FiErrno.EINVAL, () -> shm.domain().unlinkAv("tiny"));
        assertTrue(Files.exists(shm.dir().resolve("tiny")));
    }

    @Test
    void shouldRejectBadNamesAndCreateNothing() throws IOException
    {
        final String[] bad = {"a/b", ".", "..", "", "///", "nul\0name", "\n", "line\nbreak", "x".repeat(300), ".hidden"};
        for (final String name : bad)
        {
            assertErrno(FiErrno.EINVAL, () -> open(named(name, 16)).close(), "name '" + name + "'");
            assertErrno(FiErrno.EINVAL, () -> shm.domain().unlinkAv(name), "unlink '" + name + "'");
        }
        assertEquals(List.of(), files());
        assertTrue(Files.exists(shm.dir().getParent()), "nothing outside the directory was touched either");
    }

    @Test
    void shouldMapLeadingSlashesAndSpacesAsLibfabric() throws IOException
    {
        try (AddressVector av = open(named("/my job", 16)))
        {
            assertEquals(List.of("my_job"), files());
            av.insert(A.duplicate(), 1, null, 0, null);
            try (AddressVector same = open(named("my_job", 16)))
            {
                assertEquals(1, same.count());
            }
        }
    }

    // ---------------------------------------------------------------- corrupted files

    private void createThenCorrupt(final String name, final FileMutation mutation) throws IOException
    {
        try (AddressVector av = open(named(name, 16)))
        {
            av.insert(A.duplicate(), 1, null, 0, null);
        }
        try (FileChannel ch = FileChannel.open(shm.dir().resolve(name), StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            mutation.apply(ch);
        }
    }

    @FunctionalInterface
    private interface FileMutation
    {
        void apply(FileChannel ch) throws IOException;
    }

    private void assertRefusedWithoutCrash(final String name) throws IOException
    {
        final long size = Files.size(shm.dir().resolve(name));
        final FabricException rw = assertThrows(FabricException.class, () -> open(named(name, 0)).close());
        final FabricException ro = assertThrows(FabricException.class, () -> open(AvAttr.builder().name(name).flags(Fi.READ)).close());
        assertEquals(FiErrno.EINVAL, rw.errno(), rw.getMessage());
        assertEquals(FiErrno.EINVAL, ro.errno(), ro.getMessage());
        assertTrue(rw.getMessage().startsWith("fi_av_open: FI_EINVAL (Invalid argument): "), rw.getMessage());
        assertEquals(size, Files.size(shm.dir().resolve(name)), "a refused file is neither repaired nor removed");
    }

    @Test
    void shouldRefuseABadMagic() throws IOException
    {
        createThenCorrupt("magic", ch -> ch.write(ByteBuffer.wrap(new byte[] {'B', 'A', 'D', '!'}), AvFileDescriptor.MAGIC_OFFSET));
        assertRefusedWithoutCrash("magic");
    }

    @Test
    void shouldRefuseTruncatedFiles() throws IOException
    {
        createThenCorrupt("half", ch -> ch.truncate(ch.size() / 2));
        assertRefusedWithoutCrash("half");
        createThenCorrupt("header-only", ch -> ch.truncate(100));
        assertRefusedWithoutCrash("header-only");
        createThenCorrupt("empty", ch -> ch.truncate(0));
        assertRefusedWithoutCrash("empty");
    }

    private static ByteBuffer littleEndianLong(final long value)
    {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, value);
    }

    @Test
    void shouldRefuseCorruptHeaderFields() throws IOException
    {
        createThenCorrupt("capacity", ch -> ch.write(littleEndianLong(1L << 40), AvFileDescriptor.CAPACITY_OFFSET));
        assertRefusedWithoutCrash("capacity");
        createThenCorrupt("hash-offset", ch -> ch.write(littleEndianLong(0x7FFF_FFF0L), AvFileDescriptor.HASH_OFFSET_OFFSET));
        assertRefusedWithoutCrash("hash-offset");
    }

    @Test
    void shouldRefuseAFileWhoseCreatorNeverFinished() throws IOException
    {
        // the version word is written last; 0 means the creator died before publishing
        createThenCorrupt("unfinished", ch -> ch.write(ByteBuffer.allocate(4), AvFileDescriptor.VERSION_OFFSET));
        final long start = System.nanoTime();
        assertRefusedWithoutCrash("unfinished");
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30), "the wait for readiness is bounded");
    }

    @Test
    void shouldRefuseAForeignFile() throws IOException
    {
        final byte[] foreign = new byte[1 << 16];
        new SplittableRandom(7).nextBytes(foreign);
        Files.write(shm.dir().resolve("foreign"), foreign);
        assertRefusedWithoutCrash("foreign");
        assertArrayEquals(foreign, Files.readAllBytes(shm.dir().resolve("foreign")));
    }

    // ---------------------------------------------------------------- file mode and map_addr

    @Test
    void shouldCreateOwnerOnlyFilesUnlessGroupAccessIsAsked() throws IOException
    {
        open(named("private-mode", 16)).close();
        open(named("group-mode", 16).groupAccess(true)).close();
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(shm.dir().resolve("private-mode"))));
        assertEquals("rw-rw----", PosixFilePermissions.toString(Files.getPosixFilePermissions(shm.dir().resolve("group-mode"))));
    }

    @Test
    void shouldReportTheStoredMapAddrBase()
    {
        try (AddressVector first = open(AvAttr.builder().type(AvType.MAP).count(16).name("map0").mapAddr(0));
             AddressVector second = open(AvAttr.builder().type(AvType.MAP).count(16).name("map0").mapAddr(0)))
        {
            final long base = first.attr().mapAddr();
            assertNotEquals(0, base, "map_addr 0 asks for the stored base");
            assertEquals(base, second.attr().mapAddr());
            final long[] fiAddr = new long[2];
            assertEquals(2, first.insert(concat(A, B), 2, fiAddr, 0, null));
            assertArrayEquals(new long[] {base, base + 1}, fiAddr);
            assertArrayEquals(bytes(B), lookupBytes(second, fiAddr[1]), "the same fi_addr works in every handle");
            assertEquals(fiAddr[0], second.reverseLookup(A.duplicate()));
        }
    }

    @Test
    void shouldUseTheCreatorsMapAddrAsTheBaseOthersGet()
    {
        final long chosen = 0x0000_5A00_0000_0000L;
        try (AddressVector creator = open(AvAttr.builder().type(AvType.MAP).count(16).name("map1").mapAddr(chosen)))
        {
            assertEquals(chosen, creator.attr().mapAddr());
            final long[] fiAddr = new long[1];
            assertEquals(1, creator.insert(C.duplicate(), 1, fiAddr, 0, null));
            assertEquals(chosen, fiAddr[0]);
            try (AddressVector other = open(AvAttr.builder().type(AvType.MAP).name("map1")))
            {
                assertEquals(chosen, other.attr().mapAddr());
                assertArrayEquals(bytes(C), lookupBytes(other, chosen));
            }
        }
    }

    /**
     * A base whose fi_addr values would reach bit 62 is refused before any file is made: there they meet the
     * auth-key handles, FI_ADDR_NOTAVAIL (all ones) and the map_addr values growth and claims rely on (never 0
     * or all ones). The largest base taken still encodes and decodes its entries.
     */
    @Test
    void shouldRefuseAMapAddrWhoseFiAddrsWouldReachBit62()
    {
        final long largest = (1L << 62) - (1L << 28);
        for (final long bad : new long[] {-1L, Long.MIN_VALUE, 1L << 62, largest + 1})
        {
            assertErrno(FiErrno.EINVAL, () -> open(AvAttr.builder().type(AvType.MAP).count(16).name("badbase").mapAddr(bad)));
            assertFalse(Files.exists(shm.dir().resolve("badbase")), "nothing created for mapAddr 0x" + Long.toHexString(bad));
        }
        try (AddressVector av = open(AvAttr.builder().type(AvType.MAP).count(16).name("topbase").mapAddr(largest)))
        {
            final long[] fiAddr = new long[2];
            assertEquals(2, av.insert(concat(A, B), 2, fiAddr, 0, null));
            assertArrayEquals(new long[] {largest, largest + 1}, fiAddr);
            assertArrayEquals(bytes(B), lookupBytes(av, largest + 1));
        }
    }

    /**
     * A file whose stored base lies past that bound (planted, corrupted, or written by a writer that did not
     * check its own) is refused by every opener, as a creator refuses the base: its entries' map_addr values
     * could be all ones, which makes a VALID slot look FREE to claims. The largest base is still opened.
     */
    @Test
    void shouldRefuseAFileWhoseMapAddrBaseReachesBit62() throws IOException
    {
        final long largest = (1L << 62) - (1L << 28);
        for (final long bad : new long[] {-1L, Long.MIN_VALUE, 1L << 62, largest + 1})
        {
            final String name = "stored-base-" + Long.toHexString(bad);
            createThenCorrupt(name, ch -> ch.write(littleEndianLong(bad), AvFileDescriptor.MAP_ADDR_BASE_OFFSET));
            assertRefusedWithoutCrash(name);
            final FabricException e = assertThrows(FabricException.class, () -> open(named(name, 0)).close());
            assertTrue(e.getMessage().contains("corrupt header: mapAddrBase=" + bad), e.getMessage());
        }
        try (AddressVector av = open(AvAttr.builder().type(AvType.MAP).count(16).name("stored-base-top")))
        {
            av.insert(A.duplicate(), 1, null, 0, null);
        }
        try (FileChannel ch = FileChannel.open(shm.dir().resolve("stored-base-top"), StandardOpenOption.WRITE))
        {
            ch.write(littleEndianLong(largest), AvFileDescriptor.MAP_ADDR_BASE_OFFSET);
        }
        try (AddressVector av = open(AvAttr.builder().type(AvType.MAP).count(0).name("stored-base-top")))
        {
            assertEquals(largest, av.attr().mapAddr());
            assertArrayEquals(bytes(A), lookupBytes(av, largest));
        }
    }

    // ---------------------------------------------------------------- concurrent writers

    /**
     * Several handles (each its own attacher, as separate processes would be) insert and remove a small
     * set of addresses at once. While a thread holds a reference, its entry must stay valid and be the
     * only one for its address: lookup gives its bytes and reverseLookup gives its fi_addr.
     */
    @Test
    void shouldAgreeOnOneSlotPerAddressUnderConcurrentChurn() throws Exception
    {
        final int threads = 4;
        final int iterations = 20_000;
        final ByteBuffer[] addrs = distinctIn4(8);
        final List<AddressVector> handles = new ArrayList<>();
        final ExecutorService pool = Executors.newFixedThreadPool(threads);
        try
        {
            for (int t = 0; t < threads; t++)
            {
                handles.add(open(named("churn", 2 * threads))); // each thread holds at most a reference and a claim
            }
            final CountDownLatch start = new CountDownLatch(1);
            final List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++)
            {
                final AddressVector av = handles.get(t);
                final SplittableRandom random = new SplittableRandom(t);
                results.add(pool.submit(() ->
                {
                    assertTrue(start.await(10, TimeUnit.SECONDS));
                    final long[] one = new long[1];
                    final int[] errors = new int[1];
                    final ByteBuffer dst = ByteBuffer.allocate(16);
                    int done = 0;
                    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    for (int i = 0; i < iterations && System.nanoTime() < deadline; i++)
                    {
                        final ByteBuffer addr = addrs[random.nextInt(addrs.length)];
                        assertEquals(1, av.insert(addr, 1, one, Fi.SYNC_ERR, errors), () -> "insert failed: " + FiErrno.name(errors[0]));
                        final long held = one[0];
                        assertEquals(16, av.lookup(held, dst));
                        assertArrayEquals(bytes(addr), dst.array(), "entry " + held + " changed under a reference");
                        assertEquals(held, av.reverseLookup(addr), "two entries for one address");
                        av.remove(one, 1, 0);
                        done++;
                    }
                    return done;
                }));
            }
            start.countDown();
            int total = 0;
            for (final Future<Integer> f : results)
            {
                total += f.get(90, TimeUnit.SECONDS);
            }
            assertTrue(total >= threads * 1_000, "too few iterations ran to mean anything: " + total);
            assertEquals(0, handles.get(0).count(), "every reference was given back");
            final long[] fiAddr = new long[addrs.length];
            assertEquals(addrs.length, handles.get(1).insert(concat(addrs), addrs.length, fiAddr, 0, null));
            for (int i = 0; i < addrs.length; i++)
            {
                assertEquals(i, fiAddr[i], "slots were all given back, lowest first");
            }
        }
        finally
        {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
            for (final AddressVector av : handles)
            {
                av.close();
            }
        }
    }

    /**
     * Two writers (two attachers, as two processes would be) insert the same addresses into an AV
     * exactly that large. Near the end one writer may find every slot taken while the other holds the
     * last one CLAIMED for the very address both insert: that is a duplicate, never FI_ENOSPC.
     */
    @Test
    void shouldNotReportAFullAvWhileTheLastSlotIsClaimedForTheSameAddress() throws Exception
    {
        final int n = 32;
        final ByteBuffer[] addrs = AvTestSupport.distinctIn4(n);
        for (int round = 0; round < 150; round++)
        {
            try (AddressVector a = open(named("exact" + round, n)); AddressVector b = open(named("exact" + round, n)))
            {
                final java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(2);
                final java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
                try
                {
                    final java.util.List<java.util.concurrent.Future<Integer>> results = new java.util.ArrayList<>();
                    for (final AddressVector av : new AddressVector[] {a, b})
                    {
                        results.add(pool.submit(() ->
                        {
                            start.await(10, java.util.concurrent.TimeUnit.SECONDS);
                            int inserted = 0;
                            final int[] err = new int[1];
                            for (final ByteBuffer addr : addrs)
                            {
                                inserted += av.insert(addr.duplicate(), 1, null, Fi.SYNC_ERR, err);
                                assertEquals(0, err[0], "errno of an insert");
                            }
                            return inserted;
                        }));
                    }
                    for (final java.util.concurrent.Future<Integer> r : results)
                    {
                        assertEquals(n, r.get(30, java.util.concurrent.TimeUnit.SECONDS), "round " + round);
                    }
                }
                finally
                {
                    pool.shutdownNow();
                }
                assertEquals(n, a.count());
            }
            shm.domain().unlinkAv("exact" + round);
        }
    }
}
