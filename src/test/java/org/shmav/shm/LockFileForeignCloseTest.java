package org.shmav.shm;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.it.TestDir;

/**
 * A writer's locks in its AV's lock file survive code elsewhere in the JVM opening and closing that
 * file: they are open-file-description locks on a descriptor of shmav's own. Seen from another open
 * file description (as another process sees them), they are still held after the foreign closes. With
 * the POSIX locks of before, the first close dropped them all. Multi-JVM: {@code WriterLivenessIT}.
 */
class LockFileForeignCloseTest
{
    private Path dir;
    private Domain domain;

    @BeforeEach
    void setUp()
    {
        assumeTrue(!"posix".equals(System.getProperty("shmav.locks")), "-Dshmav.locks=posix: the fallback runs");
        dir = TestDir.createInShm("shmav-ofd-");
        domain = Domain.open(DomainAttr.builder().shmDirectory(dir).build());
    }

    @AfterEach
    void tearDown()
    {
        if (domain != null)
        {
            domain.close();
            TestDir.delete(dir);
        }
    }

    @Test
    void shouldUseOpenFileDescriptionLocksOnLinux()
    {
        assumeTrue("Linux".equals(System.getProperty("os.name")));
        assertNull(OfdLocks.UNAVAILABLE, "OFD locks on this machine: " + AvFileChannel.lockKind());
        assertTrue(AvFileChannel.lockKind().startsWith("open-file-description"), AvFileChannel.lockKind());
    }

    @Test
    void shouldKeepAWritersLocksWhenOtherCodeClosesTheLockFile() throws Exception
    {
        assumeTrue(OfdLocks.UNAVAILABLE == null, "OFD locks unavailable: " + OfdLocks.UNAVAILABLE);
        final Path lock = AvLockFile.of(dir.resolve("av"));
        try (AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).name("av").count(8).build()))
        {
            av.count();
            final int observer = OfdLocks.open(lock, false); // another description: sees what another process sees
            try
            {
                assertFalse(OfdLocks.isFree(observer, 0, 0, true), "the writer holds its entry's lock");
                for (int i = 0; i < 3; i++)
                {
                    try (RandomAccessFile f = new RandomAccessFile(lock.toFile(), "r"))
                    {
                        f.length();
                    }
                    FileChannel.open(lock, StandardOpenOption.READ, StandardOpenOption.WRITE).close();
                    Files.size(lock);
                }
                assertFalse(OfdLocks.isFree(observer, 0, 0, true), "a foreign close dropped the writer's lock");
            }
            finally
            {
                OfdLocks.closeQuietly(observer);
            }
        }
        final int after = OfdLocks.open(lock, false);
        try
        {
            assertTrue(OfdLocks.isFree(after, 0, 0, true), "closing the AV gives its locks back");
        }
        finally
        {
            OfdLocks.closeQuietly(after);
        }
    }
}
