package org.shmav;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Who of a node's ranks has joined and who has left, under a foreign launcher: the file
 * {@code .shmav-ranks.<AV name>} next to the AV, one byte per local rank. A rank that joins writes 1 at
 * its byte and holds an fcntl lock on it until it leaves; the kernel drops the lock when the process
 * dies. A rank that leaves drops its lock, then it is the last one when every byte reads 1 and no lock
 * is held: it removes the AV and this file. A rank that never joined (died before) leaves both behind,
 * for {@code shmav gc} (the AV has no live attacher) and for a later {@code rm} of this small file.
 *
 * <p>Local rank 0 makes the file before it creates the AV; the others open it only once the AV exists.
 * One instance per process (fcntl locks belong to the process: closing another channel of this file in
 * the same JVM would drop them). Not thread-safe.
 */
final class NodeRanks implements AutoCloseable
{
    /** Prefix of the file's name; AV names cannot start with '.', so it never clashes with an AV. */
    static final String PREFIX = ".shmav-ranks.";

    private final Path file;
    private final FileChannel channel;
    private final int localRank;
    private final int localSize;
    private FileLock mine;

    private NodeRanks(final Path file, final FileChannel channel, final int localRank, final int localSize)
    {
        this.file = file;
        this.channel = channel;
        this.localRank = localRank;
        this.localSize = localSize;
    }

    static Path file(final Path directory, final String avName)
    {
        return directory.resolve(PREFIX + avName);
    }

    /** Local rank 0: a fresh file (any file of an earlier job of the same name is replaced). */
    static NodeRanks create(final Path directory, final String avName, final int localSize) throws IOException
    {
        final Path f = file(directory, avName);
        Files.deleteIfExists(f);
        return join(f, 0, localSize, StandardOpenOption.CREATE_NEW);
    }

    /** Another local rank, once the AV exists (and so this file). */
    static NodeRanks attach(final Path directory, final String avName, final int localRank, final int localSize)
        throws IOException
    {
        return join(file(directory, avName), localRank, localSize, StandardOpenOption.READ);
    }

    private static NodeRanks join(final Path f, final int localRank, final int localSize, final StandardOpenOption how)
        throws IOException
    {
        final FileChannel ch = FileChannel.open(f, how, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try
        {
            final NodeRanks ranks = new NodeRanks(f, ch, localRank, localSize);
            ranks.mine = ch.lock(localRank, 1, false);
            ch.write(ByteBuffer.wrap(new byte[] {1}), localRank);
            return ranks;
        }
        catch (final IOException | RuntimeException e)
        {
            ch.close();
            throw e;
        }
    }

    /** Leaves; true when this rank was the last of the node's ranks to leave (then the caller removes the AV). */
    boolean leave() throws IOException
    {
        mine.release();
        final ByteBuffer joined = ByteBuffer.allocate(localSize);
        while (joined.hasRemaining() && channel.read(joined, joined.position()) > 0)
        {
            // read the whole map
        }
        for (int r = 0; r < localSize; r++)
        {
            if (r == localRank)
            {
                continue;
            }
            if (r >= joined.position() || joined.get(r) != 1 || !isFree(r))
            {
                return false;
            }
        }
        return true;
    }

    private boolean isFree(final int r) throws IOException
    {
        try
        {
            final FileLock probe = channel.tryLock(r, 1, false);
            if (probe == null)
            {
                return false;
            }
            probe.release();
            return true;
        }
        catch (final OverlappingFileLockException e)
        {
            return false; // held by another rank of this same JVM (tests)
        }
    }

    /** Removes the file (by the last rank to leave). */
    void delete() throws IOException
    {
        Files.deleteIfExists(file);
    }

    @Override
    public void close() throws IOException
    {
        channel.close();
    }
}
