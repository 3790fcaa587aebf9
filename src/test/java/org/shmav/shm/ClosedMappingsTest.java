package org.shmav.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/** {@link ClosedMappings}: when it collects, and that its wait for room ends. */
class ClosedMappingsTest
{
    private static final Path DIR = Path.of(System.getProperty("java.io.tmpdir"));

    @Test
    void shouldNotCollectWhenNoAvFileWasClosedSinceTheLastCall()
    {
        ClosedMappings.freeRoom(DIR, 0); // whatever earlier tests of this JVM closed
        final long start = System.nanoTime();
        assertFalse(ClosedMappings.freeRoom(DIR, 1), "nothing closed: nothing to collect, even where room is");
        assertTrue(System.nanoTime() - start < ClosedMappings.ROOM_WAIT_NANOS, "answered without the wait");
    }

    @Test
    void shouldCollectOnceForTheFilesClosedSinceAndSayWhetherTheRoomIsThere()
    {
        ClosedMappings.closed();
        assertTrue(ClosedMappings.freeRoom(DIR, 1), "room there after the collection");
        assertFalse(ClosedMappings.freeRoom(DIR, 1), "the next call has nothing closed since");
    }

    @Test
    void shouldGiveUpWithinItsWaitWhenTheRoomNeverComes()
    {
        ClosedMappings.closed();
        final long start = System.nanoTime();
        assertFalse(ClosedMappings.freeRoom(DIR, Long.MAX_VALUE));
        final long waited = System.nanoTime() - start;
        assertTrue(waited >= ClosedMappings.ROOM_WAIT_NANOS, "waited " + TimeUnit.NANOSECONDS.toMillis(waited) + " ms");
        assertTrue(waited < ClosedMappings.ROOM_WAIT_NANOS + TimeUnit.SECONDS.toNanos(10),
            "waited " + TimeUnit.NANOSECONDS.toMillis(waited) + " ms");
    }

    /** A grower's wait marks its claim's progress as it goes, and ends once the claim is taken over. */
    @Test
    void shouldCallProgressWhileWaitingAndStopWhenItFails()
    {
        final AtomicInteger calls = new AtomicInteger();
        ClosedMappings.closed();
        final long start = System.nanoTime();
        assertFalse(ClosedMappings.freeRoom(DIR, Long.MAX_VALUE, () -> calls.incrementAndGet() < 3));
        assertEquals(3, calls.get(), "stopped at the first failed progress");
        assertTrue(System.nanoTime() - start < ClosedMappings.ROOM_WAIT_NANOS, "before the wait's end");
    }
}
