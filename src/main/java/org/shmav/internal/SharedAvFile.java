package org.shmav.internal;

import static org.shmav.internal.AvFileDescriptor.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;

/**
 * The file of a named AV: name checks, atomic creation, validated attach, read-only attach, unlink.
 *
 * <p>Creation builds the whole file under a private temporary name in the same directory, writing
 * every page (so a full file system fails here with FI_ENOSPC, never later with SIGBUS), fills it,
 * writes the version word last, and then publishes it with a hard link to the AV's name. The link
 * fails if the name exists, in which case the creator lost a race and attaches instead. No process
 * ever sees a half-built file under the name, and an existing file is never re-initialised.
 */
public final class SharedAvFile
{
    /** Capacity of a named AV created with count 0. */
    public static final long DEFAULT_COUNT = 1024;
    /** Processes that can have one named AV open for writing at once. */
    public static final int ATTACHERS_CAPACITY = 1024;
    /** Longest name, in UTF-8 bytes (the file name adds nothing to it). */
    public static final int MAX_NAME_BYTES = 200;
    /** How long an opener waits for a file's version word before calling it not ready. */
    static final long READY_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> OWNER_AND_GROUP = PosixFilePermissions.fromString("rw-rw----");

    private SharedAvFile()
    {
    }

    /** What an open produced: the region, the attributes as resolved against the file, this handle's map base. */
    record Opened(Region region, AvAttr attr, long mapBase)
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

    /**
     * The file name of AV {@code name}: as libfabric, leading slashes are dropped and spaces become
     * underscores. FI_EINVAL for an empty name, ".", "..", a name starting with '.', one holding '/',
     * NUL or a control character (C0, DEL or C1), one that is not valid Unicode (an unpaired surrogate,
     * which has no UTF-8 form), or one longer than {@value #MAX_NAME_BYTES} bytes in UTF-8. Other
     * non-ASCII names are allowed.
     */
    public static String fileName(final String name)
    {
        if (name == null)
        {
            throw invalid("fi_av_open", "name is null");
        }
        int start = 0;
        while (start < name.length() && name.charAt(start) == '/')
        {
            start++;
        }
        final String n = name.substring(start).replace(' ', '_');
        if (n.isEmpty() || n.charAt(0) == '.')
        {
            throw invalid("fi_av_open", "name '" + printable(name) + "' is empty or starts with '.'");
        }
        for (int i = 0; i < n.length(); i++)
        {
            final char c = n.charAt(i);
            if (c == '/' || Character.isISOControl(c))
            {
                throw invalid("fi_av_open", "name '" + printable(name) + "' holds '/', NUL or a control character");
            }
            if (Character.isHighSurrogate(c) && i + 1 < n.length() && Character.isLowSurrogate(n.charAt(i + 1)))
            {
                i++; // a valid pair: one code point beyond U+FFFF
            }
            else if (Character.isSurrogate(c))
            {
                throw invalid("fi_av_open", "name '" + printable(name) + "' holds an unpaired surrogate: not valid UTF-8");
            }
        }
        if (n.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES)
        {
            throw invalid("fi_av_open", "name is longer than " + MAX_NAME_BYTES + " bytes");
        }
        return n;
    }

    /** The path of AV {@code name} in {@code dir}; FI_EINVAL when the name is invalid or the platform cannot encode it. */
    static Path path(final Path dir, final String name, final String call)
    {
        final String fileName = fileName(name);
        try
        {
            return dir.resolve(fileName);
        }
        catch (final java.nio.file.InvalidPathException e)
        {
            throw invalid(call, "name '" + printable(name) + "' cannot be a file name with sun.jnu.encoding=" +
                System.getProperty("sun.jnu.encoding") + " (run with a UTF-8 locale, or use an ASCII name)");
        }
    }

    static Opened open(final DomainAttr domain, final AvAttr attr, final AvType requestedType)
    {
        final Path file = path(domain.shmDirectory(), attr.name(), "fi_av_open");
        final boolean readOnly = (attr.flags() & Fi.READ) != 0;
        Region region = null;
        for (int attempt = 0; region == null; attempt++)
        {
            if (readOnly || Files.exists(file, LinkOption.NOFOLLOW_LINKS))
            {
                try
                {
                    region = attach(file, attr.name(), readOnly);
                }
                catch (final FabricException e)
                {
                    // the file vanished between the check and the open (unlinked): create it anew
                    if (readOnly || e.errno() != FiErrno.ENOENT || attempt > 3)
                    {
                        throw e;
                    }
                }
            }
            else
            {
                region = create(domain, attr, file);
            }
        }
        try
        {
            return resolve(domain, attr, requestedType, region);
        }
        catch (final RuntimeException e)
        {
            region.detach();
            throw e;
        }
    }

    private static Opened resolve(final DomainAttr domain, final AvAttr attr, final AvType requestedType,
        final Region region)
    {
        final AvLayout layout = region.layout();
        final String name = attr.name();
        if (layout.addrFormat() != domain.addrFormat())
        {
            throw invalid("fi_av_open", "named AV '" + name + "' holds " + layout.addrFormat().fiName() +
                " addresses: caller=" + domain.addrFormat().fiName() + " file=" + layout.addrFormat().fiName());
        }
        if (requestedType != AvType.UNSPEC && requestedType != layout.avType())
        {
            throw invalid("fi_av_open", "named AV '" + name + "' has another type: caller=" + requestedType.fiName() +
                " file=" + layout.avType().fiName());
        }
        if (attr.count() != 0 && attr.count() != layout.capacity())
        {
            throw invalid("fi_av_open", "named AV '" + name + "' has another count: caller=" + attr.count() +
                " file=" + layout.capacity() + " (pass 0 to accept the file's)");
        }
        if (domain.avAuthKey() && (layout.authKeySize() != domain.authKeySize() || layout.authKeysCapacity() == 0))
        {
            throw invalid("fi_av_open", "named AV '" + name + "' has another auth-key size: caller=" +
                domain.authKeySize() + " file=" + layout.authKeySize());
        }
        final long mapBase = attr.mapAddr() != 0 ? attr.mapAddr() : region.storedMapBase();
        if (region.writer() != null)
        {
            region.table().recoverDead();
            region.table().finishAbandonedRebuild(region.writer());
        }
        final AvAttr resolved = attr.toBuilder().type(layout.avType()).count(layout.capacity()).mapAddr(mapBase).build();
        return new Opened(region, resolved, mapBase);
    }

    private static Region create(final DomainAttr domain, final AvAttr attr, final Path file)
    {
        final long capacity = attr.count() == 0 ? DEFAULT_COUNT : attr.count();
        final AvLayout layout = AvLayout.compute(domain.addrFormat(), attr.type(), capacity, ATTACHERS_CAPACITY,
            domain.avAuthKey() ? domain.authKeySize() : 0, domain.avAuthKey() ? AddressVectorImpl.AUTH_KEYS_CAPACITY : 0);
        if (layout.fileLength() > Integer.MAX_VALUE)
        {
            throw new FabricException("fi_av_open", FiErrno.EINVAL, "count=" + capacity + " needs a " +
                layout.fileLength() + "-byte file; the largest is " + Integer.MAX_VALUE);
        }
        final Set<PosixFilePermission> mode = attr.groupAccess() ? OWNER_AND_GROUP : OWNER_ONLY;
        final Path tmp = file.resolveSibling(TEMPORARY_PREFIX + file.getFileName() + "." + Processes.SELF_PID + "." +
            Long.toHexString(System.nanoTime()));
        try
        {
            try (FileChannel ch = FileChannel.open(tmp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), PosixFilePermissions.asFileAttribute(mode)))
            {
                Files.setPosixFilePermissions(tmp, mode); // the umask may have dropped the group bits
                commitPages(ch, layout.fileLength());
                final MappedByteBuffer mapped = ch.map(FileChannel.MapMode.READ_WRITE, 0, layout.fileLength());
                final long base = attr.mapAddr() != 0 ? attr.mapAddr() : generatedMapBase();
                Region.initialize(new Memory(mapped), layout, base, attr.flags() & (Fi.AV_USER_ID | Fi.SYMMETRIC),
                    attr.rxCtxBits());
            }
            try
            {
                Files.createLink(file, tmp);
            }
            catch (final FileAlreadyExistsException e)
            {
                return attach(file, attr.name(), false); // another process created it first
            }
            return attach(file, attr.name(), false);
        }
        catch (final IOException e)
        {
            throw ioFailure("fi_av_open", attr.name(), file, e);
        }
        finally
        {
            try
            {
                Files.deleteIfExists(tmp);
            }
            catch (final IOException ignored)
            {
                // the temporary name is ours alone; a leftover is harmless and ignored by tools
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

    private static long generatedMapBase()
    {
        return ThreadLocalRandom.current().nextLong(1, 1L << 16) << 32;
    }

    /** Maps an existing AV file and checks it; FI_ENOENT, FI_EACCES or FI_EINVAL with the reason when it cannot be used. */
    static Region attach(final Path file, final String name, final boolean readOnly)
    {
        final Memory m = map(file, name, readOnly, "fi_av_open");
        final long deadline = System.nanoTime() + READY_WAIT_NANOS;
        while (m.getLong(MAGIC_OFFSET) == MAGIC && m.getIntAcquire(VERSION_OFFSET) == 0)
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw invalid("fi_av_open", "named AV '" + name + "' never became ready (version word is 0): " +
                    "its creator died; remove it with 'shmav rm " + name + "'");
            }
            Thread.onSpinWait();
        }
        try
        {
            final AvLayout layout = AvLayout.read(m, m.capacity());
            return new Region(m, layout, !readOnly);
        }
        catch (final AvLayout.LayoutException e)
        {
            throw new FabricException("fi_av_open", e.errno(), "named AV '" + name + "' (" + file + "): " + e.getMessage());
        }
    }

    /** Maps a file read-only or read-write after checking it is a regular file of a size a region can have. */
    static Memory map(final Path file, final String name, final boolean readOnly, final String call)
    {
        if (Files.isSymbolicLink(file))
        {
            throw invalid(call, "'" + file + "' is a symbolic link; named AVs are never opened through links");
        }
        // Checked before opening: opening a FIFO blocks until a writer comes, possibly forever.
        if (Files.exists(file, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS))
        {
            throw invalid(call, "'" + file + "' is not a regular file");
        }
        final Set<OpenOption> options = readOnly
            ? Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)
            : Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
        try (FileChannel ch = FileChannel.open(file, options))
        {
            final long size = ch.size();
            if (size < HEADER_LENGTH || size > Integer.MAX_VALUE)
            {
                throw invalid(call, "named AV '" + name + "' (" + file + ") is " + size +
                    " bytes: not a shmav AV, or truncated");
            }
            return new Memory(ch.map(readOnly ? FileChannel.MapMode.READ_ONLY : FileChannel.MapMode.READ_WRITE, 0, size));
        }
        catch (final IOException e)
        {
            throw ioFailure(call, name, file, e);
        }
    }

    /** {@code Domain.unlinkAv}: removes the file only when it is a valid shmav AV. */
    static boolean unlink(final Path dir, final String name)
    {
        final Path file = path(dir, name, "fi_av_unlink");
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS))
        {
            return false;
        }
        final Memory m = map(file, name, true, "fi_av_unlink");
        try
        {
            AvLayout.read(m, m.capacity());
        }
        catch (final AvLayout.LayoutException e)
        {
            throw invalid("fi_av_unlink", "'" + file + "' is not a valid shmav AV, so it was left alone: " + e.getMessage());
        }
        try
        {
            return Files.deleteIfExists(file);
        }
        catch (final IOException e)
        {
            throw ioFailure("fi_av_unlink", name, file, e);
        }
    }

    private static FabricException ioFailure(final String call, final String name, final Path file, final IOException e)
    {
        if (e instanceof NoSuchFileException)
        {
            return new FabricException(call, FiErrno.ENOENT, "named AV '" + name + "' does not exist in " +
                file.getParent(), e);
        }
        if (e instanceof AccessDeniedException)
        {
            return new FabricException(call, FiErrno.EACCES, "no permission to open '" + file +
                "': it belongs to another user or group", e);
        }
        final String reason = String.valueOf(e.getMessage());
        if (reason.contains("No space left") || reason.contains("Disk quota"))
        {
            return new FabricException(call, FiErrno.ENOSPC, "no space for named AV '" + name + "' in " +
                file.getParent() + ": free space there or use a smaller count", e);
        }
        if (reason.contains("File too large"))
        {
            return new FabricException(call, FiErrno.ENOSPC, "named AV '" + name + "' does not fit under this " +
                "process's file size limit (RLIMIT_FSIZE, ulimit -f): raise it or use a smaller count", e);
        }
        if (e instanceof FileSystemException && reason.contains("symbolic links"))
        {
            return invalid(call, "'" + file + "' is a symbolic link; named AVs are never opened through links");
        }
        return new FabricException(call, FiErrno.EIO, "I/O error on '" + file + "': " + reason, e);
    }

    private static String printable(final String s)
    {
        final StringBuilder b = new StringBuilder();
        for (final char c : s.toCharArray())
        {
            if (Character.isISOControl(c) || Character.isSurrogate(c))
            {
                b.append(String.format("\\u%04x", (int)c));
            }
            else
            {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static FabricException invalid(final String call, final String detail)
    {
        return new FabricException(call, FiErrno.EINVAL, detail);
    }
}
