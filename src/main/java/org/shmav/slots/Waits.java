package org.shmav.slots;

import java.util.concurrent.TimeUnit;

/** The bounded waits of the slot protocol: every wait on another writer ends at a deadline. */
final class Waits
{
    /**
     * How long one API call waits on other live writers in all: an insertAt of a slot another writer
     * holds uncommitted, another process's growth claim that makes progress.
     */
    static final long CLAIM_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** A deadline not started yet: the clock is read only once a wait may begin (a read costs ~20 ns). */
    static final long NO_DEADLINE = 0;

    private Waits()
    {
    }

    /**
     * The deadline of the API call {@code w} runs ({@link Writer#startCall}): one {@link #CLAIM_WAIT_NANOS}
     * after its first wait began, which this starts if none did.
     */
    static long deadline(final Writer w)
    {
        if (w.callDeadline == NO_DEADLINE)
        {
            final long d = System.nanoTime() + CLAIM_WAIT_NANOS;
            w.callDeadline = d == NO_DEADLINE ? 1 : d;
        }
        return w.callDeadline;
    }

    /** {@code nanos} from now, or the call's deadline if that comes first. */
    static long within(final Writer w, final long nanos)
    {
        final long own = System.nanoTime() + nanos;
        final long call = deadline(w);
        return call - own < 0 ? call : own;
    }

    static boolean passed(final long deadline)
    {
        return System.nanoTime() - deadline > 0;
    }
}
