package org.shmav;

/**
 * The part of an endpoint ({@code fi_endpoint}) that concerns AVs: it holds a reference on its bound
 * AV, and when enabled it captures the AV's authorization keys. Not thread-safe.
 */
public interface Endpoint extends AutoCloseable
{
    /**
     * {@code fi_ep_bind}: binds the endpoint to an AV, which then cannot be closed until the endpoint is.
     *
     * @param av    an open AV of this endpoint's domain
     * @param flags 0
     * @throws FabricException FI_EINVAL for a null or closed AV, one of another domain, a second AV or
     *                         flags != 0
     */
    void bind(AddressVector av, long flags);

    /**
     * {@code fi_enable}: enables the endpoint, capturing its AV's authorization keys.
     *
     * @throws FabricException FI_ENOAV when no AV is bound; FI_EOPBADSTATE when already enabled
     */
    void enable();

    /** {@code fi_close}: releases the AV (and its authorization keys). Idempotent. */
    @Override
    void close();
}
