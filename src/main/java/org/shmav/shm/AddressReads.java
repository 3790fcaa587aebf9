package org.shmav.shm;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.ref.Reference;
import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Reads of a mapped region by memory address, for the lookup: {@code sun.misc.Unsafe}'s reads, reached
 * through method handles (no JVM flag, no compile-time use of an internal API). A lookup through
 * {@link Memory}'s ByteBuffer checks the index and the buffer's state at every load; these reads check
 * nothing, and took a lookup of a 1M-entry AV from 13 to 8 ns, and the copy of a 16-byte address into
 * the caller's buffer by two stores to 6 ns (docs/profiles.md).
 *
 * <p>Safe as the lookup uses them: never a store into a mapping (a write through a read-only mapping
 * would kill the JVM); reads only inside a mapping whose layout was checked against the file's length,
 * while the buffer that keeps the mapping is reachable (its holder is kept with
 * {@code Reference.reachabilityFence}); stores only into the caller's buffer, writable, between its
 * position and limit. A file truncated under the reader faults as a ByteBuffer read does: an
 * {@code InternalError}, which the handle reports as FI_EIO.
 *
 * <p>{@link #ENABLED} only on Java 17 to 22, on little-endian hosts (the layout's order), and for
 * direct buffers: Java 23 deprecated these methods for removal and 24 warns at their first use, so
 * there lookups keep the ByteBuffer reads. {@code -Dshmav.addressReads=false} turns them off.
 */
public final class AddressReads
{
    /** The last Java release whose Unsafe memory reads neither warn nor are deprecated for removal. */
    private static final int LAST_RELEASE = 22;

    private static final MethodHandle GET_LONG;
    private static final MethodHandle GET_INT;
    private static final MethodHandle GET_BYTE;
    private static final MethodHandle LOAD_FENCE;
    private static final MethodHandle GET_LONG_OF;
    private static final MethodHandle PUT_LONG_OF;
    private static final long BUFFER_ADDRESS;
    private static final long BYTES_BASE;
    /** The {@code sun.misc.Unsafe} instance when {@link #ENABLED}, else null. */
    private static final Object UNSAFE;

    /** True when lookups read by address. */
    public static final boolean ENABLED;

    static
    {
        MethodHandle getLong = null;
        MethodHandle getInt = null;
        MethodHandle getByte = null;
        MethodHandle loadFence = null;
        MethodHandle getLongOf = null;
        MethodHandle putLongOf = null;
        long address = -1;
        long bytesBase = -1;
        Object unsafe = null;
        // Unsafe reads in the host's order; the layout is little-endian, so a big-endian host keeps the buffers.
        if (Runtime.version().feature() <= LAST_RELEASE && ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN &&
            !"false".equals(System.getProperty("shmav.addressReads")))
        {
            try
            {
                final Class<?> c = Class.forName("sun.misc.Unsafe");
                final Field f = c.getDeclaredField("theUnsafe");
                f.setAccessible(true);
                final Object u = f.get(null);
                unsafe = u;
                final MethodHandles.Lookup l = MethodHandles.lookup();
                getLong = l.findVirtual(c, "getLong", MethodType.methodType(long.class, long.class)).bindTo(u);
                getInt = l.findVirtual(c, "getInt", MethodType.methodType(int.class, long.class)).bindTo(u);
                getByte = l.findVirtual(c, "getByte", MethodType.methodType(byte.class, long.class)).bindTo(u);
                loadFence = l.findVirtual(c, "loadFence", MethodType.methodType(void.class)).bindTo(u);
                getLongOf = l.findVirtual(c, "getLong", MethodType.methodType(long.class, Object.class, long.class)).bindTo(u);
                putLongOf = l.findVirtual(c, "putLong", MethodType.methodType(void.class, Object.class, long.class, long.class)).bindTo(u);
                bytesBase = (int)l.findVirtual(c, "arrayBaseOffset", MethodType.methodType(int.class, Class.class))
                    .bindTo(u).invoke(byte[].class);
                address = (long)l.findVirtual(c, "objectFieldOffset", MethodType.methodType(long.class, Field.class))
                    .bindTo(u).invoke(Buffer.class.getDeclaredField("address"));
            }
            catch (final Throwable e)
            {
                getLong = null; // not offered here (a restricted or future JDK): lookups read through ByteBuffers
            }
        }
        GET_LONG = getLong;
        GET_INT = getInt;
        GET_BYTE = getByte;
        LOAD_FENCE = loadFence;
        GET_LONG_OF = getLongOf;
        PUT_LONG_OF = putLongOf;
        BUFFER_ADDRESS = address;
        BYTES_BASE = bytesBase;
        ENABLED = getLong != null;
        UNSAFE = ENABLED ? unsafe : null;
    }

    /**
     * Unsafe's method {@code name} of {@code type}, bound to the instance, for {@link AddressAccess};
     * only when {@link #ENABLED}.
     */
    static MethodHandle unsafeMethod(final String name, final MethodType type) throws ReflectiveOperationException
    {
        return MethodHandles.lookup().findVirtual(UNSAFE.getClass(), name, type).bindTo(UNSAFE);
    }

    private AddressReads()
    {
    }

    /** The address of {@code buffer}'s first byte, or 0 when reads by address are off or it is not direct. */
    public static long addressOf(final ByteBuffer buffer)
    {
        if (!ENABLED || !buffer.isDirect())
        {
            return 0;
        }
        try
        {
            return (long)GET_LONG_OF.invokeExact((Object)buffer, BUFFER_ADDRESS);
        }
        catch (final Throwable t)
        {
            throw new IllegalStateException("reading a buffer's address", t);
        }
    }

    /** Plain read of the u64 at {@code address}. */
    public static long getLong(final long address)
    {
        try
        {
            return (long)GET_LONG.invokeExact(address);
        }
        catch (final Throwable t)
        {
            throw rethrown(t);
        }
    }

    /** Read of the u64 at {@code address}; no later read moves above it. */
    public static long getLongAcquire(final long address)
    {
        final long v = getLong(address);
        loadFence();
        return v;
    }

    /** Plain read of the u32 at {@code address}. */
    public static int getInt(final long address)
    {
        try
        {
            return (int)GET_INT.invokeExact(address);
        }
        catch (final Throwable t)
        {
            throw rethrown(t);
        }
    }

    /** Plain read of the byte at {@code address}. */
    public static byte getByte(final long address)
    {
        try
        {
            return (byte)GET_BYTE.invokeExact(address);
        }
        catch (final Throwable t)
        {
            throw rethrown(t);
        }
    }

    /** Plain store of {@code value} at {@code address}, in memory order. */
    public static void putLong(final long address, final long value)
    {
        putLong(null, address, value);
    }

    /** Stores {@code value} at {@code offset} of {@code base} (null: a memory address), in memory order. */
    private static void putLong(final Object base, final long offset, final long value)
    {
        try
        {
            PUT_LONG_OF.invokeExact(base, offset, value);
        }
        catch (final Throwable t)
        {
            throw rethrown(t);
        }
    }

    /** No read after it moves above any read before it. */
    public static void loadFence()
    {
        try
        {
            LOAD_FENCE.invokeExact();
        }
        catch (final Throwable t)
        {
            throw rethrown(t);
        }
    }

    /**
     * Copies {@code length} bytes at {@code address} into {@code dst} at its position (position
     * unchanged), in their order whatever {@code dst}'s. {@code length} is at most {@code dst.remaining()}
     * (the caller's bound): a writable buffer is written without bounds checks, a word at a time.
     */
    public static void copyOut(final long address, final ByteBuffer dst, final int length)
    {
        final int at = dst.position();
        final boolean swap = dst.order() != ByteOrder.LITTLE_ENDIAN;
        if (length == 2 * Long.BYTES && !dst.isReadOnly()) // a sockaddr_in, word by word as it lies in memory
        {
            final Object base = dst.isDirect() ? null : dst.array();
            final long to = (base == null ? addressOf(dst) : BYTES_BASE + dst.arrayOffset()) + at;
            putLong(base, to, getLong(address));
            putLong(base, to + Long.BYTES, getLong(address + Long.BYTES));
            Reference.reachabilityFence(dst);
            return;
        }
        if (!dst.isReadOnly()) // longer formats (32-byte provider addresses, opaque ones): word by word, raw as well
        {
            final Object base = dst.isDirect() ? null : dst.array();
            final long to = (base == null ? addressOf(dst) : BYTES_BASE + dst.arrayOffset()) + at;
            if (length == 4 * Long.BYTES) // EFA, IB UD, PSMX3: unrolled as sockaddr_in's
            {
                putLong(base, to, getLong(address));
                putLong(base, to + Long.BYTES, getLong(address + Long.BYTES));
                putLong(base, to + 2 * Long.BYTES, getLong(address + 2 * Long.BYTES));
                putLong(base, to + 3 * Long.BYTES, getLong(address + 3 * Long.BYTES));
                Reference.reachabilityFence(dst);
                return;
            }
            int i = 0;
            for (; i + Long.BYTES <= length; i += Long.BYTES)
            {
                putLong(base, to + i, getLong(address + i));
            }
            for (; i < length; i++)
            {
                dst.put(at + i, getByte(address + i));
            }
            Reference.reachabilityFence(dst);
            return;
        }
        if (length == 2 * Long.BYTES) // a sockaddr_in, unrolled (see Memory.copyOut)
        {
            final long v0 = getLong(address);
            final long v1 = getLong(address + Long.BYTES);
            dst.putLong(at, swap ? Long.reverseBytes(v0) : v0);
            dst.putLong(at + Long.BYTES, swap ? Long.reverseBytes(v1) : v1);
            return;
        }
        int i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES)
        {
            final long v = getLong(address + i);
            dst.putLong(at + i, swap ? Long.reverseBytes(v) : v);
        }
        for (; i < length; i++)
        {
            dst.put(at + i, getByte(address + i));
        }
    }

    /** A fault inside an access (an InternalError for a truncated file) goes on as it is. */
    static RuntimeException rethrown(final Throwable t)
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
