package org.shmav.store;

import java.util.Map;
import java.util.Optional;

import org.shmav.FabricException;

/**
 * Finds the key-value store of the launcher that started this process, in the order the launchers are
 * recognised ({@code org.shmav.job.RankEnvironment}): Open MPI's mpirun speaks PMIx ({@link PmixStore});
 * MPICH's mpiexec (Hydra, {@code MPI_LOCALRANKID} beside {@code PMI_FD}) speaks PMI-1 ({@link Pmi1Store});
 * Slurm's srun speaks PMIx under {@code --mpi=pmix} ({@code PMIX_NAMESPACE} set) and PMI-2 over
 * {@code PMI_FD} otherwise ({@link Pmi2Store}). Stateless.
 */
public final class JobStores
{
    private JobStores()
    {
    }

    /**
     * The store of the launcher whose variables are in {@code env}.
     *
     * @param env the process environment
     * @return the store, or empty when no launcher with a store started this process (or its client is
     *         not available)
     * @throws FabricException when the launcher is there but its store cannot be reached
     */
    public static Optional<JobStore> fromEnvironment(final Map<String, String> env)
    {
        if (set(env, "OMPI_COMM_WORLD_RANK"))
        {
            return PmixStore.open(env);
        }
        if (set(env, "PMI_RANK") && set(env, "MPI_LOCALRANKID") && set(env, "PMI_FD"))
        {
            return Pmi1Store.open(env);
        }
        if (set(env, "SLURM_PROCID"))
        {
            return set(env, "PMIX_NAMESPACE") ? PmixStore.open(env) : Pmi2Store.open(env);
        }
        if (set(env, "PMIX_NAMESPACE"))
        {
            return PmixStore.open(env);
        }
        return Optional.empty();
    }

    /**
     * What a user of the launcher whose variables are in {@code env} needs for its store.
     *
     * @param env the process environment
     * @return the packages or jars, in words
     */
    public static String whatItNeeds(final Map<String, String> env)
    {
        if (set(env, "OMPI_COMM_WORLD_RANK") || set(env, "PMIX_NAMESPACE"))
        {
            return "its PMIx store (PmixStore needs libpmix: apt-get install libpmix2)";
        }
        if (set(env, "PMI_RANK") && set(env, "MPI_LOCALRANKID"))
        {
            return "its PMI-1 store over PMI_FD (PMI_FD is not set: start the ranks with mpiexec.hydra)";
        }
        if (set(env, "SLURM_PROCID"))
        {
            return "its PMI-2 store (srun --mpi=pmi2) or PMIx store (srun --mpi=pmix)";
        }
        return "a launcher with a job-wide key-value store (mpiexec, mpirun or srun)";
    }

    private static boolean set(final Map<String, String> env, final String name)
    {
        final String v = env.get(name);
        return v != null && !v.isBlank();
    }
}
