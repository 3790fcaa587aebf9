package org.shmav.bench;

/**
 * The checks that end a timed insert loop, with their failure messages. They live here, not in the
 * benchmark classes: a JIT compile of a benchmark method resolves every string constant of its class in
 * the benchmark's own thread, and an unresolved message there would be allocated inside the timed loop.
 */
final class LoopChecks
{
    private LoopChecks()
    {
    }

    /** Fails unless the AV holds {@code expected} entries. */
    static void entries(final long count, final long expected)
    {
        if (count != expected)
        {
            throw new IllegalStateException("AV holds " + count + " entries, expected " + expected);
        }
    }

    /** Fails unless the insert loop allocated nothing. */
    static void noAllocation(final long allocated)
    {
        if (allocated != 0)
        {
            throw new IllegalStateException("the insert loop allocated " + allocated + " bytes");
        }
    }
}
