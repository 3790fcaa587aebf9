package org.shmav.job;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.shmav.FabricException;

/**
 * The cleanup process of a job under a foreign launcher: removes the job's AV and job file once every
 * process of the job that joined is gone, however it ended.
 *
 * <p>Why a process: the job's last rank removes both in its shutdown hook, but Open MPI 4.1's mpirun,
 * on Ctrl-C or SIGTERM, sends its ranks SIGCONT, then SIGTERM one second later, then SIGKILL about 10
 * ms after that (measured with strace): a JVM's shutdown hook often loses that race, and then no rank
 * is left to clean. So the node's local rank 0 starts this small JVM when it creates the job's AV, in a
 * session of its own ({@code setsid}) so that the launcher's signals to the job's process groups do not
 * reach it, with its output discarded so that the launcher does not wait for it. It blocks in the
 * kernel on the job file's participant locks (no polling, no CPU); once they are all free it lets
 * {@value #SETTLE_MILLIS} ms pass, for a last rank that leaves normally to remove the files itself, then
 * removes what is left and exits. A job killed outright
 * with its reaper (SIGKILL to every process) leaves its files to {@code shmav gc}.
 */
public final class JobReaper
{
    /** Environment variable: {@code 0} starts no cleanup process (a killed job's files are then left to {@code shmav gc}). */
    public static final String ENABLED_ENV = "SHMAV_REAPER";
    /** How long after the job's last process left the reaper lets that process remove the files itself. */
    static final long SETTLE_MILLIS = 200;
    /** How long the cleanup process tries to take every participant's lock once the job ended, before it gives up. */
    static final long GIVE_UP_MILLIS = 10_000;

    private JobReaper()
    {
    }

    /**
     * Starts the reaper of the job recorded in {@code job} (whose AV is {@code avName} in
     * {@code directory}), detached from this process. Never throws: without a reaper, a killed job's
     * files are still removed by {@code shmav gc}.
     *
     * @return the reaper, or empty (with one line on stderr) when it could not be started
     */
    public static Optional<Process> start(final Path directory, final String avName, final JobRecord job)
    {
        if ("0".equals(System.getenv(ENABLED_ENV)))
        {
            return Optional.empty();
        }
        final Optional<Path> setsid = onPath("setsid");
        if (setsid.isEmpty())
        {
            System.err.println("shmav: no setsid on PATH (util-linux): a killed job's AV is left to 'shmav gc'");
            return Optional.empty();
        }
        final List<String> command = new ArrayList<>(List.of(setsid.get().toString(),
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-Xmx32m", "-XX:-UsePerfData", "-cp",
            System.getProperty("java.class.path"), JobReaper.class.getName(), directory.toString(), avName,
            Long.toString(job.creatorPid()), Long.toString(job.createdMillis())));
        try
        {
            return Optional.of(new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start());
        }
        catch (final IOException e)
        {
            System.err.println("shmav: cannot start the job's cleanup process (" + e.getMessage() +
                "): a killed job's AV is left to 'shmav gc'");
            return Optional.empty();
        }
    }

    /**
     * {@code JobReaper DIRECTORY AV_NAME CREATOR_PID CREATED_MILLIS}: waits for the job to end, then
     * removes its AV and job file if they are still that job's. Exit status 0 either way.
     */
    public static void main(final String[] args) throws IOException, InterruptedException
    {
        final Path directory = Path.of(args[0]);
        final String avName = args[1];
        removeWhenOver(JobFile.path(directory, avName), Long.parseLong(args[2]), Long.parseLong(args[3]),
            SETTLE_MILLIS, GIVE_UP_MILLIS, () ->
        {
            try
            {
                JobLeftovers.removeAvFiles(directory, avName);
            }
            catch (final FabricException e)
            {
                // not a file this user may remove, or not an AV: leave it, and the job file with it, to gc
                throw new IllegalStateException(e);
            }
        });
    }

    /**
     * For a job's cleanup process (this class): waits until no participant of the job file
     * {@code file} holds its lock (every process of the job that joined has left or died), lets
     * {@code settleMillis} pass so that a last participant that is leaving normally removes the files
     * itself, then, holding every participant's lock so that nobody joins meanwhile, and only when the
     * name still refers to the job file of the job that {@code creatorPid} created at
     * {@code createdMillis}, runs {@code removeAv} and removes the file.
     *
     * @return true when it removed them; false when the file is gone or belongs to another job (the job's
     *         last process removed it, and perhaps another job took the name since), or when another process
     *         kept a lock on a participant's byte for {@code giveUpMillis} after the job ended (the
     *         files are then left to {@code shmav gc})
     */
    static boolean removeWhenOver(final Path file, final long creatorPid, final long createdMillis,
        final long settleMillis, final long giveUpMillis, final Runnable removeAv) throws IOException, InterruptedException
    {
        final Object opened = JobFile.fileKey(file);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final ByteBuffer header = ByteBuffer.allocate(JobFile.SLOTS_START).order(ByteOrder.LITTLE_ENDIAN);
            JobFile.readFully(ch, header, 0);
            final int slots = Math.max(1, Math.min(header.getInt(JobFile.SLOTS_OFFSET), 1 << 20));
            long refused = 0;
            while (true)
            {
                for (int r = 0; r < slots; r++)
                {
                    // A shared lock: blocks in the kernel while participant r holds its byte, never
                    // hinders a leaving participant's probes; a joiner's lock waits for its release.
                    ch.lock(JobFile.SLOTS_START + r, 1, true).release();
                }
                Thread.sleep(settleMillis);
                final FileLock all = JobFile.tryLockEveryParticipant(ch);
                if (all == null)
                {
                    // A participant joined, or someone is probing: wait again; but a shared lock held on
                    // and on past every participant's (a frozen or foreign process) makes it give up and
                    // leave the files to gc.
                    if (++refused * settleMillis > giveUpMillis)
                    {
                        return false;
                    }
                    continue;
                }
                try
                {
                    final JobRecord job = JobRecord.read(file, ch);
                    if (opened == null || !opened.equals(JobFile.fileKey(file)) || job.state() < JobFile.AV_CREATED ||
                        job.creatorPid() != creatorPid || job.createdMillis() != createdMillis)
                    {
                        return false;
                    }
                    removeAv.run();
                    Files.delete(file);
                    return true;
                }
                finally
                {
                    all.release();
                }
            }
        }
        catch (final NoSuchFileException e)
        {
            return false;
        }
    }

    private static Optional<Path> onPath(final String program)
    {
        final String path = Optional.ofNullable(System.getenv("PATH")).orElse("/usr/bin:/bin");
        for (final String dir : path.split(File.pathSeparator))
        {
            final Path candidate = Path.of(dir.isEmpty() ? "." : dir, program);
            if (Files.isExecutable(candidate))
            {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
