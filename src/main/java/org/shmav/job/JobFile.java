package org.shmav.job;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * Which job a named AV belongs to, and which of its processes are still running: the file
 * {@code .shmav-job.<AV name>} next to the AV. Whoever creates a job's AV (avrun, or a node's local
 * rank 0 under mpirun, mpiexec or srun) creates this file first, with {@code CREATE_NEW}, so that of
 * two jobs given one name exactly one owns it; every other rank reads it before it attaches, and a
 * rank of another job is refused. The AV file's layout is untouched.
 *
 * <pre>
 *   0  magic "shmavjob"                 8 bytes
 *   8  state                            int: 0 being written, 1 job recorded, 2 the job's AV created,
 *                                      3 the AV filled (every rank of the job in it), 4 the fill failed
 *  12  slots                            int: participants (local ranks; 1 for avrun)
 *  16  created                          long: epoch milliseconds
 *  24  creator pid                      long: for people reading it
 *  32  launcher length L, job id length J   two shorts
 *  36  launcher, then job id            UTF-8
 * 512  slot i                           byte: 1 once participant i joined
 *  R   record i                         {@link NodeRecords#SIZE} bytes: participant i's address, handed to
 *                                      participant 0 on the node (R = 512 + slots + 1 rounded up to 64;
 *                                      the byte after the slots is the removers' lock byte)
 * </pre>
 *
 * A participant that joins writes 1 at its slot and holds an fcntl lock on that byte until it leaves;
 * the kernel drops the lock when the process dies. The state is written after the fields it vouches
 * for, so a reader that sees it sees them. Little-endian.
 *
 * <p>One instance per participant and process (fcntl locks belong to the process: closing another
 * channel of this file in the same JVM drops them). Not thread-safe.
 */
public final class JobFile implements AutoCloseable
{
    /** Prefix of the file's name; AV names cannot start with '.', so it never clashes with an AV. */
    public static final String PREFIX = ".shmav-job.";
    /** The job is being recorded; its fields are not valid yet. */
    public static final int BEING_WRITTEN = 0;
    /** The job is recorded; its AV is not created yet. */
    public static final int RECORDED = 1;
    /** The job created its AV: participants may attach. */
    public static final int AV_CREATED = 2;
    /** Local rank 0 filled the AV with every rank of the job (written after the last entry): it is complete. */
    public static final int AV_FILLED = 3;
    /** Local rank 0 could not fill the AV (a rank's address missing from the launcher's store). */
    public static final int FILL_FAILED = 4;
    /** The file's mode: the owner's only, as the AVs of ranks and avrun (a stranger must not hold its locks). */
    private static final Set<PosixFilePermission> MODE = PosixFilePermissions.fromString("rw-------");
    private static final long LOCK_POLL_MILLIS = 5;
    /** How long a remover retries the lock of every participant's byte (probes by other ranks hold one briefly). */
    static final long DELETE_WAIT_MILLIS = 1_000;

    static final int STATE_OFFSET = 8;
    static final int SLOTS_OFFSET = 12;
    static final int CREATED_OFFSET = 16;
    static final int PID_OFFSET = 24;
    static final int LENGTHS_OFFSET = 32;
    static final int TEXT_OFFSET = 36;
    /** Where the participants' bytes start. */
    public static final int SLOTS_START = 512;
    /** How long a creator tries to lock its own byte while other participants' probes hold it for a moment. */
    static final long CREATOR_LOCK_MILLIS = 500;
    private static final byte[] MAGIC = "shmavjob".getBytes(StandardCharsets.US_ASCII);

    private final Path file;
    private final FileChannel channel;
    private final int slot;
    private final int slots;
    /** The file's identity when this participant opened it (null when unknown). */
    private final Object key;
    private FileLock mine;

    private JobFile(final Path file, final FileChannel channel, final int slot, final int slots, final Object key)
    {
        this.file = file;
        this.channel = channel;
        this.slot = slot;
        this.slots = slots;
        this.key = key;
    }

    /** {@return the directory of the job's AV} */
    Path directory()
    {
        return file.getParent();
    }

    /** {@return the name of the job's AV} */
    String avName()
    {
        return avNameOf(file.getFileName().toString());
    }

    /** The file that records the job of AV {@code avName} in {@code directory}. */
    public static Path path(final Path directory, final String avName)
    {
        return directory.resolve(PREFIX + avName);
    }

    /** The AV a job file is about, or null when {@code fileName} is not a job file's name. */
    public static String avNameOf(final String fileName)
    {
        return fileName.startsWith(PREFIX) && fileName.length() > PREFIX.length() ? fileName.substring(PREFIX.length()) : null;
    }

    /**
     * Claims AV {@code avName} for {@code job}: creates the job file (never replacing one), joins slot 0
     * and records the job. Call {@link #avCreated()} once the AV is created.
     *
     * @throws FileAlreadyExistsException when a job file of that name exists (another job, or one that died)
     */
    public static JobFile create(final Path directory, final String avName, final JobId job, final int slots)
        throws IOException
    {
        final Path f = path(directory, avName);
        final FileChannel ch = FileChannel.open(f, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
            StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), PosixFilePermissions.asFileAttribute(MODE));
        try
        {
            Files.setPosixFilePermissions(f, MODE); // whatever the umask did
            final JobFile jobFile = new JobFile(f, ch, 0, slots, fileKey(f));
            // Participants polling a file being written probe this byte (a shared lock, released at once),
            // from the moment the file exists: a creator meeting a probe tries again.
            final long deadline = System.nanoTime() + CREATOR_LOCK_MILLIS * 1_000_000;
            while ((jobFile.mine = ch.tryLock(SLOTS_START, 1, false)) == null && System.nanoTime() - deadline < 0)
            {
                LockSupport.parkNanos(100_000);
            }
            if (jobFile.mine == null)
            {
                throw new IOException("another process locked " + f + " as it was created, for " + CREATOR_LOCK_MILLIS +
                    " ms: " + LockHolders.describe(f, SLOTS_START));
            }
            final byte[] launcher = bounded(job.launcher(), 100);
            final byte[] id = bounded(job.id(), SLOTS_START - TEXT_OFFSET - launcher.length);
            final ByteBuffer header = ByteBuffer.allocate(SLOTS_START + slots).order(ByteOrder.LITTLE_ENDIAN);
            header.put(MAGIC).putInt(BEING_WRITTEN).putInt(slots).putLong(System.currentTimeMillis())
                .putLong(ProcessHandle.current().pid()).putShort((short)launcher.length).putShort((short)id.length)
                .put(launcher).put(id);
            header.put(SLOTS_START, (byte)1);
            writeFully(ch, header.clear(), 0);
            writeZeros(ch, header.capacity(), jobFile.recordAt(slots));
            jobFile.setState(RECORDED);
            return jobFile;
        }
        catch (final IOException | RuntimeException e)
        {
            ch.close();
            Files.deleteIfExists(f);
            throw e;
        }
    }

    /** Records that the job's AV exists now: the other participants may attach. */
    public void avCreated() throws IOException
    {
        setState(AV_CREATED);
    }

    /** Records that the AV holds every rank of the job now (after the last entry was written). */
    public void avFilled() throws IOException
    {
        channel.force(false);
        setState(AV_FILLED);
    }

    /** Records that the AV will never be filled: the participants waiting for it stop. */
    public void fillFailed() throws IOException
    {
        setState(FILL_FAILED);
    }

    /** How the fill of the job's AV stands for a participant waiting for it ({@link #fill()}). */
    public enum Fill
    {
        /** Local rank 0 runs and has not finished filling. */
        PENDING,
        /** The AV holds every rank of the job. */
        FILLED,
        /** Local rank 0 could not fill it. */
        FAILED,
        /** Local rank 0 left or died without marking it filled or failed. */
        LEADER_GONE
    }

    /**
     * The fill as a participant waiting for it sees it now. Reads whether participant 0 still runs
     * before the state: participant 0 marks the AV filled and then may leave at once, so a state read
     * after seeing it gone is final. Read the other way round, a leader that filled and left between the
     * two reads would look as if it had died before it filled.
     */
    public Fill fill() throws IOException
    {
        final boolean leaderRuns = running(0);
        final int state = readInt(channel, STATE_OFFSET);
        if (state == AV_FILLED)
        {
            return Fill.FILLED;
        }
        if (state == FILL_FAILED)
        {
            return Fill.FAILED;
        }
        return leaderRuns ? Fill.PENDING : Fill.LEADER_GONE;
    }

    /**
     * Whether participant {@code r} joined and has left since: it holds its byte from its join until it
     * leaves or its process ends. Reads the joined mark before probing the lock, as a joiner locks before
     * it marks: a mark read and then a free byte cannot be a participant still joining. What that
     * participant wrote before it left is in the file when this returns true.
     */
    public boolean left(final int r) throws IOException
    {
        return joined(r) && isFree(channel, r);
    }

    /** Whether participant {@code r}'s byte holds the mark 1 that its join writes. */
    private boolean joined(final int r) throws IOException
    {
        final ByteBuffer mark = ByteBuffer.allocate(1);
        readFully(channel, mark, SLOTS_START + r);
        return mark.get(0) == 1;
    }

    /** Whether participant {@code r} holds its place (its process runs and has not left). */
    public boolean running(final int r) throws IOException
    {
        return !isFree(channel, r);
    }

    /**
     * Whether a remover (a job's last rank, its cleanup process, gc, a later job's local rank 0) holds the
     * lock of every participant's byte now: the byte after the last participant's is locked by nobody else.
     */
    public boolean beingRemoved() throws IOException
    {
        return !isFree(channel, Math.max(0, Math.min(readInt(channel, SLOTS_OFFSET), 1 << 20)));
    }

    /** The little-endian int at {@code offset} of the file. */
    private static int readInt(final FileChannel ch, final long offset) throws IOException
    {
        final ByteBuffer b = ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        readFully(ch, b, offset);
        return b.getInt(0);
    }

    private void setState(final int state) throws IOException
    {
        writeFully(channel, ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, state), STATE_OFFSET);
    }

    /**
     * Opens the job file of {@code avName} as participant {@code slot}, if there is one: the caller
     * reads it ({@link #read()}) and then either {@link #join()}s or {@link #close()}s it.
     *
     * @return empty when there is no job file (yet)
     */
    public static Optional<JobFile> open(final Path directory, final String avName, final int slot, final int slots)
        throws IOException
    {
        final Path f = path(directory, avName);
        try
        {
            final Object key = fileKey(f);
            return Optional.of(new JobFile(f, FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE),
                slot, slots, key));
        }
        catch (final NoSuchFileException e)
        {
            return Optional.empty();
        }
    }

    /** What the file says now, read through this participant's channel. */
    public JobRecord read() throws IOException
    {
        return JobRecord.read(file, channel);
    }

    /** Whether the name still refers to the file this participant opened (its creator may have removed it). */
    public boolean stillNamed() throws IOException
    {
        return key != null && key.equals(fileKey(file));
    }

    /**
     * Joins: takes the lock on this participant's byte (retrying until {@code deadlineNanos}, never
     * blocking in the kernel) and writes 1 there. False when the file was removed or replaced since it was
     * opened (its job ended): then the caller closes it and looks again.
     *
     * @throws LockTakenException when another process holds the byte until the deadline: another process
     *                            with this participant's number (two nodes sharing one directory), or a
     *                            stranger's or frozen process's lock
     */
    public boolean join(final long deadlineNanos) throws IOException
    {
        while ((mine = tryLock(channel, SLOTS_START + slot)) == null)
        {
            final boolean joined = joined(slot);
            // joined and held: a live process has this participant's number; it will not give it up
            if (joined || System.nanoTime() - deadlineNanos > 0)
            {
                throw new LockTakenException(file, slot, joined, LockHolders.describe(file, SLOTS_START + slot));
            }
            try
            {
                Thread.sleep(LOCK_POLL_MILLIS);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while joining " + file);
            }
        }
        writeFully(channel, ByteBuffer.wrap(new byte[] {1}), SLOTS_START + slot);
        return stillNamed();
    }

    private static FileLock tryLock(final FileChannel ch, final long position) throws IOException
    {
        try
        {
            return ch.tryLock(position, 1, false);
        }
        catch (final OverlappingFileLockException e)
        {
            return null; // held through another channel of this JVM (tests)
        }
    }

    /** The file's identity (device and inode), or null when it does not exist. */
    static Object fileKey(final Path file) throws IOException
    {
        try
        {
            return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        }
        catch (final NoSuchFileException e)
        {
            return null;
        }
    }

    /**
     * Leaves; true when this participant was the last of the job's to leave (every slot joined and no
     * lock held): then the caller removes the AV and {@link #delete()}s this file.
     */
    public boolean leave() throws IOException
    {
        if (mine != null && mine.isValid())
        {
            mine.release();
        }
        final ByteBuffer joined = ByteBuffer.allocate(slots);
        readFully(channel, joined, SLOTS_START);
        for (int r = 0; r < slots; r++)
        {
            if (r != slot && (joined.get(r) != 1 || !isFree(channel, r)))
            {
                return false;
            }
        }
        return true;
    }

    /** Whether nobody holds participant {@code r}'s lock (a lock of another channel of this JVM counts as held). */
    static boolean isFree(final FileChannel ch, final int r) throws IOException
    {
        try
        {
            final FileLock probe = ch.tryLock(SLOTS_START + r, 1, true);
            if (probe == null)
            {
                return false;
            }
            probe.release();
            return true;
        }
        catch (final OverlappingFileLockException e)
        {
            return false; // held by another participant in this same JVM (tests)
        }
    }

    /**
     * Removes the file (by its creator when its AV could not be made, or by the last participant to
     * leave), only when the name still refers to the file this participant opened: a newer job's file of
     * the same name (made after gc or the cleanup process removed this one) is never removed. Runs
     * {@code removeAvFirst} (the AV's removal) just before, both while holding every participant's
     * lock, which every other remover of the file takes too: between the check and the removal nobody
     * removes this file and so nobody can make a new one under its name.
     *
     * @return false when the file was gone or replaced, or when another process kept a participant's lock
     *         for {@value #DELETE_WAIT_MILLIS} ms (a joiner, or a frozen prober): then the job's cleanup
     *         process or {@code shmav gc} removes what is left
     */
    public boolean delete(final Runnable removeAvFirst) throws IOException
    {
        if (mine != null && mine.isValid())
        {
            mine.release(); // this JVM's own lock would refuse the lock of every byte
        }
        final long deadline = System.nanoTime() + DELETE_WAIT_MILLIS * 1_000_000;
        FileLock all;
        while ((all = tryLockEveryParticipant(channel)) == null)
        {
            if (System.nanoTime() - deadline > 0)
            {
                return false;
            }
            pause();
        }
        try
        {
            if (key == null || !key.equals(fileKey(file)))
            {
                return false;
            }
            removeAvFirst.run();
            Files.deleteIfExists(file);
            return true;
        }
        finally
        {
            all.release();
        }
    }

    /** {@link #delete(Runnable)} of the file alone (its AV was never made). */
    public boolean delete() throws IOException
    {
        return delete(() -> { });
    }

    private static void pause() throws java.io.InterruptedIOException
    {
        try
        {
            Thread.sleep(LOCK_POLL_MILLIS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while removing a job file");
        }
    }

    /**
     * Removes the job file {@code file} when its job is over (no participant holds its lock), for
     * {@code shmav gc}: holds every participant's lock while it checks that the name still refers to the
     * file it looked at, so a job that joins meanwhile waits and then finds the file gone
     * ({@link #join()} returns false), and a job file created in its place is never removed.
     *
     * @return true when it removed the file
     */
    public static boolean deleteIfOver(final Path file) throws IOException
    {
        final Object before = fileKey(file);
        if (before == null)
        {
            return false;
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final FileLock all = tryLockEveryParticipant(ch);
            if (all == null)
            {
                return false;
            }
            try
            {
                if (!before.equals(fileKey(file)))
                {
                    return false;
                }
                Files.delete(file);
                return true;
            }
            finally
            {
                all.release();
            }
        }
        catch (final NoSuchFileException e)
        {
            return false;
        }
    }

    /** The exclusive lock of every participant's byte, or null while anybody (this JVM included) holds one. */
    static FileLock tryLockEveryParticipant(final FileChannel ch) throws IOException
    {
        try
        {
            return ch.tryLock(SLOTS_START, Long.MAX_VALUE - SLOTS_START, false);
        }
        catch (final OverlappingFileLockException e)
        {
            return null;
        }
    }

    @Override
    public void close() throws IOException
    {
        channel.close();
    }

    private static byte[] bounded(final String s, final int max)
    {
        final byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > max)
        {
            throw new IllegalArgumentException("job identity '" + s + "' is longer than " + max + " bytes");
        }
        return b;
    }

    static void writeFully(final FileChannel ch, final ByteBuffer b, final long position) throws IOException
    {
        long at = position;
        while (b.hasRemaining())
        {
            at += ch.write(b, at);
        }
    }

    /**
     * Writes zeros over [{@code from}, {@code to}): the participants' records, written by the creator so that
     * the file system has given them their pages. A participant's record then never needs room a full
     * file system no longer has (a rank that hands nothing must still be able to say so).
     */
    private static void writeZeros(final FileChannel ch, final long from, final long to) throws IOException
    {
        final ByteBuffer zeros = ByteBuffer.allocate(64 * 1024);
        for (long at = from; at < to; at += zeros.capacity())
        {
            writeFully(ch, zeros.clear().limit((int)Math.min(zeros.capacity(), to - at)), at);
        }
    }

    static void readFully(final FileChannel ch, final ByteBuffer b, final long position) throws IOException
    {
        while (b.hasRemaining() && ch.read(b, position + b.position()) > 0)
        {
            // until full or end of file; what is missing stays 0
        }
    }

    /** Where participant {@code participant}'s record starts ({@link NodeRecords}). */
    long recordAt(final int participant)
    {
        return SLOTS_START + (slots + 1 + 63L) / 64 * 64 + (long)participant * NodeRecords.SIZE;
    }

    /** Writes {@code b} at {@code position} of this file (a participant's record). */
    void writeAt(final ByteBuffer b, final long position) throws IOException
    {
        writeFully(channel, b, position);
    }

    /** Reads into {@code b} from {@code position}; what the file does not have yet reads as 0. */
    void readAt(final ByteBuffer b, final long position) throws IOException
    {
        readFully(channel, b, position);
    }

    static byte[] magic()
    {
        return MAGIC.clone();
    }
}
