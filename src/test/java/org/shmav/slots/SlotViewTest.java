package org.shmav.slots;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ReadOnlyBufferException;

import org.junit.jupiter.api.Test;
import org.shmav.AddrFormat;
import org.shmav.Addresses;
import org.shmav.AvType;
import org.shmav.shm.AddressReads;
import org.shmav.shm.AvLayout;
import org.shmav.shm.SlotDescriptor;

/** A handle's lookup (SlotView, by address where the JDK allows) answers what the ByteBuffer read answers. */
class SlotViewTest
{
    private static final long CAPACITY = 64;

    @Test
    void shouldReadByAddressOnThisJdk()
    {
        assertTrue(AddressReads.ENABLED, "Java " + Runtime.version().feature() + ": lookups read by address on 17 to 22");
    }

    @Test
    void shouldAnswerEveryLookupAsTheBufferReadDoes()
    {
        for (final AddrFormat format : new AddrFormat[] {AddrFormat.SOCKADDR_IN, AddrFormat.SOCKADDR_IN6})
        {
            final Region r = Region.allocatePrivate(AvLayout.compute(format, AvType.TABLE, CAPACITY, 4, 0, 0), 1L << 32, 0, 0);
            for (int i = 0; i < CAPACITY / 2; i++)
            {
                final ByteBuffer a = address(format, i);
                assertEquals(i, r.table().insert(r.writer(), a, a.position(), a.remaining(), -1L, Long.MIN_VALUE, 0));
            }
            for (int i = 0; i < CAPACITY / 2; i += 3)
            {
                assertEquals(0, r.table().remove(r.writer(), i));
            }
            // a slot CLAIMED by a writer that has not published: not an answer yet
            final int claimed = r.layout().slot(CAPACITY / 2) + SlotDescriptor.STATE_OFFSET;
            r.memory().putLong(claimed, SlotDescriptor.CLAIMED | 1L << 4);
            final SlotView view = r.table().view();
            assertEquals(r.table(), view.table());
            for (long i = 0; i < CAPACITY; i++)
            {
                for (final int room : new int[] {0, 5, 16, 28, 40})
                {
                    for (final boolean direct : new boolean[] {false, true})
                    {
                        for (final ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN})
                        {
                            final ByteBuffer viaView = buffer(direct, order, room);
                            final ByteBuffer viaTable = buffer(direct, order, room);
                            final String what = format + " slot " + i + ", room " + room + (direct ? ", direct " : ", heap ") + order;
                            assertEquals(r.table().lookup(i, viaTable), view.lookup(i, viaView), what);
                            assertEquals(3, viaView.position(), what);
                            assertArrayEquals(bytes(viaTable), bytes(viaView), what);
                        }
                    }
                }
            }
            for (final ByteBuffer readOnly : new ByteBuffer[] {ByteBuffer.allocate(40).asReadOnlyBuffer(),
                ByteBuffer.allocateDirect(40).asReadOnlyBuffer()})
            {
                assertThrows(ReadOnlyBufferException.class, () -> view.lookup(1, readOnly), "a read-only buffer is refused, not written");
            }
            final ByteBuffer out = ByteBuffer.allocate(format.addrlen());
            assertEquals(format.addrlen(), view.lookup(1, out), "a valid entry is found");
            assertEquals(-1, view.lookup(0, out), "a removed one is not");
            assertEquals(-1, view.lookup(CAPACITY / 2, out), "nor a claimed one");
        }
    }

    private static ByteBuffer address(final AddrFormat format, final int i)
    {
        final String host = format == AddrFormat.SOCKADDR_IN6 ? "fd00::1:" + Integer.toHexString(i) : "10.2.0." + i;
        return Addresses.toSockaddr(new InetSocketAddress(host, 5000 + i));
    }

    private static ByteBuffer buffer(final boolean direct, final ByteOrder order, final int room)
    {
        final ByteBuffer b = (direct ? ByteBuffer.allocateDirect(3 + room + 8) : ByteBuffer.allocate(3 + room + 8)).order(order);
        b.position(3).limit(3 + room);
        return b;
    }

    private static byte[] bytes(final ByteBuffer b)
    {
        final byte[] all = new byte[b.capacity()];
        b.duplicate().clear().get(all);
        return all;
    }
}
