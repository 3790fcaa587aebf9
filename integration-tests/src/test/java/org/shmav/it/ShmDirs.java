package org.shmav.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Temporary directories under /dev/shm (where named AVs live), removed with everything in them. */
final class ShmDirs
{
    private ShmDirs()
    {
    }

    static Path create() throws IOException
    {
        return Files.createTempDirectory(Path.of("/dev/shm"), "robust");
    }

    /** Deletes {@code dir} and its contents, never following links out of it. */
    static void delete(final Path dir) throws IOException
    {
        if (dir == null || !Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS))
        {
            return;
        }
        try (Stream<Path> files = Files.walk(dir))
        {
            for (final Path p : (Iterable<Path>)files.sorted(Comparator.reverseOrder())::iterator)
            {
                Files.deleteIfExists(p);
            }
        }
    }
}
