package org.shmav.shm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Room that AV files closed in this JVM may still hold. A closed handle's mapping goes with the garbage
 * collector, not with close (a lookup in another thread may still be reading it), and tmpfs keeps an
 * unlinked file's pages while a mapping holds them: an AV closed and unlinked here leaves its room taken
 * until the next collection. So a create or a growth that finds too little room asks {@link #freeRoom} first,
 * which collects garbage once for the files closed since its last call and waits, briefly, for the room,
 * as the JDK's own {@code FileChannel.map} collects and tries again when a mapping fails. Thread-safe.
 */
public final class ClosedMappings
{
    /** How long {@link #freeRoom} waits for the unmapping to free the room, at most. */
    static final long ROOM_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /** AV files whose last user closed them since the last {@link #freeRoom} collection. */
    private static final AtomicLong CLOSED = new AtomicLong();

    private ClosedMappings()
    {
    }

    /** The last user of an AV file closed it; its mappings stay until the collector unmaps them. */
    static void closed()
    {
        CLOSED.incrementAndGet();
    }

    /**
     * True when the file system holding {@code onFileSystem} (an AV file or its directory) has at least
     * {@code needed} bytes usable once the mappings of the AV files closed here since the last call are
     * collected; false at once when none was closed, or when the room is not there within
     * {@link #ROOM_WAIT_NANOS} (held by another process, or by a handle still open).
     */
    public static boolean freeRoom(final Path onFileSystem, final long needed)
    {
        return freeRoom(onFileSystem, needed, () -> true);
    }

    /**
     * {@link #freeRoom(Path, long)} for a caller that holds a claim others take over when it stalls (a
     * grower's): {@code progress} is called between looks, and the wait ends, false, when it returns false.
     */
    public static boolean freeRoom(final Path onFileSystem, final long needed, final BooleanSupplier progress)
    {
        if (CLOSED.getAndSet(0) == 0)
        {
            return false;
        }
        System.gc(); // the unmapping runs in the Reference Handler right after the buffers are found unreachable
        final long deadline = System.nanoTime() + ROOM_WAIT_NANOS;
        while (true)
        {
            try
            {
                if (Files.getFileStore(onFileSystem).getUsableSpace() >= needed)
                {
                    return true;
                }
            }
            catch (final IOException e)
            {
                return false;
            }
            if (System.nanoTime() - deadline >= 0 || !progress.getAsBoolean())
            {
                return false;
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }
}
