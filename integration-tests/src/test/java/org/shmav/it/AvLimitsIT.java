package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.cli.ShmavCli;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;

/**
 * A count whose file the file system cannot hold is refused at open with FI_ENOSPC naming the bytes
 * needed and the bytes free, by the API and by {@code shmav create} alike, before anything is written.
 * Uses /dev/shm itself when it has less room than the largest AV file (so a count can pass its free
 * space within the limits); otherwise a small tmpfs, which only root with CAP_SYS_ADMIN may mount (the
 * test is skipped elsewhere, saying so).
 */
class AvLimitsIT
{
    private static final Pattern REFUSAL =
        Pattern.compile("needs (\\d+) bytes for count=(\\d+), and (\\S+) has (\\d+) bytes free");

    private Path dir;
    private Path mount;

    @AfterEach
    void tearDown() throws Exception
    {
        TestDir.delete(dir);
        if (mount != null)
        {
            Require.unmount(mount);
            Files.delete(mount);
        }
    }

    /** /dev/shm when a count can need more than its free space; else a 4 MiB tmpfs (root), or the test is skipped. */
    private Path smallFileSystem() throws Exception
    {
        final long free = Files.getFileStore(Path.of("/dev/shm")).getUsableSpace();
        if (free < AvFileDescriptor.MAX_FILE_LENGTH - (64 << 20))
        {
            return dir = TestDir.createInShm("robust");
        }
        final Path at = Files.createTempDirectory("shmav-limits-");
        try
        {
            Require.works("MOUNT", "/dev/shm has " + free + " bytes free, more than the largest AV file (" +
                AvFileDescriptor.MAX_FILE_LENGTH + " bytes), so a count too large for it is refused for its size first; " +
                "a smaller tmpfs needs root with CAP_SYS_ADMIN to mount", List.of("mount", "-t", "tmpfs", "-o", "size=4m",
                "tmpfs", at.toString()));
        }
        catch (final AssertionError | RuntimeException e)
        {
            Files.delete(at); // not mounted
            throw e;
        }
        mount = at;
        return dir = Files.createDirectory(at.resolve("avs"));
    }

    @Test
    void shouldRefuseACountTheFileSystemCannotHoldWithEnospcNamingTheNumbers() throws Exception
    {
        final Path where = smallFileSystem();
        final long free = Files.getFileStore(where).getUsableSpace();
        final long count = smallestCountLargerThan(free);
        final long needed = layout(count).fileLength();
        try (Domain d = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(where).build()))
        {
            final long start = System.nanoTime();
            final FabricException e = assertThrows(FabricException.class,
                () -> d.openAv(AvAttr.builder().name("big").count(count).build()).close());
            final long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(FiErrno.ENOSPC, e.errno(), e.getMessage());
            assertNumbers(e.getMessage(), needed, count, where);
            assertEmpty(where);
            System.out.println("AvLimitsIT: count " + count + " on " + where + " (" + free + " bytes free): FI_ENOSPC in " +
                millis + " ms: " + e.getMessage());
            try (AddressVector small = d.openAv(AvAttr.builder().name("small").count(count / 8).build()))
            {
                assertEquals(count / 8, small.attr().count(), "a count that fits is created");
            }
            d.unlinkAv("small");
        }
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = ShmavCli.execute(new PrintWriter(out), new PrintWriter(err), "--dir", where.toString(), "create",
            "big", "--count", Long.toString(count));
        assertEquals(10, code, "shmav create: the same refusal, exit code 10 (no space): " + err);
        assertNumbers(err.toString(), needed, count, where);
        assertEmpty(where);
    }

    private static void assertNumbers(final String message, final long needed, final long count, final Path where)
    {
        final Matcher m = REFUSAL.matcher(message);
        assertTrue(m.find(), message);
        assertEquals(needed, Long.parseLong(m.group(1)), message);
        assertEquals(count, Long.parseLong(m.group(2)), message);
        assertEquals(where.toString(), m.group(3), message);
        assertTrue(Long.parseLong(m.group(4)) < needed, message);
    }

    private static AvLayout layout(final long count)
    {
        return AvLayout.compute(AddrFormat.SOCKADDR_IN, AvType.TABLE, count, 1024, 0, 0);
    }

    /** The smallest count whose file needs more than {@code free} bytes. */
    private static long smallestCountLargerThan(final long free)
    {
        long fits = 1;
        long tooLarge = AvFileDescriptor.MAX_CAPACITY;
        while (tooLarge - fits > 1)
        {
            final long mid = fits + (tooLarge - fits) / 2;
            if (layout(mid).fileLength() <= free)
            {
                fits = mid;
            }
            else
            {
                tooLarge = mid;
            }
        }
        assertTrue(layout(tooLarge).fileLength() <= AvFileDescriptor.MAX_FILE_LENGTH, "within the file-size limit");
        return tooLarge;
    }

    private static void assertEmpty(final Path where) throws IOException
    {
        try (Stream<Path> files = Files.list(where))
        {
            assertEquals(List.of(), files.toList(), "no AV file, no temporary file");
        }
    }
}
