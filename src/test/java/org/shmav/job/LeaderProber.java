package org.shmav.job;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * {@code LeaderProber FILE SECONDS}: probes participant 0's byte of job file FILE as fast as it can, as a
 * follower polling a job file being written does (a shared lock taken and released at once), for SECONDS
 * seconds; prints "probing" once it runs and "probes N" at the end.
 */
public final class LeaderProber
{
    private LeaderProber()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path file = Path.of(args[0]);
        final long end = System.nanoTime() + Long.parseLong(args[1]) * 1_000_000_000L;
        System.out.println("probing");
        System.out.flush();
        long probes = 0;
        while (System.nanoTime() - end < 0)
        {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ))
            {
                for (int i = 0; i < 100; i++)
                {
                    final FileLock probe = ch.tryLock(JobFile.SLOTS_START, 1, true);
                    if (probe != null)
                    {
                        probe.release();
                        probes++;
                    }
                }
            }
            catch (final NoSuchFileException e)
            {
                Thread.onSpinWait(); // between two of the test's creations
            }
        }
        System.out.println("probes " + probes);
    }
}
