package org.shmav.shm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Reference;
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
 * A private AV's memory is {@link #exclusive}: one writer at a time, so its CAS and fetch-and/or are an
 * ordered load and store, not a locked instruction.
 * All multi-byte fields are little-endian (see shm-layout.md), whatever the host; on x86 and aarch64
 * that is the native order and costs nothing. Offsets must be aligned to the field size, which the
 * layout guarantees. A write through a read-only mapping throws {@link java.nio.ReadOnlyBufferException}.
 *
 * <p>A writable direct buffer is accessed by address where {@link AddressAccess} is enabled (Java 17 to
 * 22): each access checks its bounds (and an atomic one its alignment) here, once, and throws what the
 * buffer would have thrown, instead of the half-dozen checks of a ByteBuffer VarHandle. An insert makes
 * about thirty accesses; docs/profiles.md has what that saves.
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
    /** The buffer's first byte's address, or 0 to go through the buffer (read-only, heap, or not enabled). */
    private final long address;
    private final int limit;
    /** Every write to this memory is made by one thread at a time (see {@link #exclusive}). */
    private final boolean exclusive;

    public Memory(final ByteBuffer buffer)
    {
        this(buffer, false);
    }

    /**
     * Memory that only one thread at a time writes, each writer's writes ordered before the next
     * writer's by a lock (a private AV: its handle's write lock; readers in other threads only read):
     * its {@link #compareAndSetLong} is an acquire load, a compare and a release store, no locked
     * instruction, since no other writer can move the word between the load and the store.
     */
    public static Memory exclusive(final ByteBuffer buffer)
    {
        return new Memory(buffer, true);
    }

    private Memory(final ByteBuffer buffer, final boolean exclusive)
    {
        this.exclusive = exclusive;
        this.buffer = buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        final long start = AddressAccess.ENABLED && !buffer.isReadOnly() ? AddressReads.addressOf(this.buffer) : 0;
        // Offsets aligned in the layout are aligned in memory only if the buffer starts on a word
        // (mappings and private regions start on a page); an atomic access off a word is a fault on aarch64.
        this.address = (start & (Long.BYTES - 1)) == 0 ? start : 0;
        this.limit = this.buffer.capacity();
    }

    /** True when this memory is accessed by address (package-private: for tests). */
    boolean byAddress()
    {
        return address != 0;
    }

    /** The address of the {@code size} bytes at {@code offset}, checked to lie inside the buffer. */
    private long at(final int offset, final int size)
    {
        if (offset < 0 || offset > limit - size)
        {
            throw outside(offset, size);
        }
        return address + offset;
    }

    /** {@link #at}, and aligned to {@code size}, as an atomic access must be. */
    private long aligned(final int offset, final int size)
    {
        if ((offset & (size - 1)) != 0)
        {
            throw new IllegalStateException("misaligned access at offset " + offset);
        }
        return at(offset, size);
    }

    private IndexOutOfBoundsException outside(final int offset, final int size)
    {
        return new IndexOutOfBoundsException(size + " bytes at offset " + offset + " are outside 0.." + limit);
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
        if (address != 0)
        {
            final long v = AddressReads.getLong(at(offset, Long.BYTES));
            Reference.reachabilityFence(this); // this memory holds the buffer that keeps the mapping
            return v;
        }
        return buffer.getLong(offset);
    }

    public void putLong(final int offset, final long value)
    {
        if (address != 0)
        {
            AddressAccess.putLong(at(offset, Long.BYTES), value);
            Reference.reachabilityFence(this);
            return;
        }
        buffer.putLong(offset, value);
    }

    public int getInt(final int offset)
    {
        if (address != 0)
        {
            final int v = AddressReads.getInt(at(offset, Integer.BYTES));
            Reference.reachabilityFence(this);
            return v;
        }
        return buffer.getInt(offset);
    }

    public void putInt(final int offset, final int value)
    {
        if (address != 0)
        {
            AddressAccess.putInt(at(offset, Integer.BYTES), value);
            Reference.reachabilityFence(this);
            return;
        }
        buffer.putInt(offset, value);
    }

    public long getLongAcquire(final int offset)
    {
        if (address != 0)
        {
            return getLongVolatile(offset); // Unsafe has no acquire load; a volatile one costs the same on x86 and aarch64
        }
        return (long)LONGS.getAcquire(buffer, offset);
    }

    public long getLongVolatile(final int offset)
    {
        if (address != 0)
        {
            final long v = AddressAccess.getLongVolatile(aligned(offset, Long.BYTES));
            Reference.reachabilityFence(this);
            return v;
        }
        return (long)LONGS.getVolatile(buffer, offset);
    }

    public void setLongRelease(final int offset, final long value)
    {
        if (address != 0)
        {
            AddressAccess.putLongRelease(aligned(offset, Long.BYTES), value);
            Reference.reachabilityFence(this);
            return;
        }
        LONGS.setRelease(buffer, offset, value);
    }

    public void setLongVolatile(final int offset, final long value)
    {
        if (address != 0)
        {
            AddressAccess.putLongVolatile(aligned(offset, Long.BYTES), value);
            Reference.reachabilityFence(this);
            return;
        }
        LONGS.setVolatile(buffer, offset, value);
    }

    public boolean compareAndSetLong(final int offset, final long expected, final long value)
    {
        if (exclusive)
        {
            return setIfUnchanged(offset, expected, value);
        }
        if (address != 0)
        {
            final boolean set = AddressAccess.compareAndSetLong(aligned(offset, Long.BYTES), expected, value);
            Reference.reachabilityFence(this);
            return set;
        }
        return LONGS.compareAndSet(buffer, offset, expected, value);
    }

    /**
     * The compare-and-set of {@link #exclusive} memory: an acquire load (later accesses stay below it, as
     * below a CAS), a release store (earlier ones stay above it), then a store-store fence, so that the
     * writes that follow (a claimed slot's payload) are not seen before this word's new value by a
     * seqlock reader. Sequential consistency, the one thing a CAS adds, orders writers against one
     * another, and there is only one.
     */
    private boolean setIfUnchanged(final int offset, final long expected, final long value)
    {
        if (getLongAcquire(offset) != expected)
        {
            return false;
        }
        setLongRelease(offset, value);
        VarHandle.storeStoreFence();
        return true;
    }

    public long getAndAddLong(final int offset, final long delta)
    {
        if (address != 0)
        {
            final long v = AddressAccess.getAndAddLong(aligned(offset, Long.BYTES), delta);
            Reference.reachabilityFence(this);
            return v;
        }
        return (long)LONGS.getAndAdd(buffer, offset, delta);
    }

    public long getAndBitwiseOrLong(final int offset, final long bits)
    {
        if (exclusive)
        {
            final long v = getLongAcquire(offset);
            setIfUnchanged(offset, v, v | bits);
            return v;
        }
        return (long)LONGS.getAndBitwiseOr(buffer, offset, bits);
    }

    public long getAndBitwiseAndLong(final int offset, final long bits)
    {
        if (exclusive)
        {
            final long v = getLongAcquire(offset);
            setIfUnchanged(offset, v, v & bits);
            return v;
        }
        return (long)LONGS.getAndBitwiseAnd(buffer, offset, bits);
    }

    public int getIntAcquire(final int offset)
    {
        if (address != 0)
        {
            final int v = AddressAccess.getIntVolatile(aligned(offset, Integer.BYTES));
            Reference.reachabilityFence(this);
            return v;
        }
        return (int)INTS.getAcquire(buffer, offset);
    }

    public void setIntRelease(final int offset, final int value)
    {
        if (address != 0)
        {
            AddressAccess.putIntRelease(aligned(offset, Integer.BYTES), value);
            Reference.reachabilityFence(this);
            return;
        }
        INTS.setRelease(buffer, offset, value);
    }

    public boolean compareAndSetInt(final int offset, final int expected, final int value)
    {
        if (address != 0)
        {
            final boolean set = AddressAccess.compareAndSetInt(aligned(offset, Integer.BYTES), expected, value);
            Reference.reachabilityFence(this);
            return set;
        }
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
        if (length == 4 * Long.BYTES) // a 32-byte provider address (EFA, IB UD, PSMX3), unrolled as sockaddr_in's
        {
            final long v0 = region.getLong(offset);
            final long v1 = region.getLong(offset + Long.BYTES);
            final long v2 = region.getLong(offset + 2 * Long.BYTES);
            final long v3 = region.getLong(offset + 3 * Long.BYTES);
            dst.putLong(at, swap ? Long.reverseBytes(v0) : v0);
            dst.putLong(at + Long.BYTES, swap ? Long.reverseBytes(v1) : v1);
            dst.putLong(at + 2 * Long.BYTES, swap ? Long.reverseBytes(v2) : v2);
            dst.putLong(at + 3 * Long.BYTES, swap ? Long.reverseBytes(v3) : v3);
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
        if (address == 0 || length > SHORT_COPY)
        {
            buffer.put(offset, src, srcOffset, length);
            return;
        }
        // Word by word, as copyOut: the bulk put's copy stub costs more than a short address's copy.
        at(offset, length);
        final boolean swap = src.order() != ByteOrder.LITTLE_ENDIAN; // copy bytes, whatever the source's order
        int i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES)
        {
            final long v = src.getLong(srcOffset + i);
            AddressAccess.putLong(address + offset + i, swap ? Long.reverseBytes(v) : v);
        }
        for (; i < length; i++)
        {
            buffer.put(offset + i, src.get(srcOffset + i));
        }
        Reference.reachabilityFence(this);
    }

    /** True when {@code length} bytes at {@code offset} equal those of {@code other} at {@code otherOffset}. */
    public boolean bytesEqual(final int offset, final ByteBuffer other, final int otherOffset, final int length)
    {
        int i = 0;
        final boolean swap = other.order() != ByteOrder.LITTLE_ENDIAN; // compare bytes, whatever the caller's order
        for (; i + Long.BYTES <= length; i += Long.BYTES)
        {
            final long theirs = other.getLong(otherOffset + i);
            if (getLong(offset + i) != (swap ? Long.reverseBytes(theirs) : theirs))
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
