package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmav.AvTestSupport.in4;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.shmav.cli.ShmavCli;
import org.shmav.shm.AvFileDescriptor;

/**
 * Every named AV has a lock file, {@code .shmav-lock.<name>}, where its writers take their record
 * locks: made with the AV and recorded in its header, moded for the AV's writers only, refused by
 * writers when it is missing, replaced or a link (readers still read), and removed with the AV.
 */
class AvLockFileTest
{
    @RegisterExtension
    final ShmDomain shm = new ShmDomain("shmav-lockfile-");

    private AddressVector open(final String name, final boolean group)
    {
        return shm.domain().openAv(AvAttr.builder().type(AvType.TABLE).name(name).count(8).groupAccess(group).build());
    }

    private Path lock(final String name)
    {
        return shm.dir().resolve(".shmav-lock." + name);
    }

    private static String mode(final Path p) throws Exception
    {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    private long headerLong(final String name, final int offset) throws Exception
    {
        try (FileChannel ch = FileChannel.open(shm.dir().resolve(name), StandardOpenOption.READ))
        {
            final java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            ch.read(b, offset);
            return b.getLong(0);
        }
    }

    @Test
    void shouldMakeAnEmptyLockFileForTheAvsWritersAndRecordItInTheHeader() throws Exception
    {
        open("solo", false).close();
        open("team", true).close();
        assertEquals("rw-------", mode(lock("solo")));
        assertEquals("rw-rw----", mode(lock("team")));
        assertEquals(0, Files.size(lock("solo")), "nothing is ever written into it");
        assertEquals(((Number)Files.getAttribute(lock("solo"), "unix:ino")).longValue(),
            headerLong("solo", AvFileDescriptor.LOCK_FILE_INODE_OFFSET));
        assertEquals(((Number)Files.getAttribute(lock("solo"), "unix:dev")).longValue(),
            headerLong("solo", AvFileDescriptor.LOCK_FILE_DEVICE_OFFSET));
    }

    @Test
    void shouldRefuseWritersButNotReadersWhenTheLockFileIsMissingReplacedOrALink() throws Exception
    {
        try (AddressVector av = open("x", false))
        {
            av.insert(in4("10.0.0.1", 1), 1, null, 0, null);
        }
        Files.delete(lock("x"));
        final FabricException missing = assertThrows(FabricException.class, () -> open("x", false));
        assertEquals(FiErrno.EIO, missing.errno());
        assertTrue(missing.getMessage().contains("missing") && missing.getMessage().contains("shmav rm x"), missing.getMessage());
        try (AddressVector reader = shm.domain().openAv(AvAttr.builder().name("x").flags(Fi.READ).build()))
        {
            assertEquals(1, reader.count(), "readers never need the lock file");
        }
        Files.createFile(lock("x"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        final FabricException replaced = assertThrows(FabricException.class, () -> open("x", false));
        assertTrue(replaced.getMessage().contains("not the lock file the AV was created with"), replaced.getMessage());
        Files.delete(lock("x"));
        Files.createSymbolicLink(lock("x"), shm.dir().resolve("x"));
        assertEquals(FiErrno.EIO, assertThrows(FabricException.class, () -> open("x", false)).errno());
    }

    @Test
    void shouldTakeBackWhatAWiderModeGrantsWhenItsOwnerOpens() throws Exception
    {
        open("wide", false).close();
        Files.setPosixFilePermissions(lock("wide"), PosixFilePermissions.fromString("rw-rw-rw-"));
        open("wide", false).close();
        assertEquals("rw-------", mode(lock("wide")), "only those who may write the AV may open its lock file");
    }

    @Test
    void shouldRemoveTheLockFileWithItsAvAndAnOrphanOnlyWhenNobodyHoldsIt() throws Exception
    {
        open("gone", false).close();
        assertTrue(shm.domain().unlinkAv("gone"));
        assertFalse(Files.exists(lock("gone"), LinkOption.NOFOLLOW_LINKS), "unlink removes the lock file after the AV");

        open("orphan", false).close();
        try (AddressVector held = open("held", false))
        {
            Files.delete(shm.dir().resolve("orphan")); // as an older shmav's rm did, or a user by hand
            Files.delete(shm.dir().resolve("held")); // removed under a live writer, which still holds its lock
            final StringWriter out = new StringWriter();
            assertEquals(0, ShmavCli.execute(new PrintWriter(out), new PrintWriter(out), "--dir", shm.dir().toString(), "gc"));
            assertTrue(out.toString().contains("removed   .shmav-lock.orphan: the lock file of AV 'orphan', which is gone"),
                out.toString());
            assertTrue(out.toString().contains("kept      .shmav-lock.held"), out.toString());
            assertFalse(Files.exists(lock("orphan")));
            assertTrue(Files.exists(lock("held")));
        }
    }
}
