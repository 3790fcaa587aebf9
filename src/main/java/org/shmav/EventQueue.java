package org.shmav;

import java.time.Duration;

/**
 * An event queue ({@code fi_eq}) receiving the completions of inserts on an AV opened with
 * {@link Fi#EVENT}. Events and error entries are delivered in the order they were posted; all error
 * entries of one insert precede its {@link EqEvent#AV_COMPLETE} event. Safe for use by many threads.
 */
public interface EventQueue extends AutoCloseable
{
    /**
     * {@code fi_eq_read}: takes the next event.
     *
     * @return the next event, or null when the queue is empty (C's -FI_EAGAIN)
     * @throws FabricException FI_EAVAIL when an error entry is next (read it with {@link #readErr()})
     */
    EqEvent read();

    /**
     * {@code fi_eq_sread}: waits for the next event.
     *
     * @param timeout how long to wait at most
     * @return the next event, or null on timeout
     * @throws FabricException FI_EAVAIL as {@link #read()}
     */
    EqEvent sread(Duration timeout);

    /**
     * {@code fi_eq_readerr}: takes the next entry if it is an error entry.
     *
     * @return the error entry, or null when the next entry is not one (or there is none)
     */
    EqErrEntry readErr();

    /**
     * {@code fi_close}: closes the queue.
     *
     * @throws FabricException FI_EBUSY while an AV is bound to this queue
     */
    @Override
    void close();
}
