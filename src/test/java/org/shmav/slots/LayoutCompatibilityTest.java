package org.shmav.slots;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.Addresses;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;
import org.shmav.shm.AvFileChannel;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.AvLockFileCreator;
import org.shmav.shm.Memory;
import org.shmav.it.TestDir;

/**
 * Files of other layout versions: older majors are refused naming both versions; files of this major
 * without free-group marks, or with a bucket count no layout writes, as their rules say.
 */
class LayoutCompatibilityTest
{
    private static final long CAPACITY = 300;

    private Path dir;

    @BeforeEach
    void directory()
    {
        dir = TestDir.createInShm("layoutcompat");
    }

    @AfterEach
    void cleanUp()
    {
        TestDir.delete(dir);
    }

    /** Writes an empty AV file of layout {@code major.minor} with {@code buckets} hash buckets and no free-group marks. */
    private Path writeFile(final String name, final int major, final int minor, final long buckets) throws IOException
    {
        final AvLayout layout = AvLayout.compute(AddrFormat.SOCKADDR_IN, AvType.TABLE, CAPACITY, 1024, 0, 0, buckets);
        final Path file = dir.resolve(name);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
            StandardOpenOption.WRITE))
        {
            ch.write(ByteBuffer.allocate(1), layout.fileLength() - 1);
            final Memory m = new Memory(ch.map(FileChannel.MapMode.READ_WRITE, 0, layout.fileLength()));
            final AvFileChannel locks = AvLockFileCreator.prepare(file, file, name,
                java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"), m);
            locks.locks().unlock(AvFileDescriptor.CREATOR_LOCK_OFFSET);
            locks.close();
            Region.initialize(m, layout, 1L << 32, 0, 0);
            for (int word = 0; word < AvFileDescriptor.FREE_GROUPS / 64; word++)
            {
                m.putLong(AvFileDescriptor.FREE_GROUPS_OFFSET + word * Long.BYTES, 0L);
            }
            m.setIntRelease(AvFileDescriptor.VERSION_OFFSET, major << 16 | minor);
        }
        return file;
    }

    private static ByteBuffer address(final int i)
    {
        return Addresses.toSockaddr(new InetSocketAddress("10.9." + (i >>> 8) + "." + (i & 255), 7000));
    }

    @Test
    void shouldRefuseALayout1FileNamingBothVersionsAndWhatToDo() throws IOException
    {
        writeFile("old", 1, 1, AvLayout.hashBucketsFor(CAPACITY));
        try (Domain d = Domain.open(DomainAttr.builder().shmDirectory(dir).build()))
        {
            // A 1.x process decides liveness by pid and start time: next to it, this one would be robbed.
            final FabricException e = assertThrows(FabricException.class, () -> d.openAv(AvAttr.builder().name("old").build()));
            assertEquals(FiErrno.EINVAL, e.errno(), e.getMessage());
            assertTrue(e.getMessage().contains("app=8.0 file=1.1") && e.getMessage().contains("shmav rm"), e.getMessage());
            assertThrows(FabricException.class, () -> d.openAv(AvAttr.builder().name("old").flags(Fi.READ).build()));
        }
    }

    /**
     * A 3.0 process doubles every segment where later ones stop the last one at maxCapacity; a 4.0
     * process stops every writer for an index rebuild and knows one hash area per segment, which 5.0
     * moves without stopping anyone; a 5.0 process grows under a lock and writes the next segment right
     * after the last, where a 6.0 grower may have its range; a 6.0 process neither publishes a 7.0
     * writer's committed claim nor frees its cancelled one, and a 6.0 grower that is taken over takes a
     * new range and writes its zeros at its range's offsets, where a 7.0 grower may since have published
     * the segment; a 7.0 process takes a committed slot for no entry while 8.0 readers and counts take
     * it for one, and takes a varying-length opaque AV for a fixed one: none reads another's file.
     */
    @Test
    void shouldRefuseLayout3To7FilesNamingBothVersionsAndWhatToDo() throws IOException
    {
        for (final int major : new int[] {3, 4, 5, 6, 7})
        {
            final String name = "v" + major;
            writeFile(name, major, 0, AvLayout.hashBucketsFor(CAPACITY));
            try (Domain d = Domain.open(DomainAttr.builder().shmDirectory(dir).build()))
            {
                for (final long flags : new long[] {0, Fi.READ})
                {
                    final FabricException e = assertThrows(FabricException.class,
                        () -> d.openAv(AvAttr.builder().name(name).flags(flags).build()));
                    assertEquals(FiErrno.EINVAL, e.errno(), e.getMessage());
                    assertTrue(e.getMessage().contains("layout version " + major + ".0 is not supported: app=8.0 file=" +
                        major + ".0 (written by an older shmav") && e.getMessage().contains("shmav rm"), e.getMessage());
                }
            }
        }
    }

    @Test
    void shouldInsertRemoveAndReinsertWhenNoFreeGroupIsMarked() throws IOException
    {
        writeFile("unmarked", AvFileDescriptor.VERSION_MAJOR, AvFileDescriptor.VERSION_MINOR, AvLayout.hashBucketsFor(CAPACITY));
        try (Domain d = Domain.open(DomainAttr.builder().shmDirectory(dir).build());
             AddressVector av = d.openAv(AvAttr.builder().name("unmarked").build()))
        {
            final long[] fiAddr = new long[1];
            for (int i = 0; i < CAPACITY; i++)
            {
                assertEquals(1, av.insert(address(i), 1, fiAddr, 0, null));
                assertEquals(i, fiAddr[0], "slots are handed out in order without marks");
            }
            fiAddr[0] = 123;
            av.remove(fiAddr, 1, 0);
            assertEquals(1, av.insert(address(1000), 1, fiAddr, 0, null));
            assertEquals(123, fiAddr[0], "the freed slot is found again");
            assertEquals(123, av.reverseLookup(address(1000)));
            assertEquals(7, av.reverseLookup(address(7)));
            assertEquals(CAPACITY, av.count());
        }
    }

    @Test
    void shouldRefuseABucketCountNoLayoutWrites() throws IOException
    {
        writeFile("odd", AvFileDescriptor.VERSION_MAJOR, AvFileDescriptor.VERSION_MINOR, AvLayout.hashBucketsFor(CAPACITY) * 2);
        try (Domain d = Domain.open(DomainAttr.builder().shmDirectory(dir).build()))
        {
            final FabricException e = assertThrows(FabricException.class, () -> d.openAv(AvAttr.builder().name("odd").build()));
            assertEquals(FiErrno.EINVAL, e.errno(), e.getMessage());
        }
    }
}
