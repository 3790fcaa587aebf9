package org.shmav.job;

import java.util.Objects;

/**
 * A job's identity as its launcher gives it: the same for every rank of the job, different for every
 * other job (avrun's own id, Open MPI's {@code PMIX_NAMESPACE}, MPICH Hydra's KVS name, Slurm's
 * {@code <job>.<step>}).
 *
 * @param launcher which launcher started the job ({@code avrun}, {@code Open MPI mpirun}, ...)
 * @param id       the launcher's name for the job
 */
public record JobId(String launcher, String id)
{
    public JobId
    {
        Objects.requireNonNull(launcher, "launcher");
        Objects.requireNonNull(id, "id");
    }

    /** {@return how messages name the job: {@code 'kvs_9360_0_801633007_vm' (MPICH mpiexec (Hydra))}} */
    @Override
    public String toString()
    {
        return "'" + id + "' (" + launcher + ")";
    }
}
