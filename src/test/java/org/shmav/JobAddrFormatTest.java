package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JobAddrFormatTest
{
    @Test
    void shouldReadBackWhatItWritesForEveryStorableFormat()
    {
        for (final AddrFormat f : AddrFormat.values())
        {
            if (f.supported() && f != AddrFormat.FORMAT_UNSPEC)
            {
                final JobAddrFormat j = JobAddrFormat.of(f);
                assertEquals(j, JobAddrFormat.parse(j.toString()), j.toString());
                assertEquals(j, JobAddrFormat.parse(f.fiName()), "libfabric's name too");
                assertEquals(f, j.domainAttr(Path.of("/tmp")).addrFormat());
            }
        }
        assertEquals("in6", JobAddrFormat.IN6.toString());
        assertEquals("ib_ud", JobAddrFormat.of(AddrFormat.ADDR_IB_UD).toString());
        assertEquals(JobAddrFormat.opaque(248), JobAddrFormat.parse("opaque:248"));
        assertEquals(JobAddrFormat.opaqueUpTo(1024), JobAddrFormat.parse(" Opaque:Max:1024 "));
        assertEquals("opaque:max:1024", JobAddrFormat.opaqueUpTo(1024).toString());
        final DomainAttr varying = JobAddrFormat.opaqueUpTo(1024).domainAttr(Path.of("/tmp"));
        assertTrue(varying.varyingAddrLen() && varying.addrLen() == 1024, varying.toString());
        final DomainAttr fixed = JobAddrFormat.opaque(248).domainAttr(Path.of("/tmp"));
        assertTrue(!fixed.varyingAddrLen() && fixed.addrLen() == 248, fixed.toString());
        assertTrue(JobAddrFormat.IN6.socketAddresses() && !JobAddrFormat.opaque(16).socketAddresses());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "ipv6", "opaque", "opaque:0", "opaque:4097", "opaque:max:", "opaque:x", "sockaddr", "mlx",
        "FI_ADDR_GNI"})
    void shouldRefuseATextThatNamesNoStorableFormatNamingThoseThatAre(final String text)
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JobAddrFormat.parse(text));
        assertTrue(e.getMessage().contains("in, in6, str,") && e.getMessage().contains("opaque:max:N"), e.getMessage());
    }

    @Test
    void shouldRefuseInconsistentParts()
    {
        assertThrows(IllegalArgumentException.class, () -> new JobAddrFormat(AddrFormat.SOCKADDR_IN, 28, false));
        assertThrows(IllegalArgumentException.class, () -> new JobAddrFormat(AddrFormat.ADDR_EFA, 32, true));
        assertThrows(IllegalArgumentException.class, () -> JobAddrFormat.of(AddrFormat.ADDR_MLX));
        assertThrows(IllegalArgumentException.class, () -> JobAddrFormat.of(null));
    }

    @Test
    void shouldReadTheEnvironmentWithInAsTheDefault()
    {
        assertEquals(JobAddrFormat.IN, JobAddrFormat.fromEnvironment(Map.of()));
        assertEquals(JobAddrFormat.IN6, JobAddrFormat.fromEnvironment(Map.of(JobAddrFormat.ENV, "in6")));
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> JobAddrFormat.fromEnvironment(Map.of(JobAddrFormat.ENV, "ipv6")));
        assertTrue(e.getMessage().startsWith("SHMAV_ADDR_FORMAT='ipv6' is not an address format; use one of in, in6"),
            e.getMessage());
        assertFalse(e.getMessage().contains("null"), e.getMessage());
    }
}
