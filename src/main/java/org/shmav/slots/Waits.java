package org.shmav.slots;

import java.util.concurrent.TimeUnit;

/** The bounded waits of the slot protocol: every wait on another writer ends at a deadline. */
final class Waits
{
    /** How long a writer waits for another live writer (a claim of the same address, a rebuild). */
    static final long CLAIM_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** A deadline not started yet: the clock is read only once a wait may begin (a read costs ~20 ns). */
    static final long NO_DEADLINE = 0;

    private Waits()
    {
    }

    /** {@code deadline}, or one {@link #CLAIM_WAIT_NANOS} from now when it is {@link #NO_DEADLINE}. */
    static long startWaiting(final long deadline)
    {
        return deadline != NO_DEADLINE ? deadline : System.nanoTime() + CLAIM_WAIT_NANOS;
    }

    static boolean passed(final long deadline)
    {
        return System.nanoTime() - deadline > 0;
    }
}
