package org.shmav.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.shm.SlotDescriptor;
import org.shmav.slots.Region;
import org.shmav.slots.ToolAccess;

/**
 * A named AV damaged so that slot 1 is CLAIMED in the name of attacher entry 2, which no process holds
 * (token 0): no writer would ever give that slot back. {@code shmav gc} repairs it (before, it kept the
 * AV as it was and reported nothing to repair), and so does {@code recover()}; the next address then
 * goes into slot 1, not past it.
 */
class GcOrphanClaimsTest
{
    private static final long ORPHAN = SlotDescriptor.word(SlotDescriptor.CLAIMED, 2, 0);

    @TempDir
    Path dir;

    @Test
    void shouldRepairASlotHeldInTheNameOfNoWriter() throws IOException
    {
        damagedAv();
        final CliRun dryRun = CliRun.in(dir, "gc", "--dry-run");
        assertTrue(dryRun.out().contains("would repair damaged: 0 dead attachers, 1 abandoned slot"), dryRun.out());
        final CliRun gc = CliRun.in(dir, "gc");
        assertEquals(0, gc.code(), gc.err());
        assertTrue(gc.out().contains("repaired  damaged: 0 dead attachers, 1 abandoned slot; 1 slot repaired"), gc.out());
        try (Domain domain = domain(); AddressVector av = domain.openAv(AvAttr.builder().name("damaged").build()))
        {
            assertEquals(1, av.insert(address(2)), "the repaired slot");
            assertEquals(2, av.count());
        }
    }

    /** gc's repair attaches to the AV, but is no join: the AV's last join time, which its grace runs from, stays. */
    @Test
    void shouldNotRestartTheGracePeriodByARepair() throws Exception
    {
        damagedAv();
        final long joined = lastJoined();
        Thread.sleep(20);
        final CliRun gc = CliRun.in(dir, "gc");
        assertTrue(gc.out().contains("repaired  damaged:"), gc.out());
        assertEquals(joined, lastJoined());
    }

    private long lastJoined()
    {
        final Path file = dir.resolve("damaged");
        final Region region = ToolAccess.openReadOnly(file);
        try
        {
            return AvSnapshot.read("damaged", file, region).lastActivityMillis();
        }
        finally
        {
            region.detach();
        }
    }

    @Test
    void shouldRepairASlotHeldInTheNameOfNoWriterOnRecover() throws IOException
    {
        damagedAv();
        try (Domain domain = domain(); AddressVector av = domain.openAv(AvAttr.builder().name("damaged").build()))
        {
            assertEquals(1, av.recover());
            assertEquals(1, av.insert(address(2)), "the repaired slot");
            assertEquals(2, av.count());
        }
    }

    /** AV "damaged": address 1 at fi_addr 0, then slot 1 CLAIMED by free entry 2. */
    private void damagedAv() throws IOException
    {
        try (Domain domain = domain(); AddressVector av = domain.openAv(AvAttr.builder().name("damaged").count(8).build()))
        {
            assertEquals(0, av.insert(address(1)));
        }
        final Path file = dir.resolve("damaged");
        final Region region = ToolAccess.openReadOnly(file);
        final int state = region.layout().slot(1) + SlotDescriptor.STATE_OFFSET;
        region.detach();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final MappedByteBuffer m = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size());
            m.order(ByteOrder.LITTLE_ENDIAN).putLong(state, ORPHAN);
            m.force();
        }
    }

    private Domain domain()
    {
        return Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build());
    }

    private static InetSocketAddress address(final int host)
    {
        return new InetSocketAddress("10.0.0." + host, 5000);
    }
}
