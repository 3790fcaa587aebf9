package org.shmav.shm;

import static org.shmav.shm.AvFileDescriptor.HEADER_LENGTH;
import static org.shmav.shm.AvFileDescriptor.SEGMENT_COUNT_OFFSET;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.util.function.BooleanSupplier;

import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * The file side of growth: mapping exactly the segments a header publishes, and reserving the space of
 * the next segment before it is published (shm-layout.md, GROWTH). Stateless.
 *
 * <p>A named AV's file may be longer than its published segments: the zeros of the next segment,
 * appended by a growth under way, or by one that failed, died or was taken over (the next grower of
 * that segment finishes them, layout 7), or a step of zeros a late grower appended past them. Nobody
 * maps or reads past the published length, and no grower ever cuts the file (a late cut would fault
 * every mapping of a segment published meanwhile), so such a tail is harmless.
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
        final String name)
    {
        return mapPublished(header, file, readOnly, "named AV '" + name + "'");
    }

    /** {@link #current}, its errors naming the AV as {@code what} (e.g. with its path). */
    static SharedAvFile.Mapped mapPublished(final Memory header, final AvFileChannel file, final boolean readOnly,
        final String what)
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
            throw new FabricException(e.errno(), what + ": " + e.getMessage().replace(AvHeader.OLDER_RM,
                "shmav rm " + file.path().getFileName()));
        }
        catch (final IOException e)
        {
            throw new FabricException(FiErrno.EIO, "cannot map " + what + ": " + e.getMessage(), e);
        }
    }

    /**
     * The layout the header publishes now, checked ({@link AvLayout#read}) against the file's size.
     * The size is read after {@code segmentCount} (acquire): a grower reserves before it publishes, so
     * the size then covers every published segment, and a file shorter than them is damaged. A longer
     * file is fine: a growth in progress, or a range a grower took and did not publish.
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
    public static Memory map(final AvFileChannel file, final long length, final String name)
    {
        try
        {
            return new Memory(file.channelFor(true).map(FileChannel.MapMode.READ_WRITE, 0, length));
        }
        catch (final IOException e)
        {
            throw new FabricException(FiErrno.EIO, "cannot map named AV '" + name + "': " + e.getMessage(), e);
        }
    }

    /**
     * FI_ENOSPC, before a byte is written, when the file system cannot hold the rest of segment range
     * [start, end): the bytes the file already has there (zeros appended by a grower that was taken
     * over, froze or died) count as held, so a taker needs room only for what is missing. Others may
     * take space meanwhile: then an append fails, with the AV intact. Room that AVs closed in this JVM
     * still hold is collected first ({@link ClosedMappings}), calling {@code progress} (the grower's claim)
     * while it waits for it.
     */
    public static void checkRoom(final AvFileChannel file, final long start, final long end, final String name,
        final BooleanSupplier progress)
    {
        final long usable;
        final long held;
        try
        {
            usable = Files.getFileStore(file.path()).getUsableSpace();
            held = Math.max(0, Math.min(file.channelFor(false).size(), end) - start);
        }
        catch (final IOException e)
        {
            return; // no answer: the appends will tell
        }
        if (usable < end - start - held && !ClosedMappings.freeRoom(file.path(), end - start - held, progress))
        {
            throw new FabricException(FiErrno.ENOSPC, "cannot grow named AV '" + name + "' by " + (end - start - held) +
                " bytes: its file system has " + usable + " bytes free: free space where it lives (df -h /dev/shm; " +
                "'shmav gc' removes dead jobs' AVs); the AV is intact");
        }
    }

    /** Bytes of zeros one {@link #appendZeros} call writes at most: a grower's step between two progress marks. */
    public static final int ZEROS_STEP = 1 << 20;

    /** Allocated by the first growth of this JVM, not by every reader that loads this class. */
    private static final class Zeros
    {
        static final ByteBuffer BUFFER = ByteBuffer.allocateDirect(ZEROS_STEP).asReadOnlyBuffer();
    }

    /**
     * One step of reserving a segment that ends at {@code end}: when the file is shorter, appends zeros
     * (at most {@link #ZEROS_STEP} bytes, O_APPEND) so that tmpfs allocates those pages now and no store
     * into them can fault later; returns the file's size after the step (at least {@code end}: done).
     *
     * <p>Appending is what makes this safe for several growers of one segment at once (a taker and the
     * grower it took over, who may wake at any instruction, shm-layout.md GROWTH): the kernel writes at
     * the end as it is when the write runs, so a write begun before another grower published the
     * segment lands past every published byte, never on them. It can only make the file longer than
     * needed (by at most one step per grower that wakes late), and the next growth uses those zeros.
     * The file must have no holes below its end: shmav extends AV files only by writing (created whole,
     * grown by appends), so a size at or past {@code end} means every page up to it is allocated.
     * A full file system is FI_ENOSPC, the AV intact, unless the appends of others reached {@code end}.
     */
    public static long appendZeros(final AvFileChannel file, final long end, final String name)
    {
        try
        {
            final long size = file.channelFor(false).size();
            if (size >= end)
            {
                return size;
            }
            final ByteBuffer zeros = Zeros.BUFFER.duplicate();
            zeros.limit((int)Math.min(ZEROS_STEP, end - size));
            file.appendChannel().write(zeros);
            return file.channelFor(false).size();
        }
        catch (final IOException e)
        {
            final long size = sizeOrZero(file);
            if (size >= end)
            {
                return size; // another grower's appends got there
            }
            final String reason = String.valueOf(e.getMessage());
            final int errno = NoRoom.any(e) ? FiErrno.ENOSPC : FiErrno.EIO;
            throw new FabricException(errno, "cannot grow named AV '" + name + "' to " + end + " bytes: " +
                reason + (errno == FiErrno.ENOSPC
                    ? ": free space where it lives (df -h /dev/shm; 'shmav gc' removes dead jobs' AVs); the AV is intact"
                    : ""), e);
        }
    }

    /** The file's size now. */
    public static long size(final AvFileChannel file, final String name)
    {
        try
        {
            return file.channelFor(false).size();
        }
        catch (final IOException e)
        {
            throw new FabricException(FiErrno.EIO, "cannot read the size of named AV '" + name + "': " +
                e.getMessage(), e);
        }
    }

    private static long sizeOrZero(final AvFileChannel file)
    {
        try
        {
            return file.channelFor(false).size();
        }
        catch (final IOException e)
        {
            return 0;
        }
    }
}
