package org.shmav.job;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.store.JobStore;
import org.shmav.store.Pmi1Store;
import org.shmav.store.Pmi2Store;
import org.shmav.store.PmixStore;

/**
 * The launcher that started this process, decided once from its variables ({@link #of}): what it says
 * about the job ({@link #environment}: rank, size, local rank and size, the job's identity, the AV's
 * name), the job-wide key-value store it offers ({@link #openStore}) and what that store needs
 * ({@link #whatItNeeds}). Nothing else in shmav looks at a launcher's variables.
 *
 * <p>The launchers are recognised in this order; the first whose variables are all set wins:
 * <ol>
 * <li>avrun: {@code SHMAV_RANK}, {@code SHMAV_SIZE}, {@code SHMAV_AV} (the launcher created the AV);</li>
 * <li>Open MPI's mpirun: {@code OMPI_COMM_WORLD_RANK}, {@code _SIZE}, {@code _LOCAL_RANK},
 *     {@code _LOCAL_SIZE}; the job is {@code PMIX_NAMESPACE} (else {@code OMPI_MCA_ess_base_jobid}); store: PMIx;</li>
 * <li>MPICH's mpiexec (Hydra): {@code PMI_RANK}, {@code PMI_SIZE}, {@code MPI_LOCALRANKID},
 *     {@code MPI_LOCALNRANKS}; Hydra exports no job id, so the job is the KVS name the node's proxy
 *     gives on the PMI socket ({@link Pmi1Store}), else the nearest {@code hydra_pmi_proxy} ancestor
 *     (pid and start time); store: PMI-1 over {@code PMI_FD};</li>
 * <li>Slurm's srun: {@code SLURM_PROCID}, {@code SLURM_NTASKS}, {@code SLURM_LOCALID},
 *     {@code SLURM_JOB_ID}, {@code SLURM_STEP_ID}; the local size from {@code SLURM_STEP_TASKS_PER_NODE}
 *     and {@code SLURM_NODEID} (or the whole step when {@code SLURM_STEP_NUM_NODES} is 1); store: PMIx
 *     under {@code --mpi=pmix} ({@code PMIX_NAMESPACE} set), else PMI-2 over {@code PMI_FD};</li>
 * <li>none: a job of one, with a private AV.</li>
 * </ol>
 * Open MPI and MPICH come before Slurm because mpirun and mpiexec started inside a Slurm allocation
 * inherit the allocation's {@code SLURM_*} variables, which then describe the batch step, not the rank.
 * Under a foreign launcher {@code SHMAV_AV}, when set, names the AV instead of the job's identity;
 * the identity still tells this job's AV from another job's of the same name. Stateless but for
 * {@link #hydraJobOfThisProcess()}'s first answer.
 */
public enum Launcher
{
    /** scripts/avrun: it created the AV before the ranks started; no store. */
    AVRUN("avrun")
    {
        @Override
        RankEnvironment read(final Map<String, String> env, final Path dir, final Supplier<Optional<String>> hydraJob)
        {
            final int rank = intVariable(env, JobVariables.RANK);
            final int size = intVariable(env, JobVariables.SIZE);
            final String job = nonEmpty(env.get(JobVariables.JOB));
            return new RankEnvironment(this, rank, size, rank, size, nonEmpty(env.get(JobVariables.AV)), dir,
                job == null ? null : new JobId(description, job.trim()));
        }
    },
    /** Open MPI's mpirun (PRRTE): PMIx. */
    OPEN_MPI("Open MPI mpirun")
    {
        @Override
        RankEnvironment read(final Map<String, String> env, final Path dir, final Supplier<Optional<String>> hydraJob)
        {
            final String job = Optional.ofNullable(nonEmpty(env.get("PMIX_NAMESPACE")))
                .orElse(nonEmpty(env.get("OMPI_MCA_ess_base_jobid")));
            final String why = "neither PMIX_NAMESPACE nor OMPI_MCA_ess_base_jobid is set";
            return new RankEnvironment(this, intVariable(env, "OMPI_COMM_WORLD_RANK"), intVariable(env, "OMPI_COMM_WORLD_SIZE"),
                intVariable(env, "OMPI_COMM_WORLD_LOCAL_RANK"), intVariable(env, "OMPI_COMM_WORLD_LOCAL_SIZE"),
                avName(env, "ompi-", job, why), dir, jobId(this, job, why));
        }

        @Override
        public Optional<JobStore> openStore(final Map<String, String> env)
        {
            return PmixStore.open(env);
        }

        @Override
        public String whatItNeeds()
        {
            return "its PMIx store (PmixStore needs libpmix: apt-get install libpmix2)";
        }
    },
    /** MPICH's mpiexec (Hydra): PMI-1 over the node proxy's socket. */
    MPICH("MPICH mpiexec (Hydra)")
    {
        @Override
        RankEnvironment read(final Map<String, String> env, final Path dir, final Supplier<Optional<String>> hydraJob)
        {
            final String job = hydraJob.get().orElse(null);
            final String why = "the PMI socket PMI_FD gave no KVS name and no hydra_pmi_proxy is among this process's ancestors";
            return new RankEnvironment(this, intVariable(env, "PMI_RANK"), intVariable(env, "PMI_SIZE"),
                intVariable(env, "MPI_LOCALRANKID"), intVariable(env, "MPI_LOCALNRANKS"), avName(env, "mpich-", job, why), dir,
                jobId(this, job, why));
        }

        @Override
        public Optional<JobStore> openStore(final Map<String, String> env)
        {
            return Pmi1Store.open(env);
        }

        @Override
        public String whatItNeeds()
        {
            return "its PMI-1 store over PMI_FD (PMI_FD is not set: start the ranks with mpiexec.hydra)";
        }
    },
    /** Slurm's srun: PMIx under --mpi=pmix, else PMI-2. */
    SLURM("Slurm srun")
    {
        @Override
        RankEnvironment read(final Map<String, String> env, final Path dir, final Supplier<Optional<String>> hydraJob)
        {
            final int ntasks = intVariable(env, "SLURM_NTASKS");
            final String job = env.get("SLURM_JOB_ID").trim() + "." + env.get("SLURM_STEP_ID").trim();
            return new RankEnvironment(this, intVariable(env, "SLURM_PROCID"), ntasks, intVariable(env, "SLURM_LOCALID"),
                slurmLocalSize(env, ntasks), avName(env, "slurm-", job, null), dir, jobId(this, job, null));
        }

        @Override
        public Optional<JobStore> openStore(final Map<String, String> env)
        {
            return nonEmpty(env.get("PMIX_NAMESPACE")) != null ? PmixStore.open(env) : Pmi2Store.open(env);
        }

        @Override
        public String whatItNeeds()
        {
            return "its PMI-2 store (srun --mpi=pmi2) or PMIx store (srun --mpi=pmix)";
        }
    },
    /** No launcher: a job of one, with a private AV. */
    NONE("no launcher")
    {
        @Override
        RankEnvironment read(final Map<String, String> env, final Path dir, final Supplier<Optional<String>> hydraJob)
        {
            return new RankEnvironment(this, 0, 1, 0, 1, null, dir, null);
        }
    };

    /** How messages name the launcher. */
    public final String description;

    /** The first answer of {@link #hydraJobOfThisProcess()}: the PMI exchange runs once per process. */
    private static Optional<String> hydraJobAnswer;

    Launcher(final String description)
    {
        this.description = description;
    }

    /**
     * The launcher whose variables are in {@code env}, in the order of the class comment.
     *
     * @throws IllegalStateException when avrun's variables are set only in part
     */
    public static Launcher of(final Map<String, String> env)
    {
        if (has(env, JobVariables.RANK, JobVariables.SIZE, JobVariables.AV))
        {
            return AVRUN;
        }
        if (nonEmpty(env.get(JobVariables.RANK)) != null || nonEmpty(env.get(JobVariables.SIZE)) != null)
        {
            throw new IllegalStateException("avrun: " + JobVariables.RANK + ", " + JobVariables.SIZE + " and " + JobVariables.AV +
                " must all be set (" + JobVariables.RANK + "=" + env.get(JobVariables.RANK) + " " + JobVariables.SIZE + "=" +
                env.get(JobVariables.SIZE) + " " + JobVariables.AV + "=" + env.get(JobVariables.AV) + "): start this program with avrun");
        }
        if (has(env, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"))
        {
            return OPEN_MPI;
        }
        if (has(env, "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"))
        {
            return MPICH;
        }
        if (has(env, "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_JOB_ID", "SLURM_STEP_ID"))
        {
            return SLURM;
        }
        return NONE;
    }

    /**
     * What the launcher whose variables are in {@code env} says about this process's job.
     *
     * @param env      the process environment
     * @param hydraJob finds a Hydra job's identity when needed ({@link #hydraJobOfThisProcess()})
     * @throws IllegalStateException when a launcher's variable is malformed or the job cannot be named
     */
    public static RankEnvironment environment(final Map<String, String> env, final Supplier<Optional<String>> hydraJob)
    {
        final String dirVar = env.get(JobVariables.DIR);
        final Path dir = dirVar == null || dirVar.isEmpty() ? DomainAttr.defaultShmDirectory() : Path.of(dirVar);
        return of(env).read(env, dir, hydraJob);
    }

    abstract RankEnvironment read(Map<String, String> env, Path dir, Supplier<Optional<String>> hydraJob);

    /** {@return whether this launcher's ranks fill a job across nodes through its store (mpirun, mpiexec, srun)} */
    public boolean hasStore()
    {
        return this == OPEN_MPI || this == MPICH || this == SLURM;
    }

    /**
     * This launcher's job-wide key-value store.
     *
     * @param env the process environment
     * @return the store, or empty when this launcher has none or its client is not available here
     * @throws FabricException when the store is there but cannot be reached
     */
    public Optional<JobStore> openStore(final Map<String, String> env)
    {
        return Optional.empty();
    }

    /** {@return what a user of this launcher needs for its store, in words} */
    public String whatItNeeds()
    {
        return "a launcher with a job-wide key-value store (mpiexec, mpirun or srun)";
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
            hydraJobAnswer = Pmi1Store.kvsName(System.getenv("PMI_FD")).or(Launcher::hydraProxyOfThisProcess);
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

    /**
     * The ranks on this node under srun: entry {@code SLURM_NODEID} of {@code SLURM_STEP_TASKS_PER_NODE}
     * (format {@code 2(x3),1}: 2 tasks on each of 3 nodes, then 1), or the whole step on one node.
     */
    static int slurmLocalSize(final Map<String, String> env, final int ntasks)
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

    private static JobId jobId(final Launcher launcher, final String job, final String whyUnknown)
    {
        if (job == null)
        {
            throw new IllegalStateException(launcher.description + ": cannot tell this rank's job (" + whyUnknown +
                "), so its AV could not be told from another job's");
        }
        return new JobId(launcher.description, job.trim());
    }

    /** The AV's name: {@code SHMAV_AV} when set, else {@code prefix} and the job's identity. */
    private static String avName(final Map<String, String> env, final String prefix, final String job, final String whyUnknown)
    {
        final String override = nonEmpty(env.get(JobVariables.AV));
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

    static String nonEmpty(final String s)
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
