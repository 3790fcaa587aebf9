package org.shmav.store;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

/** Which launcher's store a rank looks for, and what it says when there is none. */
class JobStoresTest
{
    @Test
    void shouldFindNoStoreOutsideALauncherOrWithoutItsSocket()
    {
        assertTrue(JobStores.fromEnvironment(Map.of()).isEmpty());
        // Hydra's variables without PMI_FD: no PMI-1 socket to speak on
        assertTrue(JobStores.fromEnvironment(Map.of("PMI_RANK", "1", "PMI_SIZE", "4", "MPI_LOCALRANKID", "0")).isEmpty());
    }

    @Test
    void shouldSayWhichStoreEachLauncherNeeds()
    {
        assertTrue(JobStores.whatItNeeds(Map.of("OMPI_COMM_WORLD_RANK", "0")).contains("PMIx"));
        assertTrue(JobStores.whatItNeeds(Map.of("PMI_RANK", "0", "MPI_LOCALRANKID", "0")).contains("PMI-1"));
        assertTrue(JobStores.whatItNeeds(Map.of("SLURM_PROCID", "0")).contains("--mpi=pmi2"));
    }
}
