package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.shmav.job.RankEnvironment;
import org.shmav.job.Launcher;
import org.shmav.cli.ShmavCli;
import org.shmav.job.JobFile;
import org.shmav.job.JobId;

/**
 * How {@link Rank} reads the variables of mpirun, mpiexec and srun, and the life of a node's AV under
 * them. The real mpirun and mpiexec are exercised by {@code MpiLaunchersIT}; there is no slurmd on
 * the build machine, so Slurm is covered only here, by setting the variables srun sets.
 */
class RankLaunchersTest
{
    @TempDir
    Path dir;

    @Test
    void shouldReadOpenMpisVariables()
    {
        final RankEnvironment e = detect(Map.of("OMPI_COMM_WORLD_RANK", "2", "OMPI_COMM_WORLD_SIZE", "4",
            "OMPI_COMM_WORLD_LOCAL_RANK", "2", "OMPI_COMM_WORLD_LOCAL_SIZE", "4", "PMIX_NAMESPACE", "623378433"));
        assertEquals(new RankEnvironment(Launcher.OPEN_MPI, 2, 4, 2, 4, "ompi-623378433", dir, new JobId("Open MPI mpirun", "623378433")), e);
        assertTrue(e.oneNode());
    }

    @Test
    void shouldReadMpichVariablesAndNameTheJobAfterHydrasKvsName()
    {
        final Map<String, String> env = Map.of("PMI_RANK", "1", "PMI_SIZE", "4", "MPI_LOCALRANKID", "1",
            "MPI_LOCALNRANKS", "4");
        assertEquals(new RankEnvironment(Launcher.MPICH, 1, 4, 1, 4, "mpich-kvs_9360_0_801633007_vm", dir,
            new JobId("MPICH mpiexec (Hydra)", "kvs_9360_0_801633007_vm")),
            Launcher.environment(withDir(env), () -> Optional.of("kvs_9360_0_801633007_vm")));
        final IllegalStateException unknown = assertThrows(IllegalStateException.class,
            () -> Launcher.environment(withDir(env), Optional::empty));
        assertTrue(unknown.getMessage().contains("set SHMAV_AV"), unknown.getMessage());
        final Map<String, String> named = new HashMap<>(env);
        named.put(Rank.AV_ENV, "job7");
        final RankEnvironment fixed = Launcher.environment(withDir(named), () -> Optional.of("kvs_1_0_2_vm"));
        assertEquals("job7", fixed.avName());
        assertEquals(new JobId("MPICH mpiexec (Hydra)", "kvs_1_0_2_vm"), fixed.job(), "a fixed name keeps the job's identity");
        final IllegalStateException noJob = assertThrows(IllegalStateException.class,
            () -> Launcher.environment(withDir(named), Optional::empty), "a fixed name needs the job's identity too");
        assertTrue(noJob.getMessage().contains("cannot tell this rank's job"), noJob.getMessage());
    }

    /** No slurmd here: these are the variables srun sets (checked against Slurm's srun(1) man page). */
    @Test
    void shouldReadSlurmVariablesIncludingTheTasksOnThisNode()
    {
        final Map<String, String> env = new HashMap<>(Map.of("SLURM_PROCID", "5", "SLURM_NTASKS", "7",
            "SLURM_LOCALID", "1", "SLURM_JOB_ID", "1234", "SLURM_STEP_ID", "0", "SLURM_NODEID", "2",
            "SLURM_STEP_TASKS_PER_NODE", "2(x3),1"));
        final RankEnvironment e = detect(env);
        assertEquals(new RankEnvironment(Launcher.SLURM, 5, 7, 1, 2, "slurm-1234.0", dir, new JobId("Slurm srun", "1234.0")), e);
        assertFalse(e.oneNode());
        env.put("SLURM_NODEID", "3");
        env.put("SLURM_LOCALID", "0");
        env.put("SLURM_PROCID", "6");
        assertEquals(1, detect(env).localSize());
        env.remove("SLURM_STEP_TASKS_PER_NODE");
        assertThrows(IllegalStateException.class, () -> detect(env), "local size unknown: an error, not a guess");
        env.put("SLURM_STEP_NUM_NODES", "1");
        env.put("SLURM_NTASKS", "4");
        env.put("SLURM_PROCID", "3");
        env.put("SLURM_LOCALID", "3");
        assertEquals(4, detect(env).localSize());
    }

    @Test
    void shouldPreferAvrunThenOpenMpiThenMpichThenSlurm()
    {
        final Map<String, String> env = new HashMap<>(Map.of("SLURM_PROCID", "0", "SLURM_NTASKS", "1",
            "SLURM_LOCALID", "0", "SLURM_JOB_ID", "9", "SLURM_STEP_ID", "batch", "SLURM_STEP_NUM_NODES", "1"));
        assertEquals(Launcher.SLURM, detect(env).launcher());
        env.putAll(Map.of("PMI_RANK", "1", "PMI_SIZE", "2", "MPI_LOCALRANKID", "1", "MPI_LOCALNRANKS", "2"));
        assertEquals(Launcher.MPICH, Launcher.environment(withDir(env), () -> Optional.of("1-2")).launcher(),
            "mpiexec inside a Slurm allocation");
        env.putAll(Map.of("OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "2", "OMPI_COMM_WORLD_LOCAL_RANK", "1",
            "OMPI_COMM_WORLD_LOCAL_SIZE", "2", "OMPI_MCA_ess_base_jobid", "77"));
        assertEquals(new RankEnvironment(Launcher.OPEN_MPI, 1, 2, 1, 2, "ompi-77", dir, new JobId("Open MPI mpirun", "77")), detect(env));
        env.putAll(Map.of(Rank.RANK_ENV, "0", Rank.SIZE_ENV, "3", Rank.AV_ENV, "job"));
        assertEquals(new RankEnvironment(Launcher.AVRUN, 0, 3, 0, 3, "job", dir, null), detect(env));
        assertEquals(Launcher.NONE, detect(Map.of()).launcher());
        assertNull(detect(Map.of()).avName());
    }

    @Test
    void shouldCreateTheNodeAvAtLocalRankZeroAndRemoveItWhenTheLastRankLeaves()
    {
        try (Rank r0 = open(0, 3))
        {
            final Rank r2 = open(2, 3);
            final Rank r1 = open(1, 3);
            r0.publish(new InetSocketAddress("127.0.0.1", 7000));
            r1.publish(new InetSocketAddress("127.0.0.1", 7001));
            r2.publish(new InetSocketAddress("127.0.0.1", 7002));
            r1.awaitAll(Duration.ofSeconds(5));
            assertEquals(new InetSocketAddress("127.0.0.1", 7002), r0.peer(2));
            assertEquals(2, r2.fiAddr());
            r2.close();
            r1.close();
            assertTrue(Files.exists(dir.resolve("slurm-1.0")), "rank 0 still has it open");
        }
        assertFalse(Files.exists(dir.resolve("slurm-1.0")), "the last rank to leave removes the AV");
        assertFalse(Files.exists(JobFile.path(dir, "slurm-1.0")));
    }

    /**
     * The job's cleanup process (JobReaper) gives the last rank 200 ms after the job file's locks are
     * free to remove the AV itself, then removes it: a rank slower than that (a loaded node) finds it
     * gone, which is no failure of its close.
     */
    @Test
    void shouldCloseTheLastRankWhoseAvTheReaperRemovedFirst() throws Exception
    {
        final Rank r0 = open(0, 1);
        r0.publish(new InetSocketAddress("127.0.0.1", 7000));
        Files.delete(dir.resolve("slurm-1.0")); // as the reaper does once it has waited for the last rank
        r0.close();
        assertFalse(Files.exists(JobFile.path(dir, "slurm-1.0")), "the job file is removed all the same");
    }

    @Test
    void shouldRefuseAStaleAvAndTimeOutWaitingForLocalRankZero()
    {
        final FabricException timeout = assertThrows(FabricException.class,
            () -> Rank.open(slurm(1, 2, 1, 2), Duration.ofMillis(100)));
        assertEquals(FiErrno.ETIMEDOUT, timeout.errno());
        assertFalse(Files.exists(dir.resolve("slurm-1.0")), "a waiting rank never creates the AV");
        try (Domain domain = Domain.open(DomainAttr.builder().shmDirectory(dir).build());
             AddressVector stale = domain.openAv(AvAttr.builder().type(AvType.TABLE).count(2).name("slurm-1.0").build()))
        {
            final FabricException busy = assertThrows(FabricException.class, () -> open(0, 2));
            assertEquals(FiErrno.EBUSY, busy.errno());
            assertTrue(busy.getMessage().contains("shmav rm slurm-1.0"), busy.getMessage());
        }
    }

    @Test
    void shouldRefuseARankOfAnotherJobGivenTheSameName()
    {
        try (Rank r0 = open(0, 2))
        {
            final RankEnvironment other = new RankEnvironment(Launcher.SLURM, 1, 2, 1, 2, "slurm-1.0", dir,
                new JobId("Slurm srun", "2.0"));
            final FabricException e = assertThrows(FabricException.class, () -> Rank.open(other, Duration.ofSeconds(5)));
            assertEquals(FiErrno.EBUSY, e.errno());
            assertTrue(e.getMessage().contains("rank 1 of job '2.0' (Slurm srun) refused AV 'slurm-1.0'") &&
                e.getMessage().contains("it belongs to job '1.0' (Slurm srun)"), e.getMessage());
            assertEquals(0, r0.av().count(), "the refused rank published nothing");
            final FabricException zero = assertThrows(FabricException.class, () -> Rank.open(
                new RankEnvironment(Launcher.SLURM, 0, 2, 0, 2, "slurm-1.0", dir, new JobId("Slurm srun", "2.0")),
                Duration.ofSeconds(5)));
            assertEquals(FiErrno.EBUSY, zero.errno(), "local rank 0 of the other job is refused too");
            assertTrue(zero.getMessage().contains("it belongs to job '1.0'"), zero.getMessage());
        }
    }

    @Test
    void shouldRefuseANameHeldByAnOverJobsFileUntilGcRemovesIt() throws Exception
    {
        try (JobFile over = JobFile.create(dir, "slurm-1.0", new JobId("Slurm srun", "0.0"), 1))
        {
            over.avCreated(); // its AV was then removed by hand (shmav rm), and its process died
        }
        final FabricException held = assertThrows(FabricException.class, () -> open(0, 2));
        assertEquals(FiErrno.EBUSY, held.errno());
        assertTrue(held.getMessage().contains("held by the job file .shmav-job.slurm-1.0 of job '0.0' (Slurm srun), " +
            "which is over") && held.getMessage().contains("shmav gc --dir " + dir), held.getMessage());
        final StringWriter out = new StringWriter();
        assertEquals(0, ShmavCli.execute(new PrintWriter(out), new PrintWriter(new StringWriter()), "--dir",
            dir.toString(), "gc"));
        assertTrue(out.toString().contains("removed   .shmav-job.slurm-1.0: the job file of AV 'slurm-1.0', which is " +
            "gone; its job '0.0' (Slurm srun) is over"), out.toString());
        try (Rank r0 = open(0, 1))
        {
            assertEquals("slurm-1.0", r0.av().attr().name(), "the name is free again, without --grace 0");
        }
    }

    @Test
    void shouldIndexByLocalRankAndRefusePeerByRankAcrossNodes()
    {
        // ranks 4 and 5 of 6, on the third node of three (2 tasks per node)
        try (Rank a = Rank.open(slurm(4, 6, 0, 2), Duration.ofSeconds(5));
             Rank b = Rank.open(slurm(5, 6, 1, 2), Duration.ofSeconds(5)))
        {
            assertTrue(a.spansNodes());
            assertEquals(1, b.fiAddr());
            a.publish(new InetSocketAddress("127.0.0.1", 7004));
            b.publish(new InetSocketAddress("127.0.0.1", 7005));
            a.awaitAll(Duration.ofSeconds(5));
            assertEquals(2, a.av().count());
            assertEquals(new InetSocketAddress("127.0.0.1", 7005), a.nodePeer(1));
            final FabricException e = assertThrows(FabricException.class, () -> a.peer(5));
            assertEquals(FiErrno.EOPNOTSUPP, e.errno());
            assertTrue(e.getMessage().startsWith("shmav_rank_peer: FI_EOPNOTSUPP") && e.getMessage().endsWith(": the job spans " +
                "nodes (2 of its 6 ranks on this node) and Slurm srun's store is not available (no store was given): this " +
                "node's AV 'slurm-1.0' holds only this node's ranks, at fi_addr = local rank; use nodePeer(localRank)"), e.getMessage());
            assertEquals(FiErrno.EOPNOTSUPP, assertThrows(FabricException.class, () -> a.fiAddrOf(5)).errno());
            assertEquals(FiErrno.EOPNOTSUPP, assertThrows(FabricException.class, () -> a.peerAddress(5, ByteBuffer.allocate(16))).errno());
            assertThrows(IllegalArgumentException.class, () -> a.peer(6), "the range first");
            assertThrows(IllegalArgumentException.class, () -> a.nodePeer(2), "the node's AV holds 2");
            assertEquals(List.of(), a.missingRanks(), "local ranks, both published");
        }
    }

    private Rank open(final int localRank, final int localSize)
    {
        return Rank.open(slurm(localRank, localSize, localRank, localSize), Duration.ofSeconds(5));
    }

    private RankEnvironment slurm(final int rank, final int size, final int localRank, final int localSize)
    {
        return new RankEnvironment(Launcher.SLURM, rank, size, localRank, localSize, "slurm-1.0", dir, new JobId("Slurm srun", "1.0"));
    }

    private RankEnvironment detect(final Map<String, String> env)
    {
        return Launcher.environment(withDir(env), Optional::empty);
    }

    private Map<String, String> withDir(final Map<String, String> env)
    {
        final Map<String, String> m = new HashMap<>(env);
        m.put(Rank.DIR_ENV, dir.toString());
        return m;
    }
}
