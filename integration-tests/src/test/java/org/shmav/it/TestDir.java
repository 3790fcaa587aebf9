package org.shmav.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** A fresh directory for one test (its AVs under /dev/shm, its logs under the temp dir), deleted with everything in it afterwards. */
public final class TestDir implements AutoCloseable
{
    private final Path path;

    private TestDir(final Path path)
    {
        this.path = path;
    }

    /** A new directory under /dev/shm, where named AVs live. */
    public static TestDir inShm(final String prefix) throws IOException
    {
        return new TestDir(Files.createTempDirectory(Path.of("/dev/shm"), prefix));
    }

    /** A new directory under java.io.tmpdir, for logs. */
    public static TestDir inTmp(final String prefix) throws IOException
    {
        return new TestDir(Files.createTempDirectory(prefix));
    }

    public Path path()
    {
        return path;
    }

    /** The names of the files in the directory now, sorted. */
    public java.util.List<String> names() throws IOException
    {
        try (Stream<Path> files = Files.list(path))
        {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Override
    public void close() throws IOException
    {
        try (Stream<Path> files = Files.walk(path))
        {
            for (final Path p : (Iterable<Path>)files.sorted(Comparator.reverseOrder())::iterator)
            {
                Files.deleteIfExists(p);
            }
        }
    }
}
