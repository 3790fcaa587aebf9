package org.shmav.shm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.Charset;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;

/**
 * Linux open-file-description record locks ({@code fcntl} {@code F_OFD_SETLK}, {@code F_OFD_GETLK},
 * Linux 3.15 and later) on descriptors opened with libc's {@code open}, through JNA.
 *
 * <p>Why: a POSIX record lock ({@code F_SETLK}, what {@code FileChannel.tryLock} takes) belongs to the
 * process, and any close of any descriptor of the file in the process drops it, so code outside shmav
 * that opens and closes a lock file in a writer's JVM would make the writer look dead. An OFD lock
 * belongs to the open file description; the descriptor opened here is this class's alone (never
 * duplicated, {@code O_CLOEXEC}), so only its own {@link #close} releases the locks, and the process's
 * death. The two kinds conflict with each other, so writers using either (Java on the fallback, C
 * writers) still exclude each other.
 *
 * <p>{@link #UNAVAILABLE} says why this cannot be used here (null when it can): not Linux on x86_64
 * or aarch64, JNA's native library not loadable, a kernel without OFD locks, native access denied by
 * the JVM, or {@code -Dshmav.locks=posix}. Stateless; thread-safe.
 */
final class OfdLocks
{
    /** {@code fcntl} commands, the same on every Linux architecture (asm-generic/fcntl.h). */
    private static final int F_OFD_GETLK = 36;
    private static final int F_OFD_SETLK = 37;
    private static final short F_RDLCK = 0;
    private static final short F_WRLCK = 1;
    private static final short F_UNLCK = 2;
    private static final int O_RDONLY = 0;
    private static final int O_RDWR = 2;
    private static final int O_CLOEXEC = 02000000;
    /** O_NOFOLLOW differs: 0400000 on x86_64 (asm-generic), 0100000 on arm64. */
    private static final int O_NOFOLLOW = "aarch64".equals(System.getProperty("os.arch")) ? 0100000 : 0400000;
    private static final int EINTR = 4;
    private static final int ENOENT = 2;
    private static final int EACCES = 13;
    private static final int ELOOP = 40;
    /** {@code struct flock} on LP64 Linux: l_type (short) 0, l_whence (short) 2, l_start 8, l_len 16, l_pid (int) 24. */
    private static final int FLOCK_SIZE = 32;

    /** Why OFD locks cannot be used in this JVM, or null when they can. */
    static final String UNAVAILABLE = load();

    private OfdLocks()
    {
    }

    private static native int open(byte[] path, int flags) throws LastErrorException;

    private static native int fcntl(int fd, int cmd, byte[] flock) throws LastErrorException;

    private static native int close(int fd) throws LastErrorException;

    private static String load()
    {
        if ("posix".equals(System.getProperty("shmav.locks")))
        {
            return "-Dshmav.locks=posix";
        }
        final String arch = System.getProperty("os.arch");
        if (!"Linux".equals(System.getProperty("os.name")) || !("amd64".equals(arch) || "aarch64".equals(arch)))
        {
            return "not Linux on x86_64 or aarch64 (" + System.getProperty("os.name") + " " + arch + ")";
        }
        try
        {
            Native.register(OfdLocks.class, NativeLibrary.getInstance(Platform.C_LIBRARY_NAME));
            final int fd = open(bytes(Path.of("/dev/null")), O_RDONLY | O_CLOEXEC);
            try
            {
                fcntl(fd, F_OFD_GETLK, flock(F_RDLCK, 0, 1)); // EINVAL before Linux 3.15
            }
            finally
            {
                close(fd);
            }
            return null;
        }
        catch (final LastErrorException e)
        {
            return "the kernel refuses F_OFD_GETLK (errno " + e.getErrorCode() + "; Linux 3.15 or later has it)";
        }
        catch (final LinkageError | RuntimeException e)
        {
            return "no native access (" + e + ")";
        }
    }

    /** Opens {@code file} without following a link, read-write or read-only; a descriptor only {@link #close} closes. */
    static int open(final Path file, final boolean write) throws IOException
    {
        while (true)
        {
            try
            {
                return open(bytes(file), (write ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC);
            }
            catch (final LastErrorException e)
            {
                switch (e.getErrorCode())
                {
                    case EINTR:
                        continue;
                    case ENOENT:
                        throw new NoSuchFileException(file.toString());
                    case EACCES:
                        throw new AccessDeniedException(file.toString());
                    case ELOOP:
                        throw new FileSystemException(file.toString(), null, "not opened through symbolic links");
                    default:
                        throw new IOException("open(" + file + ") failed: errno " + e.getErrorCode());
                }
            }
        }
    }

    /** Takes the lock of [position, position + length) (length 0: to any end) without waiting; false when held. */
    static boolean tryLock(final int fd, final long position, final long length, final boolean shared)
    {
        return set(fd, flock(shared ? F_RDLCK : F_WRLCK, position, length));
    }

    /** Gives back this descriptor's lock of [position, position + length). */
    static void unlock(final int fd, final long position, final long length)
    {
        set(fd, flock(F_UNLCK, position, length));
    }

    /**
     * Whether a lock of the kind given could be taken on [position, position + length) through {@code fd}:
     * false when another open file description or a process holds a conflicting one, or the test failed.
     * Locks of {@code fd}'s own description are not seen.
     */
    static boolean isFree(final int fd, final long position, final long length, final boolean shared)
    {
        final byte[] lock = flock(shared ? F_RDLCK : F_WRLCK, position, length);
        while (true)
        {
            try
            {
                fcntl(fd, F_OFD_GETLK, lock);
                return ByteBuffer.wrap(lock).order(ByteOrder.nativeOrder()).getShort(0) == F_UNLCK;
            }
            catch (final LastErrorException e)
            {
                if (e.getErrorCode() != EINTR)
                {
                    return false; // undeterminable: held
                }
            }
        }
    }

    /** Closes a descriptor of {@link #open}, releasing every lock taken through it. */
    static void closeQuietly(final int fd)
    {
        try
        {
            close(fd);
        }
        catch (final LastErrorException ignored)
        {
            // EINTR or EIO: Linux has released the descriptor either way
        }
    }

    private static boolean set(final int fd, final byte[] lock)
    {
        while (true)
        {
            try
            {
                fcntl(fd, F_OFD_SETLK, lock);
                return true;
            }
            catch (final LastErrorException e)
            {
                if (e.getErrorCode() != EINTR)
                {
                    return false; // EAGAIN or EACCES: held; anything else cannot be taken either
                }
            }
        }
    }

    private static byte[] flock(final short type, final long position, final long length)
    {
        final byte[] lock = new byte[FLOCK_SIZE];
        ByteBuffer.wrap(lock).order(ByteOrder.nativeOrder()).putShort(0, type).putShort(2, (short)0) // SEEK_SET
            .putLong(8, position).putLong(16, length).putInt(24, 0); // l_pid must be 0 for OFD locks
        return lock;
    }

    /** The path as the file system sees it (the JVM's file-name encoding), NUL-terminated. */
    private static byte[] bytes(final Path file)
    {
        final String encoding = System.getProperty("sun.jnu.encoding");
        final byte[] name = file.toString().getBytes(encoding == null ? Charset.defaultCharset() : Charset.forName(encoding));
        final byte[] z = new byte[name.length + 1];
        System.arraycopy(name, 0, z, 0, name.length);
        return z;
    }
}
