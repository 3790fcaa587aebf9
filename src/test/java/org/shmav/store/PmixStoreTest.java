package org.shmav.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * What {@link PmixStore} decides without a PMIx server; {@code PmixStoreIT} runs it under mpirun across
 * simulated nodes, and without JNA or libpmix.
 */
class PmixStoreTest
{
    @Test
    void shouldFindNoStoreWithoutPmixNamespace()
    {
        assertTrue(PmixStore.open(Map.of()).isEmpty());
        assertTrue(PmixStore.open(Map.of("PMI_FD", "3", "PMI_RANK", "0")).isEmpty(), "Hydra's ranks are not PMIx's");
        assertEquals(FiErrno.EINVAL, assertThrows(FabricException.class, () -> PmixStore.open(null)).errno());
    }

    @Test
    void shouldNameTheLauncherFromItsVariables()
    {
        assertEquals("Open MPI mpirun", PmixStore.launcherName(Map.of("OMPI_COMM_WORLD_SIZE", "4", "SLURM_JOB_ID", "1")));
        assertEquals("Slurm srun", PmixStore.launcherName(Map.of("SLURM_JOB_ID", "1")));
        assertEquals("PRRTE prterun", PmixStore.launcherName(Map.of("PRTE_MCA_x", "1")));
        assertEquals("a PMIx launcher", PmixStore.launcherName(Map.of()));
    }

    @Test
    void shouldRejectKeysAndValuesPmixCannotCarryNamingTheLauncher()
    {
        final FabricException e = assertThrows(FabricException.class,
            () -> PmixCalls.checkText("key", "a b", PmixNative.KEY_MAX, "Open MPI mpirun"));
        assertEquals(FiErrno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("launcher=Open MPI mpirun"), e.getMessage());
        assertThrows(FabricException.class, () -> PmixCalls.checkText("key", "k".repeat(512), PmixNative.KEY_MAX, "x"));
        PmixCalls.checkText("key", "k".repeat(511), PmixNative.KEY_MAX, "x");
    }
}
