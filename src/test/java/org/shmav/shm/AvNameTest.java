package org.shmav.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.shmav.FabricException;
import org.shmav.FiErrno;

class AvNameTest
{
    @Test
    void shouldMapTheNameToItsFileAsLibfabricDoes()
    {
        final AvName name = AvName.of("//job 7");
        assertEquals("//job 7", name.name(), "messages show the name as given");
        assertEquals("job_7", name.fileName());
        assertEquals(Path.of("/dev/shm/shmav/job_7"), name.in(Path.of("/dev/shm/shmav")));
    }

    @Test
    void shouldRefuseABadNameNamingNoCall()
    {
        for (final String bad : new String[] {"", "/", ".x", "a/b", "a\u0000b", "a\ud800", "x".repeat(201)})
        {
            final FabricException e = assertThrows(FabricException.class, () -> AvName.of(bad));
            assertEquals(FiErrno.EINVAL, e.errno(), bad);
            assertNull(e.call(), "the check serves fi_av_open and fi_av_unlink: the call the user made names itself");
        }
        assertThrows(FabricException.class, () -> AvName.of(null));
    }

    @Test
    void shouldLeaveARemovalsBadNameToTheCallerToName()
    {
        // Below the API, a removal names no call (it said fi_av_open, then fi_av_unlink): its caller does
        final FabricException e = assertThrows(FabricException.class,
            () -> SharedAvFile.unlink(Path.of("/nonexistent-dir"), ".hidden"));
        assertNull(e.call());
        assertTrue(e.detail().contains("starts with '.'"), e.detail());
    }
}
