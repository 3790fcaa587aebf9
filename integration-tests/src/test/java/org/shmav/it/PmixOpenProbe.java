package org.shmav.it;

import org.shmav.FabricException;
import org.shmav.store.PmixStore;

/** For {@link PmixStoreIT}: opens {@link PmixStore} with this process's environment and prints what happened. */
public final class PmixOpenProbe
{
    private PmixOpenProbe()
    {
    }

    public static void main(final String[] args)
    {
        try
        {
            System.out.println("opened: " + PmixStore.open(System.getenv()));
        }
        catch (final FabricException e)
        {
            System.out.println("refused: " + e.getMessage());
        }
    }
}
