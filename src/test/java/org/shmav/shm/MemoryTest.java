package org.shmav.shm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ReadOnlyBufferException;

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

    @Test
    void shouldRefuseToCopyIntoAReadOnlyBuffer()
    {
        final Memory m = new Memory(ByteBuffer.allocateDirect(64));
        assertThrows(ReadOnlyBufferException.class, () -> m.copyOut(0, ByteBuffer.allocate(16).asReadOnlyBuffer(), 16));
    }
}
