package org.shmav.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The one way tests make temporary directories: a fresh directory for one test (its AVs under /dev/shm, its
 * logs under the temp dir), deleted with everything in it afterwards, never following a link out of it.
 * As a resource ({@link #inShm}, {@link #inTmp}) or, for a field set up and torn down around each test,
 * as a path ({@link #createInShm}, {@link #delete}).
 */
public final class TestDir implements AutoCloseable
{
    /** Where named AVs live. */
    private static final Path SHM = Path.of("/dev/shm");

    private final Path path;

    private TestDir(final Path path)
    {
        this.path = path;
    }

    /** A new directory under /dev/shm, where named AVs live. */
    public static TestDir inShm(final String prefix) throws IOException
    {
        return new TestDir(Files.createTempDirectory(SHM, prefix));
    }

    /** A new directory under java.io.tmpdir, for logs. */
    public static TestDir inTmp(final String prefix) throws IOException
    {
        return new TestDir(Files.createTempDirectory(prefix));
    }

    /**
     * A new directory under /var/tmp, which every simulated node sees (slurm-cluster's nodes and fakessh's remount
     * only /tmp and /dev/shm): for files the ranks of one job on several nodes hand each other.
     */
    public static TestDir inVarTmp(final String prefix) throws IOException
    {
        return new TestDir(Files.createTempDirectory(Path.of("/var/tmp"), prefix));
    }

    /** A new directory under /dev/shm, for the caller to {@link #delete}. */
    public static Path createInShm(final String prefix)
    {
        try
        {
            return Files.createTempDirectory(SHM, prefix);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes {@code dir} and everything in it, never following links out of it; nothing when it is null or gone. */
    public static void delete(final Path dir)
    {
        if (dir == null || !Files.exists(dir, LinkOption.NOFOLLOW_LINKS))
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
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    public Path path()
    {
        return path;
    }

    /** The names of the files in the directory now, sorted. */
    public List<String> names() throws IOException
    {
        try (Stream<Path> files = Files.list(path))
        {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Override
    public void close()
    {
        delete(path);
    }
}
