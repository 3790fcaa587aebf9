package org.shmav.slots;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmav.shm.AvFileDescriptor.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.Fi;
import org.shmav.FiErrno;
import org.shmav.shm.AvLayout;
import org.shmav.shm.GrowthClaim;
import org.shmav.shm.Memory;
import org.shmav.shm.SegmentFile;
import org.shmav.it.TestDir;

/**
 * Growth under layout 7 ({@link SegmentGrowth}), with its header words set by hand as a stalled, late or
 * hostile grower would leave them, in real files of /dev/shm. FrozenPeerIT freezes a real grower.
 */
class SegmentGrowthTest
{
    private Path dir;
    private Domain domain;

    @BeforeEach
    void setUp()
    {
        dir = TestDir.createInShm("shmav-growth-");
        domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build());
    }

    @AfterEach
    void tearDown()
    {
        domain.close();
        TestDir.delete(dir);
    }

    /** A full AV of 4 entries: its next insert grows it. */
    private AddressVector fullAv(final String name)
    {
        final AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).name(name).count(4).build());
        assertEquals(4, av.insert(addresses(0, 4), 4, null, 0, null));
        return av;
    }

    /**
     * A migration reads the old area and the slots through the mapping that first saw them (pages the
     * inserts already touched), not through the newest one, and finds every entry: after three growths
     * the view keeps the four mappings, and each address is found by the index in the last segment.
     */
    @Test
    void shouldReadEachSegmentThroughTheMappingThatFirstSawIt()
    {
        try (AddressVector av = fullAv("views"))
        {
            Region region = ToolAccess.openForRepair(dir.resolve("views"));
            final Region first = region;
            try
            {
                for (int g = 1; g <= 3; g++)
                {
                    region = region.grow("views");
                    assertEquals(g + 1, region.layout().segments());
                    assertEquals(g + 1, region.firstViews().count(), "one mapping per segment this process saw first");
                }
                final FirstViews views = region.firstViews();
                final int slot0 = region.layout().slot(0);
                assertSame(first.memory(), views.covering(slot0, region.layout().slotLength()), "segment 0: the attach's view");
                final int last = region.layout().slot(region.layout().capacity() - 1);
                assertSame(region.memory(), views.covering(last, region.layout().slotLength()), "the last segment: this view");
                final ByteBuffer keys = addresses(0, 4);
                for (int i = 0; i < 4; i++)
                {
                    assertEquals(i, region.table().reverseLookup(keys, 16 * i, 16, -1), "entry " + i + " after the moves");
                }
            }
            finally
            {
                region.detach();
            }
        }
    }

    /**
     * A live owner (an attacher entry this JVM holds) whose claim stands still after it appended part of
     * its segment's zeros: taken over after 200 ms, and the taker finishes that same range (layout 6.0 took
     * a new range past it, which a file system with room for one segment refused).
     */
    @Test
    void shouldTakeOverAClaimThatMakesNoProgressAndFinishItsRange() throws IOException
    {
        try (AddressVector av = fullAv("stalled"))
        {
            final Region frozen = ToolAccess.openForRepair(dir.resolve("stalled")); // holds its attacher lock
            try
            {
                final long end0 = frozen.layout().fileLength();
                final long end1 = frozen.layout().grown().fileLength();
                final long stalled = GrowthClaim.next(0, 1, frozen.writer().index()); // frozen after a page of zeros
                putHeader("stalled", GROWTH_CLAIM_OFFSET, stalled);
                appendZeros("stalled", 4096); // of segment 1's 3 pages
                final long start = System.nanoTime();
                assertEquals(1, av.insert(addresses(4, 1), 1, null, 0, null), "grown after taking the stalled claim over");
                assertTrue(System.nanoTime() - start >= GrowthClaim.STALL_NANOS, "a live owner's claim is given 200 ms");
                assertEquals(2, (int)header("stalled", SEGMENT_COUNT_OFFSET));
                assertEquals(end0, header("stalled", SEGMENTS_OFFSET + SEGMENT_ENTRY_LENGTH),
                    "segment 1 is the stalled grower's range, right after segment 0");
                assertEquals(end1, Files.size(dir.resolve("stalled")), "the taker appended only what the range lacked");
                assertEquals(GrowthClaim.ticket(stalled) + 1, GrowthClaim.ticket(header("stalled", GROWTH_CLAIM_OFFSET)),
                    "taken over with the next ticket");
                assertEquals(5, av.count());
                assertEquals(4, av.reverseLookup(addresses(4, 1)));
            }
            finally
            {
                frozen.detach();
            }
        }
    }

    /**
     * A taker of a claim whose owner appended all of its segment's zeros, then died, checks every word of
     * them before it prepares the segment (step 6), first touches included, and advances the claim after
     * every MiB checked, as its appends would have: a check that outlasted 200 ms without a mark would be
     * taken over by the next grower, whose check would be taken over in turn.
     */
    @Test
    void shouldAdvanceItsClaimWhileItChecksTheZerosOfAClaimItTookOver() throws IOException
    {
        try (AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).name("left").count(1 << 16).build()))
        {
            Region region = ToolAccess.openForRepair(dir.resolve("left"));
            try
            {
                final AvLayout grown = region.layout().grown();
                final long start = region.layout().fileLength();
                appendZeros("left", (int)(grown.fileLength() - start)); // all of segment 1's bytes
                putHeader("left", GROWTH_CLAIM_OFFSET, GrowthClaim.next(0, 1, 1000)); // entry 1000: nobody holds its lock
                region = region.grow("left");
                assertEquals(2, region.layout().segments());
                final long checked = (grown.fileLength() - start) / SegmentFile.ZEROS_STEP;
                final long touched = (grown.hashArea(1, 1) - start) / SegmentFile.ZEROS_STEP;
                final long progress = GrowthClaim.progress(header("left", GROWTH_CLAIM_OFFSET));
                assertTrue(progress >= checked + touched, "the claim advanced " + progress + " times, for " + checked +
                    " MiB checked and " + touched + " MiB touched");
            }
            finally
            {
                region.detach();
            }
        }
    }

    /** A claim whose owner's attacher lock is free (the owner died) is taken over without the 200 ms wait. */
    @Test
    void shouldTakeOverADeadOwnersClaimAtOnce() throws IOException
    {
        try (AddressVector av = fullAv("dead"))
        {
            putHeader("dead", GROWTH_CLAIM_OFFSET, GrowthClaim.next(0, 1, 1000)); // entry 1000: nobody holds its lock
            final long start = System.nanoTime();
            assertEquals(1, av.insert(addresses(4, 1), 1, null, 0, null));
            final long nanos = System.nanoTime() - start;
            assertTrue(nanos < GrowthClaim.STALL_NANOS, "a dead owner's claim waited " + nanos / 1_000_000 + " ms");
            assertEquals(2, (int)header("dead", SEGMENT_COUNT_OFFSET));
        }
    }

    /**
     * A grower of segment 1 that froze anywhere (before a write of zeros, inside its map_addr pass, before
     * its CAS of the table entry) and wakes after another grower published the segment and a writer
     * placed an entry in it: everything it still does (append a step of zeros, CAS map_addr entries from
     * 0, CAS the entry, store hashOffset, CAS segmentCount) leaves that entry as it was. Layout 6.0's
     * grower wrote its zeros at its range's offsets and its map_addr entries with plain stores, which here
     * would have erased the entry and its fi_addr.
     */
    @Test
    void shouldLetALateGrowerHarmNothing() throws IOException
    {
        try (AddressVector av = fullAv("late"))
        {
            final Region late = ToolAccess.openForRepair(dir.resolve("late"));
            try
            {
                final AvLayout lateLayout = late.layout().grown();
                final Memory lateMemory;
                assertEquals(1, av.insert(addresses(4, 1), 1, null, 0, null), "another process grows the AV");
                assertEquals(late.layout().fileLength(), header("late", SEGMENTS_OFFSET + SEGMENT_ENTRY_LENGTH));
                final long published = Files.size(dir.resolve("late"));

                // It wakes inside its reservation: one step of zeros, written at the end as it is now.
                final long size = SegmentFile.appendZeros(late.file(), lateLayout.fileLength() + 4096, "late");
                assertEquals(published + 4096, size, "a late step of zeros lands past the published segment");
                lateMemory = SegmentFile.map(late.file(), lateLayout.fileLength(), "late");
                assertNull(SegmentGrowth.publishSegment(late, lateMemory, lateLayout, () -> true), "its CAS fails");
                assertEquals(late.layout().fileLength(), header("late", SEGMENTS_OFFSET + SEGMENT_ENTRY_LENGTH));
                assertEquals(2, (int)header("late", SEGMENT_COUNT_OFFSET));
                assertEquals(4, lateMemory.getLongVolatile(lateLayout.map(4)), "map_addr[4] still holds its fi_addr");
                final ByteBuffer addr = ByteBuffer.allocate(16);
                assertEquals(16, av.lookup(4, addr));
                assertEquals(addresses(4, 1).getLong(0), addr.getLong(0), "the entry in the published segment intact");
                assertEquals(addresses(4, 1).getLong(8), addr.getLong(8), "the entry in the published segment intact");
                assertEquals(4, av.reverseLookup(addresses(4, 1)));
                assertEquals(1, av.insert(addresses(5, 1), 1, null, 0, null), "the AV goes on");
                assertEquals(6, av.count());
            }
            finally
            {
                late.detach();
            }
        }
    }

    /** fileTop (6.0: the end of the ranges taken) is read by nobody since layout 7.0: a bad value changes nothing. */
    @Test
    void shouldPlaceTheNextSegmentAtTheEndOfTheLastWhateverFileTopHolds() throws IOException
    {
        try (AddressVector av = fullAv("lowtop"))
        {
            final long end0 = Files.size(dir.resolve("lowtop"));
            putHeader("lowtop", FILE_TOP_OFFSET, 4096);
            assertEquals(1, av.insert(addresses(4, 1), 1, null, 0, null));
            assertEquals(end0, header("lowtop", SEGMENTS_OFFSET + SEGMENT_ENTRY_LENGTH));
            assertEquals(3, av.reverseLookup(addresses(3, 1)), "the AV intact");
        }
    }

    /** An entry set by another (step 2) that is not the end of the last segment is damage: FI_EIO, nothing published. */
    @Test
    void shouldNotPublishATableEntryOutsideTheFile() throws IOException
    {
        try (AddressVector av = fullAv("forged"))
        {
            putHeader("forged", SEGMENTS_OFFSET + SEGMENT_ENTRY_LENGTH, 1L << 30); // aligned, but past the file's end
            assertEquals(FiErrno.EIO, failedInsert(av));
            assertEquals(1, (int)header("forged", SEGMENT_COUNT_OFFSET), "nothing published");
        }
    }

    @Test
    void shouldNotPublishATableEntryPastTheEndOfTheLastSegment() throws IOException
    {
        try (AddressVector av = fullAv("gap"))
        {
            final long end0 = Files.size(dir.resolve("gap"));
            appendZeros("gap", 64 * 4096);
            putHeader("gap", SEGMENTS_OFFSET + SEGMENT_ENTRY_LENGTH, end0 + 4096); // inside the file, one page late
            assertEquals(FiErrno.EIO, failedInsert(av));
            assertEquals(1, (int)header("gap", SEGMENT_COUNT_OFFSET), "nothing published");
        }
    }

    /** The errno of an insert of a new address into the full AV {@code av}, which must fail. */
    private static int failedInsert(final AddressVector av)
    {
        final int[] err = new int[1];
        assertEquals(0, av.insert(addresses(4, 1), 1, new long[1], Fi.SYNC_ERR, err));
        return err[0];
    }

    /** {@code n} IPv4 sockaddrs, numbered from {@code first}. */
    private static ByteBuffer addresses(final int first, final int n)
    {
        final ByteBuffer b = ByteBuffer.allocate(16 * n);
        for (int i = 0; i < n; i++)
        {
            b.order(ByteOrder.nativeOrder()).putShort(16 * i, (short)2);
            b.order(ByteOrder.BIG_ENDIAN).putShort(16 * i + 2, (short)7000).putInt(16 * i + 4, 0x0A000000 + first + i);
        }
        return b;
    }

    private long header(final String name, final int offset) throws IOException
    {
        try (FileChannel ch = FileChannel.open(dir.resolve(name), StandardOpenOption.READ))
        {
            final ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(b, offset);
            return offset == SEGMENT_COUNT_OFFSET ? b.getInt(0) : b.getLong(0);
        }
    }

    private void appendZeros(final String name, final int length) throws IOException
    {
        try (FileChannel ch = FileChannel.open(dir.resolve(name), StandardOpenOption.WRITE, StandardOpenOption.APPEND))
        {
            ch.write(ByteBuffer.allocate(length));
        }
    }

    private void putHeader(final String name, final int offset, final long value) throws IOException
    {
        try (FileChannel ch = FileChannel.open(dir.resolve(name), StandardOpenOption.WRITE))
        {
            ch.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, value), offset);
        }
    }
}
