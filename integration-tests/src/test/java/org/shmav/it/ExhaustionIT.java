package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;

/**
 * Running out of room. A size-limited tmpfs (mounted when the test may: root with CAP_SYS_ADMIN;
 * skipped otherwise, saying why): an AV larger than the file system, an AV that does not fit beside
 * a filler file, and a file system out of inodes all give FI_ENOSPC and leave no file and no
 * temporary file; an AV created before the file system filled up keeps working in a child JVM (its
 * pages were committed at creation, so no SIGBUS). Always, without mounting: a simulated full file
 * system (the child's RLIMIT_FSIZE below the AV's size, so writes fail the way a full one makes them
 * fail) gives FI_ENOSPC and leaves nothing; and a full AV gives per-address FI_ENOSPC and stays usable.
 */
@Isolated("asserts that a refusal comes within 2 s: runs alone, not beside other test classes")
class ExhaustionIT
{
    private Path base;
    private Path mount;

    @BeforeEach
    void setUp() throws IOException
    {
        base = TestDir.createInShm("robust");
    }

    @AfterEach
    void tearDown() throws Exception
    {
        if (mount != null)
        {
            Require.unmount(mount);
        }
        TestDir.delete(base);
    }

    /** Mounts a tmpfs of {@code options} at base/mnt, or skips (fails under CI's flag) saying why it cannot. */
    private Path mountTmpfs(final String options) throws Exception
    {
        final Path dir = Files.createDirectories(base.resolve("mnt"));
        Require.tmpfs(dir, options);
        mount = dir;
        return dir;
    }

    private static Domain domain(final Path dir)
    {
        return Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build());
    }

    @Test
    void shouldGiveEnospcForAnAvLargerThanTheFileSystem() throws Exception
    {
        final Path dir = mountTmpfs("size=2m");
        try (Domain d = domain(dir))
        {
            expectEnospc(d, "big", 50_000); // about 5 MB
            assertEmpty(dir);
            try (AddressVector av = d.openAv(AvAttr.builder().name("small").count(1024).build()))
            {
                assertEquals(1, av.insert(FuzzRunner.inet(1), 1, null, 0, null), "a fitting AV still works");
            }
        }
    }

    @Test
    void shouldGiveEnospcWhenAFillerLeavesTooLittleRoomThenWorkOnceFreed() throws Exception
    {
        final Path dir = mountTmpfs("size=2m");
        final Path filler = dir.resolve("filler");
        fill(filler, 1_800_000);
        try (Domain d = domain(dir))
        {
            expectEnospc(d, "job", 4096); // about 500 KB, more than is left
            try (Stream<Path> files = Files.list(dir))
            {
                assertEquals(List.of(filler), files.toList(), "no AV file, no temporary file");
            }
            Files.delete(filler);
            try (AddressVector av = d.openAv(AvAttr.builder().name("job").count(4096).build()))
            {
                assertEquals(1, av.insert(FuzzRunner.inet(1), 1, null, 0, null));
            }
        }
    }

    /**
     * An AV closed and unlinked by this JVM frees its room for the next one. Its mapping outlives close()
     * until the collector unmaps it (java-api.md), and tmpfs keeps an unlinked file's pages while any
     * mapping holds them, so a create that finds too little room collects garbage and waits for the room.
     * Each AV here takes more than half of the file system. The closed handles stay reachable: a closed
     * handle lets go of its mapping.
     */
    @Test
    void shouldCreateAgainInTheRoomOfAnAvThisJvmClosedAndUnlinked() throws Exception
    {
        final Path dir = mountTmpfs("size=2m");
        final List<AddressVector> closed = new ArrayList<>();
        try (Domain d = domain(dir))
        {
            for (int round = 0; round < 4; round++)
            {
                try (AddressVector av = d.openAv(AvAttr.builder().name("job").count(12_000).build()))
                {
                    closed.add(av);
                    assertTrue(Files.size(dir.resolve("job")) > 1 << 20, "the AV takes more than half of 2 MiB");
                    assertEquals(1, av.insert(FuzzRunner.inet(round), 1, null, 0, null), "round " + round);
                }
                assertTrue(d.unlinkAv("job"), "round " + round);
            }
        }
        assertEquals(4, closed.size());
        assertEmpty(dir);
    }

    /** As above, for a growth: an AV grows into the room of one this JVM closed and unlinked. */
    @Test
    void shouldGrowIntoTheRoomOfAnAvThisJvmClosedAndUnlinked() throws Exception
    {
        final Path dir = mountTmpfs("size=2m");
        try (Domain d = domain(dir))
        {
            try (AddressVector big = d.openAv(AvAttr.builder().name("big").count(12_000).build()))
            {
                assertEquals(1, big.insert(FuzzRunner.inet(0), 1, null, 0, null));
            }
            final long bigBytes = Files.size(dir.resolve("big"));
            assertTrue(d.unlinkAv("big"));
            // grown to 8000 entries, its file takes more room than the big AV left
            try (AddressVector av = d.openAv(AvAttr.builder().name("grows").count(1000).maxCount(8000).build()))
            {
                for (int i = 0; i < 8000; i++)
                {
                    assertEquals(1, av.insert(FuzzRunner.inet(i), 1, null, 0, null), "insert " + i);
                }
                assertEquals(8000, av.count());
                assertTrue(Files.size(dir.resolve("grows")) > (2 << 20) - bigBytes, "grown past the room the big AV left");
            }
        }
    }

    @Test
    void shouldGiveEnospcWhenTheFileSystemIsOutOfInodes() throws Exception
    {
        final Path dir = mountTmpfs("size=2m,nr_inodes=16");
        int made = 0;
        try
        {
            while (true)
            {
                Files.createFile(dir.resolve("inode" + made));
                made++;
            }
        }
        catch (final IOException full)
        {
            // every inode taken
        }
        assertTrue(made > 0);
        try (Domain d = domain(dir))
        {
            expectEnospc(d, "job", 16);
            try (Stream<Path> files = Files.list(dir))
            {
                assertEquals(made, files.count(), "no AV file, no temporary file");
            }
        }
    }

    @Test
    void shouldKeepAnExistingAvWorkingWhenTheFileSystemFillsUp() throws Exception
    {
        final Path dir = mountTmpfs("size=2m");
        try (Domain d = domain(dir); AddressVector av = d.openAv(AvAttr.builder().name("job").count(256).build()))
        {
            av.insert(FuzzRunner.inet(1), 1, null, 0, null);
        }
        final long free = fill(dir.resolve("filler"), Long.MAX_VALUE);
        assertEquals(0, Files.getFileStore(dir).getUsableSpace(), "the file system is full (filler took " + free + " bytes)");
        try (ChildJvm child = ChildJvm.start(FullAvUser.class, base.resolve("out"), dir.toString(), "job", "256", "20000"))
        {
            final int exit = child.waitFor(Duration.ofSeconds(120));
            assertEquals(0, exit, "child on a full file system (a SIGBUS would be exit 134/135):\n" + child.output());
            System.out.println("ExhaustionIT: full tmpfs: " + child.output().lines().filter(l -> l.startsWith("RESULT")).findFirst().orElse(""));
        }
        try (Domain d = domain(dir))
        {
            expectEnospc(d, "another", 16);
        }
    }

    @Test
    void shouldGiveEnospcAndLeaveNothingWhenTheFileCannotGrow() throws Exception
    {
        // Simulated full file system, no mount needed: the child may not write files larger than 1 MiB,
        // so creating a ~5 MB AV fails part-way through writing its pages, as on a full tmpfs.
        final Path dir = Files.createDirectories(base.resolve("avs"));
        final List<String> prefix = Files.isExecutable(Path.of("/usr/bin/prlimit"))
            ? List.of("/usr/bin/prlimit", "--fsize=1048576:1048576", "--")
            : List.of("bash", "-c", "ulimit -f 1024 && exec \"$@\"", "bash");
        try (ChildJvm child = ChildJvm.start(prefix, System.getProperty("java.class.path"), Map.of(), CreateProbe.class,
            base.resolve("out"), dir.toString(), "big", "50000"))
        {
            assertEquals(0, child.waitFor(Duration.ofSeconds(60)), child.output());
            final String result = child.output().lines().filter(l -> l.startsWith("RESULT")).findFirst().orElse(child.output());
            System.out.println("ExhaustionIT: RLIMIT_FSIZE child: " + result);
            assertTrue(result.startsWith("RESULT errno=" + FiErrno.ENOSPC), result);
        }
        assertEmpty(dir);
    }

    @Test
    void shouldGivePerAddressEnospcOnAFullAvAndStayUsable() throws Exception
    {
        final Path dir = Files.createDirectories(base.resolve("avs"));
        final int count = 64;
        try (Domain d = domain(dir);
             AddressVector av = d.openAv(AvAttr.builder().type(AvType.TABLE).name("full").count(count).maxCount(count).build());
             AddressVector other = d.openAv(AvAttr.builder().name("full").build()))
        {
            final long[] fi = new long[count];
            final ByteBuffer all = ByteBuffer.allocate(count * 16);
            for (int i = 0; i < count; i++)
            {
                all.put(FuzzRunner.inet(i + 1));
            }
            assertEquals(count, av.insert(all.flip(), count, fi, 0, null));
            assertEquals(count, av.count());

            // A batch that only partly fits: the new ones fail per address, the present ones still succeed.
            final ByteBuffer batch = ByteBuffer.allocate(3 * 16).put(FuzzRunner.inet(1000)).put(FuzzRunner.inet(5))
                .put(FuzzRunner.inet(1001)).flip();
            final long[] out = new long[3];
            final int[] errors = new int[3];
            assertEquals(1, other.insert(batch, 3, out, Fi.SYNC_ERR, errors));
            assertEquals(FiErrno.ENOSPC, errors[0]);
            assertEquals(0, errors[1]);
            assertEquals(fi[4], out[1], "an address already present takes a reference, full or not");
            assertEquals(FiErrno.ENOSPC, errors[2]);
            assertEquals(Fi.ADDR_NOTAVAIL, out[0]);
            assertEquals(Fi.ADDR_NOTAVAIL, out[2]);
            other.remove(new long[] {out[1]}, 1, 0);

            // Full for a long time, then freed and filled again, many times: always exact.
            int cycles = 0;
            final long[] one = new long[1];
            final int[] err = new int[1];
            for (int round = 0; round < 2000; round++)
            {
                final int victim = round % count;
                av.remove(new long[] {fi[victim]}, 1, 0);
                assertEquals(count - 1, other.count());
                assertEquals(1, other.insert(FuzzRunner.inet(10_000 + round), 1, one, Fi.SYNC_ERR, err), "round " + round);
                assertEquals(fi[victim], one[0], "the freed index is reused");
                assertEquals(0, av.insert(FuzzRunner.inet(20_000 + round), 1, one, Fi.SYNC_ERR, err));
                assertEquals(FiErrno.ENOSPC, err[0]);
                fi[victim] = other.reverseLookup(FuzzRunner.inet(10_000 + round));
                assertNotEquals(Fi.ADDR_NOTAVAIL, fi[victim]);
                cycles++;
            }
            final ByteBuffer b = ByteBuffer.allocate(16);
            for (int i = 0; i < count; i++)
            {
                assertEquals(16, av.lookup(fi[i], b.clear()));
            }
            assertEquals(count, av.count());
            System.out.println("ExhaustionIT: full AV: " + cycles + " remove/insert cycles at count=" + count +
                ", every insert into the full AV gave FI_ENOSPC");
        }
    }

    @Test
    void shouldGiveEnospcAtGrowthOnAFullFileSystemWithTheAvIntact() throws Exception
    {
        final Path dir = mountTmpfs("size=2m");
        final Path file = dir.resolve("grows");
        int inserted = 0;
        try (Domain d = domain(dir); AddressVector av = d.openAv(AvAttr.builder().type(AvType.TABLE).name("grows").count(4).build()))
        {
            final long[] one = new long[1];
            final int[] err = new int[1];
            while (av.insert(FuzzRunner.inet(inserted + 1), 1, one, Fi.SYNC_ERR, err) == 1)
            {
                assertEquals(inserted, one[0], "TABLE: the next index");
                inserted++;
            }
            assertEquals(FiErrno.ENOSPC, err[0], "the growth that found no room");
            assertTrue(inserted > 1000, "grew several times before the file system filled: " + inserted);
            final long published = Files.size(file);
            assertEquals(0, av.insert(FuzzRunner.inet(inserted + 1), 1, one, Fi.SYNC_ERR, err));
            assertEquals(FiErrno.ENOSPC, err[0]);
            assertEquals(published, Files.size(file), "a growth with no room writes nothing: the file stays as it was");
            // A batch into the full AV: the first address finds no room to grow, the others fail at once
            // (each used to zero-fill and cut back the file again: about 15 ms an address; now each is
            // refused before it writes).
            final int batch = 1_024;
            final ByteBuffer addrs = ByteBuffer.allocate(16 * batch);
            for (int i = 0; i < batch; i++)
            {
                addrs.put(FuzzRunner.inet(inserted + 2 + i));
            }
            final int[] errors = new int[batch];
            final long start = System.nanoTime();
            assertEquals(0, av.insert(addrs.flip(), batch, new long[batch], Fi.SYNC_ERR, errors));
            final long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            for (int i = 0; i < batch; i++)
            {
                assertEquals(FiErrno.ENOSPC, errors[i], "address " + i);
            }
            System.out.println("ExhaustionIT: a batch of " + batch + " into the AV that cannot grow: FI_ENOSPC in " + millis + " ms");
            assertTrue(millis < 2_000, "a batch of " + batch + " took " + millis + " ms to be refused");
            assertEquals(published, Files.size(file));
            assertEquals(inserted, av.count());
        }
        // Another process, opened afterwards, reads every entry of the AV the failed growths left.
        try (ChildJvm child = ChildJvm.start(GrownAvChecker.class, base.resolve("out"), dir.toString(), "grows",
            String.valueOf(inserted)))
        {
            assertEquals(0, child.waitFor(Duration.ofSeconds(60)), child.output());
        }
        System.out.println("ExhaustionIT: growth on a 2 MiB tmpfs stopped with FI_ENOSPC at " + inserted +
            " entries, file " + Files.size(file) + " bytes, every entry intact");
    }

    /** Child: opens AV {@code args[1]} read-only and checks it holds exactly inet(1..args[2]) at 0..args[2]-1. */
    public static final class GrownAvChecker
    {
        public static void main(final String[] args)
        {
            final int n = Integer.parseInt(args[2]);
            try (Domain d = domain(Path.of(args[0]));
                 AddressVector av = d.openAv(AvAttr.builder().name(args[1]).flags(Fi.READ).build()))
            {
                final ByteBuffer b = ByteBuffer.allocate(16);
                for (int i = 0; i < n; i++)
                {
                    av.lookup(i, b.clear());
                    final byte[] want = new byte[16];
                    FuzzRunner.inet(i + 1).duplicate().get(want);
                    if (!java.util.Arrays.equals(want, b.array()) || av.reverseLookup(FuzzRunner.inet(i + 1)) != i)
                    {
                        System.out.println("entry " + i + " is wrong");
                        System.exit(3);
                    }
                }
                if (av.count() != n)
                {
                    System.out.println("count " + av.count() + " != " + n);
                    System.exit(3);
                }
            }
        }
    }

    private static void expectEnospc(final Domain d, final String name, final long count)
    {
        final FabricException e = assertThrows(FabricException.class,
            () -> d.openAv(AvAttr.builder().name(name).count(count).build()).close());
        assertEquals(FiErrno.ENOSPC, e.errno(), e.getMessage());
    }

    private static void assertEmpty(final Path dir) throws IOException
    {
        try (Stream<Path> files = Files.list(dir))
        {
            assertEquals(List.of(), files.toList(), "no AV file and no temporary file may be left");
        }
    }

    /** Writes up to {@code limit} bytes to {@code file}, stopping quietly when the file system is full; returns bytes written. */
    static long fill(final Path file, final long limit) throws IOException
    {
        long written = 0;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))
        {
            final ByteBuffer chunk = ByteBuffer.allocate(4096);
            while (written < limit)
            {
                chunk.clear().limit((int)Math.min(4096, limit - written));
                written += ch.write(chunk);
            }
        }
        catch (final IOException full)
        {
            assertTrue(String.valueOf(full.getMessage()).contains("No space left"), full.toString());
        }
        return written;
    }

    /** Child: tries to create AV {@code args[1]} of count {@code args[2]} in {@code args[0]}; prints RESULT. */
    public static final class CreateProbe
    {
        public static void main(final String[] args)
        {
            try (Domain d = domain(Path.of(args[0]));
                 AddressVector av = d.openAv(AvAttr.builder().name(args[1]).count(Long.parseLong(args[2])).build()))
            {
                System.out.println("RESULT created count=" + av.attr().count());
            }
            catch (final FabricException e)
            {
                System.out.println("RESULT errno=" + e.errno() + " " + e.getMessage());
            }
        }
    }

    /**
     * Child: on a full file system, opens existing AV {@code args[1]} of count {@code args[2]} and runs
     * {@code args[3]} insert/remove steps filling it to the brim and beyond; exit 3 on a wrong answer.
     */
    public static final class FullAvUser
    {
        public static void main(final String[] args)
        {
            final int count = Integer.parseInt(args[2]);
            final int steps = Integer.parseInt(args[3]);
            int enospc = 0;
            try (Domain d = domain(Path.of(args[0]));
                 AddressVector av = d.openAv(AvAttr.builder().name(args[1]).build()))
            {
                final List<Long> live = new ArrayList<>();
                final long[] one = new long[1];
                final int[] err = new int[1];
                final java.util.SplittableRandom r = new java.util.SplittableRandom(42);
                for (int i = 0; i < steps; i++)
                {
                    if (live.isEmpty() || r.nextInt(100) < 55)
                    {
                        if (av.insert(FuzzRunner.inet(100 + i), 1, one, Fi.SYNC_ERR, err) == 1)
                        {
                            live.add(one[0]);
                        }
                        else if (err[0] == FiErrno.ENOSPC && av.count() == count)
                        {
                            enospc++;
                        }
                        else
                        {
                            System.out.println("RESULT wrong errno=" + err[0] + " count=" + av.count());
                            Runtime.getRuntime().halt(3);
                        }
                    }
                    else
                    {
                        av.remove(new long[] {live.remove(r.nextInt(live.size()))}, 1, 0);
                    }
                }
                System.out.println("RESULT ok steps=" + steps + " perAddressEnospc=" + enospc + " count=" + av.count());
            }
        }
    }
}
