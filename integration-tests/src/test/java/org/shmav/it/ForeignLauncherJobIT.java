package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.shmav.cli.ShmavCli;
import org.shmav.job.JobReaper;

/**
 * The life of a node's AV when the ranks create it themselves (no avrun), with real processes: the
 * ranks get the variables Slurm's srun sets (there is no slurmd on the build machine; mpirun and
 * mpiexec, which go the same way, are run for real by {@link MpiLaunchersIT}). The last rank to
 * leave removes the AV; when every rank dies instead, {@code shmav gc} removes it and its job file at
 * once (no grace period to wait: the job file shows every rank is gone), and {@code ls --all} shows both.
 */
class ForeignLauncherJobIT
{
    private static final Duration WAIT = Duration.ofSeconds(90);

    @Test
    void shouldRemoveTheAvWhenTheLastRankLeaves() throws Exception
    {
        try (TestDir dir = TestDir.inShm("foreign-it-"); TestDir logs = TestDir.inTmp("foreign-it-logs-"))
        {
            final String out = runJob(dir, logs, "close", "71");
            for (int r = 0; r < 3; r++)
            {
                assertTrue(out.contains("rank " + r + " of 3 (Slurm srun) local " + r + "/3 av=slurm-71.0 peer0=/127.0.0.1:20000"),
                    out);
            }
            assertEquals(List.of(), dir.names(), "the AV and the ranks file are gone");
        }
    }

    /** Ranks that exit without closing: the job's cleanup process removes its AV, lock file and job file. */
    @Test
    void shouldHaveADeadJobsFilesRemovedByItsCleanupProcess() throws Exception
    {
        try (TestDir dir = TestDir.inShm("foreign-it-"); TestDir logs = TestDir.inTmp("foreign-it-logs-"))
        {
            runJob(dir, logs, "die", "73", true);
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (!dir.names().isEmpty() && System.nanoTime() - deadline < 0)
            {
                Thread.sleep(20);
            }
            assertEquals(List.of(), dir.names(), "the cleanup process removes what no rank did");
        }
    }

    /** The same without a cleanup process ({@code SHMAV_REAPER=0}): shmav gc removes it all. */
    @Test
    void shouldLeaveADeadJobsAvToShmavGc() throws Exception
    {
        try (TestDir dir = TestDir.inShm("foreign-it-"); TestDir logs = TestDir.inTmp("foreign-it-logs-"))
        {
            runJob(dir, logs, "die", "72");
            assertEquals(List.of(".shmav-job.slurm-72.0", ".shmav-lock.slurm-72.0", "slurm-72.0"), dir.names(),
                "nobody closed: the AV stays, with its job file and lock file");
            final String ls = shmav(dir, "ls", "--all");
            assertTrue(java.util.regex.Pattern.compile("\\.shmav-job\\.slurm-72\\.0 +job file of AV 'slurm-72\\.0': " +
                "job '72\\.0' \\(Slurm srun\\), 0 of 3 processes running").matcher(ls).find(), ls);
            assertTrue(java.util.regex.Pattern.compile("\\.shmav-lock\\.slurm-72\\.0 +lock file of AV 'slurm-72\\.0'\n")
                .matcher(ls).find(), ls);
            final String gc = shmav(dir, "gc");
            assertTrue(gc.contains("removed   slurm-72.0: no live process has it open (3 dead attachers), and its job " +
                "'72.0' (Slurm srun) is over: all 3 of its processes that joined are gone"), gc);
            assertTrue(gc.contains("removed   .shmav-job.slurm-72.0: the job file of 'slurm-72.0', removed with it"), gc);
            assertTrue(gc.contains("gc: 1 AV removed, 0 repaired, 0 kept; 1 job file removed"), gc);
            assertEquals(List.of(), dir.names(), "the job file went with the AV");
        }
    }

    private static String shmav(final TestDir dir, final String... args)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final List<String> all = new ArrayList<>(List.of("--dir", dir.path().toString()));
        all.addAll(List.of(args));
        assertEquals(0, ShmavCli.execute(new PrintWriter(out), new PrintWriter(err), all.toArray(new String[0])),
            err::toString);
        return out.toString();
    }

    /** Three ranks of Slurm job JOB step 0 on one node, in {@code mode}; their output. */
    private static String runJob(final TestDir dir, final TestDir logs, final String mode, final String job) throws Exception
    {
        return runJob(dir, logs, mode, job, false);
    }

    /** Three ranks of a Slurm job step on one node, with the job's cleanup process when {@code reaper}; their output. */
    private static String runJob(final TestDir dir, final TestDir logs, final String mode, final String job,
        final boolean reaper) throws Exception
    {
        final List<ChildJvm> ranks = new ArrayList<>();
        try
        {
            for (int r = 0; r < 3; r++)
            {
                ranks.add(ChildJvm.start(List.of(), System.getProperty("java.class.path"), Map.of("SHMAV_DIR",
                    dir.path().toString(), "SLURM_PROCID", Integer.toString(r), "SLURM_NTASKS", "3", "SLURM_LOCALID",
                    Integer.toString(r), "SLURM_JOB_ID", job, "SLURM_STEP_ID", "0", "SLURM_STEP_NUM_NODES", "1",
                    JobReaper.ENABLED_ENV, reaper ? "1" : "0"), NodeRankProbe.class, logs.path(), mode));
            }
            final StringBuilder out = new StringBuilder();
            for (final ChildJvm rank : ranks)
            {
                final int status = rank.waitFor(WAIT);
                out.append(rank.output());
                assertEquals(0, status, rank::toString);
            }
            return out.toString();
        }
        finally
        {
            ranks.forEach(ChildJvm::close);
        }
    }
}
