package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** Flag bits, sentinels and enum values with libfabric's numbers (its headers fabric.h and fi_domain.h). */
class FiTest
{
    @Test
    void shouldUseLibfabricFlagBits()
    {
        assertEquals(0x100L, Fi.READ);
        assertEquals(1L << 9, Fi.WRITE);
        assertEquals(0x40000L, Fi.MORE);
        assertEquals(0x1000000L, Fi.EVENT);
        final long[] sets = {Fi.BARRIER_SET, Fi.BROADCAST_SET, Fi.ALLTOALL_SET, Fi.ALLREDUCE_SET, Fi.ALLGATHER_SET,
            Fi.REDUCE_SCATTER_SET, Fi.REDUCE_SET, Fi.SCATTER_SET, Fi.GATHER_SET};
        for (int i = 0; i < sets.length; i++)
        {
            assertEquals(1L << (40 + i), sets[i]);
        }
        assertEquals(1L << 41, Fi.AV_USER_ID);
        assertEquals(Fi.BROADCAST_SET, Fi.AV_USER_ID, "bits are reused as in libfabric");
        assertEquals(1L << 43, Fi.PEER);
        assertEquals(1L << 57, Fi.AUTH_KEY);
        assertEquals(Fi.AUTH_KEY, Fi.UNIVERSE);
        assertEquals(1L << 58, Fi.SYNC_ERR);
        assertEquals(1L << 59, Fi.SYMMETRIC);
        assertEquals(0xFFFF_FFFF_FFFF_FFFFL, Fi.ADDR_NOTAVAIL);
        assertEquals(Fi.ADDR_NOTAVAIL, Fi.ADDR_UNSPEC);
    }

    @Test
    void shouldUseLibfabricEnumValues()
    {
        assertEquals(0, AvType.UNSPEC.value());
        assertEquals(1, AvType.MAP.value());
        assertEquals(2, AvType.TABLE.value());
        assertEquals("FI_AV_TABLE", AvType.TABLE.fiName());
        assertEquals(AvType.MAP, AvType.ofValue(1));
        assertNull(AvType.ofValue(7));

        assertEquals(2, AddrFormat.SOCKADDR_IN.value());
        assertEquals(16, AddrFormat.SOCKADDR_IN.addrlen());
        assertEquals(3, AddrFormat.SOCKADDR_IN6.value());
        assertEquals(28, AddrFormat.SOCKADDR_IN6.addrlen());
        assertEquals(9, AddrFormat.ADDR_STR.value());
        assertEquals(15, AddrFormat.ADDR_CXI.value());
        assertEquals("FI_SOCKADDR_IN6", AddrFormat.SOCKADDR_IN6.fiName());
        assertEquals(AddrFormat.ADDR_PSMX3, AddrFormat.ofValue(13));
        assertNull(AddrFormat.ofValue(99));

        assertEquals(5, EqEvent.AV_COMPLETE);
    }
}
