package org.shmav.slots;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;
import org.shmav.AddrFormat;
import org.shmav.Addresses;
import org.shmav.AvType;
import org.shmav.FiErrno;
import org.shmav.shm.AttacherDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Memory;
import org.shmav.shm.SlotDescriptor;

/**
 * Layout 7's claims that another writer meets (shm-layout.md, Slot states), one step at a time on a
 * private region: a committed claim (PUBLISHING) is published by an inserter of its address, at its
 * slot too (insertAt), and by the recoverer of its dead owner, counted once in every case; an
 * uncommitted one is cancelled after the grace, never published, and freed by its owner or its
 * owner's recoverer without being counted.
 */
class ClaimHelpTest
{
    private final Region r = Region.allocatePrivate(AvLayout.compute(AddrFormat.SOCKADDR_IN, AvType.TABLE, 16, 4, 0, 0),
        1L << 32, 0, 0);
    private final SlotTable table = r.table();
    private final Writer owner = table.attach();
    private final ByteBuffer a = Addresses.toSockaddr(new InetSocketAddress("10.7.0.1", 7001));

    @Test
    void shouldPublishACommittedClaimForItsOwnerAndCountItOnce()
    {
        final long slot = claimFilledIndexed(owner, a);
        assertEquals(slot, table.commitClaim(owner, 0));
        assertEquals(1, table.count(), "counted at the commit");
        assertEquals(slot, insert(a), "the inserter publishes the committed slot and returns it");
        assertEquals(SlotDescriptor.word(SlotDescriptor.VALID, 2, 0), table.stateWord(slot), "the owner's reference and ours");
        assertEquals(slot, table.publishClaim(owner, 0), "the owner's publish finds it published: its slot all the same");
        assertEquals(SlotDescriptor.word(SlotDescriptor.VALID, 2, 0), table.stateWord(slot));
        assertEquals(1, table.count(), "counted once");
        assertEquals(slot, table.reverseLookup(a, 0, 16, -1L));
    }

    @Test
    void shouldPublishACommittedClaimAtItsSlotOrRefuseAnotherAddressThere()
    {
        final long slot = claimFilledIndexed(owner, a);
        table.commitClaim(owner, 0);
        final ByteBuffer other = Addresses.toSockaddr(new InetSocketAddress("10.7.0.2", 7001));
        assertEquals(-FiErrno.EADDRINUSE, table.insertAt(r.writer(), slot, other, 0, 16, -1L, Long.MIN_VALUE, 0));
        assertEquals(slot, table.insertAt(r.writer(), slot, a, 0, 16, -1L, Long.MIN_VALUE, 0), "insertAt publishes it");
        assertEquals(2, SlotDescriptor.payload(table.stateWord(slot)));
        assertEquals(slot, table.publishClaim(owner, 0));
        assertEquals(1, table.count());
    }

    @Test
    void shouldCancelAnUncommittedClaimAfterTheGraceAndInsertBesideIt()
    {
        final long slot = claimFilledIndexed(owner, a);
        final long start = System.nanoTime();
        assertEquals(slot + 1, insert(a), "a slot of its own: the claimed one is not free yet");
        assertTrue(System.nanoTime() - start >= KeyPlacer.CANCEL_GRACE_NANOS, "not before the grace");
        assertEquals(SlotDescriptor.CANCELLED, SlotDescriptor.state(table.stateWord(slot)));
        assertEquals(SlotInserter.CANCELLED_CLAIM, table.publishClaim(owner, 0), "a cancelled claim is never published");
        assertEquals(SlotDescriptor.word(SlotDescriptor.FREE, 0, 1), table.stateWord(slot), "its owner gave it back");
        assertEquals(1, table.count());
        assertEquals(slot + 1, table.reverseLookup(a, 0, 16, -1L));
        assertEquals(0, AttacherDescriptor.delta(r.memory().getLong(r.layout().attacher(owner.index) + AttacherDescriptor.JOURNAL_OFFSET)),
            "the owner counted nothing");
    }

    @Test
    void shouldPublishADeadOwnersCommittedClaimOnRecovery()
    {
        final long slot = claimFilledIndexed(owner, a);
        table.commitClaim(owner, 0);
        r.liveness().release(owner.index); // what the kernel does when the owner dies
        assertEquals(1, table.recoverDead());
        assertEquals(SlotDescriptor.word(SlotDescriptor.VALID, 1, 0), table.stateWord(slot));
        assertEquals(1, table.count());
        assertEquals(slot, insert(a), "found, not inserted again");
    }

    @Test
    void shouldFreeADeadOwnersCancelledClaimWithoutCountingIt()
    {
        final long slot = claimFilledIndexed(owner, a);
        final Memory m = r.memory();
        // The owner died between its journal and its commit; an inserter of the address had cancelled the claim.
        m.setLongRelease(r.layout().attacher(owner.index) + AttacherDescriptor.JOURNAL_OFFSET,
            AttacherDescriptor.journal(0, AttacherDescriptor.OP_PUBLISH, slot));
        final long cancelled = SlotDescriptor.word(SlotDescriptor.CANCELLED, owner.index, 0);
        m.setLongVolatile(r.layout().slot(slot) + SlotDescriptor.STATE_OFFSET, cancelled);
        r.liveness().release(owner.index);
        assertEquals(1, table.recoverDead());
        assertEquals(SlotDescriptor.word(SlotDescriptor.FREE, 0, 1), table.stateWord(slot));
        assertEquals(0, table.count());
        assertEquals(slot, insert(a), "the address goes into the freed slot");
        assertEquals(1, table.count());
    }

    private long insert(final ByteBuffer addr)
    {
        return table.insert(r.writer(), addr, 0, 16, -1L, Long.MIN_VALUE, 0);
    }

    /** Writer {@code w} claims the lowest FREE slot, fills it with {@code addr} and places it in the active area. */
    private long claimFilledIndexed(final Writer w, final ByteBuffer addr)
    {
        return ClaimHolder.claimFilledIndexed(r, w, addr);
    }
}
