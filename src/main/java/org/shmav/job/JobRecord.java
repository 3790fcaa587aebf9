package org.shmav.job;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Optional;

/**
 * What a job file ({@link JobFile}) said when it was read: the job, its state, and which of its
 * participants joined and which still run.
 *
 * @param file          the job file
 * @param job           the job, or null while it is being written (or when the file is not a job file)
 * @param state         {@link JobFile#BEING_WRITTEN}, {@link JobFile#RECORDED}, {@link JobFile#AV_CREATED},
 *                      {@link JobFile#AV_FILLED} or {@link JobFile#FILL_FAILED}
 * @param slots         participants the job has
 * @param joined        participants that joined
 * @param running       participants still running (their lock is held); of a file being written, 1 while its
 *                      creator holds participant 0's byte
 * @param createdMillis when the file was created
 * @param creatorPid    the pid of the process that created it
 */
public record JobRecord(Path file, JobId job, int state, int slots, int joined, int running, long createdMillis,
    long creatorPid)
{
    private static final long POLL_MILLIS = 10;
    /** How long a job file being written may go without its creator's lock before its creator counts as gone. */
    static final long UNHELD_MILLIS = 250;

    /** Reads the job file {@code file} from a new read-only channel: for tools, never in a participant's JVM. */
    public static Optional<JobRecord> read(final Path file) throws IOException
    {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ))
        {
            return Optional.of(read(file, ch));
        }
        catch (final NoSuchFileException e)
        {
            return Optional.empty();
        }
    }

    /**
     * {@link #read(Path)}, waiting up to {@code waitMillis} while the file is being written: a job file
     * that beat this process to its name may have been created a moment ago by another job's process (two
     * jobs started together), which names its job once it has written it. A file being written whose
     * creator holds no lock for {@value #UNHELD_MILLIS} ms is not waited for longer: its creator died
     * before it wrote its job (it locks participant 0's byte right after it creates the file). Empty when
     * there is no file.
     */
    public static Optional<JobRecord> readRecorded(final Path file, final long waitMillis) throws IOException
    {
        final long deadline = System.nanoTime() + waitMillis * 1_000_000;
        long heldAt = System.nanoTime(); // when the creator's lock was last seen held (at first: now)
        Optional<JobRecord> r = read(file);
        while (r.isPresent() && r.get().job() == null && System.nanoTime() - deadline < 0)
        {
            final long now = System.nanoTime();
            if (r.get().running() > 0)
            {
                heldAt = now;
            }
            else if (now - heldAt >= UNHELD_MILLIS * 1_000_000)
            {
                break;
            }
            try
            {
                Thread.sleep(POLL_MILLIS);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                break;
            }
            r = read(file);
        }
        return r;
    }

    static JobRecord read(final Path file, final FileChannel ch) throws IOException
    {
        final ByteBuffer h = ByteBuffer.allocate(JobFile.SLOTS_START).order(ByteOrder.LITTLE_ENDIAN);
        JobFile.readFully(ch, h, 0);
        final byte[] magic = new byte[8];
        h.get(0, magic);
        final int state = h.getInt(JobFile.STATE_OFFSET);
        if (!Arrays.equals(magic, JobFile.magic()) || state == JobFile.BEING_WRITTEN || state > JobFile.FILL_FAILED)
        {
            return unwritten(file, h, ch);
        }
        final int slots = Math.max(0, Math.min(h.getInt(JobFile.SLOTS_OFFSET), 1 << 20));
        final int launcherLength = h.getShort(JobFile.LENGTHS_OFFSET) & 0xffff;
        final int idLength = h.getShort(JobFile.LENGTHS_OFFSET + 2) & 0xffff;
        if (JobFile.TEXT_OFFSET + launcherLength + idLength > JobFile.SLOTS_START)
        {
            return unwritten(file, h, ch);
        }
        final String launcher = new String(h.array(), JobFile.TEXT_OFFSET, launcherLength, StandardCharsets.UTF_8);
        final String id = new String(h.array(), JobFile.TEXT_OFFSET + launcherLength, idLength, StandardCharsets.UTF_8);
        final ByteBuffer bytes = ByteBuffer.allocate(slots);
        JobFile.readFully(ch, bytes, JobFile.SLOTS_START);
        int joined = 0;
        int running = 0;
        for (int r = 0; r < slots; r++)
        {
            joined += bytes.get(r) == 1 ? 1 : 0;
            running += JobFile.isFree(ch, r) ? 0 : 1;
        }
        return new JobRecord(file, new JobId(launcher, id), state, slots, joined, running,
            h.getLong(JobFile.CREATED_OFFSET), h.getLong(JobFile.PID_OFFSET));
    }

    /** A file whose job is not written (yet): its creator runs while it holds participant 0's byte, which it locks first. */
    private static JobRecord unwritten(final Path file, final ByteBuffer h, final FileChannel ch) throws IOException
    {
        return new JobRecord(file, null, JobFile.BEING_WRITTEN, 0, 0, JobFile.isFree(ch, 0) ? 0 : 1,
            h.getLong(JobFile.CREATED_OFFSET), h.getLong(JobFile.PID_OFFSET));
    }

    /** True when the job created its AV, some participant joined, and none of them runs any more. */
    public boolean over()
    {
        return state >= JobFile.AV_CREATED && joined > 0 && running == 0;
    }

    /** {@return one line for people: the job, and how many of its participants run} */
    public String describe()
    {
        if (job == null)
        {
            return "a job file being written by pid " + creatorPid;
        }
        return "job " + job + ", " + running + " of " + slots + (slots == 1 ? " process" : " processes") + " running" +
            (state >= JobFile.AV_CREATED ? "" : ", AV not created yet");
    }
}
