package org.shmav.job;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * {@code SharedLockHolder FILE POSITION}: takes a shared lock on byte POSITION of FILE, opened read-only,
 * as any process that may read a file can; prints "locked" and holds it until stdin closes.
 */
public final class SharedLockHolder
{
    private SharedLockHolder()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        try (FileChannel ch = FileChannel.open(Path.of(args[0]), StandardOpenOption.READ))
        {
            ch.lock(Long.parseLong(args[1]), 1, true);
            System.out.println("locked");
            System.out.flush();
            while (System.in.read() >= 0)
            {
                // hold until the test closes our stdin (or kills us)
            }
        }
    }
}
