package org.shmav.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.shm.AvFileChannel;
import org.shmav.shm.AvFileDescriptor;

/**
 * An AV of an older layout, as a user who upgraded meets it (shm-layout.md, COMPATIBILITY): the open's
 * refusal names the command that removes it, {@code shmav rm NAME} removes it with its lock file when
 * no process holds it, {@code shmav gc} too, and a held one, one whose liveness cannot be told (before
 * 4.0), a newer one and a file that is no AV are left without {@code --force} (the last two even with it).
 * The 6.0 file is the 6.0 document's EXAMPLE, byte for byte, with the identity of a lock file made here.
 */
class OlderLayoutRemovalTest
{
    /** Attacher 0's lock byte in the lock file: attachersOffset (0x1000) + 64 * 0. */
    private static final long ATTACHER_0 = 0x1000;

    @TempDir
    Path dir;

    private CliRun shmav(final String... args)
    {
        return CliRun.in(dir, args);
    }

    /** Writes AV {@code name} as the 6.0 EXAMPLE with version word {@code version}, and its lock file. */
    private Path olderAv(final String name, final int version) throws IOException
    {
        final ByteBuffer b = ByteBuffer.allocate(81_920).order(ByteOrder.LITTLE_ENDIAN);
        try (InputStream in = OlderLayoutRemovalTest.class.getResourceAsStream("layout-6.0-example.txt"))
        {
            for (final String line : new String(in.readAllBytes(), StandardCharsets.US_ASCII).split("\n"))
            {
                if (line.startsWith("#") || line.isBlank())
                {
                    continue;
                }
                final int at = Integer.parseInt(line.substring(0, 8), 16);
                final String[] hex = line.substring(10, 58).trim().split(" +");
                assertEquals(16, hex.length, line);
                for (int i = 0; i < 16; i++)
                {
                    b.put(at + i, (byte)Integer.parseInt(hex[i], 16));
                }
            }
        }
        assertEquals(0x00060000, b.getInt(AvFileDescriptor.VERSION_OFFSET), "the 6.0 example");
        b.putInt(AvFileDescriptor.VERSION_OFFSET, version);
        final Path lock = dir.resolve(".shmav-lock." + name);
        Files.createFile(lock, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        final Map<String, Object> id = Files.readAttributes(lock, "unix:ino,dev", LinkOption.NOFOLLOW_LINKS);
        b.putLong(AvFileDescriptor.LOCK_FILE_INODE_OFFSET, ((Number)id.get("ino")).longValue());
        b.putLong(AvFileDescriptor.LOCK_FILE_DEVICE_OFFSET, ((Number)id.get("dev")).longValue());
        final Path file = dir.resolve(name);
        Files.write(file, b.array());
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    private boolean gone(final String name)
    {
        return !Files.exists(dir.resolve(name), LinkOption.NOFOLLOW_LINKS) &&
            !Files.exists(dir.resolve(".shmav-lock." + name), LinkOption.NOFOLLOW_LINKS);
    }

    @Test
    void shouldNameTheCommandThatRemovesItWhenOpenRefusesIt() throws IOException
    {
        olderAv("old", 0x00060000);
        try (Domain d = Domain.open(DomainAttr.builder().shmDirectory(dir).build()))
        {
            final FabricException e = assertThrows(FabricException.class,
                () -> d.openAv(AvAttr.builder().type(AvType.TABLE).name("old").build()));
            assertEquals(FiErrno.EINVAL, e.errno());
            assertTrue(e.getMessage().contains("file=6.0") && e.getMessage().contains("'shmav rm old'"), e.getMessage());
        }
        final CliRun rm = shmav("rm", "old");
        assertEquals(0, rm.code(), rm.out() + rm.err());
        assertTrue(rm.out().contains("of the older layout 6.0"), rm.out());
        assertTrue(gone("old"), "the AV and its lock file are removed");
    }

    @Test
    void shouldLeaveAHeldOneUnlessForced() throws IOException
    {
        olderAv("held", 0x00060000);
        final AvFileChannel lock = AvFileChannel.openLockFile(dir.resolve(".shmav-lock.held"), true);
        try
        {
            assertTrue(lock.locks().tryLock(ATTACHER_0), "attacher 0's byte, as its live 6.0 owner holds it");
            final CliRun rm = shmav("rm", "held");
            assertEquals(ExitCode.IN_USE.code, rm.code(), rm.out() + rm.err());
            assertTrue(rm.err().contains("is open in live process(es) 6135") && rm.err().contains("'shmav rm held'"),
                rm.err());
            final CliRun gc = shmav("gc", "--grace", "0");
            assertTrue(gc.out().contains("kept      held: layout 6.0, open in 1 live writer(s)"), gc.out());
            assertTrue(Files.exists(dir.resolve("held")));
            final CliRun forced = shmav("rm", "held", "--force");
            assertEquals(0, forced.code(), forced.out() + forced.err());
            assertTrue(gone("held"));
        }
        finally
        {
            lock.locks().unlock(ATTACHER_0);
            lock.close();
        }
    }

    @Test
    void shouldLetGcRemoveOneNobodyHolds() throws IOException
    {
        olderAv("idle", 0x00060001);
        final CliRun gc = shmav("gc", "--grace", "0");
        assertEquals(0, gc.code(), gc.out() + gc.err());
        assertTrue(gc.out().contains("removed   idle: of the older layout 6.1"), gc.out());
        assertTrue(gc.out().contains("1 AV removed") && gc.out().contains("0 other files left alone"), gc.out());
        assertTrue(gone("idle"), "with its lock file");
    }

    @Test
    void shouldRequireForceWhereLivenessCannotBeTold() throws IOException
    {
        olderAv("ancient", 0x00030000);
        final CliRun rm = shmav("rm", "ancient");
        assertEquals(ExitCode.IN_USE.code, rm.code(), rm.out() + rm.err());
        assertTrue(rm.err().contains("cannot be told") && rm.err().contains("'shmav rm ancient --force'"), rm.err());
        final CliRun gc = shmav("gc", "--grace", "0");
        assertTrue(gc.out().contains("kept      ancient: layout 3.0"), gc.out());
        assertTrue(Files.exists(dir.resolve("ancient")));
        try (Domain d = Domain.open(DomainAttr.builder().shmDirectory(dir).build()))
        {
            final FabricException e = assertThrows(FabricException.class,
                () -> d.openAv(AvAttr.builder().type(AvType.TABLE).name("ancient").build()));
            assertTrue(e.getMessage().contains("'shmav rm ancient --force'"), e.getMessage());
        }
        assertEquals(0, shmav("rm", "ancient", "--force").code());
        assertFalse(Files.exists(dir.resolve("ancient")));
    }

    @Test
    void shouldNeverRemoveANewerLayoutOrAFileThatIsNoAv() throws IOException
    {
        olderAv("newer", (AvFileDescriptor.VERSION_MAJOR + 1) << 16);
        final Path foreign = olderAv("foreign", 0x00060000);
        final byte[] bytes = Files.readAllBytes(foreign);
        bytes[0] ^= 1; // the magic
        Files.write(foreign, bytes);
        for (final String name : new String[] {"newer", "foreign"})
        {
            final CliRun rm = shmav("rm", name, "--force");
            assertTrue(rm.code() != 0, rm.out());
            assertTrue(Files.exists(dir.resolve(name)) && Files.exists(dir.resolve(".shmav-lock." + name)), name);
        }
        final CliRun gc = shmav("gc", "--grace", "0");
        assertTrue(gc.out().contains("2 other files left alone"), gc.out());
        assertTrue(Files.exists(dir.resolve("newer")) && Files.exists(dir.resolve("foreign")));
    }
}
