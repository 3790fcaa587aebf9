package org.shmav.job;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

import org.shmav.AvType;
import org.shmav.DomainAttr;

/**
 * What the launcher that started this process says about the job ({@link Launcher#environment}): rank,
 * size, local rank and local size (the ranks on this node), the name of the job's AV and the job's identity.
 *
 * @param launcher   which launcher
 * @param rank       rank in the job, 0 .. size-1
 * @param size       ranks in the job
 * @param localRank  rank among the ranks on this node, 0 .. localSize-1
 * @param localSize  ranks on this node
 * @param avName     name of the job's AV on this node; null for a job of one (private AV)
 * @param directory  directory of the AV ({@code SHMAV_DIR}, else {@link DomainAttr#defaultShmDirectory()})
 * @param job        the job's identity; null for a job of one, and under avrun when {@code SHMAV_JOB} is unset
 */
public record RankEnvironment(Launcher launcher, int rank, int size, int localRank, int localSize, String avName, Path directory,
    JobId job)
{
    public RankEnvironment
    {
        if (size < 1 || rank < 0 || rank >= size || localSize < 1 || localSize > size || localRank < 0 || localRank >= localSize)
        {
            throw new IllegalStateException(launcher.description + ": rank=" + rank + " size=" + size + " localRank=" +
                localRank + " localSize=" + localSize + ": need 0 <= rank < size and 0 <= localRank < localSize <= size");
        }
    }

    /** True when every rank runs on this node: then the AV holds every rank, at fi_addr = rank. */
    public boolean oneNode()
    {
        return localSize == size;
    }

    /** Entries of the node's AV: every rank on one node, the node's ranks across nodes. */
    public int entries()
    {
        return oneNode() ? size : localSize;
    }

    /** The type of AV local rank 0 creates: {@link JobVariables#AV_TYPE}, {@code table} (default) or {@code map}. */
    public static AvType avType(final Map<String, String> env)
    {
        final String t = env.getOrDefault(JobVariables.AV_TYPE, "table").trim().toLowerCase(Locale.ROOT);
        switch (t)
        {
            case "":
            case "table":
                return AvType.TABLE;
            case "map":
                return AvType.MAP;
            default:
                throw new IllegalStateException(JobVariables.AV_TYPE + "='" + t + "': need table or map");
        }
    }
}
