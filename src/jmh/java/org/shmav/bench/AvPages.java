package org.shmav.bench;

import java.lang.reflect.Field;
import java.lang.reflect.Method;

import org.shmav.AddressVector;
import org.shmav.shm.Memory;
import org.shmav.slots.Region;

/**
 * Makes every page of an AV's mapping present in this process before a timed loop, as memory_limits'
 * models have theirs: reads each 4 KiB page's first word through the handle's own writable mapping and
 * stores it back unchanged. Only for a benchmark's AV that nobody else has open (the store must not
 * race another writer). Reaches the mapping by reflection: no API exposes it, on purpose.
 */
final class AvPages
{
    private static final int PAGE = 4096;

    private AvPages()
    {
    }

    /** Touches every page of {@code av}'s current region; returns the pages touched. */
    static long touch(final AddressVector av)
    {
        try
        {
            final Field regions = av.getClass().getDeclaredField("regions");
            regions.setAccessible(true);
            final Object growable = regions.get(av);
            final Method current = growable.getClass().getDeclaredMethod("current");
            current.setAccessible(true);
            final Memory m = ((Region)current.invoke(growable)).memory();
            long pages = 0;
            for (int at = 0; at + Long.BYTES <= m.capacity(); at += PAGE)
            {
                m.putLong(at, m.getLong(at));
                pages++;
            }
            return pages;
        }
        catch (final ReflectiveOperationException e)
        {
            throw new IllegalStateException("cannot reach the AV's mapping: " + e, e);
        }
    }
}
