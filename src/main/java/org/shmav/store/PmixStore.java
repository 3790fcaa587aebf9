package org.shmav.store;

import java.util.Map;
import java.util.Optional;

import org.shmav.FabricException;
import org.shmav.FiErrno;

/** PMIx (libpmix) client: placeholder until the client lands; {@link #open} finds no such launcher. */
public final class PmixStore
{
    private PmixStore()
    {
    }

    /**
     * The store of the launcher that started this process, when its variables are in {@code env}.
     *
     * @param env the process environment
     * @return the store, or empty when {@code env} names no such launcher
     * @throws FabricException when the launcher is there but its store cannot be reached
     */
    public static Optional<JobStore> open(final Map<String, String> env)
    {
        if (env == null)
        {
            throw new FabricException("PmixStore.open", FiErrno.EINVAL, "env is null");
        }
        return Optional.empty();
    }
}
