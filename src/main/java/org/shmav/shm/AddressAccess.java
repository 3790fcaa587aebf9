package org.shmav.shm;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;

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
    private static final Class<?> O = Object.class;
    private static final Class<?> J = long.class;
    private static final Class<?> I = int.class;
    private static final Class<?> V = void.class;
    private static final Class<?> Z = boolean.class;
    private static final boolean WANTED =
        AddressReads.ENABLED && !"false".equals(System.getProperty("shmav.addressAccess"));

    private static final MethodHandle PUT_LONG = handle("putLong", V, J, J);
    private static final MethodHandle PUT_INT = handle("putInt", V, J, I);
    private static final MethodHandle GET_LONG_VOLATILE = handle("getLongVolatile", J, O, J);
    private static final MethodHandle GET_INT_VOLATILE = handle("getIntVolatile", I, O, J);
    private static final MethodHandle PUT_LONG_RELEASE = handle("putOrderedLong", V, O, J, J);
    private static final MethodHandle PUT_INT_RELEASE = handle("putOrderedInt", V, O, J, I);
    private static final MethodHandle PUT_LONG_VOLATILE = handle("putLongVolatile", V, O, J, J);
    private static final MethodHandle CAS_LONG = handle("compareAndSwapLong", Z, O, J, J, J);
    private static final MethodHandle CAS_INT = handle("compareAndSwapInt", Z, O, J, I, I);
    private static final MethodHandle GET_AND_ADD_LONG = handle("getAndAddLong", J, O, J, J);

    /** True when {@link Memory} may access writable direct buffers by address: every handle was found. */
    static final boolean ENABLED = WANTED && PUT_LONG != null && PUT_INT != null && GET_LONG_VOLATILE != null &&
        GET_INT_VOLATILE != null && PUT_LONG_RELEASE != null && PUT_INT_RELEASE != null && PUT_LONG_VOLATILE != null &&
        CAS_LONG != null && CAS_INT != null && GET_AND_ADD_LONG != null;

    /** Unsafe's method {@code name}, or null when not wanted or not offered here (Memory then uses its buffer). */
    private static MethodHandle handle(final String name, final Class<?> returns, final Class<?>... parameters)
    {
        if (!WANTED)
        {
            return null;
        }
        try
        {
            return AddressReads.unsafeMethod(name, MethodType.methodType(returns, parameters));
        }
        catch (final ReflectiveOperationException | RuntimeException e)
        {
            return null;
        }
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
            throw AddressReads.rethrown(t);
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
            throw AddressReads.rethrown(t);
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
            throw AddressReads.rethrown(t);
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
            throw AddressReads.rethrown(t);
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
            throw AddressReads.rethrown(t);
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
            throw AddressReads.rethrown(t);
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
            throw AddressReads.rethrown(t);
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
            throw AddressReads.rethrown(t);
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
            throw AddressReads.rethrown(t);
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
            throw AddressReads.rethrown(t);
        }
    }
}
