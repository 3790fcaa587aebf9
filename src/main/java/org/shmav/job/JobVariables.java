package org.shmav.job;

import org.shmav.DomainAttr;

/**
 * The environment variables a rank reads, defined here, below {@code org.shmav.Rank}, which publishes
 * them as its own constants, so that the job layer needs nothing from the API class that uses it.
 */
public final class JobVariables
{
    /** This process's rank, 0 .. size-1 (set by avrun). */
    public static final String RANK = "SHMAV_RANK";
    /** The number of ranks in the job (set by avrun). */
    public static final String SIZE = "SHMAV_SIZE";
    /** The name of the job's AV (set by avrun; under other launchers, overrides the job's name). */
    public static final String AV = "SHMAV_AV";
    /** The directory of the job's AV (same as {@link DomainAttr#SHM_DIR_ENV}). */
    public static final String DIR = DomainAttr.SHM_DIR_ENV;
    /** {@code table} (default) or {@code map}, the type of the AV local rank 0 creates. */
    public static final String AV_TYPE = "SHMAV_AV_TYPE";
    /** {@code 1} when the node's AV was filled before the ranks started ({@link PrefilledAv}). */
    public static final String PREFILLED = "SHMAV_PREFILLED";
    /** The identity of the job avrun started (set by avrun; checked against the AV's job file). */
    public static final String JOB = "SHMAV_JOB";

    private JobVariables()
    {
    }
}
