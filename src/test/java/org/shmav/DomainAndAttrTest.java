package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmav.AvTestSupport.assertErrno;
import static org.shmav.AvTestSupport.in4;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** The fi_domain and fi_av_open rules, and the small objects of a domain (event queues, endpoints). */
class DomainAndAttrTest
{
    private static Domain open()
    {
        return Domain.open(DomainAttr.builder().build());
    }

    // ---------------------------------------------------------------- Domain.open

    @Test
    void shouldOpenTheFormatsAnAvCanStore()
    {
        for (final AddrFormat f : new AddrFormat[] {AddrFormat.SOCKADDR_IN, AddrFormat.SOCKADDR_IN6, AddrFormat.ADDR_STR})
        {
            try (Domain d = Domain.open(DomainAttr.builder().addrFormat(f).build()))
            {
                assertEquals(f, d.attr().addrFormat());
            }
        }
    }

    @Test
    void shouldRejectUnsupportedFormats()
    {
        for (final AddrFormat f : AddrFormat.values())
        {
            if (!f.supported() || f == AddrFormat.FORMAT_UNSPEC) // FORMAT_UNSPEC needs a length
            {
                final FabricException e = assertErrno(FiErrno.EINVAL, () -> Domain.open(DomainAttr.builder().addrFormat(f).build()).close(),
                    f.fiName());
                assertTrue(e.getMessage().startsWith("fi_domain: FI_EINVAL (Invalid argument): "), e.getMessage());
                assertTrue(e.getMessage().contains(f.fiName()), e.getMessage());
            }
        }
    }

    @Test
    void shouldTakeOneLengthForOpaqueAddressesAndNoneForTheOthers()
    {
        try (Domain d = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.FORMAT_UNSPEC).addrLen(248).build()))
        {
            assertEquals(248, d.attr().addrLen());
            assertTrue(!d.attr().varyingAddrLen());
        }
        try (Domain d = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.FORMAT_UNSPEC).maxAddrLen(4096).build()))
        {
            assertEquals(4096, d.attr().addrLen());
            assertTrue(d.attr().varyingAddrLen());
        }
        assertEquals(32, DomainAttr.builder().addrFormat(AddrFormat.ADDR_EFA).build().addrLen());
        assertErrno(FiErrno.EINVAL, () -> Domain.open(DomainAttr.builder().addrFormat(AddrFormat.FORMAT_UNSPEC)
            .addrLen(8).maxAddrLen(8).build()), "both lengths");
        assertErrno(FiErrno.EINVAL, () -> Domain.open(DomainAttr.builder().addrFormat(AddrFormat.FORMAT_UNSPEC)
            .maxAddrLen(4097).build()), "past the maximum");
        assertErrno(FiErrno.EINVAL, () -> Domain.open(DomainAttr.builder().addrFormat(AddrFormat.FORMAT_UNSPEC)
            .addrLen(-1).build()), "negative");
        assertErrno(FiErrno.EINVAL, () -> Domain.open(DomainAttr.builder().addrFormat(AddrFormat.ADDR_EFA)
            .addrLen(32).build()), "a fixed format has its own length");
    }

    @Test
    void shouldRejectBadDomainAttributes()
    {
        assertErrno(FiErrno.EINVAL, () -> Domain.open(null));
        assertErrno(FiErrno.EINVAL, () -> Domain.open(DomainAttr.builder().avAuthKey(true).authKeySize(0).build()));
        assertErrno(FiErrno.EINVAL, () -> Domain.open(DomainAttr.builder().avAuthKey(true).authKeySize(4097).build()));
        assertErrno(FiErrno.EINVAL, () -> Domain.open(DomainAttr.builder().maxGroupId(-1).build()));
        try (Domain d = Domain.open(DomainAttr.builder().authKeySize(0).build()))
        {
            assertEquals(false, d.attr().avAuthKey(), "the key size matters only with avAuthKey");
        }
        try (Domain d = Domain.open(DomainAttr.builder().avAuthKey(true).authKeySize(4096).build()))
        {
            assertEquals(4096, d.attr().authKeySize());
        }
    }

    @Test
    void shouldKeepTheConfiguredShmDirectory()
    {
        final Path dir = Path.of("/dev/shm/somewhere-else");
        try (Domain d = Domain.open(DomainAttr.builder().shmDirectory(dir).build()))
        {
            assertEquals(dir, d.attr().shmDirectory());
        }
    }

    // ---------------------------------------------------------------- fi_av_open

    @Test
    void shouldRejectBadAvAttributes()
    {
        try (Domain d = open())
        {
            assertErrno(FiErrno.EINVAL, () -> d.openAv(null));
            assertErrno(FiErrno.EINVAL, () -> d.openAv(AvAttr.builder().type(null).build()));
            assertErrno(FiErrno.EINVAL, () -> d.openAv(AvAttr.builder().count(-1).build()));
            assertErrno(FiErrno.EINVAL, () -> d.openAv(AvAttr.builder().epPerNode(-1).build()));
        }
    }

    @Test
    void shouldRejectUnknownOpenFlags()
    {
        try (Domain d = open())
        {
            for (final long flags : new long[] {Fi.WRITE, Fi.MORE, Fi.SYNC_ERR, Fi.AUTH_KEY, Fi.PEER, 1L << 30, Fi.EVENT | (1L << 2)})
            {
                assertErrno(FiErrno.EINVAL, () -> d.openAv(AvAttr.builder().flags(flags).build()).close(),
                    "flags 0x" + Long.toHexString(flags));
            }
            for (final long flags : new long[] {0, Fi.EVENT, Fi.SYMMETRIC, Fi.AV_USER_ID, Fi.EVENT | Fi.AV_USER_ID})
            {
                try (AddressVector av = d.openAv(AvAttr.builder().flags(flags).build()))
                {
                    assertEquals(flags, av.attr().flags());
                }
            }
        }
    }

    @Test
    void shouldAcceptRxCtxBitsZeroToSixteenOnly()
    {
        try (Domain d = open())
        {
            assertErrno(FiErrno.EINVAL, () -> d.openAv(AvAttr.builder().rxCtxBits(17).build()).close());
            assertErrno(FiErrno.EINVAL, () -> d.openAv(AvAttr.builder().rxCtxBits(-1).build()).close());
            for (final int bits : new int[] {0, 1, 16})
            {
                try (AddressVector av = d.openAv(AvAttr.builder().rxCtxBits(bits).build()))
                {
                    assertEquals(bits, av.attr().rxCtxBits());
                }
            }
        }
    }

    @Test
    void shouldResolveUnspecToTableAndReportIt()
    {
        try (Domain d = open(); AddressVector av = d.openAv(AvAttr.builder().type(AvType.UNSPEC).count(7).build()))
        {
            assertEquals(AvType.TABLE, av.attr().type());
            assertEquals(7, av.attr().count(), "a private AV's count is reported as given");
            assertNull(av.attr().name());
            assertEquals(0, av.attr().mapAddr(), "a private TABLE AV has no map_addr base");
            final long[] fiAddr = new long[2];
            assertEquals(2, av.insert(AvTestSupport.concat(in4("10.0.0.1", 1), in4("10.0.0.2", 1)), 2, fiAddr, 0, null));
            assertEquals(0, fiAddr[0], "TABLE indices");
            assertEquals(1, fiAddr[1]);
        }
    }

    @Test
    void shouldHonourTheDomainAvType()
    {
        try (Domain map = Domain.open(DomainAttr.builder().avType(AvType.MAP).build()))
        {
            assertErrno(FiErrno.EINVAL, () -> map.openAv(AvAttr.builder().type(AvType.TABLE).build()).close());
            try (AddressVector av = map.openAv(AvAttr.builder().type(AvType.UNSPEC).build()))
            {
                assertEquals(AvType.MAP, av.attr().type(), "UNSPEC takes the domain's type");
            }
            map.openAv(AvAttr.builder().type(AvType.MAP).build()).close();
        }
        try (Domain table = Domain.open(DomainAttr.builder().avType(AvType.TABLE).build()))
        {
            assertErrno(FiErrno.EINVAL, () -> table.openAv(AvAttr.builder().type(AvType.MAP).build()).close());
            table.openAv(AvAttr.builder().type(AvType.TABLE).build()).close();
        }
    }

    // ---------------------------------------------------------------- lifetime, queues, endpoints

    @Test
    void shouldRefuseToCloseADomainWithOpenObjects()
    {
        final Domain d = open();
        final AddressVector av = d.openAv(AvAttr.builder().build());
        assertErrno(FiErrno.EBUSY, d::close);
        av.close();
        final EventQueue eq = d.openEq(1);
        assertErrno(FiErrno.EBUSY, d::close);
        eq.close();
        d.close();
        assertErrno(FiErrno.EINVAL, () -> d.openAv(AvAttr.builder().build()));
        assertErrno(FiErrno.EINVAL, () -> d.openEq(1));
        assertErrno(FiErrno.EINVAL, d::openEndpoint);
    }

    @Test
    void shouldRefuseToCloseAQueueBoundToAnAv()
    {
        try (Domain d = open())
        {
            assertErrno(FiErrno.EINVAL, () -> d.openEq(-1));
            final EventQueue eq = d.openEq(4);
            final AddressVector av = d.openAv(AvAttr.builder().flags(Fi.EVENT).build());
            av.bind(eq, 0);
            assertErrno(FiErrno.EINVAL, () -> av.bind(eq, 0), "a second bind");
            assertErrno(FiErrno.EBUSY, eq::close);
            av.close();
            eq.close();
            assertErrno(FiErrno.EINVAL, eq::read);
        }
    }

    @Test
    void shouldTimeOutAnEmptySread()
    {
        try (Domain d = open(); EventQueue eq = d.openEq(4))
        {
            final long start = System.nanoTime();
            assertNull(eq.sread(Duration.ofMillis(50)));
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(50));
            assertNull(eq.read());
            assertNull(eq.readErr());
        }
    }

    @Test
    void shouldFollowTheEndpointBindAndEnableRules()
    {
        try (Domain d = open(); Domain other = open(); AddressVector av = d.openAv(AvAttr.builder().build());
             AddressVector foreign = other.openAv(AvAttr.builder().build()))
        {
            try (Endpoint ep = d.openEndpoint())
            {
                assertErrno(FiErrno.ENOAV, ep::enable);
                assertErrno(FiErrno.EINVAL, () -> ep.bind(av, Fi.MORE));
                assertErrno(FiErrno.EINVAL, () -> ep.bind(null, 0));
                assertErrno(FiErrno.EINVAL, () -> ep.bind(foreign, 0));
                ep.bind(av, 0);
                assertErrno(FiErrno.EINVAL, () -> ep.bind(av, 0), "a second AV");
                ep.enable();
                assertErrno(FiErrno.EOPBADSTATE, ep::enable);
                assertErrno(FiErrno.EBUSY, av::close);
                assertEquals(16, av.lookup(insert(av), ByteBuffer.allocate(16)), "the AV works while bound");
            }
        }
    }

    private static long insert(final AddressVector av)
    {
        final long[] fiAddr = new long[1];
        assertEquals(1, av.insert(in4("10.0.0.1", 1), 1, fiAddr, 0, null));
        return fiAddr[0];
    }
}
