package org.shmav.job;

import java.util.Map;

import org.shmav.FabricException;
import org.shmav.Rank;

/**
 * {@code RankOpenProbe DIR}: opens local rank 0 of a one-node job of four ranks (srun's variables) in
 * DIR and prints "opened", or "errno=N message" when the open fails.
 */
public final class RankOpenProbe
{
    private RankOpenProbe()
    {
    }

    public static void main(final String[] args)
    {
        final Map<String, String> env = Map.of("SLURM_PROCID", "0", "SLURM_NTASKS", "4", "SLURM_LOCALID", "0",
            "SLURM_JOB_ID", "46", "SLURM_STEP_ID", "0", "SLURM_STEP_NUM_NODES", "1", "SLURM_STEP_TASKS_PER_NODE", "4",
            "SHMAV_DIR", args[0]);
        try (Rank rank = Rank.fromEnvironment(env))
        {
            System.out.println("opened");
        }
        catch (final FabricException e)
        {
            System.out.println("errno=" + e.errno() + " " + e.getMessage());
        }
    }
}
