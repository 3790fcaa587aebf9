package org.shmav.it;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

/**
 * Child JVM of ToolsDuringGrowthIT: does to an AV file what a grower that keeps failing does (on a full
 * file system): extends it past its published length, as the reservation of the next segment, and
 * cuts it back, over and over, for at most 60 s or until {@code stop} exists. Never touches the
 * published bytes. Prints STARTED, then DONE and the number of rounds.
 *
 * <pre>
 *   TailToggler FILE PUBLISHED RESERVED STOP
 * </pre>
 */
public final class TailToggler
{
    private TailToggler()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path file = Path.of(args[0]);
        final long published = Long.parseLong(args[1]);
        final long reserved = Long.parseLong(args[2]);
        final Path stop = Path.of(args[3]);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        long rounds = 0;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE))
        {
            final ByteBuffer page = ByteBuffer.allocateDirect(4096);
            System.out.println("STARTED");
            System.out.flush();
            while (System.nanoTime() - deadline < 0 && (rounds % 256 != 0 || !Files.exists(stop)))
            {
                ch.write(page.clear(), reserved - page.capacity()); // the file now ends past the published length
                ch.truncate(published);                              // cut back, as a layout-5 grower that failed did
                rounds++;
            }
        }
        System.out.println("DONE " + rounds + " rounds");
    }
}
