package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
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

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;
import org.shmav.cli.ShmavCli;
import org.shmav.shm.AvLayout;

/**
 * {@code shmav ls} and {@code show}, and FI_READ openers, see an AV as its header publishes it while its
 * file is longer (a growth reserving its next segment, or the zeros a failed growth left for the next) or is cut
 * back meanwhile (by a process that is not a shmav grower: since layout 6 growers never shorten it):
 * they map the header, then exactly the published length, never the file by its size. Before, a tool
 * that read the size while a failing grower's reservation stood and mapped after it was cut back said
 * "not an AV: I/O error". A file shorter than its published segments is named as truncated.
 */
class ToolsDuringGrowthIT
{
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** FI_READ opens per round of ls and show: cheaper than a CLI run, so the race is met more often. */
    private static final int READER_OPENS = 50;

    private Path dir;
    private Path work;
    private Domain domain;

    /** What one CLI run printed and returned. */
    private record Result(int code, String out, String err)
    {
    }

    @BeforeEach
    void setUp() throws IOException
    {
        dir = TestDir.createInShm("robust");
        work = Files.createDirectories(dir.resolve(".work"));
        domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build());
    }

    @AfterEach
    void tearDown() throws IOException
    {
        domain.close();
        TestDir.delete(dir);
    }

    /** A full AV of {@code count} entries, closed: this JVM then holds no open file of it, as a tool's JVM. */
    private Path fullAv(final String name, final int count)
    {
        try (AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).name(name).count(count).build()))
        {
            assertEquals(count, av.insert(InetRange.of(0, count), count, null, 0, null));
        }
        return dir.resolve(name);
    }

    /** The length of segment 0 and of the file once the next segment is reserved, for a full AV of {@code count}. */
    private static long[] lengths(final int count)
    {
        final AvLayout layout = AvLayout.compute(AddrFormat.SOCKADDR_IN, AvType.TABLE, count, 1024, 0, 0)
            .growingTo(AvAttr.DEFAULT_MAX_COUNT);
        return new long[] {layout.fileLength(), layout.grown().fileLength()};
    }

    @Test
    void shouldShowTheAvAsPublishedWhileAReservedTailExists() throws Exception
    {
        final Path file = fullAv("reserving", 4);
        final long[] length = lengths(4);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE))
        {
            ch.write(ByteBuffer.allocate(4096), length[1] - 4096); // a grower's reservation, not yet published
        }
        assertEquals(length[1], Files.size(file));
        final Result ls = shmav("ls");
        assertEquals(0, ls.code(), ls.err());
        assertTrue(ls.out().matches("(?s).*\nreserving +table +in +4 +4 +0 +0 +" + length[0] + " .*"), ls.out());
        final Result json = shmav("ls", "--json");
        assertTrue(json.out().contains("\"capacity\": 4,") && json.out().contains("\"segments\": 1,") &&
            json.out().contains("\"sizeBytes\": " + length[0] + ","), json.out());
        final Result show = shmav("show", "reserving");
        assertEquals(0, show.code(), show.err());
        assertTrue(show.out().contains("capacity 4, count 4") && show.out().contains("segments 1") &&
            show.out().contains(length[0] + " bytes"), show.out());
        try (AddressVector reader = domain.openAv(AvAttr.builder().name("reserving").flags(Fi.READ).build()))
        {
            assertEquals(4, reader.attr().count());
            assertEquals(4, reader.count());
        }
        try (AddressVector writer = domain.openAv(AvAttr.builder().name("reserving").build()))
        {
            assertEquals(1, writer.insert(InetRange.of(4, 1), 1, null, 0, null), "the next growth writes over the tail and grows");
        }
        assertTrue(shmav("ls").out().matches("(?s).*\nreserving +table +in +8 +5 .*"), "after the growth");
    }

    /**
     * A file extended and cut back many times a second (a child JVM that does only that, as fast as it
     * can; layout 5's failing growers did it); ls, show and FI_READ opens meanwhile all see the AV.
     */
    @Test
    void shouldNeverCallItNotAnAvWhileAGrowthComesAndGoes() throws Exception
    {
        final Path file = fullAv("failing", 4);
        final long[] length = lengths(4);
        final Path stop = work.resolve("stop");
        final List<String> failures = new ArrayList<>();
        int runs = 0;
        try (ChildJvm toggler = ChildJvm.start(TailToggler.class, work, file.toString(), Long.toString(length[0]),
            Long.toString(length[1]), stop.toString()))
        {
            toggler.awaitOutput("STARTED", WAIT);
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
            while (System.nanoTime() - end < 0 && failures.size() < 20)
            {
                runs++;
                final Result ls = shmav("ls", "--all");
                if (ls.code() != 0 || !ls.out().matches("(?s).*\nfailing +table +in +4 +4 .*"))
                {
                    failures.add("ls: " + ls.out() + ls.err());
                }
                final Result show = shmav("show", "failing");
                if (show.code() != 0 || !show.out().contains("capacity 4, count 4"))
                {
                    failures.add("show: exit " + show.code() + ": " + show.err());
                }
                for (int i = 0; i < READER_OPENS; i++)
                {
                    try (AddressVector reader = domain.openAv(AvAttr.builder().name("failing").flags(Fi.READ).build()))
                    {
                        if (reader.attr().count() != 4 || reader.count() != 4)
                        {
                            failures.add("FI_READ: " + reader.attr());
                        }
                    }
                    catch (final FabricException e)
                    {
                        failures.add("FI_READ: " + e.getMessage());
                    }
                }
            }
            Files.createFile(stop);
            assertEquals(0, toggler.waitFor(WAIT), toggler.output());
            System.out.println("ToolsDuringGrowthIT: " + runs + " rounds of ls, show and " + READER_OPENS +
                " FI_READ opens while a child extended and cut back the file: " +
                    toggler.output().trim().replace('\n', ' ') + "; " + failures.size() +
                " failed");
        }
        assertEquals(List.of(), failures, runs + " rounds");
        assertEquals(length[0], Files.size(file), "the child cut it back to its published length last");
    }

    /**
     * A real failed growth, repeated: a writer JVM whose file size limit leaves no room for the next
     * segment tries to grow on every call; meanwhile and afterwards ls and show show the AV as it is.
     */
    @Test
    void shouldShowTheAvDuringAndAfterGrowthsThatFail() throws Exception
    {
        final int count = 16_384; // segment 1 takes about 2 MB: the limit stops each reservation half-way
        final Path file = fullAv("stuck", count);
        final long[] length = lengths(count);
        final long limit = length[0] + (1 << 20);
        final List<String> prefix = Files.isExecutable(Path.of("/usr/bin/prlimit"))
            ? List.of("/usr/bin/prlimit", "--fsize=" + limit + ":" + limit, "--")
            : List.of("bash", "-c", "ulimit -f " + limit / 1024 + " && exec \"$@\"", "bash");
        int runs = 0;
        try (ChildJvm grower = ChildJvm.start(prefix, System.getProperty("java.class.path"), Map.of(),
            FailingGrower.class, work, dir.toString(), "stuck", "3"))
        {
            while (grower.isAlive())
            {
                runs++;
                final Result ls = shmav("ls");
                assertEquals(0, ls.code(), ls.err());
                assertTrue(ls.out().matches("(?s).*\nstuck +table +in +" + count + " +" + count + " .*"), ls.out());
            }
            assertEquals(0, grower.waitFor(WAIT), grower.output());
            System.out.println("ToolsDuringGrowthIT: " + grower.output().trim() + "; " + runs + " ls runs meanwhile");
        }
        // The failed growths' zeros stay, not cut: the file never shrinks, and the next grower goes on from them.
        final long size = Files.size(file);
        assertTrue(size >= length[0] && size <= limit, "the file is " + size + " bytes: between " + length[0] +
            " (published) and the limit " + limit);
        final Result show = shmav("show", "stuck");
        assertEquals(0, show.code(), show.err());
        assertTrue(show.out().contains("capacity " + count + ", count " + count) && show.out().contains("segments 1"),
            show.out().substring(0, Math.min(600, show.out().length())));
    }

    @Test
    void shouldNameAFileShorterThanItsPublishedSegmentsAsTruncated() throws Exception
    {
        final Path file = fullAv("cut", 4);
        try (AddressVector writer = domain.openAv(AvAttr.builder().name("cut").build()))
        {
            writer.insert(InetRange.of(4, 1), 1, null, 0, null); // a second segment
        }
        final long published = Files.size(file);
        final long[] length = lengths(4);
        assertEquals(length[1], published);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE))
        {
            ch.truncate(published - 4096);
        }
        final String reason = "is " + (published - 4096) + " bytes but its 2 segments need " + published + ": truncated";
        final Result all = shmav("ls", "--all");
        assertTrue(all.out().contains("cut") && all.out().contains("not an AV: ") && all.out().contains(reason), all.out());
        final Result show = shmav("show", "cut");
        assertEquals(4, show.code(), show.err());
        assertTrue(show.err().contains(reason), show.err());
        final FabricException e = assertErrnoOnOpen(FiErrno.EINVAL, "cut");
        assertTrue(e.getMessage().contains(reason), e.getMessage());
        assertTrue(domain.unlinkAv("cut"), "its header is a shmav AV's: unlinkAv removes it");
    }

    private FabricException assertErrnoOnOpen(final int errno, final String name)
    {
        try (AddressVector av = domain.openAv(AvAttr.builder().name(name).flags(Fi.READ).build()))
        {
            fail("opened " + name + ": " + av.attr());
            return null;
        }
        catch (final FabricException e)
        {
            assertEquals(errno, e.errno(), e.getMessage());
            return e;
        }
    }

    private Result shmav(final String... args)
    {
        final List<String> all = new ArrayList<>(List.of("--dir", dir.toString()));
        all.addAll(List.of(args));
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = ShmavCli.execute(new PrintWriter(out), new PrintWriter(err), all.toArray(String[]::new));
        return new Result(code, out.toString(), err.toString());
    }
}
