package org.shmav.shm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ReadOnlyBufferException;
import java.util.List;

import org.junit.jupiter.api.Test;

class MemoryTest
{
    /** The word-by-word copy of a lookup gives the bytes in their order, whatever the destination's kind and order. */
    @Test
    void shouldCopyOutTheBytesInTheirOrderIntoAnyBuffer()
    {
        final Memory m = new Memory(ByteBuffer.allocateDirect(256));
        for (int i = 0; i < 256; i++)
        {
            m.buffer().put(i, (byte)(i * 7 + 3));
        }
        for (final boolean direct : new boolean[] {false, true})
        {
            for (final ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN})
            {
                for (int length = 0; length <= 80; length++)
                {
                    final ByteBuffer dst = (direct ? ByteBuffer.allocateDirect(100) : ByteBuffer.allocate(100)).order(order);
                    dst.position(5);
                    m.copyOut(40, dst, length);
                    assertEquals(5, dst.position(), "the position stays");
                    final byte[] got = new byte[length];
                    dst.get(5, got);
                    final byte[] expected = new byte[length];
                    m.buffer().get(40, expected);
                    assertArrayEquals(expected, got, "length " + length + ", " + order + (direct ? ", direct" : ", heap"));
                    assertEquals(0, dst.get(5 + length), "nothing written past the length");
                }
            }
        }
    }

    /** A private AV's memory sets a word only when it holds the expected value, as a CAS, and checks its offsets as one. */
    @Test
    void exclusiveMemoryComparesAndSetsAsACas()
    {
        for (final ByteBuffer b : new ByteBuffer[] {ByteBuffer.allocateDirect(64), ByteBuffer.allocate(64)})
        {
            final Memory m = Memory.exclusive(b);
            m.putLong(8, 5L);
            assertFalse(m.compareAndSetLong(8, 4L, 9L), "a word that moved on is not set");
            assertEquals(5L, m.getLong(8));
            assertTrue(m.compareAndSetLong(8, 5L, 9L));
            assertEquals(9L, m.getLong(8));
            assertEquals(9L, m.getAndBitwiseOrLong(8, 6L));
            assertEquals(15L, m.getAndBitwiseAndLong(8, ~1L));
            assertEquals(14L, m.getLong(8));
            assertThrows(IndexOutOfBoundsException.class, () -> m.compareAndSetLong(64, 0L, 1L));
            if (b.isDirect())
            {
                assertThrows(IllegalStateException.class, () -> m.compareAndSetLong(4, 0L, 1L), "misaligned");
            }
        }
    }

    @Test
    void shouldRefuseToCopyIntoAReadOnlyBuffer()
    {
        final Memory m = new Memory(ByteBuffer.allocateDirect(64));
        assertThrows(ReadOnlyBufferException.class, () -> m.copyOut(0, ByteBuffer.allocate(16).asReadOnlyBuffer(), 16));
    }

    /** Every access of Memory at an offset: its size, whether it is ordered (aligned only) and whether it writes. */
    private static final List<Access> ACCESSES = List.of(
        new Access("getLong", 8, false, false, (m, o) -> m.getLong(o)),
        new Access("putLong", 8, false, true, (m, o) -> m.putLong(o, -1L)),
        new Access("getInt", 4, false, false, (m, o) -> m.getInt(o)),
        new Access("putInt", 4, false, true, (m, o) -> m.putInt(o, -1)),
        new Access("getLongAcquire", 8, true, false, (m, o) -> m.getLongAcquire(o)),
        new Access("getLongVolatile", 8, true, false, (m, o) -> m.getLongVolatile(o)),
        new Access("setLongRelease", 8, true, true, (m, o) -> m.setLongRelease(o, -1L)),
        new Access("setLongVolatile", 8, true, true, (m, o) -> m.setLongVolatile(o, -1L)),
        new Access("compareAndSetLong", 8, true, true, (m, o) -> m.compareAndSetLong(o, 0L, -1L)),
        new Access("getAndAddLong", 8, true, true, (m, o) -> m.getAndAddLong(o, -1L)),
        new Access("getIntAcquire", 4, true, false, (m, o) -> m.getIntAcquire(o)),
        new Access("setIntRelease", 4, true, true, (m, o) -> m.setIntRelease(o, -1)),
        new Access("compareAndSetInt", 4, true, true, (m, o) -> m.compareAndSetInt(o, 0, -1)),
        new Access("copyIn 16", 16, false, true, (m, o) -> m.copyIn(o, ByteBuffer.allocate(16), 0, 16)));

    private record Access(String name, int size, boolean ordered, boolean writes, OffsetAccess access)
    {
        void at(final Memory m, final int offset)
        {
            access.at(m, offset);
        }
    }

    @FunctionalInterface
    private interface OffsetAccess
    {
        void at(Memory m, int offset);
    }

    /**
     * A writable direct buffer is accessed by address (Java 17 to 22): an access that reaches past
     * either end must throw as the buffer does, and touch nothing. The memory is a slice of a larger
     * buffer, so that an unchecked access lands in the slice's neighbours, where it shows, instead of
     * outside the process's memory.
     */
    @Test
    void shouldRefuseEveryAccessOutsideTheBufferAndTouchNothing()
    {
        final ByteBuffer whole = ByteBuffer.allocateDirect(3 * 1024);
        final Memory m = new Memory(whole.slice(1024, 1024));
        assertEquals(AddressAccess.ENABLED, m.byAddress(), "a writable direct buffer goes by address where enabled");
        for (final Access a : ACCESSES)
        {
            // Straddling the end only unaligned, for accesses that may be: an ordered one there is misaligned first.
            final int straddling = a.ordered() ? 1024 : 1024 - a.size() + 4;
            for (final int offset : new int[] {-a.size(), -8, straddling, 1024, 1024 + 64, Integer.MIN_VALUE})
            {
                assertThrows(IndexOutOfBoundsException.class, () -> a.at(m, offset), a.name() + " at " + offset);
            }
            a.at(m, 1024 - a.size()); // the last in-bounds place works
            m.buffer().put(1024 - a.size(), new byte[a.size()]);
        }
        for (int i = 0; i < whole.capacity(); i++)
        {
            if (i < 1024 || i >= 2048)
            {
                assertEquals(0, whole.get(i), "byte " + (i - 1024) + " relative to the memory's start was written");
            }
        }
    }

    /** Atomic accesses need an aligned offset, by address as through a ByteBuffer VarHandle. */
    @Test
    void shouldRefuseMisalignedAtomicAccesses()
    {
        for (final Memory m : new Memory[] {new Memory(ByteBuffer.allocateDirect(256)), new Memory(ByteBuffer.allocate(256))})
        {
            for (final Access a : ACCESSES)
            {
                if (!a.ordered())
                {
                    continue; // plain accesses may be unaligned
                }
                assertThrows(IllegalStateException.class, () -> a.at(m, a.size() == 8 ? 4 : 6),
                    a.name() + (m.byAddress() ? " by address" : " through the buffer"));
            }
        }
    }

    /** A read-only mapping is never written by address: every write throws as the buffer's does. */
    @Test
    void shouldRefuseWritesThroughAReadOnlyBuffer()
    {
        final Memory m = new Memory(ByteBuffer.allocateDirect(256).asReadOnlyBuffer());
        assertFalse(m.byAddress(), "read-only memory goes through its buffer");
        for (final Access a : ACCESSES)
        {
            if (!a.writes())
            {
                a.at(m, 64); // reads work
                continue;
            }
            assertThrows(ReadOnlyBufferException.class, () -> a.at(m, 64), a.name());
        }
    }

    /** By address and through the buffer, every access reads and writes the same little-endian bytes. */
    @Test
    void shouldReadAndWriteTheSameLittleEndianBytesByAddressAsThroughTheBuffer()
    {
        final Memory m = new Memory(ByteBuffer.allocateDirect(256));
        assertTrue(m.byAddress() || !AddressAccess.ENABLED);
        final ByteBuffer le = m.buffer();
        m.putLong(8, 0x0102030405060708L);
        assertEquals(0x08, le.get(8), "least significant byte first");
        assertEquals(0x0102030405060708L, le.getLong(8));
        m.putInt(20, 0x0A0B0C0D);
        assertEquals(0x0A0B0C0D, le.getInt(20));
        m.setLongRelease(24, 5L);
        assertTrue(m.compareAndSetLong(24, 5L, 6L));
        assertFalse(m.compareAndSetLong(24, 5L, 7L), "a CAS from the wrong value fails");
        assertEquals(6L, m.getAndAddLong(24, 10L));
        assertEquals(16L, le.getLong(24));
        m.setLongVolatile(32, -2L);
        assertEquals(-2L, m.getLongAcquire(32));
        assertEquals(-2L, m.getLongVolatile(32));
        m.setIntRelease(40, 3);
        assertTrue(m.compareAndSetInt(40, 3, 4));
        assertEquals(4, m.getIntAcquire(40));
        assertEquals(le.getLong(8), m.getLong(8));
        assertEquals(le.getInt(20), m.getInt(20));
        for (final ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN})
        {
            for (int length = 1; length <= 70; length++)
            {
                final ByteBuffer src = ByteBuffer.allocate(80).order(order);
                for (int i = 0; i < 80; i++)
                {
                    src.put(i, (byte)(i * 13 + length));
                }
                m.buffer().put(100, new byte[80]);
                m.copyIn(100, src, 3, length);
                for (int i = 0; i < 80; i++)
                {
                    assertEquals(i < length ? src.get(3 + i) : 0, m.buffer().get(100 + i),
                        "byte " + i + " of a copy of " + length + " from a " + order + " buffer");
                }
                assertTrue(m.bytesEqual(100, src, 3, length));
            }
        }
    }
}
