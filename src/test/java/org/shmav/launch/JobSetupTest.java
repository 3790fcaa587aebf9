package org.shmav.launch;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmav.it.TestDir;
import org.shmav.job.JobFile;
import org.shmav.job.JobId;

/** How avrun claims a job's name against another launcher of the same name. */
class JobSetupTest
{
    private static final String NAME = "job7";

    private Path dir;
    private Path other;

    @BeforeEach
    void setUp()
    {
        dir = TestDir.createInShm("jobsetup");
        other = TestDir.createInShm("jobsetup-other");
    }

    @AfterEach
    void cleanUp()
    {
        TestDir.delete(dir);
        TestDir.delete(other);
    }

    /**
     * Two jobs started together with one name: the other launcher created the job file and holds its byte,
     * but has not written its job yet when this one is refused (a launcher descheduled between the two, as
     * on a loaded machine). The refusal waits for the job to be written and names it as running; it
     * called it "a job, which is over" and sent the user to gc.
     */
    @Test
    void shouldNameTheJobThatClaimedTheNameWhileItWasStillWritingItsJobFile() throws Exception
    {
        final byte[] written;
        try (JobFile real = JobFile.create(other, NAME, new JobId("avrun", "avrun-1-b"), 1))
        {
            written = Files.readAllBytes(JobFile.path(other, NAME));
        }
        try (FileChannel creator = FileChannel.open(JobFile.path(dir, NAME), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ, StandardOpenOption.WRITE);
             FileLock held = creator.lock(JobFile.SLOTS_START, 1, false))
        {
            final CompletableFuture<Void> writes = CompletableFuture.runAsync(() ->
            {
                try
                {
                    Thread.sleep(300);
                    creator.write(ByteBuffer.wrap(written), 0);
                }
                catch (final Exception e)
                {
                    throw new IllegalStateException(e);
                }
            });
            final JobSpec spec = new JobSpec(4, NAME, dir, false, Duration.ofSeconds(60), List.of("true"));
            final Job.SetupException e = assertThrows(Job.SetupException.class,
                () -> JobSetup.claim(spec, new PrintStream(PrintStream.nullOutputStream())));
            writes.get(10, TimeUnit.SECONDS);
            assertTrue(e.getMessage().contains("refused AV '" + NAME + "'") &&
                e.getMessage().contains("it belongs to job 'avrun-1-b' (avrun), which is running"), e.getMessage());
        }
    }

    /**
     * A launcher killed after it created the job file and before it wrote its job leaves the file unwritten
     * and its lock free: the refusal of the same job run again sends the user to gc without waiting out
     * the {@value JobSetup#CLAIMING_MILLIS} ms a live creator gets (it waited all of them).
     */
    @Test
    void shouldReferALaunchAtOnceToGcWhenTheLauncherThatClaimedTheNameDiedBeforeWritingItsJob() throws Exception
    {
        Files.write(JobFile.path(dir, NAME), new byte[JobFile.SLOTS_START + 4]); // created, never written, no lock
        final JobSpec spec = new JobSpec(4, NAME, dir, false, Duration.ofSeconds(60), List.of("true"));
        final long start = System.nanoTime();
        final Job.SetupException e = assertThrows(Job.SetupException.class,
            () -> JobSetup.claim(spec, new PrintStream(PrintStream.nullOutputStream())));
        final long millis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(e.getMessage().contains("was left by a job, which is over") && e.getMessage().contains(" gc"),
            e.getMessage());
        assertTrue(millis < JobSetup.CLAIMING_MILLIS / 2, "refused after " + millis + " ms");
    }
}
