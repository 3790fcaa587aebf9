package org.shmav;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmav.AvTestSupport.assertErrno;
import static org.shmav.AvTestSupport.distinctIn4;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.shmav.shm.AvFileDescriptor;

/**
 * A named AV grows past its {@code count} (in one JVM, with several handles: each has its own view, as
 * another process would). GrowthIT does the same with several JVMs.
 */
class NamedAvGrowthTest
{
    @RegisterExtension
    final ShmDomain shm = new ShmDomain("shmav-growth-");

    private AddressVector open(final String name, final long count, final long flags)
    {
        return shm.domain().openAv(AvAttr.builder().type(AvType.TABLE).count(count).name(name).flags(flags).build());
    }

    private static long insert(final AddressVector av, final ByteBuffer addr)
    {
        final long[] fiAddr = new long[1];
        assertEquals(1, av.insert(addr.duplicate(), 1, fiAddr, 0, null), "insert");
        return fiAddr[0];
    }

    private static byte[] lookup(final AddressVector av, final long fiAddr)
    {
        final ByteBuffer b = ByteBuffer.allocate(16);
        av.lookup(fiAddr, b);
        return b.array();
    }

    @Test
    void growsFromFourAndEveryHandleOpenedBeforeSeesEveryEntry()
    {
        final int n = 20_000;
        final ByteBuffer[] addrs = distinctIn4(n);
        try (AddressVector writer = open("grow", 4, 0);
             AddressVector other = open("grow", 0, 0);
             AddressVector reader = open("grow", 0, Fi.READ))
        {
            for (int i = 0; i < n; i++)
            {
                assertEquals(i, insert(writer, addrs[i]), "TABLE: the lowest free index, across segments");
            }
            assertEquals(n, other.count());
            assertEquals(n, reader.count());
            for (int i = n - 1; i >= 0; i -= 7)
            {
                assertArrayEquals(addrs[i].array(), lookup(reader, i), "reader lookup " + i);
                assertArrayEquals(addrs[i].array(), lookup(other, i), "other lookup " + i);
                assertEquals(i, reader.reverseLookup(addrs[i].duplicate()), "reader reverse lookup " + i);
            }
            // dedup across views: the other handle's view is stale, yet finds the entry already there
            assertEquals(n - 1, insert(other, addrs[n - 1]));
            assertEquals(n, writer.count());
            final long[] all = other.entries().mapToLong(AvEntry::fiAddr).toArray();
            assertEquals(n, all.length);
            assertEquals(n - 1, all[n - 1]);
            final AvSet universe = reader.openSet(AvSetAttr.builder().flags(Fi.UNIVERSE).build());
            assertEquals(n, universe.members().length, "FI_UNIVERSE of a view opened before every growth");
            universe.close();
        }
    }

    @Test
    void aBatchInsertCrossesGrowthsAndRemovalsRefillTheLowestIndex()
    {
        final int n = 3_000;
        final ByteBuffer[] addrs = distinctIn4(n + 1);
        final ByteBuffer packed = ByteBuffer.allocate(n * 16);
        for (int i = 0; i < n; i++)
        {
            packed.put(addrs[i].duplicate());
        }
        try (AddressVector av = open("batch", 3, 0))
        {
            final long[] fiAddr = new long[n];
            assertEquals(n, av.insert(packed.flip(), n, fiAddr, 0, null));
            for (int i = 0; i < n; i++)
            {
                assertEquals(i, fiAddr[i]);
            }
            av.remove(new long[] {2, 1500}, 2, 0);
            assertEquals(2, insert(av, addrs[n]), "the lowest FREE slot, in segment 0");
            assertEquals(1500, insert(av, addrs[1500]), "then the freed one in a later segment");
            assertEquals(n, av.count());
        }
    }

    @Test
    void growthStopsAtMaxCountWithEnospc()
    {
        final ByteBuffer[] addrs = distinctIn4(17);
        try (AddressVector av = shm.domain().openAv(AvAttr.builder().type(AvType.TABLE).count(4).maxCount(16).name("max").build()))
        {
            for (int i = 0; i < 16; i++)
            {
                assertEquals(i, insert(av, addrs[i]));
            }
            final long[] fiAddr = new long[1];
            final int[] errno = new int[1];
            assertEquals(0, av.insert(addrs[16].duplicate(), 1, fiAddr, Fi.SYNC_ERR, errno));
            assertEquals(Fi.ADDR_NOTAVAIL, fiAddr[0]);
            assertEquals(FiErrno.ENOSPC, errno[0]);
            final FabricException e = assertErrno(FiErrno.EINVAL, () -> av.insertAt(16, addrs[16].duplicate()));
            assertTrue(e.getMessage().contains("at most 16"), e.getMessage());
            assertEquals(16, av.count());
        }
    }

    /**
     * maxCount is reached exactly when it is not a doubling of the count (layout 4.0: the last segment
     * stops at it): count 4 with maxCount 1000 used to stop at 512, count 1 with maxCount 3 at 2.
     */
    @Test
    void growsToExactlyAMaxCountThatIsNotADoublingOfTheCount()
    {
        growToExactly("thousand", 4, 1000);
        growToExactly("three", 1, 3);
    }

    /** Fills AV {@code name} to exactly {@code max}, seen by handles opened before it grew, then one more is FI_ENOSPC. */
    private void growToExactly(final String name, final long count, final int max)
    {
        final ByteBuffer[] addrs = distinctIn4(max + 1);
        try (AddressVector av = shm.domain().openAv(AvAttr.builder().type(AvType.TABLE).count(count).maxCount(max)
                 .name(name).build());
             AddressVector other = open(name, 0, 0);
             AddressVector reader = open(name, 0, Fi.READ))
        {
            assertEquals(count, reader.attr().count(), "the reader attached before any growth");
            for (int i = 0; i < max; i++)
            {
                assertEquals(i, insert(i % 2 == 0 ? av : other, addrs[i]), name + ": index " + i);
            }
            final long[] fiAddr = new long[1];
            final int[] errno = new int[1];
            assertEquals(0, other.insert(addrs[max].duplicate(), 1, fiAddr, Fi.SYNC_ERR, errno), name + ": one more");
            assertEquals(FiErrno.ENOSPC, errno[0]);
            assertEquals(Fi.ADDR_NOTAVAIL, fiAddr[0]);
            final FabricException e = assertErrno(FiErrno.EINVAL, () -> av.insertAt(max, addrs[max].duplicate()));
            assertTrue(e.getMessage().contains("at most " + max), e.getMessage());
            for (final AddressVector h : List.of(av, other, reader))
            {
                assertEquals(max, h.count());
                assertEquals(max, h.attr().count(), name + ": capacity " + h.attr());
                assertEquals(max, h.attr().maxCount());
            }
            for (int i = max - 1; i >= 0; i--)
            {
                assertArrayEquals(addrs[i].array(), lookup(reader, i), name + ": reader lookup " + i);
                assertEquals(i, reader.reverseLookup(addrs[i].duplicate()), name + ": reader reverse lookup " + i);
            }
            assertErrno(FiErrno.EINVAL, () -> reader.lookup(max, ByteBuffer.allocate(16)));
            av.remove(new long[] {max / 2}, 1, 0);
            assertEquals(max / 2, insert(other, addrs[max]), name + ": a freed slot is refilled at the maximum");
            // The last slot's free group runs past the view (slots 960..1023 for 1000): found again all the same.
            other.remove(new long[] {max - 1}, 1, 0);
            assertEquals(max - 1, insert(av, addrs[max - 1]), name + ": the freed last slot, in a group cut by the end");
            assertEquals(max, av.count());
        }
    }

    @Test
    void insertAtGrowsToHoldItsIndex()
    {
        final ByteBuffer[] addrs = distinctIn4(2);
        try (AddressVector av = open("at", 2, 0); AddressVector other = open("at", 0, Fi.READ))
        {
            assertEquals(1000, av.insertAt(1000, addrs[0].duplicate()));
            assertArrayEquals(addrs[0].array(), lookup(other, 1000));
            assertEquals(0, insert(av, addrs[1]));
        }
    }

    @Test
    void attachingAcceptsAnyCountUpToTheMaximum()
    {
        try (AddressVector av = shm.domain().openAv(AvAttr.builder().type(AvType.TABLE).count(4).maxCount(64).name("hint").build()))
        {
            open("hint", 4, 0).close();
            open("hint", 64, 0).close();
            final FabricException e = assertErrno(FiErrno.EINVAL, () -> open("hint", 65, 0));
            assertTrue(e.getMessage().contains("grows to at most 64"), e.getMessage());
        }
    }

    /**
     * Bytes past the published segments that no grower writes (growers append zeros and set map_addr
     * entries to all ones, layout 7): another program's. Growth never overwrites a byte, so it refuses
     * to make them a segment (FI_EIO, saying what to do) and the AV stays as it was; zeros and all-ones
     * map_addr entries, which a grower that died leaves, are taken as they are (SegmentGrowthTest).
     */
    @Test
    void aForeignTailWhereTheNextSegmentGoesIsRefusedNotUsed() throws IOException
    {
        final ByteBuffer[] addrs = distinctIn4(9);
        final Path file = shm.dir().resolve("tail");
        try (AddressVector av = open("tail", 4, 0))
        {
            for (int i = 0; i < 4; i++)
            {
                insert(av, addrs[i]);
            }
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE))
            {
                final ByteBuffer junk = ByteBuffer.allocate(12_345);
                Arrays.fill(junk.array(), (byte)0x5A);
                ch.write(junk, ch.size());
            }
            try (AddressVector late = open("tail", 0, 0))
            {
                final int[] err = new int[1];
                assertEquals(0, late.insert(addrs[4], 1, new long[1], Fi.SYNC_ERR, err));
                assertEquals(FiErrno.EIO, err[0]);
                for (int i = 0; i < 4; i++)
                {
                    assertArrayEquals(addrs[i].array(), lookup(av, i));
                }
                assertEquals(4, late.count());
            }
        }
    }

    /**
     * A writer whose AV was removed by name (shmav rm) while it uses it still grows it: its zeros go
     * through a descriptor of the file itself ({@code /proc/self/fd}), never through the name, which
     * may be gone or name a newer AV.
     */
    @Test
    void anAvRemovedWhileInUseStillGrowsAndANewOneOfItsNameIsUntouched() throws IOException
    {
        final ByteBuffer[] addrs = distinctIn4(9);
        try (AddressVector av = open("removed", 4, 0))
        {
            for (int i = 0; i < 4; i++)
            {
                insert(av, addrs[i]);
            }
            java.nio.file.Files.delete(shm.dir().resolve("removed"));
            try (AddressVector newer = open("removed", 4, 0))
            {
                insert(newer, addrs[8]);
                final long newerSize = java.nio.file.Files.size(shm.dir().resolve("removed"));
                for (int i = 4; i < 8; i++)
                {
                    assertEquals(i, insert(av, addrs[i]), "growth of the removed AV");
                }
                for (int i = 0; i < 8; i++)
                {
                    assertArrayEquals(addrs[i].array(), lookup(av, i));
                }
                assertEquals(newerSize, java.nio.file.Files.size(shm.dir().resolve("removed")), "the newer AV's file untouched");
                assertEquals(1, newer.count());
            }
        }
    }

    /**
     * Growers append zeros past the published length (one that wakes late after another published its
     * segment, up to 1 MiB each: shm-layout.md, GROWTH), so the file may pass 2^31 - 1 bytes, the most one
     * mapping holds, while its segments stay within it. Openers map the published length and must read and
     * write such an AV; they refused it by the file's size before (FI_EINVAL "not a shmav AV, or truncated").
     */
    @Test
    void aFileLongerThanTheLargestMappingPastItsSegmentsIsOpened() throws IOException
    {
        final ByteBuffer[] addrs = distinctIn4(3);
        try (AddressVector av = open("long", 64, 0))
        {
            insert(av, addrs[0]);
            insert(av, addrs[1]);
        }
        try (RandomAccessFile f = new RandomAccessFile(shm.dir().resolve("long").toFile(), "rw"))
        {
            f.setLength(AvFileDescriptor.MAX_FILE_LENGTH + 4097); // a hole: as long as late zeros, without the memory
        }
        try (AddressVector writer = open("long", 0, 0);
             AddressVector reader = open("long", 0, Fi.READ))
        {
            assertEquals(2, reader.count());
            assertEquals(2, insert(writer, addrs[2]));
            assertEquals(3, reader.count());
            assertArrayEquals(addrs[1].array(), lookup(reader, 1));
            assertArrayEquals(addrs[2].array(), lookup(reader, 2));
        }
    }

    @Test
    void aSegmentCountTheFileCannotHoldIsRefused() throws IOException
    {
        final Path file = shm.dir().resolve("liar");
        open("liar", 4, 0).close();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final ByteBuffer three = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 3);
            ch.write(three, AvFileDescriptor.SEGMENT_COUNT_OFFSET);
        }
        final FabricException e = assertErrno(FiErrno.EINVAL, () -> open("liar", 0, Fi.READ));
        assertTrue(e.getMessage().contains("segment"), e.getMessage());
    }
}
