package org.shmav.shm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;

import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * What a writer checks before it writes through a mapping of an AV file: that nobody else controls the
 * file, and that no page of it can fault later.
 *
 * <p>A file another user owns could be rewritten or truncated under the writer at any time (a
 * truncated mapping kills the JVM with SIGBUS at the next CAS), so a writer refuses it unless the AV
 * was opened for group access and the file's group is one of this process's, with group read and
 * write. A sparse file (a copy with holes) passes every header check, but on a full tmpfs the first
 * write into a hole is a SIGBUS; so a writer has the kernel fault in every page before it writes
 * anything ({@link #allocateEveryPage}). Stateless.
 */
public final class FileOwnership
{
    /** How the refusal of another user's AV ends for an opener without group access: the API's way in (the CLI names its own). */
    public static final String GROUP_ADVICE = "; if it is your group's AV, open it with groupAccess";

    private static final int PAGE = 4096;
    /** Pages per gathering write: a pipe holds 64 KiB, and IOV_MAX is 1024. */
    private static final int BATCH = 1024;

    private FileOwnership()
    {
    }

    /** FI_EACCES, naming owner and mode, unless this user may write {@code file} as its own (or its group's). */
    public static void checkWritable(final Path file, final String name, final boolean groupAccess)
    {
        final Map<String, Object> attrs;
        try
        {
            attrs = Files.readAttributes(file, "unix:uid,gid,mode", LinkOption.NOFOLLOW_LINKS);
        }
        catch (final IOException | UnsupportedOperationException e)
        {
            return; // no unix attributes here: the open's own permission check is all there is
        }
        final int uid = (Integer)attrs.get("uid");
        final int gid = (Integer)attrs.get("gid");
        final int mode = (Integer)attrs.get("mode") & 07777;
        final Identity me = Identity.SELF;
        if (me == null || uid == me.uid())
        {
            return;
        }
        if (groupAccess && me.inGroup(gid) && (mode & 060) == 060)
        {
            return;
        }
        throw new FabricException(FiErrno.EACCES, String.format(
            "named AV '%s' (%s) belongs to uid=%d gid=%d mode=%04o, not to this user (uid=%d): a writer never " +
            "writes a file another user controls. Remove it (as its owner) or pick another name%s", name, file, uid,
            gid, mode, me.uid(), groupAccess ? "" : GROUP_ADVICE));
    }

    /**
     * Makes tmpfs allocate every page of {@code m} now, so that a sparse file's holes fault here, as
     * FI_ENOSPC, instead of at a later write (a SIGBUS). One byte of every page is written to a pipe
     * straight from the mapping: the kernel's copy faults the page in, allocating it, and a page it
     * cannot allocate fails the write with EFAULT, synchronously. (Reading the page from Java would
     * allocate it too, but a failure there is a SIGBUS that compiled code reports late, as an
     * InternalError thrown at some later, unrelated call.)
     */
    static void allocateEveryPage(final Memory m, final Path file, final String name)
    {
        final ByteBuffer[] pages = new ByteBuffer[BATCH];
        final ByteBuffer drain = ByteBuffer.allocate(BATCH);
        try
        {
            final Pipe pipe = Pipe.open();
            try (Pipe.SinkChannel sink = pipe.sink(); Pipe.SourceChannel source = pipe.source())
            {
                for (long at = 0; at < m.capacity(); )
                {
                    int n = 0;
                    for (; n < BATCH && at < m.capacity(); n++, at += PAGE)
                    {
                        pages[n] = m.buffer().slice((int)at, 1);
                    }
                    for (long written = 0; written < n; )
                    {
                        written += sink.write(pages, (int)written, n - (int)written);
                    }
                    for (int read = 0; read < n; )
                    {
                        drain.clear().limit(n - read);
                        read += source.read(drain);
                    }
                }
            }
        }
        catch (final IOException e)
        {
            throw new FabricException(FiErrno.ENOSPC, "named AV '" + name + "' (" + file + ") is a " +
                "sparse file and its file system has no room for the rest of it (" + e.getMessage() + "): free space " +
                "there, or remove the AV with 'shmav rm " + name + "' and create it again", e);
        }
    }

    /** This process's user and groups, from /proc/self/status (null when unreadable). */
    record Identity(int uid, int gid, int[] groups)
    {
        static final Identity SELF = read();

        boolean inGroup(final int g)
        {
            if (g == gid)
            {
                return true;
            }
            for (final int x : groups)
            {
                if (x == g)
                {
                    return true;
                }
            }
            return false;
        }

        private static Identity read()
        {
            try
            {
                int uid = -1;
                int gid = -1;
                int[] groups = new int[0];
                for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
                {
                    if (line.startsWith("Uid:"))
                    {
                        uid = Integer.parseInt(line.substring(4).trim().split("\\s+")[1]); // effective
                    }
                    else if (line.startsWith("Gid:"))
                    {
                        gid = Integer.parseInt(line.substring(4).trim().split("\\s+")[1]);
                    }
                    else if (line.startsWith("Groups:"))
                    {
                        final String list = line.substring(7).trim();
                        groups = list.isEmpty() ? new int[0]
                            : java.util.Arrays.stream(list.split("\\s+")).mapToInt(Integer::parseInt).toArray();
                    }
                }
                return uid < 0 ? null : new Identity(uid, gid, groups);
            }
            catch (final IOException | RuntimeException e)
            {
                return null;
            }
        }
    }
}
