package org.shmav.slots;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;
import org.shmav.shm.Memory;

/** {@link FirstViews}: each offset is read through the earliest view that maps it. */
class FirstViewsTest
{
    @Test
    void shouldPickTheEarliestViewThatHoldsTheBytes()
    {
        final Memory a = new Memory(ByteBuffer.allocateDirect(4096));
        final Memory b = new Memory(ByteBuffer.allocateDirect(8192));
        final Memory c = new Memory(ByteBuffer.allocateDirect(32768));
        final FirstViews views = FirstViews.of(a).then(b).then(c);
        assertEquals(3, views.count());
        assertSame(a, views.covering(0, 8));
        assertSame(a, views.covering(4088, 8), "the last word of the first view");
        assertSame(b, views.covering(4092, 8), "straddling the first view's end");
        assertSame(b, views.covering(8184, 8));
        assertSame(c, views.covering(8192, 8));
        assertSame(c, views.covering(40000, 8), "past every view: the newest, which refuses it");
    }

    @Test
    void shouldKeepNoViewThatMapsNothingNew()
    {
        final Memory a = new Memory(ByteBuffer.allocateDirect(4096));
        final FirstViews views = FirstViews.of(a);
        assertSame(views, views.then(new Memory(ByteBuffer.allocateDirect(4096))), "a view of the same length adds nothing");
        assertEquals(1, views.count());
    }
}
