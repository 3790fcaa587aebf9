package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

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
 * Files planted under an AV's name by someone else (in /dev/shm anyone can): symbolic links (to a
 * precious file, to another AV, to a directory, dangling), a FIFO, a directory, a regular file that
 * is not an AV. Open (read-write and read-only) and unlink refuse each with FI_EINVAL within a bounded
 * time, never follow a link, and leave both the planted file and any link target byte-for-byte as
 * they were (attach never writes before the header checked out).
 */
class PlantedFilesIT
{
    private Path dir;
    private Path outside;
    private Domain domain;
    private final ExecutorService opener = Executors.newSingleThreadExecutor();

    @BeforeEach
    void setUp() throws IOException
    {
        final Path base = TestDir.createInShm("robust");
        dir = Files.createDirectories(base.resolve("avs"));
        outside = Files.createDirectories(base.resolve("outside"));
        domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build());
    }

    @AfterEach
    void tearDown() throws IOException
    {
        opener.shutdownNow();
        domain.close();
        TestDir.delete(dir.getParent());
    }

    @Test
    void shouldNotFollowASymlinkToAPreciousFile() throws Exception
    {
        final Path precious = Files.writeString(outside.resolve("precious"), "do not touch\n".repeat(400));
        Files.createSymbolicLink(dir.resolve("job"), precious);
        refuseUntouched("job", precious);
        assertTrue(Files.isSymbolicLink(dir.resolve("job")));
    }

    @Test
    void shouldNotFollowASymlinkToAnotherAv() throws Exception
    {
        try (AddressVector av = domain.openAv(AvAttr.builder().name("real").count(8).build()))
        {
            av.insert(FuzzRunner.inet(1), 1, null, 0, null);
        }
        Files.createSymbolicLink(dir.resolve("job"), dir.resolve("real"));
        refuseUntouched("job", dir.resolve("real"));
    }

    @Test
    void shouldNotFollowADanglingSymlinkOrCreateItsTarget() throws Exception
    {
        final Path target = outside.resolve("would-be-created");
        Files.createSymbolicLink(dir.resolve("job"), target);
        refuseUntouched("job", null);
        assertFalse(Files.exists(target, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void shouldNotFollowASymlinkToADirectory() throws Exception
    {
        Files.createSymbolicLink(dir.resolve("job"), outside);
        refuseUntouched("job", null);
        try (var files = Files.list(outside))
        {
            assertEquals(0, files.count());
        }
    }

    @Test
    void shouldRefuseAFifoWithoutBlocking() throws Exception
    {
        final Process mkfifo = new ProcessBuilder("mkfifo", dir.resolve("job").toString()).inheritIO().start();
        assertTrue(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo failed");
        refuseUntouched("job", null);
    }

    @Test
    void shouldRefuseADirectory() throws Exception
    {
        Files.createDirectory(dir.resolve("job"));
        refuseUntouched("job", null);
    }

    @Test
    void shouldRefuseAForeignRegularFileAndNeverWriteIt() throws Exception
    {
        final byte[] content = new byte[3 * 4096];
        for (int i = 0; i < content.length; i++)
        {
            content[i] = (byte)(i * 31);
        }
        Files.write(dir.resolve("job"), content);
        refuseUntouched("job", dir.resolve("job"));
    }

    /** Open rw, open ro and unlink of {@code name} each fail with FI_EINVAL in time; {@code watched} is unchanged. */
    private void refuseUntouched(final String name, final Path watched) throws Exception
    {
        final byte[] before = watched == null ? null : Files.readAllBytes(watched);
        final FileTime modified = watched == null ? null : Files.getLastModifiedTime(watched);
        final boolean wasLink = Files.isSymbolicLink(dir.resolve(name));
        for (final long flags : new long[] {0, Fi.READ})
        {
            expectEinval(name, () ->
            {
                domain.openAv(AvAttr.builder().name(name).flags(flags).build()).close();
                return null;
            });
        }
        expectEinval(name, () -> domain.unlinkAv(name));
        assertTrue(Files.exists(dir.resolve(name), LinkOption.NOFOLLOW_LINKS), "the planted file was removed");
        assertEquals(wasLink, Files.isSymbolicLink(dir.resolve(name)));
        if (watched != null)
        {
            assertArrayEquals(before, Files.readAllBytes(watched), watched + " changed");
            assertEquals(modified, Files.getLastModifiedTime(watched));
        }
        try (var files = Files.list(dir))
        {
            assertTrue(files.noneMatch(p -> p.getFileName().toString().startsWith(".shmav-tmp")), "temporary file left");
        }
    }

    private void expectEinval(final String name, final java.util.concurrent.Callable<Object> call) throws Exception
    {
        final Future<Object> f = opener.submit(call);
        try
        {
            f.get(10, TimeUnit.SECONDS);
            fail("planted '" + name + "' was accepted");
        }
        catch (final ExecutionException e)
        {
            if (!(e.getCause() instanceof FabricException))
            {
                throw e;
            }
            assertEquals(FiErrno.EINVAL, ((FabricException)e.getCause()).errno(), e.getCause().getMessage());
        }
        catch (final TimeoutException e)
        {
            // Unblock an open stuck on a FIFO, so the thread can end, then fail.
            try (FileOutputStream unblock = new FileOutputStream(dir.resolve(name).toFile()))
            {
                unblock.write(0);
            }
            fail("open of planted '" + name + "' blocked for 10 s");
        }
    }
}
