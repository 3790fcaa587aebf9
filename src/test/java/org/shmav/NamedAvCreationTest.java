package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmav.it.Require;
import org.shmav.it.TestDir;

/**
 * Who gets to write a named AV's file: create-only opens have one winner; a writer never writes a file
 * that another user controls; a sparse file is made whole (or refused) before anything is written.
 */
class NamedAvCreationTest
{

    private Path dir;

    @BeforeEach
    void setUp()
    {
        dir = TestDir.createInShm("creation");
    }

    @AfterEach
    void cleanUp()
    {
        TestDir.delete(dir);
    }

    private Domain domain(final Path in)
    {
        return Domain.open(DomainAttr.builder().shmDirectory(in).build());
    }

    @Test
    void shouldLetExactlyOneOfManyCreateOnlyOpensCreate() throws Exception
    {
        final int openers = 8;
        final ExecutorService pool = Executors.newFixedThreadPool(openers);
        final CountDownLatch go = new CountDownLatch(1);
        final List<Future<FabricException>> results = new ArrayList<>();
        try (Domain d = domain(dir))
        {
            for (int i = 0; i < openers; i++)
            {
                results.add(pool.submit(() ->
                {
                    go.await();
                    try (AddressVector av = d.openAv(AvAttr.builder().name("once").count(16).createOnly(true).build()))
                    {
                        return null;
                    }
                    catch (final FabricException e)
                    {
                        return e;
                    }
                }));
            }
            go.countDown();
            int created = 0;
            for (final Future<FabricException> r : results)
            {
                final FabricException failed = r.get(30, TimeUnit.SECONDS);
                if (failed != null && failed.errno() != FiErrno.EEXIST)
                {
                    throw new AssertionError("a create-only open racing others failed with neither success nor " +
                        "FI_EEXIST", failed);
                }
                created += failed == null ? 1 : 0;
            }
            assertEquals(1, created, "create-only opens that created");
            final FabricException again = assertThrows(FabricException.class,
                () -> d.openAv(AvAttr.builder().name("once").createOnly(true).build()));
            assertEquals(FiErrno.EEXIST, again.errno());
            assertTrue(again.getMessage().contains("already exists"), again.getMessage());
            assertEquals(FiErrno.EINVAL, assertThrows(FabricException.class,
                () -> d.openAv(AvAttr.builder().name("once").createOnly(true).flags(Fi.READ).build())).errno());
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    @Test
    void shouldRefuseToWriteAnAvFileOfAnotherUser() throws Exception
    {
        Require.root("to hand a file to another user (chown)");
        try (Domain d = domain(dir))
        {
            d.openAv(AvAttr.builder().name("squat").count(8).build()).close();
            final Path file = dir.resolve("squat");
            // Another user planted a valid AV, open to everyone, under the job's name.
            Files.setAttribute(file, "unix:uid", 50001);
            Files.setAttribute(file, "unix:gid", 50001);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
            final FabricException e = assertThrows(FabricException.class,
                () -> d.openAv(AvAttr.builder().name("squat").build()));
            assertEquals(FiErrno.EACCES, e.errno());
            assertTrue(e.getMessage().contains("uid=50001") && e.getMessage().contains("mode=0666"), e.getMessage());
            assertEquals(FiErrno.EACCES, assertThrows(FabricException.class,
                () -> d.openAv(AvAttr.builder().name("squat").groupAccess(true).build())).errno(), "not our group either");
            try (AddressVector reader = d.openAv(AvAttr.builder().name("squat").flags(Fi.READ).build()))
            {
                assertEquals(0, reader.count(), "reading it stays possible");
            }
        }
    }

    @Test
    void shouldRefuseASparseAvFileThatNoLongerFitsItsFileSystem() throws Exception
    {
        Require.root("to mount a small tmpfs");
        final Path small = Files.createTempDirectory("shmav-small-tmpfs");
        try
        {
            Require.tmpfs(small, "size=1m");
        }
        catch (final AssertionError | RuntimeException e)
        {
            Files.delete(small); // not mounted: nothing to unmount
            throw e;
        }
        try
        {
            final byte[] image;
            try (Domain d = domain(dir);
                 AddressVector av = d.openAv(AvAttr.builder().name("whole").count(8192).build()))
            {
                av.insert(Addresses.toSockaddr(new InetSocketAddress("10.1.2.3", 4000)), 1, null, 0, null);
            }
            image = Files.readAllBytes(dir.resolve("whole"));
            assertTrue(image.length > (1 << 20) / 2, "a file that takes more than half the small tmpfs: " + image.length);
            copySparse(image, small.resolve("copy"));
            fill(small.resolve("filler"));
            try (Domain d = domain(small))
            {
                final FabricException e = assertThrows(FabricException.class,
                    () -> d.openAv(AvAttr.builder().name("copy").build()));
                assertEquals(FiErrno.ENOSPC, e.errno(), e.getMessage());
                assertTrue(e.getMessage().contains("sparse"), e.getMessage());
            }
        }
        finally
        {
            Require.unmount(small);
            Files.deleteIfExists(small);
        }
    }

    /** Writes only the pages of {@code image} that hold a non-zero byte: the rest stay holes. */
    private static void copySparse(final byte[] image, final Path to) throws IOException
    {
        try (RandomAccessFile f = new RandomAccessFile(to.toFile(), "rw"))
        {
            f.setLength(image.length);
            for (int page = 0; page < image.length; page += 4096)
            {
                for (int i = page; i < Math.min(page + 4096, image.length); i++)
                {
                    if (image[i] != 0)
                    {
                        f.seek(page);
                        f.write(image, page, Math.min(4096, image.length - page));
                        break;
                    }
                }
            }
        }
    }

    /** Fills the file system of {@code file} up. */
    private static void fill(final Path file) throws IOException
    {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))
        {
            final ByteBuffer page = ByteBuffer.allocate(4096);
            while (true)
            {
                page.clear();
                ch.write(page);
            }
        }
        catch (final IOException full)
        {
            // No space left: what was wanted.
        }
    }
}
