package org.shmav.slots;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;
import org.shmav.AddrFormat;
import org.shmav.Addresses;
import org.shmav.AvType;
import org.shmav.shm.AttacherDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.SlotDescriptor;

/**
 * Claims held in the name of no writer, which only a damaged file has: the writer that claimed slot 0
 * had its attacher entry freed under it (token 0, lock free) while the claim stood. No recoverer of
 * the dead takes a free entry, so the claim would stay for good: {@code repairOrphans} (recover() and
 * shmav gc) gives it back, and so does a writer that takes that entry, which would otherwise walk past
 * the claim as its own.
 */
class OrphanClaimsTest
{
    private final Region r = Region.allocatePrivate(AvLayout.compute(AddrFormat.SOCKADDR_IN, AvType.TABLE, 16, 4, 0, 0),
        1L << 32, 0, 0);
    private final SlotTable table = r.table();
    private final ByteBuffer a = Addresses.toSockaddr(new InetSocketAddress("10.7.0.1", 7001));
    private final ByteBuffer b = Addresses.toSockaddr(new InetSocketAddress("10.7.0.2", 7001));

    @Test
    void shouldGiveBackAClaimHeldInTheNameOfAFreeEntry()
    {
        final long slot = orphanedClaim();
        assertEquals(0, table.recoverDead(), "no dead writer: the entry is free");
        assertEquals(SlotDescriptor.CLAIMED, SlotDescriptor.state(table.stateWord(slot)));
        assertEquals(1, table.repairOrphans());
        assertEquals(SlotDescriptor.word(SlotDescriptor.FREE, 0, 1), table.stateWord(slot));
        assertEquals(slot, insert(b), "the lowest free slot again");
        assertEquals(0, table.repairOrphans(), "nothing left to repair");
    }

    @Test
    void shouldGiveBackAClaimHeldInTheNameOfNoEntryAtAll()
    {
        final long slot = 3;
        r.memory().setLongVolatile(r.layout().slot(slot) + SlotDescriptor.STATE_OFFSET,
            SlotDescriptor.word(SlotDescriptor.REMOVING, r.layout().attachersCapacity() + 7, 0));
        assertEquals(1, table.repairOrphans());
        assertEquals(SlotDescriptor.word(SlotDescriptor.FREE, 0, 1), table.stateWord(slot));
    }

    @Test
    void shouldGiveBackTheClaimsOfTheEntryAWriterTakes()
    {
        final long slot = orphanedClaim();
        final Writer taker = table.attach();
        assertEquals(1, taker.index, "the free entry the claim names");
        assertEquals(SlotDescriptor.word(SlotDescriptor.FREE, 0, 1), table.stateWord(slot), "given back at the attach");
        assertEquals(slot, table.insert(taker, b, 0, 16, -1L, Long.MIN_VALUE, 0));
    }

    @Test
    void shouldLeaveTheClaimsOfALiveWriterAlone()
    {
        final Writer owner = table.attach();
        final long slot = ClaimHolder.claimFilledIndexed(r, owner, a);
        assertEquals(0, table.repairOrphans());
        assertEquals(SlotDescriptor.word(SlotDescriptor.CLAIMED, owner.index, 0), table.stateWord(slot));
    }

    /** Slot 0 CLAIMED, filled and indexed by entry 1, whose token is then set to 0 and its lock let go. */
    private long orphanedClaim()
    {
        final Writer owner = table.attach();
        assertEquals(1, owner.index, "entry 0 is the region's own writer's");
        final long slot = ClaimHolder.claimFilledIndexed(r, owner, a);
        r.memory().setLongVolatile(r.layout().attacher(owner.index) + AttacherDescriptor.TOKEN_OFFSET, 0L);
        r.liveness().release(owner.index);
        return slot;
    }

    private long insert(final ByteBuffer addr)
    {
        return table.insert(r.writer(), addr, 0, 16, -1L, Long.MIN_VALUE, 0);
    }
}
