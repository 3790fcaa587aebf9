package org.shmav.shm;

import static org.shmav.shm.AvFileDescriptor.*;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.shmav.FabricException;

/**
 * An AV file of an older layout version (shm-layout.md, COMPATIBILITY): shmav's magic, a ready version
 * word, a major version below {@link AvFileDescriptor#VERSION_MAJOR}. This version neither opens nor
 * writes one, but {@code shmav rm} and {@code shmav gc} remove it, and need to know first whether a
 * process holds it. Since layout {@value #LIVENESS_SINCE_MAJOR}.0 every layout tells that the way this
 * one does: writers lock their attacher entry's first byte (entries of 64 bytes at {@code attachersOffset},
 * {@code attachersCapacity} of them, below {@code attachersHighWater}) in the lock file the header's
 * {@code lockFileInode} and {@code lockFileDevice} name, and FI_READ readers the readers' byte of the AV
 * file. Before it, writers were judged by pid and start time (1.x) or took their locks in the AV file
 * itself (2.0, 3.0), where this version does not look: their liveness cannot be told here. Stateless.
 */
public final class OlderLayout
{
    /** The first major version whose liveness this version can tell. */
    public static final int LIVENESS_SINCE_MAJOR = 4;

    private OlderLayout()
    {
    }

    /** Whether processes hold an older AV: nobody, somebody (pids of live writers), or not known (why). */
    public record Holders(boolean known, List<Long> writerPids, boolean readers, String unknownWhy)
    {
        /** True when it is known that no process holds the AV. */
        public boolean none()
        {
            return known && writerPids.isEmpty() && !readers;
        }
    }

    /** What the header says: its version, and who holds the file. */
    public record Found(int major, int minor, Holders holders)
    {
        /** "6.0". */
        public String version()
        {
            return major + "." + minor;
        }
    }

    /**
     * The major version of a header mapped at {@code m} when it is an older layout's (the magic right, the
     * version word not 0, its major from 1 to VERSION_MAJOR - 1), else 0.
     */
    static int olderMajor(final Memory m)
    {
        if (m.capacity() < HEADER_LENGTH || m.getLong(MAGIC_OFFSET) != MAGIC)
        {
            return 0;
        }
        final int major = m.getIntAcquire(VERSION_OFFSET) >>> 16;
        return major >= 1 && major < VERSION_MAJOR ? major : 0;
    }

    /**
     * AV file {@code file} read as an older layout's, or null when it is not one (a current AV, a newer
     * one, not a shmav AV at all, or gone). Opens it read-only; never writes it.
     */
    public static Found probe(final Path file)
    {
        final AvFileChannel ch;
        try
        {
            ch = SharedAvFile.openChannel(file, file.getFileName().toString(), false);
        }
        catch (final FabricException e)
        {
            return null;
        }
        try
        {
            final FileChannel fc = ch.channelFor(false);
            final long size = fc.size();
            if (size < HEADER_LENGTH)
            {
                return null;
            }
            final Memory header = new Memory(fc.map(FileChannel.MapMode.READ_ONLY, 0, HEADER_LENGTH));
            final int major = olderMajor(header);
            if (major == 0)
            {
                return null;
            }
            final int minor = header.getIntAcquire(VERSION_OFFSET) & 0xFFFF;
            return new Found(major, minor, major < LIVENESS_SINCE_MAJOR
                ? unknown("layout " + major + "." + minor + " tells its writers' liveness by pid and start time or " +
                    "by locks in the AV file, which this version cannot test")
                : holders(file, ch, fc, header, size));
        }
        catch (final IOException e)
        {
            return null;
        }
        finally
        {
            ch.close();
        }
    }

    private static Holders unknown(final String why)
    {
        return new Holders(false, List.of(), false, why);
    }

    /** Who holds a 4.0 or later file: its readers' byte, and each taken attacher entry's byte in the lock file. */
    private static Holders holders(final Path file, final AvFileChannel ch, final FileChannel fc, final Memory header,
        final long size) throws IOException
    {
        final boolean readers = ch.locks().probeExclusive(READERS_LOCK_OFFSET, 1) == AvFileLocks.Probe.HELD;
        final long offset = header.getLong(ATTACHERS_OFFSET_OFFSET);
        final long capacity = header.getInt(ATTACHERS_CAPACITY_OFFSET) & 0xFFFF_FFFFL;
        final long entries = Math.min(header.getLong(ATTACHERS_HIGH_WATER_OFFSET), capacity);
        if (entries < 0 || capacity > 1 << 16 || offset < HEADER_LENGTH || offset % 64 != 0 || offset > size ||
            64 * entries > size - offset)
        {
            return unknown("its attacher fields are damaged");
        }
        if (entries == 0)
        {
            return new Holders(true, List.of(), readers, null);
        }
        final Memory attachers = new Memory(fc.map(FileChannel.MapMode.READ_ONLY, offset, 64 * entries));
        final Path lockPath = AvLockFile.of(file);
        final AvFileChannel locks = AvLockFile.openForProbe(file);
        try
        {
            final boolean named = locks != null && locks.isNamedBy(lockPath) &&
                FileIdentity.lockFileOf(header).equals(FileIdentity.of(lockPath));
            final List<Long> pids = new ArrayList<>();
            for (int a = 0; a < entries; a++)
            {
                if (attachers.getLongVolatile(64 * a + AttacherDescriptor.TOKEN_OFFSET) == 0)
                {
                    continue;
                }
                if (!named)
                {
                    return unknown("writer entries are taken and its lock file " + lockPath + " is missing, " +
                        "not the one it was created with, or not readable by this user");
                }
                if (locks.locks().probe(offset + 64L * a + AttacherDescriptor.LOCK_OFFSET) == AvFileLocks.Probe.HELD)
                {
                    pids.add(attachers.getLong(64 * a + AttacherDescriptor.PID_OFFSET));
                }
            }
            return new Holders(true, pids, readers, null);
        }
        finally
        {
            if (locks != null)
            {
                locks.close();
            }
        }
    }
}
