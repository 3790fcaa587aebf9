package org.shmav.shm;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;

/**
 * The ordered and atomic accesses of {@link Memory} by memory address: {@code sun.misc.Unsafe}'s, reached
 * through method handles like {@link AddressReads}' (no JVM flag, no compile-time use of an internal
 * API), on the same Java releases ({@link AddressReads#ENABLED}). A ByteBuffer view VarHandle checks
 * the buffer's bounds, alignment, read-only flag and memory session at every access; an insert makes
 * about thirty of them. {@link Memory} makes these accesses only on a writable direct buffer, and only
 * after its own bounds and alignment check, so they fail as the buffer's would, never past the mapping.
 *
 * <p>Each method here is one Unsafe call at an absolute address (base object null).
 */
final class AddressAccess
{
    private static final MethodHandle PUT_LONG;
    private static final MethodHandle PUT_INT;
    private static final MethodHandle GET_LONG_VOLATILE;
    private static final MethodHandle GET_INT_VOLATILE;
    private static final MethodHandle PUT_LONG_RELEASE;
    private static final MethodHandle PUT_INT_RELEASE;
    private static final MethodHandle PUT_LONG_VOLATILE;
    private static final MethodHandle CAS_LONG;
    private static final MethodHandle CAS_INT;
    private static final MethodHandle GET_AND_ADD_LONG;

    /** True when {@link Memory} may access writable direct buffers by address. */
    static final boolean ENABLED;

    static
    {
        MethodHandle putLong = null;
        MethodHandle putInt = null;
        MethodHandle getLongVolatile = null;
        MethodHandle getIntVolatile = null;
        MethodHandle putLongRelease = null;
        MethodHandle putIntRelease = null;
        MethodHandle putLongVolatile = null;
        MethodHandle casLong = null;
        MethodHandle casInt = null;
        MethodHandle getAndAddLong = null;
        if (AddressReads.ENABLED && !"false".equals(System.getProperty("shmav.addressAccess")))
        {
            try
            {
                final Class<?> c = Class.forName("sun.misc.Unsafe");
                final Field f = c.getDeclaredField("theUnsafe");
                f.setAccessible(true);
                final Object u = f.get(null);
                final MethodHandles.Lookup l = MethodHandles.lookup();
                final Class<?> o = Object.class;
                final Class<?> j = long.class;
                final Class<?> i = int.class;
                final Class<?> v = void.class;
                final Class<?> z = boolean.class;
                putLong = l.findVirtual(c, "putLong", MethodType.methodType(v, j, j)).bindTo(u);
                putInt = l.findVirtual(c, "putInt", MethodType.methodType(v, j, i)).bindTo(u);
                getLongVolatile = l.findVirtual(c, "getLongVolatile", MethodType.methodType(j, o, j)).bindTo(u);
                getIntVolatile = l.findVirtual(c, "getIntVolatile", MethodType.methodType(i, o, j)).bindTo(u);
                putLongRelease = l.findVirtual(c, "putOrderedLong", MethodType.methodType(v, o, j, j)).bindTo(u);
                putIntRelease = l.findVirtual(c, "putOrderedInt", MethodType.methodType(v, o, j, i)).bindTo(u);
                putLongVolatile = l.findVirtual(c, "putLongVolatile", MethodType.methodType(v, o, j, j)).bindTo(u);
                casLong = l.findVirtual(c, "compareAndSwapLong", MethodType.methodType(z, o, j, j, j)).bindTo(u);
                casInt = l.findVirtual(c, "compareAndSwapInt", MethodType.methodType(z, o, j, i, i)).bindTo(u);
                getAndAddLong = l.findVirtual(c, "getAndAddLong", MethodType.methodType(j, o, j, j)).bindTo(u);
            }
            catch (final ReflectiveOperationException | RuntimeException e)
            {
                putLong = null; // not offered here: Memory goes through its buffer
            }
        }
        PUT_LONG = putLong;
        PUT_INT = putInt;
        GET_LONG_VOLATILE = getLongVolatile;
        GET_INT_VOLATILE = getIntVolatile;
        PUT_LONG_RELEASE = putLongRelease;
        PUT_INT_RELEASE = putIntRelease;
        PUT_LONG_VOLATILE = putLongVolatile;
        CAS_LONG = casLong;
        CAS_INT = casInt;
        GET_AND_ADD_LONG = getAndAddLong;
        ENABLED = putLong != null;
    }

    private AddressAccess()
    {
    }

    static void putLong(final long address, final long value)
    {
        try
        {
            PUT_LONG.invokeExact(address, value);
        }
        catch (final Throwable t)
        {
            throw rethrown(t);
        }
    }

    static void putInt(final long address, final int value)
    {
        try
        {
            PUT_INT.invokeExact(address, value);
        }
        catch (final Throwable t)
        {
            throw rethrown(t);
        }
    }

    static long getLongVolatile(final long address)
    {
        try
        {
            return (long)GET_LONG_VOLATILE.invokeExact((Object)null, address);
        }
        catch (final Throwable t)
        {
            throw rethrown(t);
        }
    }

    static int getIntVolatile(final long address)
    {
        try
        {
            return (int)GET_INT_VOLATILE.invokeExact((Object)null, address);
        }
        catch (final Throwable t)
        {
            throw rethrown(t);
        }
    }

    static void putLongRelease(final long address, final long value)
    {
        try
        {
            PUT_LONG_RELEASE.invokeExact((Object)null, address, value);
        }
        catch (final Throwable t)
        {
            throw rethrown(t);
        }
    }

    static void putIntRelease(final long address, final int value)
    {
        try
        {
            PUT_INT_RELEASE.invokeExact((Object)null, address, value);
        }
        catch (final Throwable t)
        {
            throw rethrown(t);
        }
    }

    static void putLongVolatile(final long address, final long value)
    {
        try
        {
            PUT_LONG_VOLATILE.invokeExact((Object)null, address, value);
        }
        catch (final Throwable t)
        {
            throw rethrown(t);
        }
    }

    static boolean compareAndSetLong(final long address, final long expected, final long value)
    {
        try
        {
            return (boolean)CAS_LONG.invokeExact((Object)null, address, expected, value);
        }
        catch (final Throwable t)
        {
            throw rethrown(t);
        }
    }

    static boolean compareAndSetInt(final long address, final int expected, final int value)
    {
        try
        {
            return (boolean)CAS_INT.invokeExact((Object)null, address, expected, value);
        }
        catch (final Throwable t)
        {
            throw rethrown(t);
        }
    }

    static long getAndAddLong(final long address, final long delta)
    {
        try
        {
            return (long)GET_AND_ADD_LONG.invokeExact((Object)null, address, delta);
        }
        catch (final Throwable t)
        {
            throw rethrown(t);
        }
    }

    /** A fault inside an access (an InternalError for a truncated file) goes on as it is. */
    private static RuntimeException rethrown(final Throwable t)
    {
        if (t instanceof Error e)
        {
            throw e;
        }
        if (t instanceof RuntimeException r)
        {
            return r;
        }
        return new IllegalStateException(t);
    }
}
