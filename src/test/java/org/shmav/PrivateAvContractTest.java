package org.shmav;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.shmav.AvTestSupport.assertErrno;
import static org.shmav.AvTestSupport.bytes;
import static org.shmav.AvTestSupport.concat;
import static org.shmav.AvTestSupport.distinctIn4;

import java.nio.ByteBuffer;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

/** The contract on a private AV (no name), plus what only a private AV does: grow past its count. */
class PrivateAvContractTest extends AddressVectorContractTest
{
    @Override
    protected AddressVector openAv(final Domain domain, final AvAttr.Builder attr)
    {
        return domain.openAv(attr.name(null).build());
    }

    @Test
    void shouldGrowPastCountOneInsertAtATime()
    {
        final int count = 8;
        final ByteBuffer[] addrs = distinctIn4(10 * count);
        try (Domain d = Domain.open(DomainAttr.builder().build());
             AddressVector av = openAv(d, AvAttr.builder().type(AvType.TABLE).count(count)))
        {
            assertNull(av.attr().name());
            final long[] one = new long[1];
            for (int i = 0; i < addrs.length; i++)
            {
                assertEquals(1, av.insert(addrs[i].duplicate(), 1, one, 0, null));
                assertEquals(i, one[0]);
            }
            assertEquals(addrs.length, av.count());
            for (int i = 0; i < addrs.length; i++)
            {
                final ByteBuffer dst = ByteBuffer.allocate(16);
                assertEquals(16, av.lookup(i, dst));
                assertArrayEquals(bytes(addrs[i]), dst.array(), "entry " + i);
                assertEquals(i, av.reverseLookup(addrs[i].duplicate()), "the index survives growth");
            }
            assertEquals(count, av.attr().count(), "attr().count() is the caller's hint, unchanged");
            final long[] dup = new long[1];
            assertEquals(1, av.insert(addrs[3].duplicate(), 1, dup, 0, null));
            assertEquals(3, dup[0], "duplicates are still found after growth");
        }
    }

    /**
     * A growth copies the entries into a new region; lookups must read the new one from then on (the
     * handle's lookup view is replaced with the region), or a removal after the growth would not be seen.
     */
    @Test
    void shouldSeeARemovalAfterAGrowth()
    {
        final int count = 4;
        final ByteBuffer[] addrs = distinctIn4(count + 1);
        try (Domain d = Domain.open(DomainAttr.builder().build());
             AddressVector av = openAv(d, AvAttr.builder().type(AvType.TABLE).count(count)))
        {
            final long[] one = new long[1];
            for (int i = 0; i < count; i++)
            {
                assertEquals(1, av.insert(addrs[i].duplicate(), 1, one, 0, null));
            }
            final ByteBuffer dst = ByteBuffer.allocateDirect(16);
            assertEquals(16, av.lookup(2, dst), "looked up in the first region");
            assertEquals(1, av.insert(addrs[count].duplicate(), 1, one, 0, null));
            assertEquals(count, one[0], "the AV grew");
            av.remove(new long[] {2}, 1, 0);
            assertErrno(FiErrno.EINVAL, () -> av.lookup(2, dst));
            assertEquals(16, av.lookup(count, dst));
        }
    }

    @Test
    void shouldGrowPastCountWithinOneBatch()
    {
        final int count = 4;
        final ByteBuffer[] addrs = distinctIn4(10 * count);
        try (Domain d = Domain.open(DomainAttr.builder().build());
             AddressVector av = openAv(d, AvAttr.builder().type(AvType.TABLE).count(count)))
        {
            final long[] fiAddr = new long[addrs.length];
            assertEquals(addrs.length, av.insert(concat(addrs), addrs.length, fiAddr, 0, null));
            for (int i = 0; i < addrs.length; i++)
            {
                assertEquals(i, fiAddr[i]);
                final ByteBuffer dst = ByteBuffer.allocate(16);
                av.lookup(i, dst);
                assertArrayEquals(bytes(addrs[i]), dst.array(), "entry " + i);
            }
            av.remove(Arrays.copyOf(fiAddr, 5), 5, 0);
            assertEquals(addrs.length - 5, av.count());
            final long[] again = new long[1];
            assertEquals(1, av.insert(addrs[2].duplicate(), 1, again, 0, null));
            assertEquals(0, again[0], "the lowest freed index is reused after growth");
        }
    }

    @Test
    void shouldRejectReadOnlyWithoutAName()
    {
        try (Domain d = Domain.open(DomainAttr.builder().build()))
        {
            assertErrno(FiErrno.EINVAL, () -> d.openAv(AvAttr.builder().flags(Fi.READ).build()).close());
        }
    }
}
