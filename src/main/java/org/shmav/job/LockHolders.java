package org.shmav.job;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Who holds a record lock on a byte of a file, from the kernel's table {@code /proc/locks}, for error
 * messages: a joiner that gave up on a lock says whose it is. Stateless.
 */
final class LockHolders
{
    private LockHolders()
    {
    }

    /** {@return e.g. "held by pid 4242 (java, user alice)", or why the holder cannot be named} */
    static String describe(final Path file, final long position)
    {
        final List<String> holders = new ArrayList<>();
        try
        {
            final long ino = ((Number)Files.getAttribute(file, "unix:ino", LinkOption.NOFOLLOW_LINKS)).longValue();
            final long dev = ((Number)Files.getAttribute(file, "unix:dev", LinkOption.NOFOLLOW_LINKS)).longValue();
            final String id = String.format("%02x:%02x:%d", ((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL),
                (dev & 0xff) | ((dev >>> 12) & ~0xffL), ino);
            for (final String line : Files.readAllLines(Path.of("/proc/locks")))
            {
                final String[] f = line.trim().split("\\s+");
                // "1: POSIX  ADVISORY  WRITE 4242 00:1b:1234 512 512" (a blocked waiter's line starts "1: ->")
                if (f.length >= 8 && !"->".equals(f[1]) && f[5].equals(id) && covers(f[6], f[7], position))
                {
                    holders.add("pid " + f[4] + " (" + f[3].toLowerCase() + " lock" + command(f[4]) + ")");
                }
            }
        }
        catch (final IOException | RuntimeException e)
        {
            return "its holder cannot be named (" + e + ")";
        }
        return holders.isEmpty() ? "held by a process in another pid namespace, or released just now" :
            "held by " + String.join(", ", holders);
    }

    private static boolean covers(final String start, final String end, final long position)
    {
        return Long.parseLong(start) <= position && ("EOF".equals(end) || Long.parseLong(end) >= position);
    }

    private static String command(final String pid)
    {
        try
        {
            final long p = Long.parseLong(pid);
            return ProcessHandle.of(p).flatMap(h -> h.info().command()).map(c -> ", " + Path.of(c).getFileName())
                .orElse("") + ProcessHandle.of(p).flatMap(h -> h.info().user()).map(u -> ", user " + u).orElse("");
        }
        catch (final NumberFormatException e)
        {
            return "";
        }
    }
}
