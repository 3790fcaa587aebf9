package org.shmav.job;

import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.FabricException;

/**
 * What the job layer needs to open its node's AV: the entry layer above hands it in (a domain for the
 * AV's directory, FI_SOCKADDR_IN), so that the job layer never reaches up to {@code Domain} itself.
 * The job layer owns it once given: {@link NodeJob} closes it with the rank, or at once when it cannot open.
 *
 * <p>Safe for use by several threads as the domain behind it is.
 */
public interface NodeAvs extends AutoCloseable
{
    /**
     * {@code fi_av_open} of a named (or, without a name, private) AV.
     *
     * @param attr the AV's attributes
     * @return the open AV
     * @throws FabricException as {@code fi_av_open(3)}
     */
    AddressVector openAv(AvAttr attr);

    /** Closes what opens the AVs (their handles first). Idempotent, never throws for a rank's own AVs. */
    @Override
    void close();
}
