package org.shmav;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.stream.LongStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The fi_av_set(3) contract, run against a private AV ({@link PrivateAvSetTest}) and a named AV
 * ({@link SharedAvSetTest}). The only abstract part opens the AV. Cases libfabric's util/coll code
 * gets wrong are marked "libfabric:".
 */
abstract class AvSetContractTest
{
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    /** Opens an AV with these attributes (the subclass adds what its kind needs, e.g. a name). */
    protected abstract AddressVector openAv(AvAttr.Builder attr);

    /** Registers {@code r} to be closed after the test, after everything registered later. */
    protected final <T extends AutoCloseable> T closeAfter(final T r)
    {
        resources.push(r);
        return r;
    }

    @AfterEach
    final void closeResources() throws Exception
    {
        while (!resources.isEmpty())
        {
            resources.pop().close();
        }
    }

    // ---------------------------------------------------------------- attributes

    @Test
    void shouldOpenAnEmptySetByDefault()
    {
        final AvSet set = open(av(4), AvSetAttr.builder());
        assertArrayEquals(new long[0], set.members());
        assertEquals(0xb2fca739210888c9L, set.addr());
    }

    @Test
    void shouldIncludeTheInclusiveRange()
    {
        assertArrayEquals(new long[] {2, 3, 4, 5}, open(av(8), range(2, 5)).members());
    }

    @Test
    void shouldStepByStride()
    {
        assertArrayEquals(new long[] {0, 3, 6}, open(av(8), range(0, 7).stride(3)).members());
        assertArrayEquals(new long[] {1, 4}, open(av(8), range(1, 5).stride(3)).members());
    }

    @Test
    void shouldTreatStrideZeroAsOneInARange()
    {
        final AddressVector av = av(8);
        assertArrayEquals(new long[] {1, 2, 3}, open(av, range(1, 3).stride(0)).members());
    }

    @Test
    void shouldSkipInvalidEntriesInARange()
    {
        final AddressVector av = av(6);
        av.remove(new long[] {3}, 1, 0);
        assertArrayEquals(new long[] {0, 1, 2, 4, 5}, open(av, range(0, 5)).members());
        assertArrayEquals(new long[] {4, 5}, open(av, range(3, 9)).members());
        assertArrayEquals(new long[] {0, 2, 4}, open(av, range(0, 9).stride(2)).members());
    }

    @Test
    void shouldTreatAnRxAddrOfAnEntryAsThatEntry()
    {
        final AddressVector av = openAv(AvAttr.builder().type(AvType.TABLE).rxCtxBits(4).count(16));
        insert(av, 0, 4);
        final AvSet set = open(av, AvSetAttr.builder());
        set.insert(Fi.rxAddr(2, 3, 4));
        assertArrayEquals(new long[] {2}, set.members()); // stored as the plain fi_addr
        assertErrno(FiErrno.EINVAL, () -> set.insert(2)); // the same member spelled without rx bits
        set.remove(Fi.rxAddr(2, 1, 4));
        assertArrayEquals(new long[0], set.members());
    }

    @Test
    void shouldRejectARangeOnAMapAv()
    {
        final AddressVector av = av(AvType.MAP, 0);
        final long first = insert(av, 0, 4)[0];
        assertErrno(FiErrno.EINVAL, () -> av.openSet(range(first, first + 1).count(2).build()));
    }

    @Test
    void shouldRejectExactlyOneOfStartAndEnd()
    {
        final AddressVector av = av(4);
        assertErrno(FiErrno.EINVAL, () -> av.openSet(AvSetAttr.builder().startAddr(0).build()));
        assertErrno(FiErrno.EINVAL, () -> av.openSet(AvSetAttr.builder().endAddr(3).build()));
    }

    @Test
    void shouldRejectStartAfterEnd()
    {
        final AddressVector av = av(4);
        assertErrno(FiErrno.EINVAL, () -> av.openSet(range(3, 1).build()));
    }

    @Test
    void shouldRejectARangeSpanningMoreAddressesThanCount()
    {
        final AddressVector av = av(8);
        assertErrno(FiErrno.EINVAL, () -> av.openSet(range(0, 4).count(2).build()));
        // the span counts addresses, valid or not: 0..9 is 10 even though only 8 entries exist
        assertErrno(FiErrno.EINVAL, () -> av.openSet(range(0, 9).count(8).build()));
        assertArrayEquals(new long[] {0, 1, 2, 3, 4}, open(av, range(0, 4).count(5)).members());
        assertArrayEquals(new long[] {0, 2, 4}, open(av, range(0, 5).stride(2).count(3)).members());
    }

    @Test
    void shouldRejectARangeWithACommKey()
    {
        final AddressVector av = av(4);
        assertErrno(FiErrno.EINVAL, () -> av.openSet(range(0, 1).commKey(new byte[8]).build()));
    }

    /** FI_UNIVERSE overrides the range, stride and count, as libfabric's cxi provider does. */
    @Test
    void shouldLetUniverseOverrideTheRangeStrideAndCount()
    {
        final AddressVector av = av(6);
        final long[] all = {0, 1, 2, 3, 4, 5};
        assertArrayEquals(all, open(av, range(0, 1).flags(Fi.UNIVERSE)).members());
        assertArrayEquals(all, open(av, range(0, 5).stride(2).count(3).flags(Fi.UNIVERSE)).members());
        assertArrayEquals(all, open(av, AvSetAttr.builder().stride(2).flags(Fi.UNIVERSE)).members());
        assertArrayEquals(all, open(av, AvSetAttr.builder().startAddr(1).commKey(new byte[8]).flags(Fi.UNIVERSE))
            .members(), "one end given: overridden too");
        final AvSet capped = open(av, AvSetAttr.builder().count(2).flags(Fi.UNIVERSE));
        assertArrayEquals(all, capped.members(), "more entries than count");
        capped.remove(3);
        capped.insert(3); // the set may hold every entry of the AV
        assertArrayEquals(new long[] {0, 1, 2, 4, 5, 3}, capped.members());
        final AddressVector map = av(AvType.MAP, 0);
        final long[] fiAddrs = insert(map, 0, 2);
        assertArrayEquals(fiAddrs, open(map, range(0, 1).flags(Fi.UNIVERSE)).members(), "a range on FI_AV_MAP");
    }

    /** The AV set attributes of the API contract's own example, on AVs with fewer and more entries than its count of 8. */
    @Test
    void shouldOpenTheSetOfTheApiExample()
    {
        for (final int entries : new int[] {4, 12})
        {
            final AvSetAttr setAttr = AvSetAttr.builder().count(8).startAddr(0).endAddr(7).stride(1)
                .commKey(null).flags(Fi.UNIVERSE).build();
            final AvSet set = closeAfter(av(entries).openSet(setAttr));
            assertEquals(entries, set.members().length, entries + " entries");
        }
    }

    @Test
    void shouldRejectAStrideWithoutARange()
    {
        final AddressVector av = av(4);
        assertErrno(FiErrno.EINVAL, () -> av.openSet(AvSetAttr.builder().stride(2).build()));
        assertArrayEquals(new long[0], open(av, AvSetAttr.builder().stride(1)).members());
    }

    @Test
    void shouldOpenTheUniverseWithEveryValidEntryInIndexOrder()
    {
        final AddressVector av = av(6);
        av.remove(new long[] {2}, 1, 0);
        final AvSet universe = open(av, AvSetAttr.builder().flags(Fi.UNIVERSE));
        assertArrayEquals(new long[] {0, 1, 3, 4, 5}, universe.members());
        insert(av, 6, 1); // takes the free index 2: a snapshot does not follow the AV
        assertArrayEquals(new long[] {0, 1, 3, 4, 5}, universe.members());
        assertArrayEquals(new long[] {0, 1, 2, 3, 4, 5}, open(av, AvSetAttr.builder().flags(Fi.UNIVERSE)).members());
    }

    @Test
    void shouldOpenTheUniverseOfAMapAv()
    {
        final AddressVector av = av(AvType.MAP, 0);
        final long[] fiAddrs = insert(av, 0, 3);
        assertNotEquals(0, fiAddrs[0]);
        final AvSet universe = open(av, AvSetAttr.builder().flags(Fi.UNIVERSE));
        assertArrayEquals(fiAddrs, universe.members());
        universe.remove(fiAddrs[1]);
        universe.insert(fiAddrs[1]);
        assertArrayEquals(new long[] {fiAddrs[0], fiAddrs[2], fiAddrs[1]}, universe.members());
    }

    @Test
    void shouldRecordTheCollectiveFlags()
    {
        final long flags = Fi.UNIVERSE | Fi.BARRIER_SET | Fi.BROADCAST_SET | Fi.ALLTOALL_SET | Fi.ALLREDUCE_SET |
            Fi.ALLGATHER_SET | Fi.REDUCE_SCATTER_SET | Fi.REDUCE_SET | Fi.SCATTER_SET | Fi.GATHER_SET;
        final AddressVector av = av(2);
        assertEquals(flags, open(av, AvSetAttr.builder().flags(flags)).attr().flags());
        assertEquals(Fi.ALLREDUCE_SET, open(av, AvSetAttr.builder().flags(Fi.ALLREDUCE_SET)).attr().flags());
    }

    @Test
    void shouldRejectUnknownFlags()
    {
        final AddressVector av = av(2);
        for (final long flag : new long[] {Fi.READ, Fi.SYNC_ERR, Fi.SYMMETRIC, 1L << 39, 1L << 49, 1L << 63})
        {
            assertErrno(FiErrno.EINVAL, () -> av.openSet(AvSetAttr.builder().flags(Fi.BARRIER_SET | flag).build()));
        }
    }

    @Test
    void shouldAcceptACommKeyOfEightBytesOrNone()
    {
        final AddressVector av = av(2);
        final byte[] key = {1, 2, 3, 4, 5, 6, 7, 8};
        assertArrayEquals(key, open(av, AvSetAttr.builder().commKey(key)).attr().commKey());
        assertEquals(0, open(av, AvSetAttr.builder().commKey(new byte[0])).members().length);
        assertEquals(2, open(av, AvSetAttr.builder().commKey(key).flags(Fi.UNIVERSE)).members().length);
    }

    @Test
    void shouldRejectACommKeyOfAnotherSize()
    {
        final AddressVector av = av(2);
        for (final int size : new int[] {1, 4, 7, 9, 16})
        {
            assertErrno(FiErrno.EINVAL, () -> av.openSet(AvSetAttr.builder().commKey(new byte[size]).build()));
        }
    }

    @Test
    void shouldRejectANullAttrAndANegativeCount()
    {
        final AddressVector av = av(2);
        assertErrno(FiErrno.EINVAL, () -> av.openSet(null));
        assertErrno(FiErrno.EINVAL, () -> av.openSet(AvSetAttr.builder().count(-1).build()));
    }

    // ---------------------------------------------------------------- insert and remove

    @Test
    void shouldAppendOnInsert()
    {
        final AvSet set = open(av(4), AvSetAttr.builder());
        set.insert(3);
        set.insert(0);
        set.insert(2);
        assertArrayEquals(new long[] {3, 0, 2}, set.members());
    }

    @Test
    void shouldRejectInsertOfADuplicate()
    {
        final AvSet set = open(av(4), range(0, 2));
        assertErrno(FiErrno.EINVAL, () -> set.insert(1));
        assertArrayEquals(new long[] {0, 1, 2}, set.members());
    }

    @Test
    void shouldRejectInsertOfAnAddressThatIsNotAValidEntry()
    {
        final AddressVector av = av(4);
        av.remove(new long[] {1}, 1, 0);
        final AvSet set = open(av, AvSetAttr.builder());
        for (final long bad : new long[] {1, 4, 1000, Fi.ADDR_NOTAVAIL})
        {
            assertErrno(FiErrno.EINVAL, () -> set.insert(bad));
        }
        assertArrayEquals(new long[0], set.members());
    }

    @Test
    void shouldRejectInsertIntoAFullSetWithEnomem()
    {
        final AvSet set = open(av(4), AvSetAttr.builder().count(2));
        set.insert(0);
        set.insert(1);
        assertErrno(FiErrno.ENOMEM, () -> set.insert(2));
        assertArrayEquals(new long[] {0, 1}, set.members());
    }

    @Test
    void shouldGrowWithoutLimitWhenCountIsZero()
    {
        final AddressVector av = av(40);
        final AvSet set = open(av, AvSetAttr.builder());
        for (long a = 39; a >= 0; a--)
        {
            set.insert(a);
        }
        assertArrayEquals(LongStream.rangeClosed(0, 39).map(i -> 39 - i).toArray(), set.members());
    }

    @Test
    void shouldKeepTheOrderOfTheRestOnRemove()
    {
        // libfabric: util/coll swaps the last member into the hole
        final AvSet set = open(av(6), range(0, 5));
        set.remove(1);
        assertArrayEquals(new long[] {0, 2, 3, 4, 5}, set.members());
        set.remove(0);
        set.remove(5);
        assertArrayEquals(new long[] {2, 3, 4}, set.members());
    }

    @Test
    void shouldRejectRemoveOfANonMember()
    {
        final AvSet set = open(av(4), range(0, 1));
        assertErrno(FiErrno.EINVAL, () -> set.remove(2));
        set.remove(1);
        assertErrno(FiErrno.EINVAL, () -> set.remove(1));
        assertArrayEquals(new long[] {0}, set.members());
    }

    @Test
    void shouldRemoveAMemberWhoseAvEntryWasRemoved()
    {
        final AddressVector av = av(3);
        final AvSet set = open(av, range(0, 2));
        av.remove(new long[] {1}, 1, 0);
        set.remove(1);
        assertArrayEquals(new long[] {0, 2}, set.members());
    }

    // ---------------------------------------------------------------- union, intersect, diff

    @Test
    void shouldAppendTheMissingSourceMembersInSourceOrderOnUnion()
    {
        final AddressVector av = av(6);
        final AvSet dst = set(av, 0, 2);
        dst.union(set(av, 4, 2, 3, 1));
        assertArrayEquals(new long[] {0, 2, 4, 3, 1}, dst.members());
    }

    @Test
    void shouldLeaveTheSetUnchangedWhenUnionExceedsCount()
    {
        // libfabric: util/coll applies the union partly before failing
        final AddressVector av = av(6);
        final AvSet dst = open(av, AvSetAttr.builder().count(3));
        dst.insert(0);
        dst.insert(1);
        final long addr = dst.addr();
        assertErrno(FiErrno.ENOMEM, () -> dst.union(set(av, 2, 1, 3)));
        assertArrayEquals(new long[] {0, 1}, dst.members());
        assertEquals(addr, dst.addr());
        dst.union(set(av, 1, 3, 0));
        assertArrayEquals(new long[] {0, 1, 3}, dst.members());
    }

    @Test
    void shouldKeepTheDestinationOrderOnIntersect()
    {
        // libfabric: util/coll gives {2}
        final AddressVector av = av(3);
        final AvSet dst = set(av, 0, 1, 2);
        dst.intersect(set(av, 2, 0));
        assertArrayEquals(new long[] {0, 2}, dst.members());
        final AvSet reversed = set(av, 2, 1, 0);
        reversed.intersect(set(av, 0, 1));
        assertArrayEquals(new long[] {1, 0}, reversed.members());
    }

    @Test
    void shouldRemoveTheSourceMembersOnDiff()
    {
        // libfabric: util/coll gives {0,1}
        final AddressVector av = av(5);
        final AvSet dst = set(av, 0, 1, 2);
        dst.diff(set(av, 1));
        assertArrayEquals(new long[] {0, 2}, dst.members());
        final AvSet other = set(av, 4, 0, 3, 1, 2);
        other.diff(set(av, 2, 4, 0));
        assertArrayEquals(new long[] {3, 1}, other.members());
    }

    @Test
    void shouldHandleTheSetItselfAsSource()
    {
        final AddressVector av = av(3);
        final AvSet set = set(av, 2, 0, 1);
        set.union(set);
        set.intersect(set);
        assertArrayEquals(new long[] {2, 0, 1}, set.members());
        set.diff(set);
        assertArrayEquals(new long[0], set.members());
        assertEquals(open(av, AvSetAttr.builder()).addr(), set.addr());
    }

    @Test
    void shouldRejectSetsOfDifferentAvs()
    {
        final AvSet mine = set(av(3), 0, 1);
        final AvSet theirs = set(av(3), 1, 2);
        assertErrno(FiErrno.EINVAL, () -> mine.union(theirs));
        assertErrno(FiErrno.EINVAL, () -> mine.intersect(theirs));
        assertErrno(FiErrno.EINVAL, () -> mine.diff(theirs));
        assertErrno(FiErrno.EINVAL, () -> mine.union(null));
        assertArrayEquals(new long[] {0, 1}, mine.members());
    }

    @Test
    void shouldUnionIntersectAndDiffHundredThousandMemberSetsExactly()
    {
        final int n = 100_000;
        final AddressVector av = av(150_000);
        final long[] ascending = LongStream.range(0, n).toArray();
        final long[] descending = LongStream.range(0, n).map(i -> 149_999 - i).toArray(); // 149,999 .. 50,000

        final AvSet a = open(av, range(0, n - 1));
        a.intersect(set(av, descending));
        assertArrayEquals(LongStream.range(50_000, n).toArray(), a.members());

        final AvSet b = set(av, descending);
        b.union(set(av, ascending));
        assertArrayEquals(LongStream.concat(LongStream.of(descending), LongStream.range(0, 50_000)).toArray(),
            b.members());

        final AvSet c = set(av, ascending);
        c.diff(set(av, descending));
        assertArrayEquals(LongStream.range(0, 50_000).toArray(), c.members());
        assertEquals(expectedAddr(LongStream.range(0, 50_000).toArray()), c.addr());
    }

    // ---------------------------------------------------------------- addr and members

    @Test
    void shouldDefineAddrAsTheTaggedFnv1aOfTheOrderedMembers()
    {
        final AddressVector av = av(8);
        final AvSet set = set(av, 5, 0, 7, 3);
        assertEquals(expectedAddr(new long[] {5, 0, 7, 3}), set.addr());
        assertEquals(AvSet.COLL_ADDR_TAG, set.addr() & (3L << 62));
        set.remove(0);
        assertEquals(expectedAddr(new long[] {5, 7, 3}), set.addr());
        set.diff(set(av, 7));
        assertEquals(expectedAddr(new long[] {5, 3}), set.addr());
    }

    @Test
    void shouldGiveTheSameAddrForTheSameMembershipHoweverBuilt()
    {
        final AddressVector av = av(4);
        final long expected = open(av, range(0, 3)).addr();
        assertEquals(expected, set(av, 0, 1, 2, 3).addr());
        assertEquals(expected, open(av, AvSetAttr.builder().flags(Fi.UNIVERSE)).addr());
        final AvSet rebuilt = set(av, 0, 1);
        rebuilt.union(set(av, 2, 3));
        assertEquals(expected, rebuilt.addr());
        rebuilt.remove(3);
        rebuilt.insert(3);
        assertEquals(expected, rebuilt.addr());
    }

    @Test
    void shouldChangeAddrWhenMembershipOrOrderChanges()
    {
        final AddressVector av = av(4);
        final AvSet set = set(av, 0, 1);
        assertNotEquals(set(av, 1, 0).addr(), set.addr());
        final long before = set.addr();
        set.insert(2);
        final long inserted = set.addr();
        assertNotEquals(before, inserted);
        set.remove(0);
        assertNotEquals(inserted, set.addr());
        assertNotEquals(Fi.ADDR_NOTAVAIL, set.addr());
    }

    @Test
    void shouldReturnACopyOfTheMembers()
    {
        final AvSet set = set(av(3), 2, 1);
        set.members()[0] = 0;
        assertArrayEquals(new long[] {2, 1}, set.members());
    }

    // ---------------------------------------------------------------- lifetime

    @Test
    void shouldFailToCloseTheAvWhileASetIsOpen()
    {
        final AddressVector av = av(2);
        final AvSet set = open(av, AvSetAttr.builder());
        assertErrno(FiErrno.EBUSY, av::close);
        set.close();
        av.close();
    }

    @Test
    void shouldCloseASetIdempotently()
    {
        final AddressVector av = av(2);
        final AvSet first = open(av, AvSetAttr.builder());
        final AvSet second = open(av, AvSetAttr.builder());
        first.close();
        first.close(); // must not release the reference the second set holds
        assertErrno(FiErrno.EBUSY, av::close);
        second.close();
        av.close();
    }

    @Test
    void shouldRejectEveryCallOnAClosedSet()
    {
        final AddressVector av = av(3);
        final AvSet open = set(av, 0);
        final AvSet closed = set(av, 1, 2);
        closed.close();
        assertErrno(FiErrno.EINVAL, () -> closed.union(open));
        assertErrno(FiErrno.EINVAL, () -> closed.intersect(open));
        assertErrno(FiErrno.EINVAL, () -> closed.diff(open));
        assertErrno(FiErrno.EINVAL, () -> closed.insert(0));
        assertErrno(FiErrno.EINVAL, () -> closed.remove(1));
        assertErrno(FiErrno.EINVAL, closed::addr);
        assertErrno(FiErrno.EINVAL, closed::members);
        assertErrno(FiErrno.EINVAL, closed::attr);
        assertErrno(FiErrno.EINVAL, () -> open.union(closed));
        assertArrayEquals(new long[] {0}, open.members());
    }

    @Test
    void shouldNotHoldTheAvWhenOpeningASetFails()
    {
        final AddressVector av = av(2);
        assertErrno(FiErrno.EINVAL, () -> av.openSet(range(1, 0).build()));
        av.close();
        assertErrno(FiErrno.EINVAL, () -> av.openSet(AvSetAttr.builder().build()));
    }

    // ---------------------------------------------------------------- helpers

    protected final AddressVector av(final int entries)
    {
        return av(AvType.TABLE, entries);
    }

    /** An AV of {@code type} holding {@code entries} distinct addresses at indices 0 .. entries-1. */
    protected final AddressVector av(final AvType type, final int entries)
    {
        final AddressVector av = openAv(AvAttr.builder().type(type).count(Math.max(entries, 16)));
        insert(av, 0, entries);
        return av;
    }

    /** Inserts addresses {@code first .. first+n-1} (10.x.y.z:7000), checks every one went in, returns the fi_addrs. */
    protected static long[] insert(final AddressVector av, final int first, final int n)
    {
        final ByteBuffer addrs = ByteBuffer.allocate(n * AddrFormat.SOCKADDR_IN.addrlen());
        for (int i = first; i < first + n; i++)
        {
            final byte[] ip = {10, (byte)(i >>> 16), (byte)(i >>> 8), (byte)i};
            try
            {
                Addresses.put(addrs, new InetSocketAddress(InetAddress.getByAddress(ip), 7000));
            }
            catch (final UnknownHostException ex)
            {
                throw new AssertionError(ex);
            }
        }
        final long[] fiAddrs = new long[n];
        assertEquals(n, av.insert(addrs.flip(), n, fiAddrs, 0, null));
        return fiAddrs;
    }

    protected final AvSet open(final AddressVector av, final AvSetAttr.Builder attr)
    {
        return closeAfter(av.openSet(attr.build()));
    }

    /** An empty set that {@code members} are inserted into, in that order. */
    protected final AvSet set(final AddressVector av, final long... members)
    {
        final AvSet set = open(av, AvSetAttr.builder());
        for (final long m : members)
        {
            set.insert(m);
        }
        return set;
    }

    protected static AvSetAttr.Builder range(final long start, final long end)
    {
        return AvSetAttr.builder().startAddr(start).endAddr(end);
    }

    /** The definition in {@link AvSet#addr()}, written independently: FNV-1a-64 over little-endian bytes. */
    protected static long expectedAddr(final long[] members)
    {
        final ByteBuffer bytes = ByteBuffer.allocate(members.length * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (final long m : members)
        {
            bytes.putLong(m);
        }
        long h = 0xcbf29ce484222325L;
        for (final byte b : bytes.array())
        {
            h ^= b & 0xFF;
            h *= 0x100000001b3L;
        }
        return (1L << 63) | (h >>> 2);
    }

    protected static void assertErrno(final int errno, final Executable call)
    {
        final FabricException ex = assertThrows(FabricException.class, call);
        assertEquals(errno, ex.errno(), ex.getMessage());
    }
}
