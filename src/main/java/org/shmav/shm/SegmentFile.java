package org.shmav.shm;

import static org.shmav.shm.AvFileDescriptor.HEADER_LENGTH;
import static org.shmav.shm.AvFileDescriptor.SEGMENT_COUNT_OFFSET;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * The file side of growth: mapping exactly the segments a header publishes, and reserving the space of
 * the next segment before it is published (shm-layout.md, GROWTH). Stateless.
 *
 * <p>A named AV's file may be longer than its published segments: a growth in progress, one that
 * failed and is being cut back, or one whose grower died after reserving. Nobody maps or reads past
 * the published length, and the next grower cuts the file back to it before reserving, so such a tail
 * is harmless, and a file that grows or shrinks past the published length meanwhile changes nothing.
 */
public final class SegmentFile
{
    private SegmentFile()
    {
    }

    /**
     * The AV as its header says now: the layout of every published segment, checked against the file
     * ({@link #published}), and a mapping of exactly that length. {@code header} is any mapping of the
     * file that covers the header (the view being followed, or the header page mapped at open).
     */
    public static SharedAvFile.Mapped current(final Memory header, final AvFileChannel file, final boolean readOnly,
        final String call, final String name)
    {
        return mapPublished(header, file, readOnly, call, "named AV '" + name + "'");
    }

    /** {@link #current}, its errors naming the AV as {@code what} (e.g. with its path). */
    static SharedAvFile.Mapped mapPublished(final Memory header, final AvFileChannel file, final boolean readOnly,
        final String call, final String what)
    {
        try
        {
            final FileChannel ch = file.channelFor(!readOnly);
            final AvLayout layout = published(header, ch);
            // Never more than the file holds (published() checked it): mapping past the end would make a
            // read-only map fail and a read-write one extend the file.
            final Memory m = header.capacity() == layout.fileLength() ? header : new Memory(ch.map(readOnly
                ? FileChannel.MapMode.READ_ONLY : FileChannel.MapMode.READ_WRITE, 0, layout.fileLength()));
            return new SharedAvFile.Mapped(m, layout, file);
        }
        catch (final AvLayout.LayoutException e)
        {
            throw new FabricException(call, e.errno(), what + ": " + e.getMessage());
        }
        catch (final IOException e)
        {
            throw new FabricException(call, FiErrno.EIO, "cannot map " + what + ": " + e.getMessage(), e);
        }
    }

    /**
     * The layout the header publishes now, checked ({@link AvLayout#read}) against the file's size.
     * The size is read after {@code segmentCount} (acquire): a grower reserves before it publishes, so
     * the size then covers every published segment, and a file shorter than them is damaged. A longer
     * file is fine: a growth in progress, a failed one being cut back, or a dead grower's reservation.
     *
     * @throws AvLayout.LayoutException when the header or the size is not that of a valid AV
     */
    static AvLayout published(final Memory header, final FileChannel ch) throws IOException
    {
        final int segments = header.capacity() >= HEADER_LENGTH ? header.getIntAcquire(SEGMENT_COUNT_OFFSET) : 0;
        final long size = ch.size();
        final AvLayout layout = AvLayout.read(header, segments, size);
        if (size < layout.fileLength())
        {
            throw new AvLayout.LayoutException(FiErrno.EINVAL, "file is " + size + " bytes but its " +
                layout.segments() + " segments need " + layout.fileLength() + ": truncated; remove it with " +
                "'shmav rm' and create it again");
        }
        return layout;
    }

    /** A read-write mapping of the first {@code length} bytes of the file (a grower's view of its new segment). */
    public static Memory map(final AvFileChannel file, final long length, final String call, final String name)
    {
        try
        {
            return new Memory(file.channelFor(true).map(FileChannel.MapMode.READ_WRITE, 0, length));
        }
        catch (final IOException e)
        {
            throw new FabricException(call, FiErrno.EIO, "cannot map named AV '" + name + "': " + e.getMessage(), e);
        }
    }

    /**
     * Makes the file exactly {@code to} bytes, every page from {@code from} written with zeros, so that
     * tmpfs allocates them now: once this returns, no store into [from, to) can fault. Bytes from
     * {@code from} on are nobody's (past the published segments), so they are cut first. On a full
     * file system the file is cut back to {@code from} and the growth fails with FI_ENOSPC, the AV
     * intact. Only the holder of the growth lock calls this.
     */
    public static void reserve(final AvFileChannel file, final long from, final long to, final String call,
        final String name)
    {
        final FileChannel ch = file.channelFor(true);
        try
        {
            ch.truncate(from);
            final ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
            for (long at = from; at < to; )
            {
                zeros.clear().limit((int)Math.min(zeros.capacity(), to - at));
                at += ch.write(zeros, at);
            }
        }
        catch (final IOException e)
        {
            try
            {
                ch.truncate(from);
            }
            catch (final IOException ignored)
            {
                // the tail stays; the next grower cuts it
            }
            final String reason = String.valueOf(e.getMessage());
            final int errno = reason.contains("No space left") || reason.contains("Disk quota") ||
                reason.contains("File too large") ? FiErrno.ENOSPC : FiErrno.EIO;
            throw new FabricException(call, errno, "cannot grow named AV '" + name + "' from " + from + " to " + to +
                " bytes: " + reason + (errno == FiErrno.ENOSPC
                    ? ": free space where it lives (df -h /dev/shm; 'shmav gc' removes dead jobs' AVs); the AV is intact"
                    : ""), e);
        }
    }
}
