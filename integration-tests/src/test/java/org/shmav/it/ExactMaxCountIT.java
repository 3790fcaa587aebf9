package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.Fi;
import org.shmav.FiErrno;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;

/**
 * maxCount is honoured exactly when it is not a doubling of the count (layout 4.0): the AV grows to
 * exactly maxCount entries, one more is FI_ENOSPC, and a reader JVM that attached before the first
 * growth reads every entry. Layout 3.0 stopped count 4 with maxCount 1000 at 512 entries.
 */
class ExactMaxCountIT
{
    private static final int BATCH = 4_096;

    private Path dir;

    @AfterEach
    void tearDown() throws Exception
    {
        TestDir.delete(dir);
    }

    @Test
    void shouldGrowFromFourToExactlyAThousand() throws Exception
    {
        growToExactly(4, 1_000);
    }

    @Test
    void shouldGrowFromOneToExactlyThree() throws Exception
    {
        growToExactly(1, 3);
    }

    @Test
    void shouldGrowFromFourToExactlyAMillionAndOne() throws Exception
    {
        growToExactly(4, 1_000_001);
    }

    private void growToExactly(final long count, final int max) throws Exception
    {
        dir = TestDir.createInShm("robust");
        final Path work = Files.createDirectories(dir.resolve("work"));
        final Path go = work.resolve("go");
        AvLayout full = AvLayout.compute(AddrFormat.SOCKADDR_IN, AvType.TABLE, count, 1024, 0, 0).growingTo(max);
        while (full.canGrow())
        {
            full = full.grown(); // the layout of every segment up to maxCount
        }
        try (Domain d = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build());
             AddressVector av = d.openAv(AvAttr.builder().type(AvType.TABLE).name("exact").count(count).maxCount(max)
                 .build());
             ChildJvm reader = ChildJvm.start(ExactMaxReader.class, work, dir.toString(), "exact", go.toString(),
                 Integer.toString(max)))
        {
            reader.awaitOutput("READY capacity " + count, java.time.Duration.ofSeconds(60));
            final long start = System.nanoTime();
            for (int first = 0; first < max; first += BATCH)
            {
                final int n = Math.min(BATCH, max - first);
                final long[] fiAddr = new long[n];
                assertEquals(n, av.insert(InetRange.of(first, n), n, fiAddr, 0, null), "batch from " + first);
                for (int j = 0; j < n; j++)
                {
                    assertEquals(first + j, fiAddr[j], "TABLE: the next index");
                }
            }
            final long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            final int[] errors = new int[3];
            final long[] fiAddr = new long[3];
            assertEquals(0, av.insert(InetRange.of(max, 3), 3, fiAddr, Fi.SYNC_ERR, errors), "past maxCount");
            for (int i = 0; i < 3; i++)
            {
                assertEquals(FiErrno.ENOSPC, errors[i]);
                assertEquals(Fi.ADDR_NOTAVAIL, fiAddr[i]);
            }
            assertEquals(max, av.count());
            assertEquals(max, av.attr().count());
            final Path file = dir.resolve("exact");
            assertEquals(full.fileLength(), Files.size(file), "the published length of every segment up to maxCount");
            assertEquals(full.segments(), segmentCount(file));
            Files.createFile(go);
            assertEquals(0, reader.waitFor(Duration.ofMinutes(5)), reader.output());
            assertTrue(reader.output().contains("OK " + max + " entries"), reader.output());
            System.out.printf("ExactMaxCountIT: count %d grew to exactly %d entries in %d segments (%d bytes) in %d ms;" +
                " a reader JVM attached at count %d read every entry%n", count, max, full.segments(), full.fileLength(),
                millis, count);
        }
    }

    private static int segmentCount(final Path file) throws Exception
    {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ))
        {
            final ByteBuffer b = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(b, AvFileDescriptor.SEGMENT_COUNT_OFFSET);
            return b.getInt(0);
        }
    }
}
