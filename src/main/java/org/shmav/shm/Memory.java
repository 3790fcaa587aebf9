package org.shmav.shm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The one place where shared memory is read and written with an ordering. Accessors are named after
 * the {@link VarHandle} access modes they use:
 * <ul>
 *   <li><b>plain</b> ({@code getLong}/{@code putLong}): no ordering; payload bytes written while a slot
 *       is owned, and read inside a seqlock window;</li>
 *   <li><b>acquire</b> ({@code getLongAcquire}): later reads cannot move above it; used to read a state
 *       word before the payload it guards;</li>
 *   <li><b>release</b> ({@code setLongRelease}): earlier writes cannot move below it; used to publish;</li>
 *   <li><b>volatile</b> and <b>CAS</b> ({@code compareAndSetLong}, {@code getAndAddLong}): sequentially
 *       consistent; every ownership change of a slot, bucket or attacher entry is a CAS.</li>
 * </ul>
 * All multi-byte fields are little-endian (see shm-layout.md), whatever the host; on x86 and aarch64
 * that is the native order and costs nothing. Offsets must be aligned to the field size, which the
 * layout guarantees. A write through a read-only mapping throws {@link java.nio.ReadOnlyBufferException}.
 */
public final class Memory
{
    private static final VarHandle LONGS =
        MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS =
        MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    /** Copies of at most this many bytes go word by word (see {@link #copyOut(ByteBuffer, int, ByteBuffer, int)}). */
    private static final int SHORT_COPY = 64;

    private final ByteBuffer buffer;

    public Memory(final ByteBuffer buffer)
    {
        this.buffer = buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The whole region, little-endian, position 0; callers must not move its position. */
    public ByteBuffer buffer()
    {
        return buffer;
    }

    public int capacity()
    {
        return buffer.capacity();
    }

    public boolean isReadOnly()
    {
        return buffer.isReadOnly();
    }

    public long getLong(final int offset)
    {
        return buffer.getLong(offset);
    }

    public void putLong(final int offset, final long value)
    {
        buffer.putLong(offset, value);
    }

    public int getInt(final int offset)
    {
        return buffer.getInt(offset);
    }

    public void putInt(final int offset, final int value)
    {
        buffer.putInt(offset, value);
    }

    public long getLongAcquire(final int offset)
    {
        return (long)LONGS.getAcquire(buffer, offset);
    }

    public long getLongVolatile(final int offset)
    {
        return (long)LONGS.getVolatile(buffer, offset);
    }

    public void setLongRelease(final int offset, final long value)
    {
        LONGS.setRelease(buffer, offset, value);
    }

    public void setLongVolatile(final int offset, final long value)
    {
        LONGS.setVolatile(buffer, offset, value);
    }

    public boolean compareAndSetLong(final int offset, final long expected, final long value)
    {
        return LONGS.compareAndSet(buffer, offset, expected, value);
    }

    public long getAndAddLong(final int offset, final long delta)
    {
        return (long)LONGS.getAndAdd(buffer, offset, delta);
    }

    public long getAndBitwiseOrLong(final int offset, final long bits)
    {
        return (long)LONGS.getAndBitwiseOr(buffer, offset, bits);
    }

    public long getAndBitwiseAndLong(final int offset, final long bits)
    {
        return (long)LONGS.getAndBitwiseAnd(buffer, offset, bits);
    }

    public int getIntAcquire(final int offset)
    {
        return (int)INTS.getAcquire(buffer, offset);
    }

    public void setIntRelease(final int offset, final int value)
    {
        INTS.setRelease(buffer, offset, value);
    }

    public boolean compareAndSetInt(final int offset, final int expected, final int value)
    {
        return INTS.compareAndSet(buffer, offset, expected, value);
    }

    /** Copies {@code length} bytes at {@code offset} into {@code dst} at its position (position unchanged). */
    public void copyOut(final int offset, final ByteBuffer dst, final int length)
    {
        copyOut(buffer, offset, dst, length);
    }

    /**
     * {@link #copyOut} from {@code region}, this memory's {@link #buffer()} held in a local by a hot
     * path: the JIT loads a field again after every acquire, so a lookup that reads through
     * {@code this.buffer} pays for the loads of the field, and of the buffer's own fields, at each of
     * its three ordered steps (about 7 ns of 28 per lookup at 1M entries).
     */
    public static void copyOut(final ByteBuffer region, final int offset, final ByteBuffer dst, final int length)
    {
        if (length > SHORT_COPY)
        {
            dst.put(dst.position(), region, offset, length);
            return;
        }
        // Word by word: the bulk put calls the JVM's copy stub, which costs more than the rest of a
        // lookup's copy of 16 bytes (about 4 ns per lookup).
        final int at = dst.position();
        final boolean swap = dst.order() != ByteOrder.LITTLE_ENDIAN; // copy bytes, whatever the caller's order
        if (length == 2 * Long.BYTES) // a sockaddr_in, unrolled: a loop of two turns measured 5 ns slower
        {
            final long v0 = region.getLong(offset);
            final long v1 = region.getLong(offset + Long.BYTES);
            dst.putLong(at, swap ? Long.reverseBytes(v0) : v0);
            dst.putLong(at + Long.BYTES, swap ? Long.reverseBytes(v1) : v1);
            return;
        }
        int i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES)
        {
            final long v = region.getLong(offset + i);
            dst.putLong(at + i, swap ? Long.reverseBytes(v) : v);
        }
        for (; i < length; i++)
        {
            dst.put(at + i, region.get(offset + i));
        }
    }

    /** {@link #getLongAcquire} on {@code region}, this memory's buffer held in a local (see {@link #copyOut(ByteBuffer, int, ByteBuffer, int)}). */
    public static long getLongAcquire(final ByteBuffer region, final int offset)
    {
        return (long)LONGS.getAcquire(region, offset);
    }

    /** Copies {@code length} bytes of {@code src} at {@code srcOffset} to {@code offset}. */
    public void copyIn(final int offset, final ByteBuffer src, final int srcOffset, final int length)
    {
        buffer.put(offset, src, srcOffset, length);
    }

    /** True when {@code length} bytes at {@code offset} equal those of {@code other} at {@code otherOffset}. */
    public boolean bytesEqual(final int offset, final ByteBuffer other, final int otherOffset, final int length)
    {
        int i = 0;
        final boolean swap = other.order() != ByteOrder.LITTLE_ENDIAN; // compare bytes, whatever the caller's order
        for (; i + Long.BYTES <= length; i += Long.BYTES)
        {
            final long theirs = other.getLong(otherOffset + i);
            if (buffer.getLong(offset + i) != (swap ? Long.reverseBytes(theirs) : theirs))
            {
                return false;
            }
        }
        for (; i < length; i++)
        {
            if (buffer.get(offset + i) != other.get(otherOffset + i))
            {
                return false;
            }
        }
        return true;
    }

    /** Sets {@code length} bytes at {@code offset} to {@code value}. */
    public void fill(final int offset, final int length, final byte value)
    {
        for (int i = 0; i < length; i++)
        {
            buffer.put(offset + i, value);
        }
    }
}
