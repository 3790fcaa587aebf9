package org.shmav.shm;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.function.Consumer;

/**
 * Opens an AV file for appending (O_APPEND), for a grower's zeros: they land at the file's end as it
 * is when the write runs (shm-layout.md, GROWTH), so a write begun long ago never lands on bytes
 * published since. An AV removed while in use may still grow: then the file is reached through one of
 * this JVM's own descriptors of it ({@code /proc/self/fd/N}, which names the inode itself), never
 * through its old name, which may now name a newer AV.
 */
final class AppendDescriptor
{
    private AppendDescriptor()
    {
    }

    /**
     * The file of {@code key} (its device and inode) opened for appending.
     *
     * @param file     the name it was opened by
     * @param key      the file's key, which the opened descriptor must have
     * @param keepOpen takes a descriptor that turned out to be another file's (never closed: closing
     *                 one would drop this JVM's POSIX locks on that file)
     * @return the append channel
     * @throws IOException when neither the name nor a descriptor of this JVM leads to the file
     */
    static FileChannel open(final Path file, final Object key, final Consumer<FileChannel> keepOpen) throws IOException
    {
        try
        {
            final FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND,
                LinkOption.NOFOLLOW_LINKS);
            if (key.equals(Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey()))
            {
                return ch;
            }
            keepOpen.accept(ch); // another file now has the name
        }
        catch (final NoSuchFileException e)
        {
            // removed (shmav rm) while in use: reach it through our own descriptor
        }
        return reopenOwnDescriptor(file, key);
    }

    private static FileChannel reopenOwnDescriptor(final Path file, final Object key) throws IOException
    {
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd")))
        {
            for (final Path fd : fds)
            {
                try
                {
                    if (key.equals(Files.readAttributes(fd, BasicFileAttributes.class).fileKey()))
                    {
                        return FileChannel.open(fd, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
                    }
                }
                catch (final IOException closedMeanwhile)
                {
                    // another thread's descriptor, closed since the listing: not ours
                }
            }
        }
        throw new IOException(file + " no longer names this AV's file, and no descriptor of it is open here");
    }
}
