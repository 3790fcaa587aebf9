package org.shmav.shm;

import static org.shmav.shm.AvFileDescriptor.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * The file of a named AV: name checks, atomic creation, validated attach, read-only attach, unlink.
 * What the file holds is {@link AvLayout}'s business; what an open means for an AV is the av layer's.
 *
 * <p>Creation builds the whole file under a private temporary name in the same directory, writing
 * every page (so a full file system fails here with FI_ENOSPC, never later with SIGBUS), fills it,
 * writes the version word last, and then publishes it with a hard link to the AV's name. The link
 * fails if the name exists, in which case the creator lost a race and attaches instead. No process
 * ever sees a half-built file under the name, and an existing file is never re-initialised.
 */
public final class SharedAvFile
{
    /** Longest name, in UTF-8 bytes (the file name adds nothing to it). */
    public static final int MAX_NAME_BYTES = 200;
    /** How long an opener waits for a file's version word before calling it not ready. */
    static final long READY_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);

    /** Names a creator tries for its temporary file before it gives up ({@link #createTemporary}). */
    static final int TEMPORARY_NAME_TRIES = 16;
    /** Where the n of a temporary name comes from; tests make it repeat. */
    static LongSupplier temporaryNumbers = () -> ThreadLocalRandom.current().nextLong();

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> OWNER_AND_GROUP = PosixFilePermissions.fromString("rw-rw----");

    private SharedAvFile()
    {
    }

    /**
     * An AV file mapped and validated: its memory, the layout read from its header, and this JVM's open
     * file of it (its record locks say who is alive; close it when done).
     */
    public record Mapped(Memory memory, AvLayout layout, AvFileChannel file)
    {
    }

    /** File names of AVs being built start with this; no AV name does (names cannot start with '.'). */
    public static final String TEMPORARY_PREFIX = ".shmav-tmp.";

    /**
     * The pid of the process that created temporary file {@code fileName}
     * ({@code .shmav-tmp.<name>.<pid>.<hex>}, a new AV being built), or -1 when the name is not one.
     */
    public static long temporaryCreator(final String fileName)
    {
        if (!fileName.startsWith(TEMPORARY_PREFIX))
        {
            return -1;
        }
        final int hex = fileName.lastIndexOf('.');
        final int pid = fileName.lastIndexOf('.', hex - 1);
        if (pid < TEMPORARY_PREFIX.length() || hex == fileName.length() - 1)
        {
            return -1;
        }
        try
        {
            Long.parseUnsignedLong(fileName.substring(hex + 1), 16);
            final long creator = Long.parseLong(fileName.substring(pid + 1, hex));
            return creator > 0 ? creator : -1;
        }
        catch (final NumberFormatException e)
        {
            return -1;
        }
    }

    /** The file name of AV {@code name} by {@link AvName}'s rules (without the encoding check); FI_EINVAL. */
    public static String fileName(final String name)
    {
        return AvName.fileName(name);
    }

    /**
     * Builds a new AV file of {@code layout} under a temporary name, lets {@code fill} initialise it
     * (writing the version word last), and publishes it under {@code file} with a hard link. The
     * creator holds the file's creator lock byte while it builds, so that {@code shmav gc} can tell a
     * dead creator's leftover from a file being built. With {@code exclusive}, a name that exists
     * already is FI_EEXIST; without, the existing file (another creator won) is attached instead.
     * Returns what {@code use} makes of the mapping of the file now under the name, checked like any
     * attach: it runs while this creator still holds the lock file's creator byte, so that no remover can
     * take the AV (or its lock file) away between the link and the caller's joining it as a writer
     * (shm-layout.md, WRITER'S CHECKLIST, Create, step 4).
     */
    public static <R> R create(final Path file, final String name, final AvLayout layout, final boolean groupAccess,
        final boolean exclusive, final Consumer<Memory> fill, final Function<Mapped, R> use)
    {
        if (layout.fileLength() > MAX_FILE_LENGTH)
        {
            throw new FabricException(FiErrno.EINVAL, "count=" + layout.capacity() + " needs a " +
                layout.fileLength() + "-byte file; the largest is " + MAX_FILE_LENGTH);
        }
        final Set<PosixFilePermission> mode = groupAccess ? OWNER_AND_GROUP : OWNER_ONLY;
        Path tmp = null; // removed at the end: only once this creator made it, never another's of that name
        AvFileChannel built = null;
        AvFileChannel locks = null;
        try
        {
            final Temporary made = createTemporary(file, mode);
            tmp = made.path();
            final FileChannel ch = made.channel();
            // From here the registry owns ch: this JVM closes no descriptor of the file while it uses it.
            built = AvFileChannel.adoptNew(tmp, ch);
            built.locks().tryLock(CREATOR_LOCK_OFFSET);
            Files.setPosixFilePermissions(tmp, mode); // the umask may have dropped the group bits
            commitPages(ch, layout.fileLength());
            final Memory header = new Memory(ch.map(FileChannel.MapMode.READ_WRITE, 0, layout.fileLength()));
            locks = AvLockFileCreator.prepare(file, tmp, name, mode, header); // before the AV is published: every writer finds it
            fill.accept(header);
            try
            {
                Files.createLink(file, tmp);
            }
            catch (final FileAlreadyExistsException e)
            {
                if (exclusive)
                {
                    throw new FabricException(FiErrno.EEXIST, "named AV '" + name + "' already exists in " +
                        file.getParent() + ": open it without createOnly to attach, or remove it with 'shmav rm " + name + "'");
                }
                built.close(); // before the attach: this file is not the one under the name
                built = null;
            }
            return use.apply(attach(file, name, false, groupAccess)); // joins built, the same file, when the link was ours
        }
        catch (final IOException e)
        {
            throw ioFailure(name, file, e);
        }
        finally
        {
            if (built != null)
            {
                built.locks().unlock(CREATOR_LOCK_OFFSET);
                built.close();
            }
            if (locks != null)
            {
                locks.locks().unlock(CREATOR_LOCK_OFFSET);
                locks.close();
            }
            try
            {
                if (tmp != null)
                {
                    Files.deleteIfExists(tmp);
                }
            }
            catch (final IOException ignored)
            {
                // the temporary name is ours alone; a leftover is found by 'shmav gc'
            }
        }
    }

    /** A creator's temporary file, made with {@code O_EXCL}, and the channel it was made through. */
    private record Temporary(Path path, FileChannel channel)
    {
    }

    /**
     * Makes the temporary file of a new AV {@code file}: {@code .shmav-tmp.<name>.<pid>.<n>}, n 64
     * random bits in hex. The name may be taken: by another thread of this JVM creating the same AV,
     * or by a creator of the same pid in another pid namespace sharing the directory; a time stamp
     * for n was, when two threads read the same nanosecond. Then it tries another n: a name taken is
     * another creator's file, which is never touched.
     */
    private static Temporary createTemporary(final Path file, final Set<PosixFilePermission> mode) throws IOException
    {
        for (int attempt = 1; ; attempt++)
        {
            final Path tmp = file.resolveSibling(TEMPORARY_PREFIX + file.getFileName() + "." + Processes.SELF_PID +
                "." + Long.toHexString(temporaryNumbers.getAsLong()));
            try
            {
                return new Temporary(tmp, FileChannel.open(tmp, Set.of(StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                    PosixFilePermissions.asFileAttribute(mode)));
            }
            catch (final FileAlreadyExistsException e)
            {
                if (attempt == TEMPORARY_NAME_TRIES)
                {
                    throw new FileSystemException(tmp.toString(), null, TEMPORARY_NAME_TRIES + " temporary names in a " +
                        "row were taken (files planted under them?): remove the .shmav-tmp.* files there ('shmav gc')");
                }
            }
        }
    }

    /** Writes every byte of the file, so that tmpfs allocates every page now. */
    private static void commitPages(final FileChannel ch, final long length) throws IOException
    {
        final ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
        long at = 0;
        while (at < length)
        {
            zeros.clear().limit((int)Math.min(zeros.capacity(), length - at));
            at += ch.write(zeros, at);
        }
    }

    /**
     * Maps an existing AV file and checks it: a regular file reached without a symbolic link, ready,
     * of a layout this version reads ({@link AvLayout#read}), and for a writer owned by this user (or
     * by its group, when {@code groupAccess}) with every page allocated. FI_ENOENT, FI_EACCES,
     * FI_ENOSPC or FI_EINVAL with the reason when it cannot be used. Close the result's
     * {@link Mapped#file()} when done.
     */
    public static Mapped attach(final Path file, final String name, final boolean readOnly, final boolean groupAccess)
    {
        final AvFileChannel ch = openChannel(file, name, !readOnly);
        try
        {
            if (!readOnly)
            {
                FileOwnership.checkWritable(file, name, groupAccess);
            }
            // The header first, then exactly the length it publishes: the file may be longer (a growth in
            // progress, or ranges growers took and did not publish), and its size is no length to map.
            final Memory header = mapHeader(ch, file, name, readOnly);
            awaitReady(header, name);
            final Mapped mapped = SegmentFile.mapPublished(header, ch, readOnly,
                "named AV '" + name + "' (" + file + ")");
            if (!readOnly)
            {
                FileOwnership.allocateEveryPage(mapped.memory(), file, name);
            }
            return mapped;
        }
        catch (final RuntimeException | Error e)
        {
            ch.close();
            throw e;
        }
    }

    /** Waits (bounded) for the version word of a file with shmav's magic; the layout is checked next. */
    private static void awaitReady(final Memory header, final String name)
    {
        final long deadline = System.nanoTime() + READY_WAIT_NANOS;
        while (header.getLong(MAGIC_OFFSET) == MAGIC && header.getIntAcquire(VERSION_OFFSET) == 0)
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw invalid("named AV '" + name + "' never became ready (version word is 0): " +
                    "its creator died; remove it with 'shmav rm " + name + "'");
            }
            Thread.onSpinWait();
        }
    }

    /** The file's own attributes (a link's, not its target's), or null when it does not exist or cannot be read. */
    private static BasicFileAttributes attributesOrNull(final Path file)
    {
        try
        {
            return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        }
        catch (final IOException e)
        {
            return null; // gone, or not ours to stat: the open says which
        }
    }

    /** Opens (or joins this JVM's open file of) {@code file} after checking it is a regular file, not a link. */
    public static AvFileChannel openChannel(final Path file, final String name, final boolean write)
    {
        // Checked before opening, in one look (a file removed meanwhile is no other kind of file): opening
        // a FIFO blocks until a writer comes, possibly forever. A file that does not exist fails the open.
        final BasicFileAttributes kind = attributesOrNull(file);
        if (kind != null && kind.isSymbolicLink())
        {
            throw invalid("'" + file + "' is a symbolic link; named AVs are never opened through links");
        }
        if (kind != null && !kind.isRegularFile())
        {
            throw invalid("'" + file + "' is not a regular file");
        }
        try
        {
            return AvFileChannel.open(file, write);
        }
        catch (final IOException e)
        {
            throw ioFailure(name, file, e);
        }
    }

    /**
     * Maps the header page read-only or read-write after checking the file holds one. Only the header: its
     * published length says how much more to map. No upper bound on the size: the file may run past the
     * largest mapping (2^31 - 1 bytes) with zeros growers appended and never published (shm-layout.md,
     * GROWTH), which nobody maps; the header's checks bound the published length.
     */
    static Memory mapHeader(final AvFileChannel file, final Path path, final String name, final boolean readOnly)
    {
        try
        {
            final FileChannel ch = file.channelFor(!readOnly);
            final long size = ch.size();
            if (size < HEADER_LENGTH)
            {
                throw invalid("named AV '" + name + "' (" + path + ") is " + size +
                    " bytes: not a shmav AV, or truncated");
            }
            return new Memory(ch.map(readOnly ? FileChannel.MapMode.READ_ONLY : FileChannel.MapMode.READ_WRITE, 0,
                HEADER_LENGTH));
        }
        catch (final IOException e)
        {
            throw ioFailure(name, path, e);
        }
    }

    /** {@code Domain.unlinkAv}: removes the file only when it is a valid shmav AV; see {@link AvRemover#unlink}. */
    public static boolean unlink(final Path dir, final String name)
    {
        return AvRemover.unlink(dir, name, null);
    }

    /** {@code Domain.unlinkAv} of a name checked already: see {@link AvRemover#unlink}. */
    public static boolean unlink(final Path dir, final AvName name)
    {
        return AvRemover.unlink(dir, name, null);
    }

    /** {@link AvRemover#unlink}: removes AV {@code name} and its lock file by identity. */
    public static boolean unlink(final Path dir, final String name, final FileIdentity expected)
    {
        return AvRemover.unlink(dir, name, expected);
    }

    /** {@link #unlink(Path, String, FileIdentity)} of a name checked already. */
    public static boolean unlink(final Path dir, final AvName name, final FileIdentity expected)
    {
        return AvRemover.unlink(dir, name, expected);
    }

    static FabricException ioFailure(final String name, final Path file, final IOException e)
    {
        if (e instanceof NoSuchFileException)
        {
            return new FabricException(FiErrno.ENOENT, "named AV '" + name + "' does not exist in " +
                file.getParent(), e);
        }
        if (e instanceof AccessDeniedException)
        {
            return new FabricException(FiErrno.EACCES, "no permission to open '" + file +
                "': it belongs to another user or group", e);
        }
        final String reason = String.valueOf(e.getMessage());
        if (NoRoom.fileSystemFull(e))
        {
            return new FabricException(FiErrno.ENOSPC, "no space for named AV '" + name + "' in " +
                file.getParent() + ": free space there or use a smaller count", e);
        }
        if (NoRoom.overFileSizeLimit(e))
        {
            return new FabricException(FiErrno.ENOSPC, "named AV '" + name + "' does not fit under this " +
                "process's file size limit (RLIMIT_FSIZE, ulimit -f): raise it or use a smaller count", e);
        }
        if (e instanceof FileSystemException && reason.contains("symbolic links"))
        {
            return invalid("'" + file + "' is a symbolic link; named AVs are never opened through links");
        }
        return new FabricException(FiErrno.EIO, "I/O error on '" + file + "': " + reason, e);
    }

    static FabricException invalid(final String detail)
    {
        return new FabricException(FiErrno.EINVAL, detail);
    }
}
