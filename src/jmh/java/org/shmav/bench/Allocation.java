package org.shmav.bench;

import java.lang.management.ManagementFactory;

/** Bytes allocated by the calling thread so far (HotSpot's per-thread counter; reading it allocates nothing). */
final class Allocation
{
    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();

    private Allocation()
    {
    }

    static long ofThisThread()
    {
        return THREADS.getCurrentThreadAllocatedBytes();
    }
}
