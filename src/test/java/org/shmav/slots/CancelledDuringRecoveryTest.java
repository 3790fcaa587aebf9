package org.shmav.slots;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;
import org.shmav.AddrFormat;
import org.shmav.Addresses;
import org.shmav.AvType;
import org.shmav.shm.AvLayout;
import org.shmav.shm.SlotDescriptor;

/**
 * A recoverer reads a dead writer's claim, CLAIMED(a,g), and is held up before its CAS; an inserter of the
 * same address, which saw the writer alive (the recoverer holds its lock), cancels the claim after its
 * millisecond: CANCELLED(a,g). The recoverer's CAS from the word it read then fails, and only the owner or
 * its recoverer frees a CANCELLED slot: the recoverer must look again, or the slot stays CANCELLED under an
 * entry it is about to free (lost until a recover() or shmav gc).
 */
class CancelledDuringRecoveryTest
{
    private final Region r = Region.allocatePrivate(AvLayout.compute(AddrFormat.SOCKADDR_IN, AvType.TABLE, 16, 4, 0, 0),
        1L << 32, 0, 0);
    private final SlotTable table = r.table();
    private final ByteBuffer a = Addresses.toSockaddr(new InetSocketAddress("10.8.0.1", 7001));

    @Test
    void shouldFreeAClaimCancelledBetweenTheScanAndTheRepair()
    {
        final Writer dead = table.attach();
        final long slot = ClaimHolder.claimFilledIndexed(r, dead, a);
        final long claimed = table.stateWord(slot);
        assertEquals(SlotDescriptor.word(SlotDescriptor.CLAIMED, dead.index, 0), claimed);
        // the inserter's cancel, between the recoverer's read and its CAS
        r.memory().setLongVolatile(r.layout().slot(slot) + SlotDescriptor.STATE_OFFSET,
            SlotDescriptor.word(SlotDescriptor.CANCELLED, dead.index, 0));
        table.repairHeld(slot, claimed, dead.index);
        assertEquals(SlotDescriptor.word(SlotDescriptor.FREE, 0, 1), table.stateWord(slot));
        assertEquals(slot, table.insert(r.writer(), a, 0, 16, -1L, Long.MIN_VALUE, 0), "the slot is free again");
    }

    @Test
    void shouldLeaveASlotThatLeftTheDeadWritersHands()
    {
        final Writer dead = table.attach();
        final long slot = ClaimHolder.claimFilledIndexed(r, dead, a);
        final long claimed = table.stateWord(slot);
        final long other = SlotDescriptor.word(SlotDescriptor.CLAIMED, r.writer().index, 1); // freed, claimed again
        r.memory().setLongVolatile(r.layout().slot(slot) + SlotDescriptor.STATE_OFFSET, other);
        table.repairHeld(slot, claimed, dead.index);
        assertEquals(other, table.stateWord(slot), "another writer's claim is not the dead writer's to repair");
    }
}
