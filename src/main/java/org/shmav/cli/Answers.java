package org.shmav.cli;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;

import org.shmav.FabricException;
import org.shmav.shm.SharedAvFile;

/**
 * The one-line answers that the CLI and avrun both give to a bad AV name or a directory that cannot
 * be made: what is wrong, then what to do, without a Java exception's class name. Kept in one place so
 * that both tools say the same thing. Stateless.
 */
public final class Answers
{
    /** What a valid AV name is (the rules of {@link SharedAvFile#fileName}). */
    public static final String NAME_RULES = "an AV name is 1 to " + SharedAvFile.MAX_NAME_BYTES + " bytes, without '/' " +
        "or control characters, not starting with '.'";

    private Answers()
    {
    }

    /** {@return null when {@code name} is a valid AV name, else the one-line answer saying why not and what is valid} */
    public static String badName(final String name)
    {
        try
        {
            SharedAvFile.fileName(name);
            return null;
        }
        catch (final FabricException e)
        {
            return badName(e);
        }
    }

    /** The one-line answer to the library's refusal {@code e} of a name. */
    static String badName(final FabricException e)
    {
        return "bad AV name: " + AvDirectory.reason(e) + "; " + NAME_RULES;
    }

    /**
     * The answer to a directory {@code dir} that does not exist and could not be created ({@code e}):
     * the reason in words; then {@code mkdir} only where another user could succeed (permission denied),
     * else another directory, since a mkdir would fail the same way.
     *
     * @param source where {@code dir} came from ("--dir", "$SHMAV_DIR"), or null to leave it out
     */
    public static String cannotCreateDirectory(final Path dir, final String source, final IOException e)
    {
        final String what = "directory " + dir + (source != null ? " (from " + source + ")" : "") +
            " does not exist and cannot be created (" + reason(e) + "); ";
        if (e instanceof AccessDeniedException)
        {
            return what + "create it as a user who may (mkdir -p -m 0700 " + dir + ", owned by you), or choose another " +
                "directory with --dir or SHMAV_DIR (e.g. one under /dev/shm)";
        }
        return what + "choose another directory with --dir or SHMAV_DIR (e.g. one under /dev/shm)";
    }

    /** An I/O failure in words, without the exception's class: "Permission denied", "No such file or directory". */
    public static String reason(final IOException e)
    {
        if (e instanceof FileAlreadyExistsException f)
        {
            return f.getFile() + " exists and is not a directory";
        }
        if (e instanceof AccessDeniedException)
        {
            return "Permission denied";
        }
        if (e instanceof java.nio.file.NoSuchFileException)
        {
            return "No such file or directory";
        }
        if (e instanceof FileSystemException f && f.getReason() != null)
        {
            return f.getReason();
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }
}
