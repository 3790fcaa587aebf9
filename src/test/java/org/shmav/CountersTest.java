package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmav.shm.AttacherDescriptor;
import org.shmav.shm.Memory;
import org.shmav.shm.SlotDescriptor;
import org.shmav.slots.Region;
import org.shmav.slots.ToolAccess;
import org.shmav.it.TestDir;

/**
 * The counters of a named AV at their limits: an entry's reference count, and an attacher entry's
 * journal delta. The states are set up by writing the words a very long run would leave, through a
 * tool's mapping of the file.
 */
class CountersTest
{
    private Path dir;

    @BeforeEach
    void setUp()
    {
        dir = TestDir.createInShm("counters");
    }

    @AfterEach
    void cleanUp()
    {
        TestDir.delete(dir);
    }

    private static ByteBuffer address(final int i)
    {
        return Addresses.toSockaddr(new InetSocketAddress("10.66.0." + i, 6000));
    }

    @Test
    void shouldAnswerFiEoverflowInsteadOfSpinningWhenAnEntryHasEveryReference()
    {
        try (Domain d = Domain.open(DomainAttr.builder().shmDirectory(dir).build());
             AddressVector av = d.openAv(AvAttr.builder().type(AvType.TABLE).name("refs").count(8).build()))
        {
            final long[] fiAddr = new long[1];
            assertEquals(1, av.insert(address(1), 1, fiAddr, 0, null));
            // As if the address had been inserted 2^32 - 2 times.
            setReferences(fiAddr[0], SlotDescriptor.MAX_REFS - 1);
            assertEquals(1, av.insert(address(1), 1, fiAddr, 0, null), "the last reference there is");
            final int[] errors = new int[1];
            final long[] again = new long[1];
            assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> assertEquals(0, av.insert(address(1), 1, again, Fi.SYNC_ERR, errors)), "a saturated entry");
            assertEquals(FiErrno.EOVERFLOW, errors[0]);
            assertEquals(Fi.ADDR_NOTAVAIL, again[0]);
            // The entry stays valid, and is removed by as many removals as it has references.
            av.remove(fiAddr, 1, 0);
            assertEquals(fiAddr[0], av.reverseLookup(address(1)));
            assertEquals(1, av.insert(address(2), 1, again, 0, null), "other addresses go on");
            assertEquals(2, av.count());
        }
    }

    @Test
    void shouldCountExactlyWhenOneWritersDeltaWrapsPast32Bits()
    {
        try (Domain d = Domain.open(DomainAttr.builder().shmDirectory(dir).build());
             AddressVector a = d.openAv(AvAttr.builder().type(AvType.TABLE).name("wrap").count(16).build());
             AddressVector b = d.openAv(AvAttr.builder().name("wrap").build()))
        {
            final long[] fiAddr = new long[1];
            for (int i = 1; i <= 5; i++)
            {
                assertEquals(1, a.insert(address(i), 1, fiAddr, 0, null));
            }
            // As if a had inserted 2^31 more entries and b removed them all: a's delta passes 2^31.
            addToDelta(0, 1L << 31);
            addToDelta(1, -(1L << 31));
            assertEquals(5, a.count());
            assertEquals(5, b.count());
            assertEquals(1, b.insert(address(6), 1, fiAddr, 0, null));
            a.remove(fiAddr, 1, 0);
            assertEquals(5, b.count(), "after a removal through the wrapped entry's neighbour");
        }
    }

    private void setReferences(final long index, final long refs)
    {
        final Region r = ToolAccess.openForRepair(dir.resolve("refs"));
        try
        {
            final Memory m = r.memory();
            final int state = r.layout().slot(index) + SlotDescriptor.STATE_OFFSET;
            final long s = m.getLongVolatile(state);
            m.setLongVolatile(state, SlotDescriptor.word(SlotDescriptor.VALID, refs, SlotDescriptor.generation(s)));
        }
        finally
        {
            r.detach();
        }
    }

    /** Adds {@code add} to attacher entry {@code attacher}'s journal delta, as 32-bit arithmetic wraps. */
    private void addToDelta(final int attacher, final long add)
    {
        final Region r = ToolAccess.openForRepair(dir.resolve("wrap"));
        try
        {
            final Memory m = r.memory();
            final int journal = r.layout().attacher(attacher) + AttacherDescriptor.JOURNAL_OFFSET;
            final long delta = AttacherDescriptor.delta(m.getLongVolatile(journal));
            m.setLongVolatile(journal, AttacherDescriptor.journal(delta + add, AttacherDescriptor.OP_NONE, 0));
        }
        finally
        {
            r.detach();
        }
    }
}
