package org.shmav.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * How a test rank that must stay out of an exchange (a silent or hanging rank) learns that every other rank
 * has reported the exchange's failure, so that it ends then instead of sleeping a fixed multiple of their
 * deadline: each other rank creates {@code DIR/reported-R} once its line is printed. {@code DIR} is a directory
 * every simulated node sees ({@link TestDir#inVarTmp}); without one the rank sleeps its whole bound, as before.
 */
final class RankReports
{
    private static final long POLL_MILLIS = 50;

    private RankReports()
    {
    }

    /** Rank {@code rank} has printed its report (its output flushed); nothing when {@code dir} is null. */
    static void reported(final Path dir, final int rank)
    {
        if (dir == null)
        {
            return;
        }
        System.out.flush();
        try
        {
            Files.createFile(dir.resolve("reported-" + rank));
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Waits until every rank of {@code size} but {@code me} has {@linkplain #reported reported}, or {@code bound}
     * has passed (with no {@code dir}: the whole bound); whether they all did.
     */
    static boolean awaitOthers(final Path dir, final int me, final int size, final Duration bound) throws InterruptedException
    {
        final long deadline = System.nanoTime() + bound.toNanos();
        while (true)
        {
            if (dir != null && others(dir, me, size))
            {
                return true;
            }
            final long left = deadline - System.nanoTime();
            if (left <= 0)
            {
                return false;
            }
            Thread.sleep(Math.min(POLL_MILLIS, Math.max(1, left / 1_000_000)));
        }
    }

    private static boolean others(final Path dir, final int me, final int size)
    {
        for (int r = 0; r < size; r++)
        {
            if (r != me && !Files.exists(dir.resolve("reported-" + r)))
            {
                return false;
            }
        }
        return true;
    }
}
