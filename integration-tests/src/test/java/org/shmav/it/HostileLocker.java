package org.shmav.it;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A user who may only read: every 20 ms, opens read-only every file of directory {@code args[0]} it can
 * open and takes a shared record lock on all of it (every byte, to the largest offset), holding them
 * all for {@code args[1]} seconds. Prints {@code locked [names]} whenever the set of files it holds
 * grows.
 */
public final class HostileLocker
{
    private HostileLocker()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path dir = Path.of(args[0]);
        final long end = System.nanoTime() + Long.parseLong(args[1]) * 1_000_000_000L;
        final Set<String> held = new TreeSet<>();
        final List<FileLock> locks = new ArrayList<>();
        while (System.nanoTime() - end < 0)
        {
            boolean grew = false;
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dir))
            {
                for (final Path f : files)
                {
                    final String name = f.getFileName().toString();
                    if (held.contains(name) || !Files.isRegularFile(f))
                    {
                        continue;
                    }
                    try
                    {
                        final FileChannel ch = FileChannel.open(f, StandardOpenOption.READ);
                        final FileLock lock = ch.tryLock(0, Long.MAX_VALUE, true);
                        if (lock == null)
                        {
                            ch.close();
                            continue;
                        }
                        locks.add(lock);
                        held.add(name);
                        grew = true;
                    }
                    catch (final IOException e)
                    {
                        // no read permission: nothing this user can do to that file
                    }
                }
            }
            if (grew)
            {
                System.out.println("locked " + held);
                System.out.flush();
            }
            Thread.sleep(20);
        }
        System.out.println("released " + locks.size());
    }
}
