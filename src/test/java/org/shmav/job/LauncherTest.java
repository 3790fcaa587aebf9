package org.shmav.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The one decision of which launcher started a rank, and that its store and its needs follow from that decision. */
class LauncherTest
{
    private static final Map<String, String> HYDRA = Map.of("PMI_RANK", "1", "PMI_SIZE", "4", "MPI_LOCALRANKID", "0",
        "MPI_LOCALNRANKS", "2");

    @Test
    void shouldFindNoStoreOutsideALauncherOrWithoutItsSocket()
    {
        assertEquals(Launcher.NONE, Launcher.of(Map.of()));
        assertTrue(Launcher.NONE.openStore(Map.of()).isEmpty());
        assertFalse(Launcher.NONE.hasStore());
        assertFalse(Launcher.AVRUN.hasStore());
        // Hydra's variables without PMI_FD: no PMI-1 socket to speak on
        assertEquals(Launcher.MPICH, Launcher.of(HYDRA));
        assertTrue(Launcher.MPICH.openStore(HYDRA).isEmpty());
    }

    @Test
    void shouldSayWhichStoreEachLauncherNeeds()
    {
        assertTrue(Launcher.OPEN_MPI.whatItNeeds().contains("PMIx"));
        assertTrue(Launcher.MPICH.whatItNeeds().contains("PMI-1"));
        assertTrue(Launcher.SLURM.whatItNeeds().contains("--mpi=pmi2"));
    }

    /**
     * A Slurm rank whose environment carries a stray Open MPI variable (inherited, not its launcher's):
     * it is Slurm's rank, so what its store needs is Slurm's. Detection and the store's choice once looked
     * at different variables, and said PMIx here.
     */
    @Test
    void shouldTakeTheStoreOfTheLauncherItDetected()
    {
        final Map<String, String> env = new HashMap<>(Map.of("SLURM_PROCID", "1", "SLURM_NTASKS", "4", "SLURM_LOCALID", "1",
            "SLURM_JOB_ID", "7", "SLURM_STEP_ID", "0", "SLURM_STEP_TASKS_PER_NODE", "2(x2)", "SLURM_NODEID", "0",
            "OMPI_COMM_WORLD_RANK", "3"));
        final RankEnvironment job = Launcher.environment(env, () -> java.util.Optional.empty());
        assertEquals(Launcher.SLURM, job.launcher());
        assertTrue(job.launcher().hasStore());
        assertTrue(job.launcher().whatItNeeds().contains("PMI-2"), job.launcher().whatItNeeds());
        assertTrue(job.launcher().openStore(env).isEmpty(), "neither PMI_FD nor PMIX_NAMESPACE: no store, and no PMIx attempt");
    }
}
