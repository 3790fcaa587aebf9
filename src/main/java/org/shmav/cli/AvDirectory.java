package org.shmav.cli;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

import org.shmav.AddrFormat;
import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.job.JobFile;
import org.shmav.slots.Region;
import org.shmav.shm.AvLockFile;
import org.shmav.shm.AvName;
import org.shmav.shm.FileOwnership;
import org.shmav.shm.SharedAvFile;
import org.shmav.slots.ToolAccess;

/**
 * The directory of named AVs as the CLI sees it: turns a name into its file (with the library's name
 * rules), tells a missing AV from a file that is not an AV, and lists the files an {@code ls} or
 * {@code gc} looks at. Every error is a {@link CliException} with its exit code.
 */
final class AvDirectory
{
    private final Path dir;

    /** File systems on which no user makes directories: a mkdir there fails whatever the mode bits say. */
    private static final Set<String> VIRTUAL_FILE_SYSTEMS = Set.of("proc", "sysfs", "cgroup",
        "cgroup2", "debugfs", "securityfs", "configfs");

    private AvDirectory(final Path dir)
    {
        this.dir = dir;
    }

    /** The directory {@code dir} (chosen by {@code source}: "--dir", "$SHMAV_DIR" ...), which must exist. */
    static AvDirectory of(final Path dir, final String source)
    {
        if (!Files.isDirectory(dir))
        {
            if (Files.exists(dir))
            {
                throw new CliException(ExitCode.NOT_FOUND, dir + " (from " + source + ") is not a directory; choose " +
                    "another with --dir");
            }
            final Path base = existingAncestor(dir);
            if (base == null || !canHoldDirectories(base))
            {
                throw new CliException(ExitCode.NOT_FOUND, "directory " + dir + " (from " + source + ") does not exist, " +
                    "and nothing can be created under " + base + " (a read-only or virtual file system): choose another " +
                    "directory with --dir or SHMAV_DIR (e.g. one under /dev/shm)");
            }
            throw new CliException(ExitCode.NOT_FOUND, "directory " + dir + " (from " + source + ") does not exist: " +
                "'" + CommandNames.shmav() + " create NAME --count N' makes it (mode 0700), or create it with: mkdir -p -m " +
                "0700 " + dir);
        }
        return new AvDirectory(dir);
    }

    /** The nearest ancestor of {@code dir} that exists, or null. */
    private static Path existingAncestor(final Path dir)
    {
        Path p = dir.toAbsolutePath().getParent();
        while (p != null && !Files.exists(p))
        {
            p = p.getParent();
        }
        return p;
    }

    /** Whether a mkdir under {@code base} could work: a writable directory of a real file system (not /proc, /sys). */
    private static boolean canHoldDirectories(final Path base)
    {
        try
        {
            return Files.isDirectory(base) && Files.isWritable(base) &&
                !VIRTUAL_FILE_SYSTEMS.contains(Files.getFileStore(base).type()) && !Files.getFileStore(base).isReadOnly();
        }
        catch (final IOException e)
        {
            return false;
        }
    }

    /**
     * Creates {@code dir} and its missing parents with mode 0700 (only the user's: the AVs inside hold
     * addresses), as avrun does; true when it did. Names the mkdir command when it cannot.
     */
    static boolean create(final Path dir, final String source)
    {
        if (Files.exists(dir))
        {
            return false;
        }
        try
        {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            return true;
        }
        catch (final IOException | UnsupportedOperationException e)
        {
            throw new CliException(e instanceof java.nio.file.AccessDeniedException ? ExitCode.PERMISSION : ExitCode.FAILED,
                Answers.cannotCreateDirectory(dir, source, e instanceof IOException io ? io : new IOException(e.getMessage())));
        }
    }

    Path path()
    {
        return dir;
    }

    /** AV name {@code name}, checked once here; BAD_NAME for a name the library refuses. */
    static AvName nameOf(final String name)
    {
        try
        {
            return AvName.of(name);
        }
        catch (final FabricException e)
        {
            throw new CliException(ExitCode.BAD_NAME, Answers.badName(e));
        }
    }

    /** The file of AV {@code name}, whether or not it exists; BAD_NAME for a name the library refuses. */
    Path fileOf(final String name)
    {
        return nameOf(name).in(dir);
    }

    /** The file of AV {@code name}, which must exist (as anything: its validity is checked on opening). */
    Path existingFileOf(final String name)
    {
        return existingFileOf(nameOf(name), null);
    }

    /** {@link #existingFileOf(String)}, with what to do (e.g. the create command) when it does not exist. */
    Path existingFileOf(final String name, final String hint)
    {
        return existingFileOf(nameOf(name), hint);
    }

    /** {@link #existingFileOf(String, String)} of a name checked already. */
    Path existingFileOf(final AvName name, final String hint)
    {
        final Path file = name.in(dir);
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS))
        {
            throw new CliException(ExitCode.NOT_FOUND, "no AV named '" + name + "' in " + dir + (hint != null ? "; " + hint : ""));
        }
        return file;
    }

    /** The address format of the AV in {@code file}, read through a tool's region that is detached again. */
    static AddrFormat addrFormatOf(final Path file)
    {
        return shapeOf(file).format();
    }

    /** The address format, length and kind of length of the AV file {@code file} (what an opener's domain must ask for). */
    static org.shmav.shm.AddrShape shapeOf(final Path file)
    {
        final Region region = openReadOnly(file);
        try
        {
            return region.layout().shape();
        }
        finally
        {
            region.detach();
        }
    }

    /** Domain attributes whose AVs have the addresses of {@code shape}. */
    static org.shmav.DomainAttr.Builder domainFor(final org.shmav.shm.AddrShape shape)
    {
        final org.shmav.DomainAttr.Builder b = org.shmav.DomainAttr.builder().addrFormat(shape.format());
        if (shape.format() == AddrFormat.FORMAT_UNSPEC)
        {
            return shape.varying() ? b.maxAddrLen(shape.addrLen()) : b.addrLen(shape.addrLen());
        }
        return b;
    }

    /** Maps the AV file {@code file} read-only; NOT_AN_AV, NOT_FOUND or PERMISSION when it cannot be read as one. */
    static Region openReadOnly(final Path file)
    {
        try
        {
            return ToolAccess.openReadOnly(file);
        }
        catch (final FabricException e)
        {
            throw asCliException(file, e);
        }
    }

    /** A library error on opening {@code file}, as the CLI reports it. */
    static CliException asCliException(final Path file, final FabricException e)
    {
        if (e.errno() == FiErrno.EINVAL)
        {
            return new CliException(ExitCode.NOT_AN_AV, file + " is not a valid shmav AV: " + reason(e));
        }
        return new CliException(CliException.exitCodeOf(e), reason(e));
    }

    /**
     * {@link #asCliException(Path, FabricException)} for a command that writes, with {@code --group} or
     * without: the library's advice for another user's AV names the API's groupAccess, the option here.
     */
    static CliException asCliException(final Path file, final FabricException e, final boolean groupAccess)
    {
        final CliException c = asCliException(file, e);
        final String reason = reason(e);
        if (e.errno() != FiErrno.EACCES || groupAccess || !reason.endsWith(FileOwnership.GROUP_ADVICE))
        {
            return c;
        }
        return new CliException(c.exitCode(), reason.substring(0, reason.length() - FileOwnership.GROUP_ADVICE.length()) +
            "; if it is your group's AV, add --group");
    }

    /** The library's message without the call and errno prefix, for one-line reports. */
    static String reason(final FabricException e)
    {
        return e.detail();
    }

    /** Every entry of the directory except hidden ones (shmav's temporary files start with '.'), sorted by name. */
    List<Path> entries()
    {
        return list(name -> !name.startsWith("."), false);
    }

    /** The regular files named as shmav's temporary files of AVs being built, sorted by name. */
    List<Path> temporaries()
    {
        return list(name -> SharedAvFile.temporaryCreator(name) > 0, true);
    }

    /** The regular files named as job files ({@code .shmav-job.<AV name>}), sorted by name. */
    List<Path> jobFiles()
    {
        return list(name -> JobFile.avNameOf(name) != null, true);
    }

    /** The regular files named as AVs' lock files ({@code .shmav-lock.<AV name>}), sorted by name. */
    List<Path> lockFiles()
    {
        return list(name -> AvLockFile.avNameOf(name) != null, true);
    }

    private List<Path> list(final Predicate<String> named, final boolean regularOnly)
    {
        final List<Path> list = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir))
        {
            for (final Path p : stream)
            {
                if (named.test(p.getFileName().toString()) && (!regularOnly || Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)))
                {
                    list.add(p);
                }
            }
        }
        catch (final IOException e)
        {
            throw new CliException(ExitCode.FAILED, "cannot list " + dir + ": " + e.getMessage());
        }
        list.sort(null);
        return list;
    }
}
