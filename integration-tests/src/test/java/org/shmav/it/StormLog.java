package org.shmav.it;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A writer's append-only log of acknowledged inserts and intended removals, in a memory-mapped file:
 * a record is visible to the test JVM the moment its commit word is stored, SIGKILL or not, and costs
 * no system call (so a kill lands inside the AV's code far more often than inside logging).
 *
 * <pre>
 *   header (64 bytes): started (u64) | ops (u64) | insert failures (u64) | last failure errno (u64) | ...
 *   record (32 bytes): fi_addr (u64) | id (u64) | reserved (u64) | commit = MAGIC | type (u64, written last)
 * </pre>
 * A record whose commit word is not written was never committed: for an insert that means "not
 * acknowledged", for a removal "remove was not called".
 */
final class StormLog implements AutoCloseable
{
    static final int HEADER = 64;
    static final int RECORD = 32;
    static final long INSERTED = 1;
    static final long REMOVING = 2;
    private static final long MAGIC = 0x5354_4F52_4D00_0000L; // "STORM"
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final long SIZE = 256L << 20;

    private final MappedByteBuffer map;
    private final FileChannel channel;
    private int next = HEADER;

    private StormLog(final FileChannel channel, final MappedByteBuffer map)
    {
        this.channel = channel;
        this.map = map;
    }

    static StormLog create(final Path file) throws IOException
    {
        final FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
            StandardOpenOption.WRITE);
        ch.truncate(SIZE); // sparse on tmpfs: pages are allocated as records are written
        return new StormLog(ch, ch.map(FileChannel.MapMode.READ_WRITE, 0, SIZE));
    }

    boolean full()
    {
        return next + RECORD > SIZE;
    }

    void started()
    {
        LONGS.setRelease(map, 0, 1L);
    }

    void countOp()
    {
        LONGS.setRelease(map, 8, (long)LONGS.get(map, 8) + 1);
    }

    void insertFailed(final int errno)
    {
        LONGS.setRelease(map, 24, (long)errno);
        LONGS.setRelease(map, 16, (long)LONGS.get(map, 16) + 1);
    }

    void append(final long type, final long fiAddr, final long id)
    {
        LONGS.set(map, next, fiAddr);
        LONGS.set(map, next + 8, id);
        LONGS.setRelease(map, next + 24, MAGIC | type); // commit: the record exists from here on
        next += RECORD;
    }

    @Override
    public void close() throws IOException
    {
        channel.close();
    }

    /** What a log says, read after its writer died. */
    record Summary(boolean started, long ops, long insertFailures, long lastErrno, long records)
    {
    }

    /** True once the writer of {@code file} has opened the AV (false while the file does not exist yet). */
    static boolean isStarted(final Path file) throws IOException
    {
        if (!Files.exists(file))
        {
            return false;
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ))
        {
            return ch.size() >= HEADER && (long)LONGS.getAcquire(ch.map(FileChannel.MapMode.READ_ONLY, 0, HEADER), 0) != 0;
        }
    }

    /** Reads every committed record of {@code file}, in order, into {@code sink}. */
    static Summary read(final Path file, final Records sink) throws IOException
    {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ))
        {
            final MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
            long records = 0;
            for (int at = HEADER; at + RECORD <= m.capacity(); at += RECORD)
            {
                final long commit = (long)LONGS.getAcquire(m, at + 24);
                if ((commit & ~0xFFL) != MAGIC)
                {
                    break;
                }
                records++;
                sink.record(commit & 0xFF, (long)LONGS.get(m, at), (long)LONGS.get(m, at + 8));
            }
            return new Summary((long)LONGS.get(m, 0) != 0, (long)LONGS.get(m, 8), (long)LONGS.get(m, 16),
                (long)LONGS.get(m, 24), records);
        }
    }

    static void delete(final Path file) throws IOException
    {
        Files.deleteIfExists(file);
    }

    /** Receives committed records. */
    interface Records
    {
        void record(long type, long fiAddr, long id);
    }
}
