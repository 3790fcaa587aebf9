package org.shmav;

/**
 * The part of an endpoint ({@code fi_endpoint}) that concerns AVs: it holds a reference on its bound
 * AV, and when enabled it captures the AV's authorization keys. Not thread-safe.
 */
public interface Endpoint extends AutoCloseable
{
    /** {@code fi_ep_bind}: FI_EINVAL for a null or closed AV, one of another domain, a second AV or flags != 0. */
    void bind(AddressVector av, long flags);

    /** {@code fi_enable}: FI_ENOAV when no AV is bound; FI_EOPBADSTATE when already enabled. */
    void enable();

    /** {@code fi_close}: releases the AV (and its authorization keys). */
    @Override
    void close();
}
