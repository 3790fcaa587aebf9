package org.shmav.job;

import java.util.function.Function;

import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.FabricException;

/**
 * What the job layer needs to open its node's AV: the entry layer above hands it in (a domain for the
 * AV's directory, of the job's address format), so that the job layer never reaches up to {@code Domain} itself.
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

    /**
     * {@return what opens AVs with {@code opener} and closes with {@code closer}} E.g. a domain's
     * {@code openAv} and {@code close}.
     *
     * @param opener {@code fi_av_open} of the AV's attributes
     * @param closer closes what opens the AVs
     */
    static NodeAvs of(final Function<AvAttr, AddressVector> opener, final Runnable closer)
    {
        return new NodeAvs()
        {
            @Override
            public AddressVector openAv(final AvAttr attr)
            {
                return opener.apply(attr);
            }

            @Override
            public void close()
            {
                closer.run();
            }
        };
    }
}
