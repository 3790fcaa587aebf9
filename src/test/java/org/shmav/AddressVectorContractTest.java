package org.shmav;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmav.AvTestSupport.assertErrno;
import static org.shmav.AvTestSupport.bytes;
import static org.shmav.AvTestSupport.concat;
import static org.shmav.AvTestSupport.distinctIn4;
import static org.shmav.AvTestSupport.in4;
import static org.shmav.AvTestSupport.in6;
import static org.shmav.AvTestSupport.with;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * The fi_av(3) contract (the man page and libfabric's behaviour), run against every kind of
 * AddressVector. A subclass only says how an AV is opened; everything else is the same for a private
 * and a named AV.
 */
abstract class AddressVectorContractTest
{
    private static final ByteBuffer A = in4("10.0.0.1", 5000);
    private static final ByteBuffer B = in4("10.0.0.2", 5000);
    private static final ByteBuffer C = in4("10.0.0.3", 5001);
    private static final ByteBuffer D = in4("192.168.7.9", 65535);
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    private static final long AUTH_KEY_SIZE = 8;

    /** Opens an AV with {@code attr} on {@code domain}; the only difference between implementations. */
    protected abstract AddressVector openAv(Domain domain, AvAttr.Builder attr);

    /** The domain attributes every test starts from (a subclass may point named AVs at its own directory). */
    protected DomainAttr.Builder domainAttr()
    {
        return DomainAttr.builder();
    }

    private Domain openDomain()
    {
        return Domain.open(domainAttr().build());
    }

    private Domain openIn6Domain()
    {
        return Domain.open(domainAttr().addrFormat(AddrFormat.SOCKADDR_IN6).build());
    }

    private Domain openAuthKeyDomain()
    {
        return Domain.open(domainAttr().avAuthKey(true).authKeySize((int)AUTH_KEY_SIZE).build());
    }

    private static AvAttr.Builder table(final long count)
    {
        return AvAttr.builder().type(AvType.TABLE).count(count);
    }

    private static byte[] lookupBytes(final AddressVector av, final long fiAddr)
    {
        final ByteBuffer dst = ByteBuffer.allocate(64);
        final int len = av.lookup(fiAddr, dst);
        return Arrays.copyOf(dst.array(), len);
    }

    private static int insertOne(final AddressVector av, final ByteBuffer addr, final long[] fiAddr)
    {
        return av.insert(addr.duplicate(), 1, fiAddr, 0, null);
    }

    private static long insertOne(final AddressVector av, final ByteBuffer addr)
    {
        final long[] fiAddr = {-2};
        assertEquals(1, insertOne(av, addr, fiAddr));
        return fiAddr[0];
    }

    // ---------------------------------------------------------------- insert

    @Test
    void shouldInsertBatchAtSequentialIndicesFromZero()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long[] fiAddr = new long[3];
            assertEquals(3, av.insert(concat(A, B, C), 3, fiAddr, 0, null));
            assertArrayEquals(new long[] {0, 1, 2}, fiAddr);
            assertArrayEquals(bytes(A), lookupBytes(av, 0));
            assertArrayEquals(bytes(B), lookupBytes(av, 1));
            assertArrayEquals(bytes(C), lookupBytes(av, 2));
            assertEquals(3, av.count());
        }
    }

    @Test
    void shouldAccumulateIndicesAcrossCalls()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long[] first = new long[1];
            final long[] second = new long[2];
            assertEquals(1, av.insert(A.duplicate(), 1, first, 0, null));
            assertEquals(2, av.insert(concat(B, C), 2, second, 0, null));
            assertArrayEquals(new long[] {0}, first);
            assertArrayEquals(new long[] {1, 2}, second);
        }
    }

    @Test
    void shouldInsertWithNullFiAddrOnTable()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            assertEquals(2, av.insert(concat(A, B), 2, null, 0, null));
            assertArrayEquals(bytes(A), lookupBytes(av, 0));
            assertArrayEquals(bytes(B), lookupBytes(av, 1));
        }
    }

    @Test
    void shouldAcceptFiMore()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long[] fiAddr = new long[2];
            assertEquals(2, av.insert(concat(A, B), 2, fiAddr, Fi.MORE, null));
            assertArrayEquals(new long[] {0, 1}, fiAddr);
        }
    }

    @Test
    void shouldReadAddressesFromPositionWithoutMovingIt()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final ByteBuffer buf = ByteBuffer.allocate(5 + 16);
            buf.put(new byte[] {9, 9, 9, 9, 9}).put(B.duplicate()).position(5);
            assertEquals(1, av.insert(buf, 1, null, 0, null));
            assertEquals(5, buf.position());
            assertArrayEquals(bytes(B), lookupBytes(av, 0));
        }
    }

    @Test
    void shouldReportSyncErrorsPerAddressAfterZeroingTheArray()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final int[] errors = {77, 77, 77, 77};
            final long[] fiAddr = {-2, -2, -2, -2};
            final ByteBuffer portZero = in4("10.0.0.9", 0);
            final ByteBuffer any = in4("0.0.0.0", 5000);
            final int n = av.insert(concat(A, portZero, B, any), 4, fiAddr, Fi.SYNC_ERR, errors);
            assertEquals(2, n);
            assertArrayEquals(new int[] {0, FiErrno.EADDRNOTAVAIL, 0, FiErrno.EADDRNOTAVAIL}, errors);
            assertArrayEquals(new long[] {0, Fi.ADDR_NOTAVAIL, 1, Fi.ADDR_NOTAVAIL}, fiAddr);
            assertEquals(2, av.count());
        }
    }

    @Test
    void shouldOnlyTouchTheFirstCountSyncErrorEntries()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final int[] errors = {77, 77, 77};
            assertEquals(1, av.insert(A.duplicate(), 1, null, Fi.SYNC_ERR, errors));
            assertArrayEquals(new int[] {0, 77, 77}, errors);
        }
    }

    @Test
    void shouldRejectSyncErrWithoutAnIntArrayOfCountEntries()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final ByteBuffer two = concat(A, B);
            assertErrno(FiErrno.EINVAL, () -> av.insert(two.duplicate(), 2, null, Fi.SYNC_ERR, null));
            assertErrno(FiErrno.EINVAL, () -> av.insert(two.duplicate(), 2, null, Fi.SYNC_ERR, new int[1]));
            assertErrno(FiErrno.EINVAL, () -> av.insert(two.duplicate(), 2, null, Fi.SYNC_ERR, new long[2]));
            assertErrno(FiErrno.EINVAL, () -> av.insert(two.duplicate(), 2, null, Fi.SYNC_ERR, "context"));
            assertEquals(0, av.count());
            assertEquals(2, av.insert(two.duplicate(), 2, null, Fi.SYNC_ERR, new int[2]));
        }
    }

    @Test
    void shouldFailEachInvalidIn4AddressWithEaddrnotavail()
    {
        final ByteBuffer portZero = in4("10.0.0.9", 0);
        final ByteBuffer anyAddress = in4("0.0.0.0", 5000);
        final ByteBuffer sinZero = with(in4("10.0.0.9", 5000), 12, 1);
        final ByteBuffer wrongFamily = with(in4("10.0.0.9", 5000), 0, AvTestSupport.AF_INET6);
        final ByteBuffer allZero = ByteBuffer.allocate(16);
        for (final ByteBuffer bad : List.of(portZero, anyAddress, sinZero, wrongFamily, allZero))
        {
            try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
            {
                final int[] errors = new int[3];
                final long[] fiAddr = new long[3];
                assertEquals(2, av.insert(concat(bad, A, B), 3, fiAddr, Fi.SYNC_ERR, errors), Arrays.toString(bytes(bad)));
                assertArrayEquals(new int[] {FiErrno.EADDRNOTAVAIL, 0, 0}, errors);
                assertArrayEquals(new long[] {Fi.ADDR_NOTAVAIL, 0, 1}, fiAddr, "a failed address takes no index");
                assertEquals(2, av.count());
                assertEquals(Fi.ADDR_NOTAVAIL, av.reverseLookup(bad.duplicate()));
            }
        }
    }

    @Test
    void shouldKeepWorkingAfterAnAllZeroFirstAddress()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long[] fiAddr = {-2};
            assertEquals(0, av.insert(ByteBuffer.allocate(16), 1, fiAddr, 0, null));
            assertEquals(Fi.ADDR_NOTAVAIL, fiAddr[0]);
            assertEquals(0, insertOne(av, A), "libfabric's util AV is poisoned here; we must not be");
        }
    }

    @Test
    void shouldFailInvalidIn6AddressesWithEaddrnotavail()
    {
        try (Domain d = openIn6Domain(); AddressVector av = openAv(d, table(16)))
        {
            final int[] errors = new int[4];
            final long[] fiAddr = new long[4];
            final ByteBuffer good = in6("2001:db8::1", 5000);
            final ByteBuffer wrongFamily = with(in6("2001:db8::2", 5000), 0, AvTestSupport.AF_INET);
            final int n = av.insert(concat(in6("::", 5000), in6("2001:db8::3", 0), wrongFamily, good), 4, fiAddr,
                Fi.SYNC_ERR, errors);
            assertEquals(1, n);
            assertArrayEquals(new int[] {FiErrno.EADDRNOTAVAIL, FiErrno.EADDRNOTAVAIL, FiErrno.EADDRNOTAVAIL, 0}, errors);
            assertArrayEquals(new long[] {Fi.ADDR_NOTAVAIL, Fi.ADDR_NOTAVAIL, Fi.ADDR_NOTAVAIL, 0}, fiAddr);
            assertArrayEquals(bytes(good), lookupBytes(av, 0));
        }
    }

    @Test
    void shouldRejectUnsupportedInsertFlagsWithEbadflags()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            for (final long flags : new long[] {Fi.READ, Fi.WRITE, Fi.EVENT, Fi.SYMMETRIC, 1L << 60, Fi.MORE | (1L << 3)})
            {
                final long[] fiAddr = {-2};
                assertErrno(FiErrno.EBADFLAGS, () -> av.insert(A.duplicate(), 1, fiAddr, flags, null));
                assertEquals(-2, fiAddr[0], "a rejected call writes nothing");
            }
            assertEquals(0, av.count());
        }
    }

    @Test
    void shouldReuseRemovedIndicesLowestFirst()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long[] fiAddr = new long[3];
            assertEquals(3, av.insert(concat(A, B, C), 3, fiAddr, 0, null));
            assertArrayEquals(new long[] {0, 1, 2}, fiAddr);
            av.remove(new long[] {1}, 1, 0);
            assertEquals(1, insertOne(av, D));
            av.remove(new long[] {0, 2}, 2, 0);
            final long[] two = new long[2];
            assertEquals(2, av.insert(concat(A, C), 2, two, 0, null));
            assertArrayEquals(new long[] {0, 2}, two);
            assertArrayEquals(bytes(A), lookupBytes(av, 0));
            assertArrayEquals(bytes(D), lookupBytes(av, 1));
            assertArrayEquals(bytes(C), lookupBytes(av, 2));
            assertEquals(3, insertOne(av, B), "the next free index after 0..2");
        }
    }

    @Test
    void shouldReinsertAnAddressAfterRemovingIt()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long first = insertOne(av, A);
            av.remove(new long[] {first}, 1, 0);
            assertEquals(Fi.ADDR_NOTAVAIL, av.reverseLookup(A.duplicate()));
            final long again = insertOne(av, A);
            assertEquals(first, again);
            assertArrayEquals(bytes(A), lookupBytes(av, again));
            assertEquals(again, av.reverseLookup(A.duplicate()));
        }
    }

    @Test
    void shouldStayUsableAfterManyInsertRemoveCycles()
    {
        final ByteBuffer[] addrs = distinctIn4(1000);
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(4)))
        {
            final long keep = insertOne(av, D);
            final long[] one = new long[1];
            for (int i = 0; i < 1000; i++)
            {
                assertEquals(1, insertOne(av, A, one), "cycle " + i + " with the same address");
                assertEquals(1, one[0]);
                av.remove(one, 1, 0);
                assertEquals(1, insertOne(av, addrs[i], one), "cycle " + i + " with a new address");
                assertEquals(1, one[0]);
                assertEquals(1, av.reverseLookup(addrs[i].duplicate()));
                av.remove(one, 1, 0);
            }
            assertEquals(1, av.count());
            assertArrayEquals(bytes(D), lookupBytes(av, keep));
            assertEquals(keep, av.reverseLookup(D.duplicate()));
            assertEquals(keep, insertOne(av, D), "the kept entry is still found as a duplicate");
        }
    }

    @Test
    void shouldReturnExistingFiAddrForDuplicateAndTakeAReference()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long a = insertOne(av, A);
            insertOne(av, B);
            final long[] dup = {-2};
            assertEquals(1, av.insert(A.duplicate(), 1, dup, 0, null), "a duplicate counts as inserted");
            assertEquals(a, dup[0]);
            final long[] twice = new long[2];
            assertEquals(2, av.insert(concat(A, A), 2, twice, 0, null));
            assertArrayEquals(new long[] {a, a}, twice);
            assertEquals(2, av.count(), "entries, not references");

            for (int i = 0; i < 3; i++)
            {
                av.remove(new long[] {a}, 1, 0);
                assertArrayEquals(bytes(A), lookupBytes(av, a), "still referenced after remove " + (i + 1));
            }
            av.remove(new long[] {a}, 1, 0);
            assertErrno(FiErrno.EINVAL, () -> av.lookup(a, ByteBuffer.allocate(16)));
            assertErrno(FiErrno.EINVAL, () -> av.remove(new long[] {a}, 1, 0));
            assertEquals(1, av.count());
        }
    }

    @Test
    void shouldReturnZeroForZeroCount()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            assertEquals(0, av.insert(EMPTY.duplicate(), 0, null, 0, null));
            assertEquals(0, av.insert(EMPTY.duplicate(), 0, new long[0], Fi.SYNC_ERR, new int[0]));
            assertEquals(0, av.count());
            assertEquals(0, insertOne(av, A));
        }
    }

    @Test
    void shouldRejectABufferShorterThanCountAddresses()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final ByteBuffer short31 = concat(A, B).limit(31);
            assertErrno(FiErrno.EINVAL, () -> av.insert(short31, 2, new long[2], 0, null));
            assertErrno(FiErrno.EINVAL, () -> av.insert(A.duplicate(), 2, null, 0, null));
            assertEquals(0, av.count(), "a rejected call inserts nothing");
        }
    }

    @Test
    void shouldRejectFiAddrShorterThanCount()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            assertErrno(FiErrno.EINVAL, () -> av.insert(concat(A, B), 2, new long[1], 0, null));
            assertEquals(0, av.count());
        }
    }

    // ---------------------------------------------------------------- FI_AV_MAP

    @Test
    void shouldEncodeMapFiAddrsFromTheMapAddrBase()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, AvAttr.builder().type(AvType.MAP).count(16)))
        {
            assertEquals(AvType.MAP, av.attr().type());
            final long base = av.attr().mapAddr();
            assertNotEquals(0, base, "a MAP AV reports the base of its fi_addr values");
            final long[] fiAddr = new long[3];
            assertEquals(3, av.insert(concat(A, B, C), 3, fiAddr, 0, null));
            assertArrayEquals(new long[] {base, base + 1, base + 2}, fiAddr);
            for (final long f : fiAddr)
            {
                assertTrue(f < 0 || f > 2, "MAP fi_addrs differ from TABLE indices: " + f);
            }
            assertArrayEquals(bytes(B), lookupBytes(av, fiAddr[1]));
            assertEquals(fiAddr[2], av.reverseLookup(C.duplicate()));
            assertErrno(FiErrno.EINVAL, () -> av.lookup(1, ByteBuffer.allocate(16)));
            assertErrno(FiErrno.EINVAL, () -> av.remove(new long[] {1}, 1, 0));

            av.remove(new long[] {fiAddr[1]}, 1, 0);
            assertErrno(FiErrno.EINVAL, () -> av.lookup(fiAddr[1], ByteBuffer.allocate(16)));
            assertArrayEquals(bytes(A), lookupBytes(av, fiAddr[0]));
            assertEquals(fiAddr[1], insertOne(av, D), "the freed slot comes back with the same fi_addr");
        }
    }

    // ---------------------------------------------------------------- insertsvc, insertsym

    @Test
    void shouldInsertSvcWithANumericHost()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long[] fiAddr = {-2};
            assertEquals(1, av.insertSvc("127.0.0.1", "5000", fiAddr, 0, null));
            assertEquals(0, fiAddr[0]);
            assertArrayEquals(bytes(in4("127.0.0.1", 5000)), lookupBytes(av, 0));
        }
    }

    @Test
    void shouldInsertSvcWithAHostName()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long[] fiAddr = {-2};
            assertEquals(1, av.insertSvc("localhost", "5000", fiAddr, 0, null));
            final byte[] got = lookupBytes(av, fiAddr[0]);
            assertEquals(16, got.length);
            assertEquals(127, got[4], "localhost resolves to a 127/8 address");
            assertEquals(0x13, got[2] & 0xFF);
            assertEquals(0x88, got[3] & 0xFF);
            assertEquals("fi_sockaddr_in://127.0.0.1:5000", av.straddr(ByteBuffer.wrap(got)));
        }
    }

    @Test
    void shouldFailAnUnresolvableHostPerAddress()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long[] fiAddr = {-2};
            final int[] errors = {77};
            assertEquals(0, av.insertSvc("no-such-host.invalid", "5000", fiAddr, Fi.SYNC_ERR, errors));
            assertEquals(Fi.ADDR_NOTAVAIL, fiAddr[0]);
            assertTrue(errors[0] > 0, "a positive errno for the address");
            assertEquals(0, av.count());

            final long[] sym = new long[2];
            assertEquals(0, av.insertSym("no-such-host-10.invalid", 1, "5000", 2, sym, 0, null));
            assertArrayEquals(new long[] {Fi.ADDR_NOTAVAIL, Fi.ADDR_NOTAVAIL}, sym);
        }
    }

    @Test
    void shouldInsertSymNodesThenServicesInManPageOrder()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long[] fiAddr = new long[4];
            assertEquals(4, av.insertSym("10.1.1.1", 2, "5000", 2, fiAddr, 0, null));
            assertArrayEquals(new long[] {0, 1, 2, 3}, fiAddr);
            final String[] expected = {"10.1.1.1:5000", "10.1.1.1:5001", "10.1.1.2:5000", "10.1.1.2:5001"};
            for (int i = 0; i < 4; i++)
            {
                assertEquals("fi_sockaddr_in://" + expected[i], av.straddr(ByteBuffer.wrap(lookupBytes(av, i))));
            }
            assertArrayEquals(bytes(in4("10.1.1.2", 5001)), lookupBytes(av, 3));
        }
    }

    @Test
    void shouldCarryIpv4NodeRangesIntoTheNextOctet()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long[] fiAddr = new long[2];
            assertEquals(2, av.insertSym("10.1.1.255", 2, "7000", 1, fiAddr, 0, null));
            assertArrayEquals(bytes(in4("10.1.1.255", 7000)), lookupBytes(av, fiAddr[0]));
            assertArrayEquals(bytes(in4("10.1.2.0", 7000)), lookupBytes(av, fiAddr[1]));
        }
    }

    /** A literal range that would pass 255.255.255.255 wraps to 0.0.0.0 and on: FI_EINVAL, nothing inserted. */
    @Test
    void shouldRejectAnIpv4NodeRangePastTheLastAddress()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final FabricException e = assertErrno(FiErrno.EINVAL,
                () -> av.insertSym("255.255.255.254", 3, "7000", 1, new long[3], 0, null));
            assertTrue(e.getMessage().contains("wrap"), e.getMessage());
            assertEquals(0, av.count());
            assertEquals(2, av.insertSym("255.255.255.254", 2, "7000", 1, new long[2], 0, null), "up to the last");
        }
    }

    @Test
    void shouldInsertSymAnIpv6LiteralRange()
    {
        try (Domain d = openIn6Domain(); AddressVector av = openAv(d, table(16)))
        {
            final long[] fiAddr = new long[4];
            assertEquals(4, av.insertSym("2001:db8::ff", 2, "5000", 2, fiAddr, 0, null));
            assertArrayEquals(new long[] {0, 1, 2, 3}, fiAddr);
            assertArrayEquals(bytes(in6("2001:db8::ff", 5000)), lookupBytes(av, 0));
            assertArrayEquals(bytes(in6("2001:db8::ff", 5001)), lookupBytes(av, 1));
            assertArrayEquals(bytes(in6("2001:db8::100", 5000)), lookupBytes(av, 2));
            assertArrayEquals(bytes(in6("2001:db8::100", 5001)), lookupBytes(av, 3));
            assertEquals("fi_sockaddr_in6://[2001:db8::100]:5001", av.straddr(ByteBuffer.wrap(lookupBytes(av, 3))));
        }
    }

    @Test
    void shouldRejectInsertSymOfAHostWithoutNumericSuffixForSeveralNodes()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            assertErrno(FiErrno.EINVAL, () -> av.insertSym("localhost", 2, "5000", 1, new long[2], 0, null));
            assertEquals(0, av.count());
            final long[] one = new long[2];
            assertEquals(2, av.insertSym("localhost", 1, "5000", 2, one, 0, null), "one node needs no suffix");
            assertArrayEquals(new long[] {0, 1}, one);
        }
    }

    // ---------------------------------------------------------------- remove

    @Test
    void shouldRemoveEveryValidElementThenThrowEinvalForInvalidOnes()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            assertEquals(4, av.insert(concat(A, B, C, D), 4, null, 0, null));
            av.remove(new long[] {3}, 1, 0);
            // 7: never set; 3: removed; 1_000_000: out of range; NOTAVAIL; 1 twice: the second is already gone
            final long[] mixed = {0, 7, 3, 1_000_000, Fi.ADDR_NOTAVAIL, 1, 1, 2};
            assertErrno(FiErrno.EINVAL, () -> av.remove(mixed, mixed.length, 0));
            assertEquals(0, av.count(), "the valid elements were removed despite the error");
            for (long i = 0; i < 4; i++)
            {
                final long index = i;
                assertErrno(FiErrno.EINVAL, () -> av.lookup(index, ByteBuffer.allocate(16)));
            }
        }
    }

    @Test
    void shouldRemoveOnlyTheFirstCountElements()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            assertEquals(3, av.insert(concat(A, B, C), 3, null, 0, null));
            av.remove(new long[] {0, 1, 2}, 2, 0);
            assertEquals(1, av.count());
            assertArrayEquals(bytes(C), lookupBytes(av, 2));
            assertErrno(FiErrno.EINVAL, () -> av.remove(new long[] {2}, 2, 0));
            assertEquals(1, av.count());
        }
    }

    @Test
    void shouldRejectRemoveFlagsOtherThanAuthKey()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long a = insertOne(av, A);
            for (final long flags : new long[] {Fi.MORE, Fi.SYNC_ERR, Fi.READ, Fi.AUTH_KEY | Fi.MORE})
            {
                assertErrno(FiErrno.EINVAL, () -> av.remove(new long[] {a}, 1, flags));
            }
            assertArrayEquals(bytes(A), lookupBytes(av, a), "nothing removed by a rejected call");
            av.remove(new long[] {a}, 1, 0);
            assertEquals(0, av.count());
        }
    }

    // ---------------------------------------------------------------- lookup, reverse lookup, count

    @Test
    void shouldReturnAddrlenAndCopyOnlyTheAddress()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long a = insertOne(av, D);
            final ByteBuffer dst = ByteBuffer.allocate(40);
            Arrays.fill(dst.array(), (byte)0x55);
            dst.position(8);
            assertEquals(16, av.lookup(a, dst));
            assertEquals(8, dst.position(), "lookup does not move the position");
            assertArrayEquals(bytes(D), Arrays.copyOfRange(dst.array(), 8, 24));
            for (final int i : new int[] {0, 7, 24, 39})
            {
                assertEquals(0x55, dst.array()[i] & 0xFF, "byte " + i + " outside the address was written");
            }
        }
    }

    @Test
    void shouldTruncateLookupToTheBufferAndStillReturnAddrlen()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long a = insertOne(av, D);
            final ByteBuffer five = ByteBuffer.allocate(8).limit(5);
            Arrays.fill(five.array(), (byte)0x55);
            assertEquals(16, av.lookup(a, five));
            assertEquals(0, five.position());
            assertArrayEquals(Arrays.copyOf(bytes(D), 5), Arrays.copyOf(five.array(), 5));
            assertEquals(0x55, five.array()[5] & 0xFF, "nothing written past the limit");
            assertEquals(16, av.lookup(a, ByteBuffer.allocate(0)), "an empty buffer asks for the size");
        }
    }

    @Test
    void shouldReturnAddrlen28ForIn6()
    {
        try (Domain d = openIn6Domain(); AddressVector av = openAv(d, table(16)))
        {
            final ByteBuffer addr = in6("fe80::1", 6000);
            final long a = insertOne(av, addr);
            assertEquals(28, av.lookup(a, ByteBuffer.allocate(64)));
            assertArrayEquals(bytes(addr), lookupBytes(av, a));
            assertEquals(28, av.lookup(a, ByteBuffer.allocate(16)));
        }
    }

    @Test
    void shouldRejectLookupOfUnsetRemovedOutOfRangeAndNotavail()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final ByteBuffer dst = ByteBuffer.allocate(16);
            assertErrno(FiErrno.EINVAL, () -> av.lookup(0, dst));
            insertOne(av, A);
            final long b = insertOne(av, B);
            av.remove(new long[] {b}, 1, 0);
            assertErrno(FiErrno.EINVAL, () -> av.lookup(b, dst));
            assertErrno(FiErrno.EINVAL, () -> av.lookup(5, dst));
            assertErrno(FiErrno.EINVAL, () -> av.lookup(1_000_000, dst));
            assertErrno(FiErrno.EINVAL, () -> av.lookup(Long.MAX_VALUE, dst));
            assertErrno(FiErrno.EINVAL, () -> av.lookup(Fi.ADDR_NOTAVAIL, dst));
            assertErrno(FiErrno.EINVAL, () -> av.lookup(Long.MIN_VALUE, dst));
            assertEquals(16, av.lookup(0, dst));
        }
    }

    @Test
    void shouldReverseLookupInsertedAddressesOnly()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            assertEquals(Fi.ADDR_NOTAVAIL, av.reverseLookup(A.duplicate()));
            assertEquals(3, av.insert(concat(A, B, C), 3, null, 0, null));
            assertEquals(0, av.reverseLookup(A.duplicate()));
            assertEquals(2, av.reverseLookup(C.duplicate()));
            assertEquals(Fi.ADDR_NOTAVAIL, av.reverseLookup(D.duplicate()));
            assertEquals(Fi.ADDR_NOTAVAIL, av.reverseLookup(in4("10.0.0.1", 5001)), "the port is part of the key");
            final ByteBuffer offset = ByteBuffer.allocate(20).put(3, (byte)1);
            offset.put(4, B.duplicate(), 0, 16).position(4);
            assertEquals(1, av.reverseLookup(offset), "read at the buffer's position");
        }
    }

    @Test
    void shouldCountEntriesAndAwaitThem()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            assertEquals(0, av.count());
            assertTrue(av.awaitCount(0, Duration.ZERO));
            assertEquals(2, av.insert(concat(A, B), 2, null, 0, null));
            assertEquals(2, av.count());
            final long start = System.nanoTime();
            assertTrue(av.awaitCount(2, Duration.ofSeconds(10)));
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "true at once when already reached");
            final long waitStart = System.nanoTime();
            assertErrno(FiErrno.ETIMEDOUT, () -> av.awaitCount(3, Duration.ofMillis(100)));
            assertTrue(System.nanoTime() - waitStart >= TimeUnit.MILLISECONDS.toNanos(100), "waited the timeout");
            av.remove(new long[] {0}, 1, 0);
            assertEquals(1, av.count());
        }
    }

    @Test
    void shouldSeeAnInsertFromAnotherThreadWhileAwaitingCount() throws Exception
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final Thread inserter = new Thread(() ->
            {
                try
                {
                    Thread.sleep(50);
                }
                catch (final InterruptedException e)
                {
                    return;
                }
                av.insert(A.duplicate(), 1, null, 0, null);
            });
            inserter.start();
            try
            {
                assertTrue(av.awaitCount(1, Duration.ofSeconds(10)));
            }
            finally
            {
                inserter.join(TimeUnit.SECONDS.toMillis(10));
            }
            assertFalse(inserter.isAlive());
        }
    }

    // ---------------------------------------------------------------- straddr, fi_addr helpers

    @Test
    void shouldFormatAddressesAsLibfabricStraddr()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            assertEquals("fi_sockaddr_in://10.0.0.1:5000", av.straddr(A.duplicate()));
            assertEquals("fi_sockaddr_in://192.168.7.9:65535", av.straddr(D.duplicate()));
        }
        try (Domain d = openIn6Domain(); AddressVector av = openAv(d, table(16)))
        {
            assertEquals("fi_sockaddr_in6://[::1]:5000", av.straddr(in6("::1", 5000)));
            assertEquals("fi_sockaddr_in6://[fe80::1]:5000", av.straddr(in6("fe80::1", 5000)));
        }
    }

    @Test
    void shouldEncodeRxAndGroupAddrsAsLibfabric()
    {
        assertEquals(7, Fi.rxAddr(5, 3, 0), "rx_ctx_bits 0 shifts by 64, which x86 and Java treat as 0");
        assertEquals((3L << 60) | 5, Fi.rxAddr(5, 3, 4));
        assertEquals((1L << 63) | 5, Fi.rxAddr(5, 1, 1));
        assertEquals(Fi.ADDR_NOTAVAIL, Fi.rxAddr(Fi.ADDR_NOTAVAIL, 3, 4));
        assertEquals((7L << 32) | 5, Fi.groupAddr(5, 7));
        assertEquals(0xFFFF_FFFF_0000_0005L, Fi.groupAddr(5, -1), "the group id is unsigned");
    }

    @Test
    void shouldIgnoreRxContextBitsOnLookup()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16).rxCtxBits(4)))
        {
            insertOne(av, A);
            final long b = insertOne(av, B);
            final long rx = Fi.rxAddr(b, 3, 4);
            assertNotEquals(b, rx);
            assertArrayEquals(bytes(B), lookupBytes(av, rx));
            assertArrayEquals(bytes(B), lookupBytes(av, Fi.rxAddr(b, 15, 4)));
        }
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long b = insertOne(av, B);
            assertErrno(FiErrno.EINVAL, () -> av.lookup(Fi.rxAddr(b, 3, 4), ByteBuffer.allocate(16)),
                "without rx_ctx_bits the top bits are part of the fi_addr");
        }
    }

    @Test
    void shouldIgnoreGroupBitsOnLookupWhenTheDomainHasGroups()
    {
        try (Domain d = Domain.open(domainAttr().maxGroupId(8).build()); AddressVector av = openAv(d, table(16)))
        {
            insertOne(av, A);
            final long b = insertOne(av, B);
            assertArrayEquals(bytes(B), lookupBytes(av, Fi.groupAddr(b, 5)));
            assertArrayEquals(bytes(B), lookupBytes(av, Fi.groupAddr(b, 8)));
        }
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long b = insertOne(av, B);
            assertErrno(FiErrno.EINVAL, () -> av.lookup(Fi.groupAddr(b, 5), ByteBuffer.allocate(16)),
                "without groups bits 32..63 are part of the fi_addr");
        }
    }

    // ---------------------------------------------------------------- FI_AV_USER_ID

    @Test
    void shouldSetAndReadUserIdsOnAnAvOpenedWithAvUserId()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16).flags(Fi.AV_USER_ID)))
        {
            assertTrue((av.attr().flags() & Fi.AV_USER_ID) != 0);
            final long a = insertOne(av, A);
            final long b = insertOne(av, B);
            assertEquals(Fi.ADDR_NOTAVAIL, av.userId(a), "the default user id");
            av.setUserId(a, 42, 0);
            assertEquals(42, av.userId(a));
            assertEquals(Fi.ADDR_NOTAVAIL, av.userId(b));
            av.setUserId(a, 43, 0);
            assertEquals(43, av.userId(a));
            assertErrno(FiErrno.EINVAL, () -> av.setUserId(a, 44, Fi.MORE));
            assertErrno(FiErrno.EINVAL, () -> av.setUserId(7, 44, 0));
            assertErrno(FiErrno.EINVAL, () -> av.setUserId(Fi.ADDR_NOTAVAIL, 44, 0));
            assertErrno(FiErrno.EINVAL, () -> av.userId(7));
            assertEquals(43, av.userId(a));
        }
    }

    /**
     * Every u64 is a user id but FI_ADDR_NOTAVAIL, the default: 2^63 too, which shmav once took for "no id"
     * (an insert stored the default instead, and a read of one set answered FI_EINVAL).
     */
    @Test
    void shouldKeepEveryUserIdButTheDefault()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long[] ids = {Long.MIN_VALUE, Long.MAX_VALUE};
            assertEquals(2, av.insert(concat(A, B), 2, ids, Fi.AV_USER_ID, null));
            assertEquals(Long.MIN_VALUE, av.userId(0));
            assertEquals(Long.MAX_VALUE, av.userId(1));
            assertEquals(1, av.insert(A.duplicate(), 1, new long[] {Fi.ADDR_NOTAVAIL}, Fi.AV_USER_ID, null));
            assertEquals(Long.MIN_VALUE, av.userId(0), "FI_ADDR_NOTAVAIL is no id: the entry keeps its own");
        }
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16).flags(Fi.AV_USER_ID)))
        {
            final long a = insertOne(av, A);
            av.setUserId(a, Long.MIN_VALUE, 0);
            assertEquals(Long.MIN_VALUE, av.userId(a));
        }
    }

    @Test
    void shouldRejectSetUserIdWithoutTheOpenFlag()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long a = insertOne(av, A);
            assertErrno(FiErrno.EINVAL, () -> av.setUserId(a, 42, 0));
            assertEquals(Fi.ADDR_NOTAVAIL, av.userId(a));
        }
    }

    @Test
    void shouldTakeUserIdsInAndGiveFiAddrsOutWithThePerInsertFlag()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long[] fiAddr = {1000, 2000};
            assertEquals(2, av.insert(concat(A, B), 2, fiAddr, Fi.AV_USER_ID, null));
            assertArrayEquals(new long[] {0, 1}, fiAddr, "the output is the real fi_addr");
            assertEquals(1000, av.userId(0));
            assertEquals(2000, av.userId(1));
            assertArrayEquals(bytes(B), lookupBytes(av, 1));
            assertErrno(FiErrno.EINVAL, () -> av.insert(C.duplicate(), 1, null, Fi.AV_USER_ID, null));
        }
    }

    @Test
    void shouldRejectThePerInsertUserIdFlagOnAnAvOpenedWithAvUserId()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16).flags(Fi.AV_USER_ID)))
        {
            final long[] fiAddr = {1000};
            assertErrno(FiErrno.EINVAL, () -> av.insert(A.duplicate(), 1, fiAddr, Fi.AV_USER_ID, null));
            assertEquals(0, av.count());
        }
    }

    @Test
    void shouldRejectAvUserIdWithSymmetricAtOpen()
    {
        try (Domain d = openDomain())
        {
            assertErrno(FiErrno.EINVAL, () -> openAv(d, table(16).flags(Fi.AV_USER_ID | Fi.SYMMETRIC)).close());
        }
    }

    // ---------------------------------------------------------------- auth keys

    private static ByteBuffer key(final int seed, final int size)
    {
        final ByteBuffer k = ByteBuffer.allocate(size);
        for (int i = 0; i < size; i++)
        {
            k.put(i, (byte)(seed * 31 + i));
        }
        return k;
    }

    @Test
    void shouldInsertAndLookUpAuthKeys()
    {
        try (Domain d = openAuthKeyDomain(); AddressVector av = openAv(d, table(16)))
        {
            final ByteBuffer k1 = key(1, 8);
            final long h1 = av.insertAuthKey(k1.duplicate(), 0);
            final long h2 = av.insertAuthKey(key(2, 8), 0);
            assertNotEquals(h1, h2);
            assertEquals(h1, av.insertAuthKey(k1.duplicate(), 0), "the same key gives the same handle");
            final ByteBuffer out = ByteBuffer.allocate(16);
            assertEquals(8, av.lookupAuthKey(h1, out));
            assertArrayEquals(bytes(k1), Arrays.copyOf(out.array(), 8));
            final ByteBuffer three = ByteBuffer.allocate(3);
            assertEquals(8, av.lookupAuthKey(h2, three), "truncated copy, full size returned");
            assertArrayEquals(Arrays.copyOf(bytes(key(2, 8)), 3), three.array());

            assertErrno(FiErrno.EINVAL, () -> av.insertAuthKey(key(3, 7), 0));
            assertErrno(FiErrno.EINVAL, () -> av.insertAuthKey(key(3, 9), 0));
            assertErrno(FiErrno.EINVAL, () -> av.insertAuthKey(key(3, 8), Fi.MORE));
            assertErrno(FiErrno.EINVAL, () -> av.insertAuthKey(null, 0));
            assertErrno(FiErrno.EINVAL, () -> av.lookupAuthKey(h2 + 100, ByteBuffer.allocate(8)));
        }
    }

    @Test
    void shouldRejectAuthKeysOnADomainWithoutAvAuthKey()
    {
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            assertErrno(FiErrno.EINVAL, () -> av.insertAuthKey(key(1, 8), 0));
            final long a = insertOne(av, A);
            assertErrno(FiErrno.EINVAL, () -> av.lookupAuthKey(a, ByteBuffer.allocate(8)));
            assertErrno(FiErrno.EINVAL, () -> av.insert(B.duplicate(), 1, new long[] {a}, Fi.AUTH_KEY, null));
            assertEquals(1, av.count());
        }
    }

    @Test
    void shouldBindAddressesToAuthKeysWithTheAuthKeyFlag()
    {
        try (Domain d = openAuthKeyDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long h = av.insertAuthKey(key(5, 8), 0);
            final long[] fiAddr = {h, h};
            assertEquals(2, av.insert(concat(A, B), 2, fiAddr, Fi.AUTH_KEY, null));
            assertArrayEquals(new long[] {0, 1}, fiAddr, "the key handle goes in, the fi_addr comes out");
            final ByteBuffer out = ByteBuffer.allocate(8);
            assertEquals(8, av.lookupAuthKey(fiAddr[1], out));
            assertArrayEquals(bytes(key(5, 8)), out.array());
            assertArrayEquals(bytes(B), lookupBytes(av, fiAddr[1]));

            final long plain = insertOne(av, C);
            assertErrno(FiErrno.EINVAL, () -> av.lookupAuthKey(plain, ByteBuffer.allocate(8)),
                "an address inserted without FI_AUTH_KEY has no key");
            final long[] badHandle = {h + 1};
            final int[] errors = new int[1];
            assertEquals(0, av.insert(D.duplicate(), 1, badHandle, Fi.AUTH_KEY | Fi.SYNC_ERR, errors));
            assertEquals(Fi.ADDR_NOTAVAIL, badHandle[0]);
            assertEquals(FiErrno.EINVAL, errors[0], "an unknown key handle fails that address");
        }
    }

    @Test
    void shouldRemoveAuthKeysWithTheAuthKeyFlag()
    {
        try (Domain d = openAuthKeyDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long h = av.insertAuthKey(key(1, 8), 0);
            assertEquals(h, av.insertAuthKey(key(1, 8), 0));
            av.remove(new long[] {h}, 1, Fi.AUTH_KEY);
            assertEquals(8, av.lookupAuthKey(h, ByteBuffer.allocate(8)), "one reference left");
            av.remove(new long[] {h}, 1, Fi.AUTH_KEY);
            assertErrno(FiErrno.EINVAL, () -> av.lookupAuthKey(h, ByteBuffer.allocate(8)));
            assertErrno(FiErrno.EINVAL, () -> av.remove(new long[] {h}, 1, Fi.AUTH_KEY));
        }
    }

    @Test
    void shouldRefuseToRemoveAnAuthKeyUsedByAnEnabledEndpoint()
    {
        try (Domain d = openAuthKeyDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long h = av.insertAuthKey(key(1, 8), 0);
            try (Endpoint ep = d.openEndpoint())
            {
                ep.bind(av, 0);
                ep.enable();
                assertErrno(FiErrno.EBUSY, () -> av.remove(new long[] {h}, 1, Fi.AUTH_KEY));
                assertEquals(8, av.lookupAuthKey(h, ByteBuffer.allocate(8)), "still there after EBUSY");
                final long later = av.insertAuthKey(key(2, 8), 0);
                av.remove(new long[] {later}, 1, Fi.AUTH_KEY); // inserted after enable: not captured
            }
            av.remove(new long[] {h}, 1, Fi.AUTH_KEY);
            assertErrno(FiErrno.EINVAL, () -> av.lookupAuthKey(h, ByteBuffer.allocate(8)));
        }
    }

    // ---------------------------------------------------------------- FI_EVENT

    @Test
    void shouldRequireABoundQueueForEventInserts()
    {
        try (Domain d = openDomain(); EventQueue eq = d.openEq(8); AddressVector av = openAv(d, table(16).flags(Fi.EVENT)))
        {
            assertErrno(FiErrno.ENOEQ, () -> av.insert(A.duplicate(), 1, null, 0, "ctx"));
            assertEquals(0, av.count());
            assertNull(eq.read());
        }
    }

    @Test
    void shouldDeliverErrorEntriesBeforeTheCompletionEvent()
    {
        try (Domain d = openDomain(); EventQueue eq = d.openEq(8); AddressVector av = openAv(d, table(16).flags(Fi.EVENT)))
        {
            av.bind(eq, 0);
            final Object ctx = new Object();
            final long[] fiAddr = new long[4];
            final ByteBuffer bad = in4("10.0.0.9", 0);
            assertEquals(0, av.insert(concat(A, bad, B, bad), 4, fiAddr, 0, ctx), "FI_EVENT inserts return 0");
            assertArrayEquals(new long[] {0, Fi.ADDR_NOTAVAIL, 1, Fi.ADDR_NOTAVAIL}, fiAddr);

            assertErrno(FiErrno.EAVAIL, eq::read);
            final EqErrEntry first = eq.readErr();
            assertEquals(1, first.data());
            assertEquals(FiErrno.EADDRNOTAVAIL, first.err());
            assertSame(ctx, first.context());
            assertSame(av, first.fid());
            assertErrno(FiErrno.EAVAIL, eq::read);
            final EqErrEntry second = eq.readErr();
            assertEquals(3, second.data());
            assertTrue(second.err() > 0);
            assertSame(ctx, second.context());

            assertNull(eq.readErr(), "no error entry is next");
            final EqEvent done = eq.read();
            assertEquals(EqEvent.AV_COMPLETE, done.event());
            assertEquals(2, done.data(), "the number inserted");
            assertSame(ctx, done.context());
            assertSame(av, done.fid());
            assertNull(eq.read());
            assertArrayEquals(bytes(B), lookupBytes(av, 1));
        }
    }

    @Test
    void shouldCompleteAZeroAddressEventInsert()
    {
        try (Domain d = openDomain(); EventQueue eq = d.openEq(8); AddressVector av = openAv(d, table(16).flags(Fi.EVENT)))
        {
            av.bind(eq, 0);
            assertEquals(0, av.insert(EMPTY.duplicate(), 0, null, 0, "zero"));
            final EqEvent done = eq.sread(Duration.ofSeconds(5));
            assertEquals(EqEvent.AV_COMPLETE, done.event());
            assertEquals(0, done.data());
            assertEquals("zero", done.context());
            assertNull(eq.read());
        }
    }

    @Test
    void shouldRejectBadBinds()
    {
        try (Domain d = openDomain(); EventQueue eq = d.openEq(8);
             AddressVector events = openAv(d, table(16).flags(Fi.EVENT)); AddressVector plain = openAv(d, table(16)))
        {
            assertErrno(FiErrno.EINVAL, () -> events.bind(eq, Fi.MORE));
            assertErrno(FiErrno.EINVAL, () -> plain.bind(eq, 0));
            assertErrno(FiErrno.EINVAL, () -> events.bind(null, 0));
            assertErrno(FiErrno.ENOEQ, () -> events.insert(A.duplicate(), 1, null, 0, null), "still unbound");
            events.bind(eq, 0);
            assertEquals(0, events.insert(A.duplicate(), 1, null, 0, null));
            assertEquals(1, eq.read().data());
        }
    }

    @Test
    void shouldRejectSyncErrTogetherWithEvent()
    {
        try (Domain d = openDomain(); EventQueue eq = d.openEq(8); AddressVector av = openAv(d, table(16).flags(Fi.EVENT)))
        {
            av.bind(eq, 0);
            assertErrno(FiErrno.EBADFLAGS, () -> av.insert(A.duplicate(), 1, null, Fi.SYNC_ERR, new int[1]));
            assertNull(eq.read(), "a rejected call posts nothing");
            assertEquals(0, av.count());
        }
    }

    // ---------------------------------------------------------------- endpoints and close

    @Test
    void shouldRefuseToCloseWhileAnEndpointReferencesTheAv()
    {
        try (Domain d = openDomain())
        {
            final AddressVector av = openAv(d, table(16));
            final Endpoint ep = d.openEndpoint();
            ep.bind(av, 0);
            ep.enable();
            assertEquals(0, insertOne(av, A), "inserts work after an endpoint is bound");
            assertErrno(FiErrno.EBUSY, av::close);
            assertArrayEquals(bytes(A), lookupBytes(av, 0), "a refused close leaves the AV usable");
            ep.close();
            av.close();
            av.close(); // a second close is harmless
        }
    }

    @Test
    void shouldRefuseToCloseWhileABoundButDisabledEndpointReferencesTheAv()
    {
        try (Domain d = openDomain())
        {
            final AddressVector av = openAv(d, table(16));
            final Endpoint ep = d.openEndpoint();
            ep.bind(av, 0);
            assertErrno(FiErrno.EBUSY, av::close);
            ep.close();
            av.close();
        }
    }

    /**
     * A lookup's fast path has no closed check of its own (the handle's lookup view becomes empty at close):
     * lookups compiled into a loop before the close must fail after it all the same.
     */
    @Test
    void shouldRejectLookupsInALoopOnceTheAvIsClosed()
    {
        try (Domain d = openDomain())
        {
            final AddressVector av = openAv(d, table(16));
            final long a = insertOne(av, A);
            final ByteBuffer dst = ByteBuffer.allocateDirect(16);
            long copied = 0;
            for (int i = 0; i < 50_000; i++)
            {
                copied += av.lookup(a, dst);
            }
            assertEquals(50_000L * 16, copied);
            av.close();
            final FabricException e = assertErrno(FiErrno.EINVAL, () -> av.lookup(a, dst));
            assertTrue(e.getMessage().contains("AV is closed"), e.getMessage());
        }
    }

    @Test
    void shouldRejectCallsOnAClosedAv()
    {
        try (Domain d = openAuthKeyDomain(); EventQueue eq = d.openEq(4))
        {
            final AddressVector av = openAv(d, table(16).flags(Fi.AV_USER_ID));
            final long a = insertOne(av, A);
            av.close();
            final ByteBuffer dst = ByteBuffer.allocate(16);
            assertErrno(FiErrno.EINVAL, () -> av.insert(B.duplicate(), 1, null, 0, null));
            assertErrno(FiErrno.EINVAL, () -> av.insertSvc("127.0.0.1", "5000", null, 0, null));
            assertErrno(FiErrno.EINVAL, () -> av.insertSym("10.1.1.1", 1, "5000", 1, null, 0, null));
            assertErrno(FiErrno.EINVAL, () -> av.remove(new long[] {a}, 1, 0));
            assertErrno(FiErrno.EINVAL, () -> av.lookup(a, dst));
            assertErrno(FiErrno.EINVAL, () -> av.reverseLookup(A.duplicate()));
            assertErrno(FiErrno.EINVAL, () -> av.setUserId(a, 1, 0));
            assertErrno(FiErrno.EINVAL, () -> av.userId(a));
            assertErrno(FiErrno.EINVAL, () -> av.insertAuthKey(key(1, 8), 0));
            assertErrno(FiErrno.EINVAL, () -> av.lookupAuthKey(a, dst));
            assertErrno(FiErrno.EINVAL, () -> av.bind(eq, 0));
            try (Endpoint ep = d.openEndpoint())
            {
                assertErrno(FiErrno.EINVAL, () -> ep.bind(av, 0));
            }
        }
    }

    /**
     * Calls that race with the close (a closed handle lets go of its region) either work or fail as calls
     * made after it: FI_EINVAL "AV is closed", never another error or an unchecked exception.
     */
    @Test
    void shouldFailCallsRacingTheCloseAsCallsAfterIt() throws Exception
    {
        final ByteBuffer[] addrs = distinctIn4(4096);
        final ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Domain d = openDomain())
        {
            for (int round = 0; round < 20; round++)
            {
                final AddressVector av = openAv(d, table(16)); // grows or fills: both kinds take every call
                final long a = insertOne(av, A);
                final CountDownLatch running = new CountDownLatch(2);
                final List<Future<String>> callers = new ArrayList<>();
                for (int t = 0; t < 2; t++)
                {
                    final int first = t * 2048;
                    callers.add(pool.submit(() ->
                    {
                        final ByteBuffer dst = ByteBuffer.allocate(16);
                        final long[] one = new long[1];
                        for (int i = 0; ; i++)
                        {
                            if (i == 64)
                            {
                                running.countDown();
                            }
                            try
                            {
                                av.lookup(a, dst.clear());
                                av.reverseLookup(A.duplicate());
                                av.count();
                                av.attr();
                                av.lookupString(a);
                                av.insert(addrs[first + (i & 2047)].duplicate(), 1, one, 0, null);
                            }
                            catch (final FabricException e)
                            {
                                if (e.errno() == FiErrno.ENOSPC)
                                {
                                    continue; // a named AV of 16 is full
                                }
                                return e.errno() + " " + e.getMessage();
                            }
                        }
                    }));
                }
                assertTrue(running.await(10, TimeUnit.SECONDS));
                av.close();
                for (final Future<String> caller : callers)
                {
                    final String failure = caller.get(10, TimeUnit.SECONDS);
                    assertTrue(failure.startsWith(FiErrno.EINVAL + " ") && failure.contains("AV is closed"),
                        "round " + round + ": " + failure);
                }
            }
        }
        finally
        {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    // ---------------------------------------------------------------- concurrency

    @Test
    void shouldGiveConcurrentInsertersDistinctIndices() throws Exception
    {
        final int threads = 4;
        final int perThread = 50;
        final ByteBuffer[] addrs = distinctIn4(threads * perThread);
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(256)))
        {
            final ExecutorService pool = Executors.newFixedThreadPool(threads);
            try
            {
                final CountDownLatch start = new CountDownLatch(1);
                final List<Future<long[]>> results = new ArrayList<>();
                for (int t = 0; t < threads; t++)
                {
                    final int first = t * perThread;
                    results.add(pool.submit(() ->
                    {
                        assertTrue(start.await(10, TimeUnit.SECONDS));
                        final long[] mine = new long[perThread];
                        final long[] one = new long[1];
                        for (int i = 0; i < perThread; i++)
                        {
                            assertEquals(1, av.insert(addrs[first + i].duplicate(), 1, one, 0, null));
                            mine[i] = one[0];
                        }
                        return mine;
                    }));
                }
                start.countDown();
                final Set<Long> seen = new HashSet<>();
                for (int t = 0; t < threads; t++)
                {
                    final long[] mine = results.get(t).get(30, TimeUnit.SECONDS);
                    for (int i = 0; i < perThread; i++)
                    {
                        assertTrue(seen.add(mine[i]), "fi_addr " + mine[i] + " handed out twice");
                        assertArrayEquals(bytes(addrs[t * perThread + i]), lookupBytes(av, mine[i]));
                    }
                }
                for (long i = 0; i < threads * perThread; i++)
                {
                    assertTrue(seen.contains(i), "index " + i + " missing: indices are 0..N-1");
                }
                assertEquals(threads * perThread, av.count());
            }
            finally
            {
                pool.shutdownNow();
                assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
            }
        }
    }

    // ---------------------------------------------------------------- allocation

    private static com.sun.management.ThreadMXBean threadBean()
    {
        final com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        assertTrue(bean.isThreadAllocatedMemorySupported(), "this JVM must count allocated bytes per thread");
        bean.setThreadAllocatedMemoryEnabled(true);
        return bean;
    }

    @Test
    void shouldNotAllocateInLookup()
    {
        final com.sun.management.ThreadMXBean bean = threadBean();
        final long tid = Thread.currentThread().getId();
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(16)))
        {
            final long[] fiAddr = new long[4];
            assertEquals(4, av.insert(concat(A, B, C, D), 4, fiAddr, 0, null));
            final ByteBuffer dst = ByteBuffer.allocate(16);
            long sink = 0;
            for (int i = 0; i < 200_000; i++)
            {
                sink += av.lookup(fiAddr[i & 3], dst);
            }
            long allocated = Long.MAX_VALUE;
            for (int attempt = 0; attempt < 3 && allocated != 0; attempt++) // a JIT recompilation may land inside once
            {
                final long before = bean.getThreadAllocatedBytes(tid);
                for (int i = 0; i < 100_000; i++)
                {
                    sink += av.lookup(fiAddr[i & 3], dst);
                }
                allocated = bean.getThreadAllocatedBytes(tid) - before;
            }
            assertEquals(0, allocated, "bytes allocated by 100_000 lookups");
            assertTrue(sink >= 16L * 300_000);
            assertArrayEquals(bytes(D), dst.array());
        }
    }

    @Test
    void shouldNotAllocateInSingleAddressInsert()
    {
        final com.sun.management.ThreadMXBean bean = threadBean();
        final long tid = Thread.currentThread().getId();
        final int n = 200;
        final ByteBuffer[] addrs = distinctIn4(n);
        final long[] all = new long[n];
        final long[] one = new long[1];
        try (Domain d = openDomain(); AddressVector av = openAv(d, table(512)))
        {
            insertOne(av, D); // the AV exists and holds something
            long allocated = Long.MAX_VALUE;
            for (int round = 0; round < 300 && allocated != 0; round++)
            {
                final long before = bean.getThreadAllocatedBytes(tid);
                for (int i = 0; i < n; i++)
                {
                    av.insert(addrs[i], 1, one, 0, null);
                    all[i] = one[0];
                }
                final long after = bean.getThreadAllocatedBytes(tid);
                if (round >= 250) // measured after warm-up; a JIT recompilation may land inside one round
                {
                    allocated = after - before;
                }
                for (int i = 0; i < n; i++)
                {
                    assertEquals(i + 1, all[i], "lowest free index after fi_addr 0");
                }
                av.remove(all, n, 0);
            }
            assertEquals(0, allocated, "bytes allocated by " + n + " single-address inserts");
            assertEquals(1, av.count());
        }
    }
}
