package org.shmav.job;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import org.shmav.AvType;
import org.shmav.DomainAttr;
import org.shmav.store.Pmi1Store;

/**
 * Which launcher started this process, and what it says about the job: rank, size, local rank and
 * local size (the ranks on this node), and the name of the job's AV. Read by {@code Rank.fromEnvironment()}.
 *
 * <p>The launchers are recognised in this order; the first whose variables are all set wins:
 * <ol>
 * <li>avrun: {@code SHMAV_RANK}, {@code SHMAV_SIZE}, {@code SHMAV_AV} (the launcher created the AV);</li>
 * <li>Open MPI's mpirun: {@code OMPI_COMM_WORLD_RANK}, {@code _SIZE}, {@code _LOCAL_RANK},
 *     {@code _LOCAL_SIZE}; the job is {@code PMIX_NAMESPACE} (else {@code OMPI_MCA_ess_base_jobid});</li>
 * <li>MPICH's mpiexec (Hydra): {@code PMI_RANK}, {@code PMI_SIZE}, {@code MPI_LOCALRANKID},
 *     {@code MPI_LOCALNRANKS}; Hydra exports no job id, so the job is the KVS name the node's proxy
 *     gives on the PMI socket ({@link Pmi1Store}), else the nearest {@code hydra_pmi_proxy} ancestor
 *     (pid and start time);</li>
 * <li>Slurm's srun: {@code SLURM_PROCID}, {@code SLURM_NTASKS}, {@code SLURM_LOCALID},
 *     {@code SLURM_JOB_ID}, {@code SLURM_STEP_ID}; the local size from {@code SLURM_STEP_TASKS_PER_NODE}
 *     and {@code SLURM_NODEID} (or the whole step when {@code SLURM_STEP_NUM_NODES} is 1);</li>
 * <li>none: a job of one, with a private AV.</li>
 * </ol>
 * Open MPI and MPICH come before Slurm because mpirun and mpiexec started inside a Slurm allocation
 * inherit the allocation's {@code SLURM_*} variables, which then describe the batch step, not the rank.
 * Under a foreign launcher {@code SHMAV_AV}, when set, names the AV instead of the job's identity;
 * the identity still tells this job's AV from another job's of the same name.
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
    /** The launchers {@code Rank} recognises, in the order it looks for them. */
    public enum Launcher
    {
        AVRUN("avrun"), OPEN_MPI("Open MPI mpirun"), MPICH("MPICH mpiexec (Hydra)"), SLURM("Slurm srun"), NONE("no launcher");

        /** How messages name the launcher. */
        public final String description;

        Launcher(final String description)
        {
            this.description = description;
        }
    }

    /** The first answer of {@link #hydraJobOfThisProcess()}: the PMI exchange runs once per process. */
    private static Optional<String> hydraJobAnswer;

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

    /** Reads the environment; {@code hydraJob} finds the Hydra job's identity when needed ({@link #hydraJobOfThisProcess()}). */
    public static RankEnvironment detect(final Map<String, String> env, final Supplier<Optional<String>> hydraJob)
    {
        final String dirVar = env.get(JobVariables.DIR);
        final Path dir = dirVar == null || dirVar.isEmpty() ? DomainAttr.defaultShmDirectory() : Path.of(dirVar);
        final String override = nonEmpty(env.get(JobVariables.AV));
        if (has(env, JobVariables.RANK, JobVariables.SIZE, JobVariables.AV))
        {
            final int rank = intVariable(env, JobVariables.RANK);
            final int size = intVariable(env, JobVariables.SIZE);
            final String job = nonEmpty(env.get(JobVariables.JOB));
            return new RankEnvironment(Launcher.AVRUN, rank, size, rank, size, override, dir,
                job == null ? null : new JobId(Launcher.AVRUN.description, job.trim()));
        }
        if (nonEmpty(env.get(JobVariables.RANK)) != null || nonEmpty(env.get(JobVariables.SIZE)) != null)
        {
            throw new IllegalStateException("avrun: " + JobVariables.RANK + ", " + JobVariables.SIZE + " and " + JobVariables.AV +
                " must all be set (" + JobVariables.RANK + "=" + env.get(JobVariables.RANK) + " " + JobVariables.SIZE + "=" +
                env.get(JobVariables.SIZE) + " " + JobVariables.AV + "=" + env.get(JobVariables.AV) + "): start this program with avrun");
        }
        if (has(env, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"))
        {
            final String job = Optional.ofNullable(nonEmpty(env.get("PMIX_NAMESPACE")))
                .orElse(nonEmpty(env.get("OMPI_MCA_ess_base_jobid")));
            final String why = "neither PMIX_NAMESPACE nor OMPI_MCA_ess_base_jobid is set";
            return new RankEnvironment(Launcher.OPEN_MPI, intVariable(env, "OMPI_COMM_WORLD_RANK"),
                intVariable(env, "OMPI_COMM_WORLD_SIZE"), intVariable(env, "OMPI_COMM_WORLD_LOCAL_RANK"),
                intVariable(env, "OMPI_COMM_WORLD_LOCAL_SIZE"), name(override, "ompi-", job, why), dir,
                jobId(Launcher.OPEN_MPI, job, why));
        }
        if (has(env, "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"))
        {
            final String job = hydraJob.get().orElse(null);
            final String why = "the PMI socket PMI_FD gave no KVS name and no hydra_pmi_proxy is among this process's ancestors";
            return new RankEnvironment(Launcher.MPICH, intVariable(env, "PMI_RANK"), intVariable(env, "PMI_SIZE"),
                intVariable(env, "MPI_LOCALRANKID"), intVariable(env, "MPI_LOCALNRANKS"), name(override, "mpich-", job, why),
                dir, jobId(Launcher.MPICH, job, why));
        }
        if (has(env, "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_JOB_ID", "SLURM_STEP_ID"))
        {
            final int ntasks = intVariable(env, "SLURM_NTASKS");
            final String job = env.get("SLURM_JOB_ID").trim() + "." + env.get("SLURM_STEP_ID").trim();
            return new RankEnvironment(Launcher.SLURM, intVariable(env, "SLURM_PROCID"), ntasks,
                intVariable(env, "SLURM_LOCALID"), slurmLocalSize(env, ntasks), name(override, "slurm-", job, null), dir,
                jobId(Launcher.SLURM, job, null));
        }
        return new RankEnvironment(Launcher.NONE, 0, 1, 0, 1, null, dir, null);
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

    /**
     * The ranks on this node under srun: entry {@code SLURM_NODEID} of {@code SLURM_STEP_TASKS_PER_NODE}
     * (format {@code 2(x3),1}: 2 tasks on each of 3 nodes, then 1), or the whole step on one node.
     */
    public static int slurmLocalSize(final Map<String, String> env, final int ntasks)
    {
        final String perNode = Optional.ofNullable(nonEmpty(env.get("SLURM_STEP_TASKS_PER_NODE")))
            .orElse(nonEmpty(env.get("SLURM_TASKS_PER_NODE")));
        final String nodeId = nonEmpty(env.get("SLURM_NODEID"));
        if (perNode != null && nodeId != null)
        {
            int node = Integer.parseInt(nodeId.trim());
            for (final String group : perNode.split(","))
            {
                final int x = group.indexOf("(x");
                final int tasks = Integer.parseInt(x < 0 ? group.trim() : group.substring(0, x).trim());
                final int repeat = x < 0 ? 1 : Integer.parseInt(group.substring(x + 2, group.indexOf(')', x)).trim());
                if (node < repeat)
                {
                    return tasks;
                }
                node -= repeat;
            }
            throw new IllegalStateException("Slurm: SLURM_NODEID=" + nodeId + " is beyond SLURM_STEP_TASKS_PER_NODE=" + perNode);
        }
        if ("1".equals(nonEmpty(env.get("SLURM_STEP_NUM_NODES"))) || "1".equals(nonEmpty(env.get("SLURM_NNODES"))))
        {
            return ntasks;
        }
        throw new IllegalStateException("Slurm: cannot tell how many ranks run on this node: set " +
            "SLURM_STEP_TASKS_PER_NODE and SLURM_NODEID (srun sets them), or SLURM_STEP_NUM_NODES=1");
    }

    /**
     * The identity of this process's Hydra job: the KVS name its proxy gives on {@code PMI_FD}
     * ({@link Pmi1Store}), the same on every node; else the proxy's own ({@link #hydraProxyOfThisProcess()}).
     * Asked once per process: later calls return the first answer.
     */
    public static synchronized Optional<String> hydraJobOfThisProcess()
    {
        if (hydraJobAnswer == null)
        {
            hydraJobAnswer = Pmi1Store.kvsName(System.getenv("PMI_FD")).or(RankEnvironment::hydraProxyOfThisProcess);
        }
        return hydraJobAnswer;
    }

    /**
     * The identity of the Hydra proxy this process descends from ({@code <pid>-<start seconds>}): one
     * proxy runs per node and per job, so its ranks on a node agree on it and no other job has it.
     */
    static Optional<String> hydraProxyOfThisProcess()
    {
        Optional<ProcessHandle> p = ProcessHandle.current().parent();
        for (int depth = 0; depth < 8 && p.isPresent(); depth++, p = p.get().parent())
        {
            final ProcessHandle h = p.get();
            final boolean proxy = h.info().command().map(c -> Path.of(c).getFileName().toString())
                .filter(c -> c.startsWith("hydra_pmi_proxy")).isPresent();
            if (proxy)
            {
                return Optional.of(h.pid() + "-" + h.info().startInstant().map(i -> Long.toString(i.getEpochSecond())).orElse("0"));
            }
        }
        return Optional.empty();
    }

    private static JobId jobId(final Launcher launcher, final String job, final String whyUnknown)
    {
        if (job == null)
        {
            throw new IllegalStateException(launcher.description + ": cannot tell this rank's job (" + whyUnknown +
                "), so its AV could not be told from another job's");
        }
        return new JobId(launcher.description, job.trim());
    }

    private static String name(final String override, final String prefix, final String job, final String whyUnknown)
    {
        if (override != null)
        {
            return override;
        }
        if (job == null)
        {
            throw new IllegalStateException(prefix.substring(0, prefix.length() - 1) + ": cannot name the job's AV (" +
                whyUnknown + "): set " + JobVariables.AV + " for every rank (e.g. mpiexec -genv " + JobVariables.AV + " job7)");
        }
        return prefix + job.trim().replaceAll("[^A-Za-z0-9_.-]", "_");
    }

    private static boolean has(final Map<String, String> env, final String... names)
    {
        for (final String n : names)
        {
            if (nonEmpty(env.get(n)) == null)
            {
                return false;
            }
        }
        return true;
    }

    private static String nonEmpty(final String s)
    {
        return s == null || s.isBlank() ? null : s;
    }

    private static int intVariable(final Map<String, String> env, final String name)
    {
        final String value = env.get(name);
        try
        {
            return Integer.parseInt(value.trim());
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalStateException(name + "='" + value + "' is not a number", e);
        }
    }
}
