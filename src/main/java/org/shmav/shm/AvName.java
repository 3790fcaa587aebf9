package org.shmav.shm;

import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * A named AV's name, checked once where the API receives it ({@link #of}) and passed down from there,
 * so that no layer below checks it again. Holds the name as the caller gave it (for messages) and the
 * file name it stands for in the shm directory. Immutable.
 *
 * <p>The rules, as libfabric's: leading slashes are dropped and spaces become underscores. FI_EINVAL
 * for an empty name, ".", "..", a name starting with '.', one holding '/', NUL or a control character
 * (C0, DEL or C1), one that is not valid Unicode (an unpaired surrogate, which has no UTF-8 form), one
 * longer than {@value SharedAvFile#MAX_NAME_BYTES} bytes in UTF-8, or one the platform cannot encode as
 * a file name. Other non-ASCII names are allowed.
 */
public final class AvName
{
    private final String name;
    private final String fileName;

    private AvName(final String name, final String fileName)
    {
        this.name = name;
        this.fileName = fileName;
    }

    /**
     * Checks {@code name} by the rules above. Errors name no call: the call the user made adds its name
     * ({@link FabricException#in}).
     *
     * @throws FabricException FI_EINVAL when the name breaks a rule
     */
    public static AvName of(final String name)
    {
        final String fileName = fileName(name);
        try
        {
            Path.of(fileName); // the default file system, which holds every shm directory: encodable here, there
        }
        catch (final InvalidPathException e)
        {
            throw invalid("name '" + printable(name) + "' cannot be a file name with sun.jnu.encoding=" +
                System.getProperty("sun.jnu.encoding") + " (run with a UTF-8 locale, or use an ASCII name)");
        }
        return new AvName(name, fileName);
    }

    /** The file name of {@code name} by the rules above, without the encoding check. */
    static String fileName(final String name)
    {
        if (name == null)
        {
            throw invalid("name is null");
        }
        int start = 0;
        while (start < name.length() && name.charAt(start) == '/')
        {
            start++;
        }
        final String n = name.substring(start).replace(' ', '_');
        if (n.isEmpty() || n.charAt(0) == '.')
        {
            throw invalid("name '" + printable(name) + "' is empty or starts with '.'");
        }
        for (int i = 0; i < n.length(); i++)
        {
            final char c = n.charAt(i);
            if (c == '/' || Character.isISOControl(c))
            {
                throw invalid("name '" + printable(name) + "' holds '/', NUL or a control character");
            }
            if (Character.isHighSurrogate(c) && i + 1 < n.length() && Character.isLowSurrogate(n.charAt(i + 1)))
            {
                i++; // a valid pair: one code point beyond U+FFFF
            }
            else if (Character.isSurrogate(c))
            {
                throw invalid("name '" + printable(name) + "' holds an unpaired surrogate: not valid UTF-8");
            }
        }
        if (n.getBytes(StandardCharsets.UTF_8).length > SharedAvFile.MAX_NAME_BYTES)
        {
            throw invalid("name is longer than " + SharedAvFile.MAX_NAME_BYTES + " bytes");
        }
        return n;
    }

    /** The name as the caller gave it, for messages. */
    public String name()
    {
        return name;
    }

    /** The AV's file name in the shm directory. */
    public String fileName()
    {
        return fileName;
    }

    /** The AV's file in {@code dir}. */
    public Path in(final Path dir)
    {
        return dir.resolve(fileName);
    }

    /** The name as the caller gave it. */
    @Override
    public String toString()
    {
        return name;
    }

    /** {@code s} with each control character and unpaired surrogate written as a Java escape (backslash, u, 4 hex digits). */
    public static String printable(final String s)
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

    private static FabricException invalid(final String detail)
    {
        return new FabricException(FiErrno.EINVAL, detail);
    }
}
