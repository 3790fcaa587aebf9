package org.shmav.job;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.shmav.it.ChildJvm;

/** The job's cleanup process against another process's lock on the job file. */
class JobReaperTest
{
    @TempDir
    Path dir;
    /** The output of child JVMs. */
    @TempDir
    Path logs;

    /**
     * The job is over, but another process holds a shared lock on a participant's byte (a frozen
     * tool, a stranger who could read the file): the cleanup process gives up after its bound and
     * leaves the files to gc, instead of polling for as long as that process likes.
     */
    @Test
    void shouldGiveUpAndLeaveTheFilesToGcWhileAnotherProcessHoldsALock() throws Exception
    {
        final JobFile zero = JobFile.create(dir, "job7", new JobId("Slurm srun", "5.0"), 1);
        zero.avCreated();
        final JobRecord job = zero.read();
        zero.leave();
        zero.close();
        final Path file = JobFile.path(dir, "job7");
        try (ChildJvm holder = ChildJvm.start(SharedLockHolder.class, logs, file.toString(),
            Long.toString(JobFile.SLOTS_START + 3)))
        {
            holder.awaitOutput("locked", Duration.ofSeconds(30));
            final AtomicBoolean removedAv = new AtomicBoolean();
            final boolean removed = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> JobReaper.removeWhenOver(file,
                job.creatorPid(), job.createdMillis(), 50, 500, () -> removedAv.set(true)));
            assertFalse(removed);
            assertFalse(removedAv.get());
            assertTrue(Files.exists(file), "left to gc");
        }
    }
}
