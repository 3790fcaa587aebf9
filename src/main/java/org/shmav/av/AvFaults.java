package org.shmav.av;

import java.util.function.Supplier;

import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * What one AV handle does when its calls fail in a way that may come from its file rather than from
 * the caller: a fault of the mapping ({@link InternalError}) or an FI_EIO of the slot protocol. When
 * {@link AvFileHealth} finds the named AV's file truncated or replaced, the call fails with FI_EIO
 * saying so, and so does every later call on the handle; any other failure goes on as it was.
 */
final class AvFaults
{
    private final GrowableRegion regions;
    /** Null for a private AV, whose memory nobody else can cut short. */
    private final AvFileHealth health;
    /** Set once the file was found truncated or replaced. */
    private volatile FabricException broken;

    AvFaults(final GrowableRegion regions, final AvFileHealth health)
    {
        this.regions = regions;
        this.health = health;
    }

    /** FI_EIO once this handle found its file truncated or replaced; the call adds its name. */
    void checkHealthy()
    {
        final FabricException b = broken;
        if (b != null)
        {
            throw copyOf(b);
        }
    }

    /** Out of line: keeps {@link #checkHealthy} small enough for every call to inline. A copy: each call names its own. */
    private static FabricException copyOf(final FabricException b)
    {
        return new FabricException(b.errno(), b.detail());
    }

    /** Before a call changes a named AV: a truncated file faults here, in a read, not in an atomic update. */
    void probe()
    {
        if (health != null)
        {
            try
            {
                AvFileHealth.probe(regions.current());
            }
            catch (final InternalError e)
            {
                throw fault(e);
            }
        }
    }

    /**
     * False when the file is broken (or found so now), so that closing the handle closes the file
     * without writing through pages that may be gone; true for a private AV.
     */
    boolean intact()
    {
        if (broken != null)
        {
            return false;
        }
        try
        {
            probe();
            return true;
        }
        catch (final FabricException | InternalError e)
        {
            return false;
        }
    }

    /**
     * {@code op}, with its failures handled as {@link #fault} says; for calls off the hot paths (it may
     * allocate). The caller names its call in what it throws.
     */
    <T> T guarded(final Supplier<T> op)
    {
        checkHealthy();
        try
        {
            return op.get();
        }
        catch (final InternalError | FabricException e)
        {
            throw fault(e);
        }
    }

    /**
     * A failure {@code e} inside a call: FI_EIO naming the cause when the file was truncated or replaced
     * (and this handle is broken from now on); otherwise {@code e} itself. An {@link Error} that the file
     * does not explain is rethrown here. The call adds its name to what it throws ({@link FabricException#in}).
     */
    FabricException fault(final Throwable e)
    {
        final FabricException b = broken;
        if (b != null)
        {
            return copyOf(b);
        }
        final boolean fileMayBeAtFault = e instanceof InternalError || ((FabricException)e).errno() == FiErrno.EIO;
        final FabricException found = health != null && fileMayBeAtFault ? health.diagnose(regions.current()) : null;
        if (found == null)
        {
            if (e instanceof Error error)
            {
                throw error;
            }
            return (FabricException)e;
        }
        broken = found;
        regions.stopLookups(); // lookups check broken on their checked path only
        return copyOf(found);
    }
}
