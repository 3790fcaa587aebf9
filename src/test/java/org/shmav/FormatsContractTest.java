package org.shmav;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmav.AvTestSupport.assertErrno;
import static org.shmav.AvTestSupport.bytes;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fi_av(3) contract for every storable address format, fixed and opaque, on either kind of AV (a
 * subclass says how an AV is opened): insert, lookup with truncation, reverse lookup and dedup by the
 * bytes, remove, straddr, and insertsvc/insertsym. The IPv4/IPv6/string details are in
 * {@link AddressVectorContractTest}; here they run through the same generic cases as the others.
 */
abstract class FormatsContractTest
{
    /** Addresses each case inserts: past the count of 16, so a private AV grows and a named one adds a segment. */
    private static final int N = 40;

    protected abstract AddressVector openAv(Domain domain, AvAttr.Builder attr);

    protected DomainAttr.Builder domainAttr()
    {
        return DomainAttr.builder();
    }

    /** What a domain's addresses are, and how to make the i-th distinct valid one. */
    record Shape(AddrFormat format, int addrLen, boolean varying)
    {
        DomainAttr.Builder apply(final DomainAttr.Builder b)
        {
            b.addrFormat(format);
            if (format == AddrFormat.FORMAT_UNSPEC)
            {
                return varying ? b.maxAddrLen(addrLen) : b.addrLen(addrLen);
            }
            return b;
        }

        /** The i-th address: valid, distinct for every i, of its own length when lengths vary. */
        ByteBuffer address(final int i)
        {
            switch (format)
            {
                case SOCKADDR_IN:
                    return AvTestSupport.distinctIn4(i + 1)[i];
                case SOCKADDR_IN6:
                    return AvTestSupport.in6("fd00::" + Integer.toHexString(i + 1), 7000 + i);
                case ADDR_STR:
                    return Addresses.toStrAddr("fabric-" + i + (i % 3 == 0 ? "-longer-name" : ""));
                case SOCKADDR_IB:
                {
                    final ByteBuffer b = ByteBuffer.allocate(48);
                    AvTestSupport.putFamily(b, 27);
                    b.putShort(2, (short)0xFFFF).put(8, (byte)0xFE).put(9, (byte)0x80).putInt(20, i + 1)
                        .putLong(24, 0x0106_0000L + i).putLong(40, 1);
                    return b;
                }
                default:
                {
                    final int len = varying ? 1 + (i * 97) % addrLen : addrLen;
                    final ByteBuffer b = ByteBuffer.allocate(len);
                    for (int k = 0; k < len; k++)
                    {
                        b.put(k, (byte)(k * 7 + i * 13 + 1));
                    }
                    final int id = i + 1; // distinct in the first bytes, whatever the length
                    for (int k = 0; k < Math.min(len, 4); k++)
                    {
                        b.put(k, (byte)(id >>> 8 * k));
                    }
                    return b;
                }
            }
        }

        /** Bytes lookup reports for {@code addr}. */
        int lengthOf(final ByteBuffer addr)
        {
            return varying || format == AddrFormat.ADDR_STR ? addr.remaining() : addrLen;
        }

        boolean ipOrString()
        {
            return format == AddrFormat.SOCKADDR_IN || format == AddrFormat.SOCKADDR_IN6 || format == AddrFormat.ADDR_STR;
        }

        @Override
        public String toString()
        {
            return format.fiName() + (format == AddrFormat.FORMAT_UNSPEC ? (varying ? "/<=" : "/") + addrLen : "");
        }
    }

    /** Every storable shape: each format of its own length, opaque addresses of a fixed length and of varying ones. */
    static Stream<Shape> shapes()
    {
        final List<Shape> out = new ArrayList<>();
        for (final AddrFormat f : AddrFormat.values())
        {
            if (f.supported() && f != AddrFormat.FORMAT_UNSPEC)
            {
                out.add(new Shape(f, f.addrlen(), false));
            }
        }
        out.add(new Shape(AddrFormat.FORMAT_UNSPEC, 248, false));
        out.add(new Shape(AddrFormat.FORMAT_UNSPEC, 1, false));
        out.add(new Shape(AddrFormat.FORMAT_UNSPEC, 1024, true));
        out.add(new Shape(AddrFormat.FORMAT_UNSPEC, AddrFormat.MAX_OPAQUE_LEN, true));
        return out.stream();
    }

    private Domain open(final Shape s)
    {
        return Domain.open(s.apply(domainAttr()).build());
    }

    private static AvAttr.Builder table()
    {
        return AvAttr.builder().type(AvType.TABLE).count(16);
    }

    private static long insert(final AddressVector av, final ByteBuffer addr)
    {
        final long[] fiAddr = {-2};
        final int[] err = {-1};
        assertEquals(1, av.insert(addr.duplicate(), 1, fiAddr, Fi.SYNC_ERR, err), () -> "errno " + err[0]);
        return fiAddr[0];
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void shouldInsertLookUpAndFindEveryAddress(final Shape s)
    {
        try (Domain d = open(s); AddressVector av = openAv(d, table()))
        {
            assertEquals(s.format(), av.addrFormat());
            assertEquals(s.addrLen(), av.addrLen());
            assertEquals(s.varying(), av.varyingAddrLen());
            for (int i = 0; i < N; i++)
            {
                assertEquals(i, insert(av, s.address(i)), "address " + i);
            }
            assertEquals(N, av.count());
            for (int i = 0; i < N; i++)
            {
                final ByteBuffer a = s.address(i);
                final ByteBuffer dst = ByteBuffer.allocate(av.addrLen());
                assertEquals(s.lengthOf(a), av.lookup(i, dst), "stored length of " + i);
                assertArrayEquals(bytes(a), Arrays.copyOf(dst.array(), s.lengthOf(a)), "bytes of " + i);
                assertEquals(i, av.reverseLookup(a.duplicate()), "reverse lookup of " + i);
                assertArrayEquals(bytes(a), av.findBytes(i).orElseThrow());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void shouldTruncateLookupAndReportTheStoredLength(final Shape s)
    {
        try (Domain d = open(s); AddressVector av = openAv(d, table()))
        {
            final ByteBuffer a = s.address(3);
            final long fiAddr = insert(av, a);
            final int len = s.lengthOf(a);
            final ByteBuffer small = ByteBuffer.allocate(len / 2);
            assertEquals(len, av.lookup(fiAddr, small), "addrlen is the stored length, whatever the buffer");
            assertArrayEquals(Arrays.copyOf(bytes(a), len / 2), small.array(), "only what fits is copied");
            assertEquals(len, av.lookup(fiAddr, ByteBuffer.allocate(0)));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void shouldDedupByTheBytesAndRemoveByReference(final Shape s)
    {
        try (Domain d = open(s); AddressVector av = openAv(d, table()))
        {
            final long first = insert(av, s.address(5));
            final long other = insert(av, s.address(6));
            assertEquals(first, insert(av, s.address(5)), "the same bytes give the same fi_addr");
            assertEquals(2, av.count());
            av.remove(first);
            assertEquals(s.lengthOf(s.address(5)), av.lookup(first, ByteBuffer.allocate(av.addrLen())),
                "one reference is left");
            av.remove(first);
            assertErrno(FiErrno.EINVAL, () -> av.lookup(first, ByteBuffer.allocate(av.addrLen())));
            assertEquals(Fi.ADDR_NOTAVAIL, av.reverseLookup(s.address(5)));
            assertErrno(FiErrno.EINVAL, () -> av.remove(first));
            assertEquals(first, insert(av, s.address(5)), "a removed index is reused first");
            assertEquals(other, av.reverseLookup(s.address(6)));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void shouldRefuseInvalidAddressesOneByOne(final Shape s)
    {
        try (Domain d = open(s); AddressVector av = openAv(d, table()))
        {
            final int zeroLen = s.varying() ? 8 : s.format() == AddrFormat.ADDR_STR ? 1 : s.addrLen();
            final long[] fiAddr = {-2};
            final int[] err = {-1};
            assertEquals(0, av.insert(ByteBuffer.allocate(zeroLen), 1, fiAddr, Fi.SYNC_ERR, err), "all zeros");
            assertEquals(Fi.ADDR_NOTAVAIL, fiAddr[0]);
            assertEquals(FiErrno.EADDRNOTAVAIL, err[0]);
            if (s.varying())
            {
                final ByteBuffer tooLong = ByteBuffer.allocate(s.addrLen() + 1).put(0, (byte)1);
                assertEquals(0, av.insert(tooLong, 1, fiAddr, Fi.SYNC_ERR, err), "longer than maxAddrLen");
                assertEquals(FiErrno.EADDRNOTAVAIL, err[0]);
                assertErrno(FiErrno.EINVAL, () -> av.insert(AvTestSupport.concat(s.address(1), s.address(2)), 2, null, 0, null),
                    "one varying-length address per call");
                assertEquals(Fi.ADDR_NOTAVAIL, av.reverseLookup(tooLong));
            }
            else if (s.format() != AddrFormat.ADDR_STR)
            {
                assertErrno(FiErrno.EINVAL, () -> av.insert(ByteBuffer.allocate(s.addrLen() - 1), 1, null, 0, null),
                    "a buffer shorter than one address");
                assertErrno(FiErrno.EADDRNOTAVAIL, () -> av.insertBytes(new byte[s.addrLen() + 1]));
            }
            assertEquals(0, av.count());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void shouldAnswerInsertsvcAndInsertsymAsLibfabricDoes(final Shape s)
    {
        if (s.ipOrString())
        {
            return; // AddressVectorContractTest covers them
        }
        try (Domain d = open(s); AddressVector av = openAv(d, table()))
        {
            assertErrno(FiErrno.ENOSYS, () -> av.insertSym("10.0.0.1", 1, "5000", 1, null, 0, null));
            if (s.format() == AddrFormat.ADDR_CXI)
            {
                final long[] fiAddr = {-2};
                assertEquals(1, av.insertSvc("0x12345", "7", fiAddr, 0, null));
                assertEquals("fi_addr_cxi://0x02468a07", av.findString(fiAddr[0]).orElseThrow());
                assertEquals(1, av.insertSvc("02:00:00:01:23:45", null, fiAddr, 0, null), "a MAC, any PID");
                assertEquals("fi_addr_cxi://0x02468bff", av.findString(fiAddr[0]).orElseThrow());
                assertErrno(FiErrno.ENODATA, () -> av.insertSvc("nic7", "1", null, 0, null));
            }
            else
            {
                assertErrno(FiErrno.ENOSYS, () -> av.insertSvc("10.0.0.1", "5000", null, 0, null));
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void shouldGiveStraddrTextOrHex(final Shape s)
    {
        try (Domain d = open(s); AddressVector av = openAv(d, table()))
        {
            final ByteBuffer a = s.address(2);
            final long fiAddr = insert(av, a);
            final String text = av.findString(fiAddr).orElseThrow();
            if (s.format() == AddrFormat.FORMAT_UNSPEC)
            {
                assertNull(av.straddr(a.duplicate()), "libfabric has no text for FI_FORMAT_UNSPEC");
                assertEquals(Addresses.hex(a.duplicate()), text);
            }
            else
            {
                assertEquals(av.straddr(a.duplicate()), text);
            }
            assertEquals(text, av.entries().filter(e -> e.fiAddr() == fiAddr).findFirst().orElseThrow().text());
        }
    }

    // ofi_straddr's texts (libfabric src/common.c), worked out by hand from its format strings

    private static ByteBuffer le(final int len)
    {
        return ByteBuffer.allocate(len).order(ByteOrder.nativeOrder());
    }

    private static ByteBuffer gid(final ByteBuffer b, final int at, final int last)
    {
        b.put(at, (byte)0xFE).put(at + 1, (byte)0x80).put(at + 15, (byte)last);
        return b;
    }

    @org.junit.jupiter.api.Test
    void shouldPrintProviderFormatsAsOfiStraddr()
    {
        assertEquals("fi_addr_psmx://1122334455667788",
            Addresses.straddr(AddrFormat.ADDR_PSMX, le(8).putLong(0, 0x1122334455667788L)));
        assertEquals("fi_addr_psmx2://abc:1", Addresses.straddr(AddrFormat.ADDR_PSMX2, le(16).putLong(0, 0xabc).putLong(8, 1)));
        assertEquals("fi_addr_psmx3://1:2:3:deadbeef", Addresses.straddr(AddrFormat.ADDR_PSMX3,
            le(32).putLong(0, 1).putLong(8, 2).putLong(16, 3).putLong(24, 0xdeadbeefL)));
        assertEquals("fi_addr_opx://000000000000002a", Addresses.straddr(AddrFormat.ADDR_OPX, le(8).putLong(0, 42)));
        assertEquals("fi_addr_cxi://0x02468a07", Addresses.straddr(AddrFormat.ADDR_CXI, Addresses.toCxiAddr(0x12345, 7)));
        assertEquals("fi_addr_efa://[fe80::1]:5:286331153", Addresses.straddr(AddrFormat.ADDR_EFA,
            gid(le(32), 0, 1).putShort(16, (short)5).putInt(20, 0x11111111)));
        assertEquals("fi_addr_ib_ud://fe80::2:1a2b/10/ffff/3", Addresses.straddr(AddrFormat.ADDR_IB_UD,
            gid(le(32), 0, 2).putInt(16, 0x1a2b).putShort(20, (short)0x10).putShort(22, (short)0xFFFF).put(26, (byte)3)));
        final ByteBuffer ib = gid(ByteBuffer.allocate(48), 8, 3).putShort(2, (short)0xFFFF).putLong(24, 0x0106_1234L).putLong(40, 5);
        AvTestSupport.putFamily(ib, 27);
        assertEquals("fi_sockaddr_ib://[fe80::3]:0xffff:0x106:0x5", Addresses.straddr(AddrFormat.SOCKADDR_IB, ib));
        assertNull(Addresses.straddr(AddrFormat.ADDR_EFA, le(31)), "shorter than the format");
        assertTrue(Addresses.hex(ByteBuffer.wrap(new byte[] {0, (byte)0xAB, 0x10})).equals("00ab10"));
    }
}
