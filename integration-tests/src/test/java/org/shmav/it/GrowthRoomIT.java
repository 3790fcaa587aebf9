package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

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
import org.shmav.Fi;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.GrowthClaim;
import org.shmav.shm.Memory;

/**
 * Growth on a file system with room for one more segment and not two (a size-limited tmpfs, mounted
 * when the test may: root with CAP_SYS_ADMIN; skipped otherwise, saying why), while the grower is
 * caught inside its growth (its claim made, its segment's zeros partly written): frozen with SIGSTOP,
 * the other writers' inserts must all succeed within the takeover delay (plus the growth itself), and
 * the grower, thawed, must harm none of their entries; killed, it must leave no byte of the file unused
 * (the next segment starts right at the end of the one before, and the file ends where the published
 * segments end). Layout 6.0 failed both: a taker took a new range past the frozen or dead grower's,
 * which the file system had no room for, so every insert failed with FI_ENOSPC.
 */
@Isolated("asserts insert times beside a frozen grower: runs alone, not beside other test classes")
class GrowthRoomIT
{
    /** Slots of segment 0, and so of segment 1 (a power of two: segment 1 doubles it). */
    private static final int COUNT = 32_768;
    /** Room left beside the next segment: less than one more segment, less than one zeros step too. */
    private static final long SPARE = 256 * 1024;
    /** The victim is caught once its zeros pass this many bytes beyond the published length. */
    private static final long CAUGHT_PAST = 1 << 20;

    private Path base;
    /** The tmpfs of the current attempt: a new one for each, since this JVM frees a mapping's pages only at GC. */
    private Path mount;
    private final List<Path> mounts = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception
    {
        base = TestDir.createInShm("robust");
        mountTmpfs(0);
    }

    @AfterEach
    void tearDown() throws Exception
    {
        for (final Path dir : mounts)
        {
            Require.unmount(dir);
        }
        TestDir.delete(base);
    }

    private void mountTmpfs(final int attempt) throws IOException, InterruptedException
    {
        final Path dir = Files.createDirectories(base.resolve("mnt" + attempt));
        Require.tmpfs(dir, "size=32m");
        mounts.add(dir);
        mount = dir;
    }

    @Test
    void shouldLetOtherWritersGrowPastAFrozenGrowerWithRoomForOneSegment() throws Exception
    {
        try (Caught victim = catchGrower(true))
        {
            final List<ChildJvm> writers = List.of(
                ChildJvm.start(RoomWriter.class, base, mount.toString(), victim.name, "41000", "200"),
                ChildJvm.start(RoomWriter.class, base, mount.toString(), victim.name, "42000", "200"));
            long maxMillis = 0;
            try
            {
                for (final ChildJvm w : writers)
                {
                    assertEquals(0, w.waitFor(Duration.ofSeconds(90)), w.output());
                    final String result = result(w);
                    assertTrue(result.contains(" failed=0 "), "every insert beside the frozen grower succeeds: " + result);
                    maxMillis = Math.max(maxMillis, Long.parseLong(result.replaceAll(".*maxMillis=(\\d+).*", "$1")));
                }
            }
            finally
            {
                writers.forEach(ChildJvm::close);
            }
            // The takeover delay (200 ms without progress) plus the growth itself on a busy machine.
            assertTrue(maxMillis < 3_000, "slowest insert beside the frozen grower: " + maxMillis + " ms");
            resume(victim.child.pid());
            assertEquals(0, victim.child.waitFor(Duration.ofSeconds(60)), victim.child.output());
            assertTrue(result(victim.child).contains(" failed=0 "), "the thawed grower's insert: " + victim.child.output());
            final long tail = checkAv(victim, 1 + 2 * 200);
            // A thawed grower may add one step of zeros it had begun before it was frozen, at the end of the file.
            assertTrue(tail <= 1 << 20, "bytes past the published segments: " + tail);
            System.out.println("GrowthRoomIT: grower frozen inside a growth with room for one segment: 400 inserts " +
                "of two other writers all succeeded, the slowest in " + maxMillis + " ms; the thawed grower left " +
                tail + " bytes past the published segments and harmed no entry");
        }
    }

    @Test
    void shouldWasteNoRangeWhenAGrowerIsKilledInsideItsGrowth() throws Exception
    {
        try (Caught victim = catchGrower(false))
        {
            victim.child.kill();
            try (ChildJvm writer = ChildJvm.start(RoomWriter.class, base, mount.toString(), victim.name, "41000", "200"))
            {
                assertEquals(0, writer.waitFor(Duration.ofSeconds(90)), writer.output());
                assertTrue(result(writer).contains(" failed=0 "), "every insert after the kill succeeds: " + result(writer));
            }
            final long tail = checkAv(victim, 200);
            assertEquals(0, tail, "bytes past the published segments after the killed grower's range was finished");
            System.out.println("GrowthRoomIT: grower killed inside a growth with room for one segment: the next " +
                "writer finished its range; segment 1 starts at the end of segment 0 and the file ends with it");
        }
    }

    /** A writer JVM frozen inside the growth of segment 1 of a full AV, on a file system with room for one segment. */
    private static final class Caught implements AutoCloseable
    {
        final String name;
        final ChildJvm child;
        final long segment0End;

        Caught(final String name, final ChildJvm child, final long segment0End)
        {
            this.name = name;
            this.child = child;
            this.segment0End = segment0End;
        }

        @Override
        public void close()
        {
            resume(child.pid());
            child.close();
        }
    }

    /**
     * Creates a full AV of {@link #COUNT} slots, leaves room for its next segment plus {@link #SPARE},
     * and starts a writer whose one insert grows it, stopping it (SIGSTOP) once its claim is made and
     * its zeros have passed {@link #CAUGHT_PAST} (and, when {@code midAppend}, are still that far from
     * the end: stopped while appending, not in its map_addr pass); tries again with a new AV when the
     * growth gets past that first.
     */
    private Caught catchGrower(final boolean midAppend) throws Exception
    {
        final long segment1 = segment1Length();
        for (int attempt = 0; attempt < 8; attempt++)
        {
            if (attempt > 0)
            {
                mountTmpfs(attempt);
            }
            final String name = "room" + attempt;
            final Path file = mount.resolve(name);
            long segment0End;
            try (Domain d = domain(mount);
                 AddressVector av = d.openAv(AvAttr.builder().type(AvType.TABLE).name(name).count(COUNT).build()))
            {
                fill(av, 1, COUNT);
                segment0End = Files.size(file);
            }
            final long usable = Files.getFileStore(mount).getUsableSpace();
            ExhaustionIT.fill(mount.resolve("filler" + attempt), usable - segment1 - SPARE);
            final ChildJvm child = ChildJvm.start(RoomWriter.class, base, mount.toString(), name, "40000", "1");
            final Process stopper = new ProcessBuilder("bash", "-c", "read x && kill -STOP " + child.pid())
                .redirectErrorStream(true).start();
            boolean caught = false;
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ))
            {
                final Memory header = new Memory(ch.map(FileChannel.MapMode.READ_ONLY, 0, 4096));
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (child.isAlive() && System.nanoTime() - deadline < 0)
                {
                    final long size = Files.size(file);
                    if (midAppend && size >= segment0End + segment1 - CAUGHT_PAST)
                    {
                        break; // too late for this attempt
                    }
                    if (GrowthClaim.segment(header.getLongVolatile(AvFileDescriptor.GROWTH_CLAIM_OFFSET)) == 1 &&
                        size > segment0End + CAUGHT_PAST)
                    {
                        final OutputStream in = stopper.getOutputStream();
                        in.write('\n');
                        in.flush();
                        awaitStopped(child.pid());
                        caught = header.getIntAcquire(AvFileDescriptor.SEGMENT_COUNT_OFFSET) == 1 &&
                            (!midAppend || Files.size(file) < segment0End + segment1);
                        break;
                    }
                    Thread.onSpinWait();
                }
            }
            finally
            {
                stopper.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            if (caught)
            {
                System.out.println("GrowthRoomIT: grower caught at attempt " + attempt + " with " +
                    (Files.size(file) - segment0End) + " of " + segment1 + " bytes of segment 1 reserved, " +
                    Files.getFileStore(mount).getUsableSpace() + " bytes free");
                return new Caught(name, child, segment0End);
            }
            resume(child.pid());
            child.kill();
            child.close();
        }
        fail("the grower got past where it was to be stopped, 8 times");
        return null;
    }

    /**
     * The length of segment 1 of an AV of {@link #COUNT} slots: grows a scratch AV once and measures it,
     * in /dev/shm (its pages, mapped here until GC, must not count against the small file system).
     */
    private long segment1Length() throws Exception
    {
        final Path scratch = Files.createDirectories(base.resolve("scratch"));
        final Path file = scratch.resolve("scratch");
        try (Domain d = domain(scratch);
             AddressVector av = d.openAv(AvAttr.builder().type(AvType.TABLE).name("scratch").count(COUNT).build()))
        {
            fill(av, 1, COUNT);
            final long before = Files.size(file);
            fill(av, COUNT + 1, 1);
            final long length = Files.size(file) - before;
            assertTrue(length > 4 * CAUGHT_PAST, "segment 1 is " + length + " bytes");
            return length;
        }
        finally
        {
            TestDir.delete(scratch);
        }
    }

    /**
     * Opens the AV and checks every entry (the fill, and {@code more} written beside or after the growth),
     * and that segment 1 starts right at the end of segment 0; returns the bytes past the published length.
     */
    private long checkAv(final Caught victim, final int more) throws Exception
    {
        final Path file = mount.resolve(victim.name);
        try (Domain d = domain(mount); AddressVector av = d.openAv(AvAttr.builder().name(victim.name).build()))
        {
            assertEquals(COUNT + more, av.count());
            for (int i = 1; i <= COUNT; i++)
            {
                assertEquals(i - 1, av.reverseLookup(FuzzRunner.inet(i)), "filled entry " + i);
            }
            assertEquals(COUNT + more, av.entries().count());
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ))
        {
            final Memory header = new Memory(ch.map(FileChannel.MapMode.READ_ONLY, 0, 4096));
            assertEquals(2, header.getIntAcquire(AvFileDescriptor.SEGMENT_COUNT_OFFSET));
            final long start = header.getLongVolatile(AvFileDescriptor.segmentOffset(1) + AvFileDescriptor.SEGMENT_SLOTS_OFFSET);
            assertEquals(victim.segment0End, start, "segment 1 starts where segment 0 ends: no range left unused below it");
            return Files.size(file) - segment1End(header);
        }
    }

    /** The published length: the end of segment 1's hash section, two areas of 4 * COUNT buckets (2 * its end). */
    private static long segment1End(final Memory header)
    {
        return header.getLongVolatile(AvFileDescriptor.segmentOffset(1) + AvFileDescriptor.SEGMENT_HASH_OFFSET) +
            2 * 8 * 4L * COUNT;
    }

    private static void fill(final AddressVector av, final int first, final int n)
    {
        final long[] one = new long[1];
        final int[] err = new int[1];
        for (int i = first; i < first + n; i++)
        {
            assertEquals(1, av.insert(FuzzRunner.inet(i), 1, one, Fi.SYNC_ERR, err), "insert " + i + ": errno " + err[0]);
        }
    }

    private static String result(final ChildJvm child)
    {
        return child.output().lines().filter(l -> l.startsWith("RESULT")).findFirst().orElse("no RESULT: " + child.output()) + " ";
    }

    private static Domain domain(final Path dir)
    {
        return Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build());
    }

    private static void awaitStopped(final long pid) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() - deadline < 0)
        {
            final String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            final char state = stat.charAt(stat.lastIndexOf(')') + 2);
            if (state == 'T' || state == 't')
            {
                return;
            }
            Thread.sleep(1);
        }
        fail("pid " + pid + " is not stopped 5 s after SIGSTOP");
    }

    /** SIGCONT to a child stopped with SIGSTOP (nothing when it is gone). */
    private static void resume(final long pid)
    {
        try
        {
            ChildJvm.run(List.of("kill", "-CONT", Long.toString(pid)), Duration.ofSeconds(10));
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Child: inserts inet(FIRST) .. inet(FIRST + N - 1) into AV NAME of DIR one call at a time, and prints
     * {@code RESULT ok=.. failed=.. errno=.. maxMillis=..} (the slowest call).
     */
    public static final class RoomWriter
    {
        public static void main(final String[] args)
        {
            final int first = Integer.parseInt(args[2]);
            final int n = Integer.parseInt(args[3]);
            int ok = 0;
            int failed = 0;
            int errno = 0;
            long maxNanos = 0;
            try (Domain d = domain(Path.of(args[0])); AddressVector av = d.openAv(AvAttr.builder().name(args[1]).build()))
            {
                final long[] one = new long[1];
                final int[] err = new int[1];
                for (int i = first; i < first + n; i++)
                {
                    final ByteBuffer addr = FuzzRunner.inet(i);
                    final long start = System.nanoTime();
                    if (av.insert(addr, 1, one, Fi.SYNC_ERR, err) == 1)
                    {
                        ok++;
                    }
                    else
                    {
                        failed++;
                        errno = err[0];
                    }
                    maxNanos = Math.max(maxNanos, System.nanoTime() - start);
                }
            }
            System.out.println("RESULT ok=" + ok + " failed=" + failed + " errno=" + errno + " maxMillis=" +
                TimeUnit.NANOSECONDS.toMillis(maxNanos));
        }
    }
}
