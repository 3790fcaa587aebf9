package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmav.AvTestSupport.in4;

import java.nio.ByteBuffer;
import java.nio.file.Files;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.shmav.shm.AvName;
import org.shmav.shm.AvNameLock;
import org.shmav.shm.SharedAvFile;

/**
 * Below the API an error carries an errno and a detail, and no call: the call the user made adds its
 * name where it is made, so the messages users see name the call they made.
 */
class CallNamesTest
{
    @RegisterExtension
    final ShmDomain shm = new ShmDomain("shmav-calls-");

    @Test
    void shouldNameNoCallBelowTheApi() throws Exception
    {
        final FabricException name = assertThrows(FabricException.class, () -> AvName.of(".hidden"));
        assertNull(name.call(), "a name check serves fi_av_open and fi_av_unlink alike");
        assertEquals("FI_EINVAL (Invalid argument): name '.hidden' is empty or starts with '.'", name.getMessage());

        Files.writeString(shm.dir().resolve("junk"), "not an AV");
        final FabricException removal = assertThrows(FabricException.class, () -> SharedAvFile.unlink(shm.dir(), "junk"));
        assertNull(removal.call(), removal.getMessage());
        assertEquals(FiErrno.EINVAL, removal.errno());
    }

    @Test
    void shouldNameTheCallWhereItIsMade() throws Exception
    {
        final Domain domain = shm.domain();
        assertEquals("fi_av_open: FI_EINVAL (Invalid argument): name '.hidden' is empty or starts with '.'",
            assertThrows(FabricException.class, () -> domain.openAv(AvAttr.builder().name(".hidden").build())).getMessage());
        assertEquals("fi_av_unlink: FI_EINVAL (Invalid argument): name '.hidden' is empty or starts with '.'",
            assertThrows(FabricException.class, () -> domain.unlinkAv(".hidden")).getMessage());
        Files.writeString(shm.dir().resolve("junk"), "not an AV");
        final FabricException junk = assertThrows(FabricException.class, () -> domain.unlinkAv("junk"));
        assertEquals("fi_av_unlink", junk.call(), "the removal's checks, below the API, are the call's");
        assertTrue(junk.detail().startsWith("named AV 'junk' ("), junk.detail());

        final AddressVector av = domain.openAv(AvAttr.builder().name("calls").count(4).build());
        final AvSet set = av.openSet(AvSetAttr.builder().build());
        final ByteBuffer addr = in4("10.0.0.1", 1);
        assertEquals("fi_av_lookup: FI_EINVAL (Invalid argument): fi_addr 0x9 is unset, removed or out of range",
            assertThrows(FabricException.class, () -> av.lookup(9, ByteBuffer.allocate(16))).getMessage());
        assertEquals("fi_av_set_insert: FI_EINVAL (Invalid argument): fi_addr=0x9 is not a valid entry of the AV",
            assertThrows(FabricException.class, () -> set.insert(9)).getMessage());
        set.close();
        assertEquals("fi_av_set_addr: FI_EINVAL (Invalid argument): AV set is closed",
            assertThrows(FabricException.class, set::addr).getMessage());
        av.close();
        assertEquals("fi_av_insert: FI_EINVAL (Invalid argument): AV is closed",
            assertThrows(FabricException.class, () -> av.insert(addr, 1, null, 0, null)).getMessage());
        assertEquals("shmav_av_insert_at: FI_EINVAL (Invalid argument): AV is closed",
            assertThrows(FabricException.class, () -> av.insertAt(0, addr)).getMessage());
        domain.close();
        assertEquals("fi_av_unlink: FI_EINVAL (Invalid argument): domain is closed",
            assertThrows(FabricException.class, () -> domain.unlinkAv("calls")).getMessage());
        assertEquals("fi_eq_open: FI_EINVAL (Invalid argument): domain is closed",
            assertThrows(FabricException.class, () -> domain.openEq(1)).getMessage());
    }

    /** insertsvc and insertsym insert through the same path as fi_av_insert, and are named as themselves. */
    @Test
    void shouldNameInsertSvcAndInsertSymNotTheInsertBelowThem()
    {
        final Domain domain = shm.domain();
        domain.openAv(AvAttr.builder().name("svc").count(4).build()).close();
        try (AddressVector reader = domain.openAv(AvAttr.builder().name("svc").flags(Fi.READ).build()))
        {
            final FabricException svc = assertThrows(FabricException.class,
                () -> reader.insertSvc("10.0.0.1", "7000", null, 0, null));
            assertEquals(FiErrno.EPERM, svc.errno());
            assertEquals("fi_av_insertsvc", svc.call(), svc.getMessage());
            final FabricException sym = assertThrows(FabricException.class,
                () -> reader.insertSym("10.0.0.1", 2, "7000", 1, null, 0, null));
            assertEquals(FiErrno.EPERM, sym.errno());
            assertEquals("fi_av_insertsym", sym.call(), sym.getMessage());
        }
    }

    @Test
    void shouldNameTheRemovalWhenTheNamesLockIsTaken()
    {
        final Domain domain = shm.domain();
        domain.openAv(AvAttr.builder().name("held").count(4).build()).close();
        // The name's lock is shared with fi_av_open's creator: its FI_EAGAIN, from below, is fi_av_unlink's here
        try (AvNameLock held = AvNameLock.acquire(shm.dir().resolve("held"), "held"))
        {
            assertTrue(held.held());
            final FabricException e = assertThrows(FabricException.class, () -> domain.unlinkAv("held"));
            assertEquals(FiErrno.EAGAIN, e.errno());
            assertTrue(e.getMessage().startsWith("fi_av_unlink: FI_EAGAIN (Resource temporarily unavailable): named AV " +
                "'held' is being created or removed by another process"), e.getMessage());
        }
        assertTrue(domain.unlinkAv("held"));
    }

    @Test
    void shouldKeepTheFirstCallsName()
    {
        final FabricException e = new FabricException(FiErrno.EIO, "the detail");
        assertNull(e.call());
        assertEquals("FI_EIO (Input/output error): the detail", e.getMessage());
        assertEquals("fi_av_insert: FI_EIO (Input/output error): the detail", e.in("fi_av_insert").in("fi_av_insertsvc").getMessage());
        assertEquals("fi_av_insert", e.call());
        assertEquals("fi_av_open", new FabricException("fi_av_open", FiErrno.EIO, "x").in("fi_av_unlink").call());
    }
}
