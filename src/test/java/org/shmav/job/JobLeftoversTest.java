package org.shmav.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.it.ChildJvm;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLockFile;
import org.shmav.shm.SharedAvFile;

/**
 * A new job's local rank 0 and what a crashed job of the same name left on the node: removed when that
 * job is over and its creator gone (one line on stderr), refused as before otherwise. The crashed
 * creator is a process that has exited, whose pid the files then carry.
 */
class JobLeftoversTest
{
    private static final String NAME = "slurm-1.0";

    @TempDir
    Path dir;

    @TempDir
    Path logs;

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream savedErr;
    private long deadPid;

    @BeforeEach
    void captureStderr() throws Exception
    {
        savedErr = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        final Process gone = new ProcessBuilder("true").start();
        assertTrue(gone.waitFor(10, TimeUnit.SECONDS));
        deadPid = gone.pid();
    }

    @AfterEach
    void restoreStderr()
    {
        System.setErr(savedErr);
    }

    @Test
    void shouldRemoveTheLeftoversOfAJobWhoseCreatorDiedAndRunTheNewJob() throws Exception
    {
        // What a leader SIGKILLed while it created leaves: its job file (state AV created), the AV, its lock
        // file, and a temporary file of a second creation.
        leaveJobFile(JobFile.AV_CREATED);
        leaveAv();
        final Path tmp = dir.resolve(SharedAvFile.TEMPORARY_PREFIX + NAME + "." + deadPid + ".1f2e");
        Files.write(tmp, new byte[4096]);
        final Path otherTmp = dir.resolve(SharedAvFile.TEMPORARY_PREFIX + NAME + ".x." + deadPid + ".1f2e");
        Files.write(otherTmp, new byte[4096]);
        try (NodeJob leader = open(0))
        {
            assertTrue(leader.leader());
            assertEquals(2, leader.av().attr().count(), "a new AV of this job, not the old one of 4 entries");
            assertEquals(new JobId("Slurm srun", "2.0"), JobRecord.read(JobFile.path(dir, NAME)).orElseThrow().job());
        }
        assertFalse(Files.exists(tmp), "the dead creator's temporary file is gone");
        assertTrue(Files.exists(otherTmp), "another AV's (x) temporary file is not this name's");
        final String line = err.toString(StandardCharsets.UTF_8);
        assertEquals(1, line.lines().filter(l -> l.startsWith("shmav: ")).count(), line);
        assertTrue(line.contains("rank 0 (local rank 0) of job '2.0' (Slurm srun) removed what job '1.0' (Slurm srun), " +
            "which is over (none of its processes runs) left of AV 'slurm-1.0'") && line.contains("goes on"), line);
    }

    /** The new job's other ranks start first and find the crashed job's file: they wait for their local rank 0. */
    @Test
    void shouldLetTheNewJobsOtherRanksWaitForLocalRankZeroInsteadOfRefusingACrashedJobsFile() throws Exception
    {
        leaveJobFile(JobFile.AV_CREATED);
        leaveAv();
        final java.util.concurrent.CompletableFuture<NodeJob> other = java.util.concurrent.CompletableFuture.supplyAsync(
            () -> open(1));
        Thread.sleep(300); // it reads the old file meanwhile
        assertFalse(other.isDone(), () -> "it waits: " + other.handle((j, e) -> e).join());
        try (NodeJob leader = open(0); NodeJob joined = other.get(10, TimeUnit.SECONDS))
        {
            assertFalse(joined.leader());
            assertEquals(2, joined.av().attr().count());
        }
    }

    @Test
    void shouldRemoveTheJobFileOfACreatorKilledBeforeItMadeTheAv() throws Exception
    {
        leaveJobFile(JobFile.RECORDED);
        try (NodeJob leader = open(0))
        {
            assertTrue(leader.leader());
        }
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("its lock file, temporary files and .shmav-job.slurm-1.0"));
    }

    /** Killed between creating the job file and writing it (the IT's kill lands there too): a header of zeros. */
    @Test
    void shouldRemoveAJobFileItsCreatorNeverWrote() throws Exception
    {
        Files.write(JobFile.path(dir, NAME), new byte[JobFile.SLOTS_START + 2]);
        try (NodeJob leader = open(0))
        {
            assertTrue(leader.leader());
        }
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("a job whose creator died while recording it"),
            err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldRemoveAnAvAndLockFileLeftWithoutAJobFile() throws Exception
    {
        leaveAv();
        assertTrue(Files.exists(AvLockFile.of(dir.resolve(NAME))));
        try (NodeJob leader = open(0))
        {
            assertEquals(2, leader.av().attr().count());
        }
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("removed AV 'slurm-1.0' in " + dir + " and its lock file, " +
            "left with no job file by a job that is over"), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldRefuseAJobWhoseParticipantStillRuns() throws Exception
    {
        leaveJobFile(JobFile.AV_CREATED);
        leaveAv();
        try (JobFile stillThere = JobFile.open(dir, NAME, 1, 2).orElseThrow())
        {
            assertTrue(stillThere.join(System.nanoTime() + 5_000_000_000L), "a rank of the old job still runs");
            final FabricException e = assertThrows(FabricException.class, () -> open(0));
            assertEquals(FiErrno.EBUSY, e.errno());
            assertTrue(e.getMessage().contains("it belongs to job '1.0' (Slurm srun)"), e.getMessage());
        }
        assertTrue(Files.exists(dir.resolve(NAME)), "nothing of a running job is removed");
        assertFalse(err.toString(StandardCharsets.UTF_8).contains("removed"));
    }

    @Test
    void shouldRefuseAnAvWithoutJobFileThatALiveProcessHasOpen() throws Exception
    {
        leaveAv();
        try (Domain domain = Domain.open(DomainAttr.builder().shmDirectory(dir).build());
             AddressVector open = domain.openAv(AvAttr.builder().type(AvType.UNSPEC).name(NAME).build()))
        {
            final FabricException e = assertThrows(FabricException.class, () -> open(0));
            assertEquals(FiErrno.EBUSY, e.errno());
            assertTrue(e.getMessage().contains("exists already"), e.getMessage());
        }
    }

    @Test
    void shouldKeepAPrefilledAvWithoutJobFile() throws Exception
    {
        leaveAv();
        PrefilledAv.mark(dir, NAME);
        final FabricException e = assertThrows(FabricException.class, () -> open(0));
        assertEquals(FiErrno.EBUSY, e.errno());
        assertTrue(Files.exists(dir.resolve(NAME)));
    }

    @Test
    void shouldNotDeleteAJobFileWhileAnotherProcessHoldsAParticipantsLock() throws Exception
    {
        final JobFile zero = JobFile.create(dir, "job9", new JobId("Slurm srun", "1.0"), 2);
        zero.avCreated();
        try (JobFile one = JobFile.open(dir, "job9", 1, 2).orElseThrow())
        {
            assertTrue(one.join(System.nanoTime() + 5_000_000_000L));
            assertFalse(zero.delete(), "a participant holds its place: the file is not removed under it");
            assertTrue(Files.exists(JobFile.path(dir, "job9")));
        }
        assertTrue(zero.delete());
        assertFalse(Files.exists(JobFile.path(dir, "job9")));
        zero.close();
    }

    /** The pre-filled mark is removed under a lock on it: while another process holds one, it stays. */
    @Test
    void shouldRemoveThePrefilledMarkOnlyUnderItsLock() throws Exception
    {
        PrefilledAv.mark(dir, NAME);
        final Path mark = PrefilledAv.path(dir, NAME);
        try (ChildJvm holder = ChildJvm.start(SharedLockHolder.class, logs, mark.toString(), "0"))
        {
            holder.awaitOutput("locked", Duration.ofSeconds(30));
            PrefilledAv.jobStarted(dir, NAME);
            assertTrue(Files.exists(mark), "another remover holds it: left to that one");
        }
        PrefilledAv.jobStarted(dir, NAME);
        assertFalse(Files.exists(mark));
    }

    private NodeJob open(final int localRank)
    {
        final Domain domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build());
        final NodeAvs avs = NodeAvs.of(domain::openAv, domain::close);
        return NodeJob.open(avs, new RankEnvironment(Launcher.SLURM, localRank, 2, localRank, 2, NAME, dir,
            new JobId("Slurm srun", "2.0")), AvType.TABLE, 2, true, Duration.ofSeconds(5));
    }

    /** A job file of job 1.0 that a process now gone created, in {@code state}, nobody holding a place. */
    private void leaveJobFile(final int state) throws Exception
    {
        try (JobFile old = JobFile.create(dir, NAME, new JobId("Slurm srun", "1.0"), 2))
        {
            if (state >= JobFile.AV_CREATED)
            {
                old.avCreated();
            }
        }
        writeLong(JobFile.path(dir, NAME), JobFile.PID_OFFSET, deadPid);
    }

    /** An AV of 4 entries (and its lock file) made by the process now gone, which nobody has open. */
    private void leaveAv()
    {
        try (Domain domain = Domain.open(DomainAttr.builder().shmDirectory(dir).build()))
        {
            domain.openAv(AvAttr.builder().type(AvType.TABLE).count(4).name(NAME).build()).close();
        }
        writeLong(dir.resolve(NAME), AvFileDescriptor.CREATOR_PID_OFFSET, deadPid);
    }

    private static void writeLong(final Path file, final int offset, final long value)
    {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE))
        {
            ch.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, value), offset);
        }
        catch (final java.io.IOException e)
        {
            throw new IllegalStateException(e);
        }
    }
}
