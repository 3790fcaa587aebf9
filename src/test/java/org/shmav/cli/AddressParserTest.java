package org.shmav.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;
import org.shmav.AddrFormat;
import org.shmav.shm.AddrShape;
import org.shmav.Addresses;

class AddressParserTest
{
    private final AddressParser in = new AddressParser(AddrShape.of(AddrFormat.SOCKADDR_IN));
    private final AddressParser in6 = new AddressParser(AddrShape.of(AddrFormat.SOCKADDR_IN6));

    @Test
    void shouldReadHostPortAndStraddrForms() throws Exception
    {
        assertEquals("fi_sockaddr_in://10.0.0.1:5000", text(AddrFormat.SOCKADDR_IN, in.parse("10.0.0.1:5000")));
        assertEquals("fi_sockaddr_in://10.0.0.1:5000", text(AddrFormat.SOCKADDR_IN, in.parse("fi_sockaddr_in://10.0.0.1:5000")));
        assertEquals("fi_sockaddr_in6://[::1]:7000", text(AddrFormat.SOCKADDR_IN6, in6.parse("[::1]:7000")));
        assertEquals("fi_sockaddr_in6://[fe80::1]:7001", text(AddrFormat.SOCKADDR_IN6, in6.parse("fi_sockaddr_in6://[fe80::1]:7001")));
        assertEquals("node-a:7", text(AddrFormat.ADDR_STR, new AddressParser(AddrShape.of(AddrFormat.ADDR_STR)).parse("node-a:7")));
    }

    @Test
    void shouldReadProviderAndOpaqueAddressesInHex() throws Exception
    {
        final AddressParser cxi = new AddressParser(AddrShape.of(AddrFormat.ADDR_CXI));
        assertEquals("fi_addr_cxi://0x02468a07", text(AddrFormat.ADDR_CXI, cxi.parse("078a4602")));
        assertEquals("fi_addr_cxi://0x02468a07", text(AddrFormat.ADDR_CXI, cxi.parse("0x078A4602")));
        assertMessage(cxi, "078a46", "3 bytes, but the AV's addresses are FI_ADDR_CXI");
        assertMessage(cxi, "078a460", "two digits a byte");
        assertMessage(cxi, "078a46zz", "'zz' is not a hex byte");
        final AddressParser varying = new AddressParser(new AddrShape(AddrFormat.FORMAT_UNSPEC, 4, true));
        assertEquals(2, varying.parse("abcd").remaining());
        assertMessage(varying, "0102030405", "5 bytes, but the AV's addresses are FI_FORMAT_UNSPEC/<=4 bytes");
    }

    @Test
    void shouldLeaveValidityToTheInsert() throws Exception
    {
        assertEquals("fi_sockaddr_in://0.0.0.0:0", text(AddrFormat.SOCKADDR_IN, in.parse("0.0.0.0:0")));
    }

    @Test
    void shouldRejectWhatIsNotAnAddressOfTheAvsFormat()
    {
        assertMessage(in, "10.0.0.1", "expected host:port");
        assertMessage(in, "10.0.0.1:", "expected host:port");
        assertMessage(in, "10.0.0.1:http", "is not a port number");
        assertMessage(in, "10.0.0.1:70000", "outside 0..65535");
        assertMessage(in, "::1:5000", "needs brackets");
        assertMessage(in, "[::1]:5000", "is IPv6 but the AV holds FI_SOCKADDR_IN");
        assertMessage(in6, "127.0.0.1:5", "is IPv4 but the AV holds FI_SOCKADDR_IN6");
    }

    private static void assertMessage(final AddressParser parser, final String line, final String part)
    {
        final AddressParser.BadLine e = assertThrows(AddressParser.BadLine.class, () -> parser.parse(line));
        assertTrue(e.getMessage().contains(part), line + ": " + e.getMessage());
    }

    private static String text(final AddrFormat format, final ByteBuffer addr)
    {
        return Addresses.straddr(format, addr);
    }
}
