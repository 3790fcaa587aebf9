package org.shmav.store;

import java.io.FileDescriptor;
import java.lang.reflect.Field;

/**
 * A descriptor a launcher left open for its ranks ({@code PMI_FD}: a socket to its node daemon) as a
 * {@link FileDescriptor}. Java has no public way to adopt an inherited descriptor, and
 * {@code /proc/self/fd/N} refuses sockets, so the number is set into a new FileDescriptor through
 * {@code sun.misc.Unsafe} (module jdk.unsupported: no JVM flag needed). The launcher owns it: never
 * close it.
 */
final class InheritedDescriptor
{
    private InheritedDescriptor()
    {
    }

    /**
     * Wraps descriptor number {@code fd}.
     *
     * @param fd the inherited descriptor's number
     * @return a FileDescriptor for it
     * @throws ReflectiveOperationException when this JVM does not offer {@code sun.misc.Unsafe}
     */
    static FileDescriptor wrap(final int fd) throws ReflectiveOperationException
    {
        final Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
        final Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
        theUnsafe.setAccessible(true);
        final Object unsafe = theUnsafe.get(null);
        final long offset = (long)unsafeClass.getMethod("objectFieldOffset", Field.class)
            .invoke(unsafe, FileDescriptor.class.getDeclaredField("fd"));
        final FileDescriptor descriptor = new FileDescriptor();
        unsafeClass.getMethod("putInt", Object.class, long.class, int.class).invoke(unsafe, descriptor, offset, fd);
        return descriptor;
    }
}
