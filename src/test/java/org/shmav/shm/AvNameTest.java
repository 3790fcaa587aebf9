package org.shmav.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
        final AvName name = AvName.of("//job 7", "fi_av_open");
        assertEquals("//job 7", name.name(), "messages show the name as given");
        assertEquals("job_7", name.fileName());
        assertEquals(Path.of("/dev/shm/shmav/job_7"), name.in(Path.of("/dev/shm/shmav")));
    }

    @Test
    void shouldNameTheCallMadeWhenTheNameIsBad()
    {
        for (final String bad : new String[] {"", "/", ".x", "a/b", "a\u0000b", "a\ud800", "x".repeat(201)})
        {
            final FabricException e = assertThrows(FabricException.class, () -> AvName.of(bad, "fi_av_unlink"));
            assertEquals(FiErrno.EINVAL, e.errno(), bad);
            assertEquals("fi_av_unlink", e.call(), "the call the user made, not the one that shares the check");
        }
        assertThrows(FabricException.class, () -> AvName.of(null, "fi_av_open"));
    }

    @Test
    void shouldReportARemovalsBadNameAsTheRemovalsCall()
    {
        // Below the API, a removal checks the name as fi_av_unlink (it said fi_av_open before)
        final FabricException e = assertThrows(FabricException.class,
            () -> SharedAvFile.unlink(Path.of("/nonexistent-dir"), ".hidden"));
        assertEquals("fi_av_unlink", e.call());
        assertTrue(e.detail().contains("starts with '.'"), e.detail());
    }
}
