package org.shmav;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.shmav.AvTestSupport.assertErrno;
import static org.shmav.AvTestSupport.bytes;
import static org.shmav.AvTestSupport.with;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.jupiter.api.Test;

/** {@link Addresses} against the Linux sockaddr layout, glibc's inet_ntop and libfabric's ofi_valid_dest_ipaddr. */
class AddressesTest
{
    private static final boolean LITTLE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private static byte[] family(final int family)
    {
        return LITTLE ? new byte[] {(byte)family, 0} : new byte[] {0, (byte)family};
    }

    private static byte[] concat(final byte[]... parts)
    {
        int n = 0;
        for (final byte[] p : parts)
        {
            n += p.length;
        }
        final ByteBuffer b = ByteBuffer.allocate(n);
        for (final byte[] p : parts)
        {
            b.put(p);
        }
        return b.array();
    }

    /** A sockaddr_in6 holding the 16 raw address bytes given as 8 groups, port 5000. */
    private static ByteBuffer in6Words(final int... words)
    {
        final ByteBuffer b = ByteBuffer.allocate(28);
        b.put(0, family(Addresses.AF_INET6)).put(2, (byte)0x13).put(3, (byte)0x88);
        for (int i = 0; i < 8; i++)
        {
            b.putShort(8 + 2 * i, (short)words[i]);
        }
        return b;
    }

    private static String ntop(final int... words)
    {
        final String s = Addresses.straddr(AddrFormat.SOCKADDR_IN6, in6Words(words));
        final String prefix = "fi_sockaddr_in6://[";
        assertEquals(prefix, s.substring(0, prefix.length()), s);
        assertEquals("]:5000", s.substring(s.length() - 6), s);
        return s.substring(prefix.length(), s.length() - 6);
    }

    // ---------------------------------------------------------------- layout

    @Test
    void shouldLayOutSockaddrInByteByByte()
    {
        final ByteBuffer b = Addresses.toSockaddr(new InetSocketAddress("10.1.2.3", 5000));
        assertEquals(0, b.position());
        assertEquals(16, b.limit());
        assertArrayEquals(concat(family(2), new byte[] {0x13, (byte)0x88}, new byte[] {10, 1, 2, 3}, new byte[8]), bytes(b));
        final ByteBuffer high = Addresses.toSockaddr(new InetSocketAddress("255.254.253.252", 65534));
        assertArrayEquals(concat(family(2), new byte[] {(byte)0xFF, (byte)0xFE},
            new byte[] {(byte)255, (byte)254, (byte)253, (byte)252}, new byte[8]), bytes(high));
    }

    @Test
    void shouldLayOutSockaddrIn6ByteByByte() throws UnknownHostException
    {
        final byte[] raw = InetAddress.getByName("2001:db8::1").getAddress();
        final ByteBuffer b = Addresses.toSockaddr(new InetSocketAddress(InetAddress.getByAddress(raw), 443));
        assertEquals(28, b.remaining());
        assertArrayEquals(concat(family(10), new byte[] {0x01, (byte)0xBB}, new byte[4], raw, new byte[4]), bytes(b));

        final ByteBuffer scoped = Addresses.toSockaddr(new InetSocketAddress(Inet6Address.getByAddress(null,
            InetAddress.getByName("fe80::1").getAddress(), 3), 443));
        final byte[] scope = LITTLE ? new byte[] {3, 0, 0, 0} : new byte[] {0, 0, 0, 3};
        assertArrayEquals(scope, java.util.Arrays.copyOfRange(bytes(scoped), 24, 28), "sin6_scope_id in host order");
    }

    @Test
    void shouldPutAtThePositionAndAdvanceIt()
    {
        final ByteBuffer dst = ByteBuffer.allocate(40);
        dst.put(new byte[] {7, 7, 7});
        Addresses.put(dst, new InetSocketAddress("10.0.0.1", 1));
        assertEquals(19, dst.position());
        assertEquals(7, dst.get(2));
        assertEquals(Addresses.AF_INET, Addresses.family(dst, 3));
        assertEquals(1, Addresses.port(dst, 3));
        assertEquals(0, dst.get(19), "nothing written past the address");
    }

    @Test
    void shouldRefuseAnUnresolvedAddress()
    {
        assertErrno(FiErrno.EINVAL, () -> Addresses.toSockaddr(InetSocketAddress.createUnresolved("example.invalid", 5000)));
    }

    @Test
    void shouldRoundTripThroughInetSocketAddress()
    {
        for (final InetSocketAddress a : new InetSocketAddress[] {
            new InetSocketAddress("10.9.8.7", 65535), new InetSocketAddress("::1", 1), new InetSocketAddress("2001:db8::abcd", 5000)})
        {
            assertEquals(a, Addresses.toInetSocketAddress(Addresses.toSockaddr(a)));
        }
        final ByteBuffer at3 = ByteBuffer.allocate(19).position(3);
        at3.put(3, Addresses.toSockaddr(new InetSocketAddress("10.0.0.1", 80)), 0, 16);
        assertEquals(new InetSocketAddress("10.0.0.1", 80), Addresses.toInetSocketAddress(at3));
    }

    @Test
    void shouldRefuseToConvertAnUnknownFamilyOrShortBuffer()
    {
        assertErrno(FiErrno.EINVAL, () -> Addresses.toInetSocketAddress(ByteBuffer.allocate(16)));
        assertErrno(FiErrno.EINVAL, () -> Addresses.toInetSocketAddress(
            Addresses.toSockaddr(new InetSocketAddress("10.0.0.1", 80)).limit(15)));
        assertErrno(FiErrno.EINVAL, () -> Addresses.toInetSocketAddress(
            Addresses.toSockaddr(new InetSocketAddress("::1", 80)).limit(20)));
    }

    // ---------------------------------------------------------------- straddr

    @Test
    void shouldFormatSockaddrInAsOfiStraddr()
    {
        assertEquals("fi_sockaddr_in://10.0.0.1:5000", Addresses.straddr(AddrFormat.SOCKADDR_IN, AvTestSupport.in4("10.0.0.1", 5000)));
        assertEquals("fi_sockaddr_in://255.255.255.254:65535",
            Addresses.straddr(AddrFormat.SOCKADDR_IN, AvTestSupport.in4("255.255.255.254", 65535)), "octets and port unsigned");
        final ByteBuffer at2 = ByteBuffer.allocate(18).position(2);
        at2.put(2, AvTestSupport.in4("1.2.3.4", 80), 0, 16);
        assertEquals("fi_sockaddr_in://1.2.3.4:80", Addresses.straddr(AddrFormat.SOCKADDR_IN, at2));
        assertEquals(2, at2.position(), "straddr does not move the position");
    }

    @Test
    void shouldCompressIpv6AsInetNtop()
    {
        assertEquals("::1", ntop(0, 0, 0, 0, 0, 0, 0, 1));
        assertEquals("::", ntop(0, 0, 0, 0, 0, 0, 0, 0));
        assertEquals("fe80::1", ntop(0xfe80, 0, 0, 0, 0, 0, 0, 1));
        assertEquals("2001:db8::1:0:0:1", ntop(0x2001, 0xdb8, 0, 0, 1, 0, 0, 1), "equal runs: the first is compressed");
        assertEquals("2001:db8:0:0:1::", ntop(0x2001, 0xdb8, 0, 0, 1, 0, 0, 0), "the longest run is compressed");
        assertEquals("0:0:1::1", ntop(0, 0, 1, 0, 0, 0, 0, 1));
        assertEquals("1::", ntop(1, 0, 0, 0, 0, 0, 0, 0));
        assertEquals("1:0:2:3:4:5:6:7", ntop(1, 0, 2, 3, 4, 5, 6, 7), "a single zero group is not compressed");
        assertEquals("2001:db8::abcd", ntop(0x2001, 0xDB8, 0, 0, 0, 0, 0, 0xABCD), "lowercase hex");
        assertEquals("::ffff:1.2.3.4", ntop(0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304), "IPv4-mapped");
        assertEquals("::1.2.3.4", ntop(0, 0, 0, 0, 0, 0, 0x0102, 0x0304), "IPv4-compatible, as glibc prints it");
        assertEquals("fi_sockaddr_in6://[::1]:5000", Addresses.straddr(AddrFormat.SOCKADDR_IN6, AvTestSupport.in6("::1", 5000)));
    }

    @Test
    void shouldReturnNullForAFamilyThatDoesNotMatchOrAShortBuffer()
    {
        assertNull(Addresses.straddr(AddrFormat.SOCKADDR_IN, ByteBuffer.allocate(16)));
        assertNull(Addresses.straddr(AddrFormat.SOCKADDR_IN, AvTestSupport.in4("1.2.3.4", 80).limit(15)));
        assertNull(Addresses.straddr(AddrFormat.SOCKADDR_IN6, AvTestSupport.in6("::1", 80).limit(27)));
        assertNull(Addresses.straddr(AddrFormat.SOCKADDR_IB, AvTestSupport.in4("1.2.3.4", 80)));
    }

    @Test
    void shouldHandleStringAddresses()
    {
        final ByteBuffer s = Addresses.toStrAddr("fi_addr_str://node7");
        assertEquals(20, s.remaining());
        assertEquals(0, s.get(19));
        assertEquals(20, Addresses.strLength(s, 0, s.limit()));
        assertEquals("fi_addr_str://node7", Addresses.straddr(AddrFormat.ADDR_STR, s));
        assertEquals(-1, Addresses.strLength(ByteBuffer.wrap(new byte[] {'a', 'b'}), 0, 2), "no NUL");
        assertEquals(0, Addresses.validate(AddrFormat.ADDR_STR, s, 0, 20));
        assertEquals(FiErrno.EADDRNOTAVAIL, Addresses.validate(AddrFormat.ADDR_STR, ByteBuffer.wrap(new byte[] {0}), 0, 1));
        assertEquals(FiErrno.EADDRNOTAVAIL, Addresses.validate(AddrFormat.ADDR_STR, ByteBuffer.wrap(new byte[] {'a', 'b'}), 0, 2));
        assertEquals(FiErrno.EADDRNOTAVAIL, Addresses.validate(AddrFormat.ADDR_STR, ByteBuffer.wrap(new byte[] {'a', '\n', 0}), 0, 3));
    }

    // ---------------------------------------------------------------- validate

    @Test
    void shouldValidateSockaddrInAsOfiValidDestIpaddr()
    {
        final ByteBuffer good = AvTestSupport.in4("10.0.0.1", 5000);
        assertEquals(0, Addresses.validate(AddrFormat.SOCKADDR_IN, good, 0, 16));
        assertEquals(FiErrno.EADDRNOTAVAIL, Addresses.validate(AddrFormat.SOCKADDR_IN, AvTestSupport.in4("10.0.0.1", 0), 0, 16));
        assertEquals(FiErrno.EADDRNOTAVAIL, Addresses.validate(AddrFormat.SOCKADDR_IN, AvTestSupport.in4("0.0.0.0", 80), 0, 16));
        for (int i = 8; i < 16; i++)
        {
            assertEquals(FiErrno.EADDRNOTAVAIL, Addresses.validate(AddrFormat.SOCKADDR_IN, with(good, i, 1), 0, 16), "sin_zero[" + (i - 8) + "]");
        }
        assertEquals(FiErrno.EADDRNOTAVAIL, Addresses.validate(AddrFormat.SOCKADDR_IN, with(good, LITTLE ? 0 : 1, 10), 0, 16));
        assertEquals(FiErrno.EADDRNOTAVAIL, Addresses.validate(AddrFormat.SOCKADDR_IN, ByteBuffer.allocate(16), 0, 16));
        assertEquals(FiErrno.EADDRNOTAVAIL, Addresses.validate(AddrFormat.SOCKADDR_IN, good, 0, 15), "wrong length");
        final ByteBuffer at4 = ByteBuffer.allocate(20);
        at4.put(4, good, 0, 16);
        assertEquals(0, Addresses.validate(AddrFormat.SOCKADDR_IN, at4, 4, 16), "validated at the given offset");
        assertEquals(0, Addresses.validate(AddrFormat.SOCKADDR_IN, AvTestSupport.in4("127.0.0.1", 1), 0, 16), "loopback is valid");
    }

    @Test
    void shouldValidateSockaddrIn6AsOfiValidDestIpaddr()
    {
        assertEquals(0, Addresses.validate(AddrFormat.SOCKADDR_IN6, AvTestSupport.in6("::1", 5000), 0, 28));
        assertEquals(0, Addresses.validate(AddrFormat.SOCKADDR_IN6, in6Words(0, 0, 0, 0, 0, 0, 0, 0x100), 0, 28),
            "a non-zero byte in the last group is enough");
        assertEquals(FiErrno.EADDRNOTAVAIL, Addresses.validate(AddrFormat.SOCKADDR_IN6, AvTestSupport.in6("::", 5000), 0, 28));
        assertEquals(FiErrno.EADDRNOTAVAIL, Addresses.validate(AddrFormat.SOCKADDR_IN6, AvTestSupport.in6("::1", 0), 0, 28));
        assertEquals(FiErrno.EADDRNOTAVAIL, Addresses.validate(AddrFormat.SOCKADDR_IN6,
            with(AvTestSupport.in6("::1", 5000), LITTLE ? 0 : 1, Addresses.AF_INET), 0, 28));
        assertEquals(FiErrno.EADDRNOTAVAIL, Addresses.validate(AddrFormat.SOCKADDR_IN6, AvTestSupport.in4("10.0.0.1", 80), 0, 16));
        assertEquals(FiErrno.EADDRNOTAVAIL, Addresses.validate(AddrFormat.SOCKADDR_IB, AvTestSupport.in4("10.0.0.1", 80), 0, 16));
    }
}
