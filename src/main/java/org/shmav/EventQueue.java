package org.shmav;

import java.time.Duration;

/**
 * An event queue ({@code fi_eq}) receiving the completions of inserts on an AV opened with
 * {@link Fi#EVENT}. Events and error entries are delivered in the order they were posted; all error
 * entries of one insert precede its {@link EqEvent#AV_COMPLETE} event. Safe for use by many threads.
 */
public interface EventQueue extends AutoCloseable
{
    /** {@code fi_eq_read}: the next event, or null when empty; throws FI_EAVAIL when an error entry is next. */
    EqEvent read();

    /** {@code fi_eq_sread}: waits up to {@code timeout} for an event; null on timeout; FI_EAVAIL as {@link #read()}. */
    EqEvent sread(Duration timeout);

    /** {@code fi_eq_readerr}: the next entry if it is an error entry, else null. */
    EqErrEntry readErr();

    /** {@code fi_close}: throws FI_EBUSY while an AV is bound to this queue. */
    @Override
    void close();
}
