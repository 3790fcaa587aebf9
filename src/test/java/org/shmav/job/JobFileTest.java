package org.shmav.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.shmav.it.ChildJvm;

/** The job file's life in one JVM: claim, record, join, leave, and what gc may remove. */
class JobFileTest
{
    private static final JobId JOB = new JobId("Open MPI mpirun", "prterun-vm-4242@1");

    /** How long a child JVM may take to start and take its lock. */
    private static final Duration LOCKED_WITHIN = Duration.ofSeconds(30);

    @TempDir
    Path dir;
    /** The output of child JVMs. */
    @TempDir
    Path logs;

    /** Two participants of job {@code name}: 0 created the file and the AV, 1 joined. */
    private record Two(JobFile zero, JobFile one)
    {
    }

    private Two twoJoined(final String name) throws Exception
    {
        final JobFile zero = JobFile.create(dir, name, JOB, 2);
        zero.avCreated();
        final JobFile one = JobFile.open(dir, name, 1, 2).orElseThrow();
        assertTrue(one.join(System.nanoTime() + 5_000_000_000L));
        return new Two(zero, one);
    }

    @Test
    void shouldClaimANameOnceAndRecordTheJobBeforeItsAv() throws Exception
    {
        try (JobFile created = JobFile.create(dir, "job7", JOB, 3))
        {
            assertThrows(FileAlreadyExistsException.class, () -> JobFile.create(dir, "job7", new JobId("avrun", "x"), 1),
                "a second job never replaces the first one's file");
            final JobRecord recorded = created.read();
            assertEquals(JOB, recorded.job());
            assertEquals(JobFile.RECORDED, recorded.state(), "ranks wait until the AV exists");
            assertEquals(1, recorded.joined());
            assertEquals(1, recorded.running(), "the creator holds its lock");
            assertFalse(recorded.over());
            created.avCreated();
            assertEquals(JobFile.AV_CREATED, created.read().state());
            assertEquals("job 'prterun-vm-4242@1' (Open MPI mpirun), 1 of 3 processes running", created.read().describe());
        }
    }

    @Test
    void shouldTellTheLastParticipantAndNeverLetGcRemoveARunningJobsFile() throws Exception
    {
        final Two two = twoJoined("job7");
        final JobFile zero = two.zero();
        final JobFile one = two.one();
        final Path file = JobFile.path(dir, "job7");
        assertFalse(JobFile.deleteIfOver(file), "two participants hold their locks");
        assertFalse(zero.leave(), "participant 1 still runs");
        zero.close();
        assertTrue(one.leave(), "every participant joined and none holds its lock");
        one.close();
        final JobRecord over = JobRecord.read(file).orElseThrow();
        assertEquals(2, over.joined());
        assertTrue(over.over());
        assertTrue(JobFile.deleteIfOver(file));
        assertFalse(Files.exists(file));
        assertTrue(JobRecord.read(file).isEmpty());
    }

    @Test
    void shouldRefuseToJoinAFileRemovedSinceItWasOpened() throws Exception
    {
        final JobFile zero = JobFile.create(dir, "job7", JOB, 2);
        final JobFile late = JobFile.open(dir, "job7", 1, 2).orElseThrow();
        zero.delete(); // its creator could not make the AV
        zero.close();
        assertFalse(late.stillNamed());
        assertFalse(late.join(System.nanoTime() + 5_000_000_000L), "joining a removed file would wait for an AV nobody creates");
        late.close();
        assertTrue(JobFile.open(dir, "job7", 1, 2).isEmpty());
    }

    @Test
    void shouldReadAnUnfinishedFileAsBeingWritten() throws Exception
    {
        final Path file = Files.write(JobFile.path(dir, "job7"), new byte[600]);
        final JobRecord r = JobRecord.read(file).orElseThrow();
        assertNull(r.job());
        assertEquals(JobFile.BEING_WRITTEN, r.state());
        assertFalse(r.over(), "gc waits for the grace period rather than guess");
        assertEquals("job7", JobFile.avNameOf(file.getFileName().toString()));
        assertNull(JobFile.avNameOf("job7"));
    }

    /** A stranger must not be able to open the job file and hold its locks: the AV's rule, owner only. */
    @Test
    void shouldCreateTheFileForItsOwnerOnlyWhateverTheUmask() throws Exception
    {
        try (JobFile created = JobFile.create(dir, "job7", JOB, 2))
        {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(JobFile.path(dir, "job7"))));
        }
    }

    /**
     * Another process's shared lock on a participant's byte (anyone who can read the file can take one)
     * costs a joiner its deadline, then an error that names the holder; it never blocks in the kernel.
     */
    @Test
    void shouldGiveUpJoiningAtTheDeadlineAndNameWhoHoldsTheLock() throws Exception
    {
        final JobFile zero = JobFile.create(dir, "job7", JOB, 2);
        zero.avCreated();
        final Path file = JobFile.path(dir, "job7");
        try (ChildJvm holder = ChildJvm.start(SharedLockHolder.class, logs, file.toString(),
                Long.toString(JobFile.SLOTS_START + 1));
             JobFile one = JobFile.open(dir, "job7", 1, 2).orElseThrow())
        {
            holder.awaitOutput("locked", LOCKED_WITHIN);
            final long start = System.nanoTime();
            final LockTakenException e = assertThrows(LockTakenException.class,
                () -> one.join(System.nanoTime() + 300_000_000L));
            assertTrue(System.nanoTime() - start < 5_000_000_000L, "bounded by the deadline");
            assertFalse(e.joined());
            assertTrue(e.getMessage().contains("held by pid " + holder.pid()), e.getMessage());
        }
        finally
        {
            zero.close();
        }
    }

    /**
     * A follower polling a job file that is still being written probes participant 0's byte (a shared lock,
     * released at once). A creator whose first lock of that byte met such a probe failed the job with
     * "another process locked ... as it was created" (LauncherCleanupIT under mpirun, 2026-12-02): it now
     * tries again for a moment. Creations beside a process probing as fast as it can.
     */
    @Test
    void shouldCreateTheJobFileWhileAnotherProcessProbesItsCreatorsByte() throws Exception
    {
        final Path file = JobFile.path(dir, "job7");
        try (ChildJvm prober = ChildJvm.start(LeaderProber.class, logs, file.toString(), "60"))
        {
            prober.awaitOutput("probing", LOCKED_WITHIN);
            for (int round = 0; round < 300; round++)
            {
                final JobFile created = JobFile.create(dir, "job7", JOB, 2); // threw in the first rounds before
                created.delete();
                created.close();
            }
        }
    }

    /** The last participant removes the job file it joined, never a newer job's file of the same name. */
    @Test
    void shouldNeverRemoveANewerJobsFileOfTheSameName() throws Exception
    {
        final JobFile old = JobFile.create(dir, "job7", JOB, 1);
        Files.delete(JobFile.path(dir, "job7")); // as gc or the cleanup process did
        try (JobFile newer = JobFile.create(dir, "job7", new JobId("avrun", "newer"), 1))
        {
            old.delete();
            old.close();
            assertTrue(Files.exists(JobFile.path(dir, "job7")), "the newer job's file stays");
            assertEquals("newer", newer.read().job().id());
        }
    }

    /**
     * Local rank 0 marks the AV filled and may leave at once (it saw every rank). A rank polling for the
     * fill in that moment must see it filled, never its leader gone: the CI failure of 2026-12-02 (rank 5
     * of a 3-node mpiexec job was told its node's leader had died before it filled, while that leader had
     * filled the AV and seen every rank). The follower polls as fast as it can while the leader fills and
     * leaves, many times: with the state read before the leader's lock (the old order) this failed within
     * its first five rounds here.
     */
    @Test
    void shouldSeeTheFillOfALeaderThatFilledAndLeftAtOnce() throws Exception
    {
        final long until = System.nanoTime() + 1_000_000_000L;
        for (int round = 0; round < 1_000 && System.nanoTime() - until < 0; round++)
        {
            final Two two = twoJoined("fill" + round);
            final JobFile leader = two.zero();
            final JobFile follower = two.one();
            final CompletableFuture<JobFile.Fill> seen = CompletableFuture.supplyAsync(() -> {
                try
                {
                    JobFile.Fill fill;
                    while ((fill = follower.fill()) == JobFile.Fill.PENDING)
                    {
                        Thread.onSpinWait();
                    }
                    return fill;
                }
                catch (final IOException e)
                {
                    throw new UncheckedIOException(e);
                }
            });
            for (int spin = round % 64; spin > 0; spin--)
            {
                Thread.onSpinWait(); // vary where in the follower's poll the leader's two steps fall
            }
            leader.avFilled();
            leader.leave();
            assertEquals(JobFile.Fill.FILLED, seen.get(10, TimeUnit.SECONDS), "round " + round +
                ": the leader filled the AV before it left");
            leader.close();
            follower.leave();
            follower.close();
        }
    }

    @Test
    void shouldTellALeaderThatLeftWithoutFillingFromOneThatFailed() throws Exception
    {
        final Two failing = twoJoined("job7");
        final JobFile leader = failing.zero();
        final JobFile follower = failing.one();
        assertEquals(JobFile.Fill.PENDING, follower.fill(), "the leader runs and has not filled");
        leader.fillFailed();
        assertEquals(JobFile.Fill.FAILED, follower.fill());
        leader.leave();
        assertEquals(JobFile.Fill.FAILED, follower.fill(), "a failure stays a failure after the leader left");
        leader.close();
        follower.close();
        final Two leaving = twoJoined("job8");
        final JobFile second = leaving.zero();
        final JobFile waiting = leaving.one();
        second.leave();
        assertEquals(JobFile.Fill.LEADER_GONE, waiting.fill(), "it left without marking the AV filled or failed");
        second.close();
        waiting.close();
    }

    /**
     * A rank that waits for a job across nodes without an address writes a record saying so, or its node's
     * local rank 0 waits for it until half its deadline. By then the file system may be full: the child may
     * not write past the job file's size as created (RLIMIT_FSIZE), so a write that needs a new page fails,
     * as on a full tmpfs.
     */
    @Test
    void shouldLetAParticipantWriteItsRecordWhereTheFileSystemHasNoRoomLeft() throws Exception
    {
        final JobFile zero = JobFile.create(dir, "job7", JOB, 3);
        zero.avCreated();
        final long size = Files.size(JobFile.path(dir, "job7"));
        try (ChildJvm child = ChildJvm.start(fileSizeLimit(size), System.getProperty("java.class.path"), Map.of(), NothingRecordWriter.class,
            logs, dir.toString(), "job7", "2", "3"))
        {
            assertEquals(0, child.waitFor(LOCKED_WITHIN), child.output());
        }
        final NodeRecords.Entry entry = NodeRecords.read(zero, 2);
        assertEquals(2, entry.rank());
        assertEquals(NodeRecords.NOTHING, entry.failure());
        assertEquals(zero.recordAt(3), size, "the file as created holds every record");
        zero.close();
    }

    /**
     * A file system without room for the job file's records (here: a child that may not write past 2 KiB,
     * RLIMIT_FSIZE) refuses local rank 0 with FI_ENOSPC at once, and leaves no job file behind.
     */
    @Test
    void shouldRefuseLocalRankZeroWithEnospcWhenTheJobFileDoesNotFit() throws Exception
    {
        try (ChildJvm child = ChildJvm.start(fileSizeLimit(2048), System.getProperty("java.class.path"), Map.of(), RankOpenProbe.class,
            logs, dir.toString()))
        {
            assertEquals(0, child.waitFor(LOCKED_WITHIN), child.output());
            assertTrue(child.output().contains("errno=28 ") && child.output().contains("free space in " + dir),
                child.output());
        }
        try (var files = Files.list(dir))
        {
            assertEquals(List.of(), files.toList(), "nothing left in " + dir);
        }
    }

    /** A command prefix that runs a child which may not write past {@code bytes} of any file (RLIMIT_FSIZE). */
    private static List<String> fileSizeLimit(final long bytes)
    {
        return Files.isExecutable(Path.of("/usr/bin/prlimit"))
            ? List.of("/usr/bin/prlimit", "--fsize=" + bytes + ":" + bytes, "--")
            : List.of("bash", "-c", "ulimit -f " + (bytes + 1023) / 1024 + " && exec \"$@\"", "bash"); // 1 KiB blocks
    }

    @Test
    void shouldTellAParticipantThatLeftFromOneThatHasNotJoinedYet() throws Exception
    {
        final JobFile zero = JobFile.create(dir, "job7", JOB, 3);
        zero.avCreated();
        assertFalse(zero.left(1), "participant 1 has not joined: it may still come");
        final JobFile one = JobFile.open(dir, "job7", 1, 3).orElseThrow();
        assertTrue(one.join(System.nanoTime() + 5_000_000_000L));
        assertFalse(zero.left(1), "participant 1 joined and holds its byte");
        one.close(); // as a process that died: the kernel releases its lock
        assertTrue(zero.left(1), "participant 1 joined and its byte is free");
        assertFalse(zero.left(2), "participant 2 never joined");
        assertFalse(zero.left(0), "this participant holds its own byte");
        zero.close();
    }
}
