package org.shmav.it;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

import org.shmav.AddrFormat;
import org.shmav.Addresses;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;

/**
 * A writer JVM whose liveness another writer must not misjudge: for {@code millis} it inserts
 * addresses of its own ({@link #address}: 10.W.x.y, W its writer id), checks after every step that
 * each fi_addr it holds still looks up to its own address, removes some of them, and every
 * {@link #REOPEN_MILLIS} closes and reopens the AV (an open recovers the writers it takes for dead).
 * A second handle stays open all the while, so that the AV is open in this process between a close
 * and the reopen ({@code shmav gc} removes an AV nobody has open). A live writer taken for dead has
 * its claims undone and its attacher entry handed out again, which shows here as a violation: an
 * fi_addr it was given that is empty or holds another address, or an insert that failed. Its entries
 * stay in the AV when it exits, for the parent to check.
 *
 * <p>Arguments: directory, AV name, capacity, writer id (1..255), run time in ms, group access
 * ({@code true}/{@code false}), optionally a file: after the run time, it goes on until that file exists. Prints
 * {@code started}, at most 20 {@code VIOLATION ...} lines, then
 * {@code RESULT writer=W ops=N violations=V reopens=R live=L}.
 */
public final class LivenessWriter
{
    /** How often the AV is closed and opened again. */
    static final long REOPEN_MILLIS = 50;
    /** The longest a writer waits for its stop file. */
    static final long MAX_MILLIS = 60_000;
    /** The most entries a writer holds at once. */
    static final int LIVE_TARGET = 24;

    /** The {@code seq}-th address of writer {@code writer}: 10.writer.(seq >> 8).seq, port 1 + (seq >> 16). */
    static ByteBuffer address(final int writer, final long seq) throws Exception
    {
        final InetAddress ip = InetAddress.getByAddress(new byte[] {10, (byte)writer, (byte)(seq >> 8), (byte)seq});
        return Addresses.toSockaddr(new InetSocketAddress(ip, 1 + (int)((seq >> 16) & 0x7FFF)));
    }

    /**
     * Every entry of {@code av}'s fi_addr 0 .. capacity-1, counted by writer: element w for writer w
     * (1 .. maxWriter), element 0 for all; an entry of no writer fails {@code check}'s caller.
     * Returns null when some entry is nobody's, with {@code nobody[0]} its fi_addr.
     */
    static int[] entriesByWriter(final AddressVector av, final long capacity, final int maxWriter, final long[] nobody)
    {
        final int[] entries = new int[maxWriter + 1];
        final ByteBuffer buf = ByteBuffer.allocate(16);
        for (long fi = 0; fi < capacity; fi++)
        {
            try
            {
                av.lookup(fi, buf.clear());
            }
            catch (final FabricException e)
            {
                if (e.errno() != FiErrno.EINVAL)
                {
                    throw e;
                }
                continue;
            }
            final int w = writerOf(buf);
            if (w < 1 || w > maxWriter)
            {
                nobody[0] = fi;
                return null;
            }
            entries[0]++;
            entries[w]++;
        }
        return entries;
    }

    /** The writer id of an address of {@link #address}, or -1 when it is none of theirs. */
    static int writerOf(final ByteBuffer sockaddr)
    {
        final InetSocketAddress a = Addresses.toInetSocketAddress(sockaddr);
        final byte[] ip = a.getAddress().getAddress();
        return ip.length == 4 && ip[0] == 10 ? ip[1] & 0xFF : -1;
    }

    /**
     * Environment variable: "1" makes the writer's JVM open and close the AV file all the time
     * ({@link #openAndCloseForever}), "lock" its lock file ({@link #openAndCloseLockFileForever}).
     */
    static final String FOREIGN_OPENS_ENV = "SHMAV_IT_FOREIGN_OPENS";

    private final int writer;
    private final long[] liveFi = new long[LIVE_TARGET];
    private final long[] liveSeq = new long[LIVE_TARGET];
    private final ByteBuffer got = ByteBuffer.allocate(64);
    private int live;
    private long violations;
    private boolean stopSeen;
    private long nextStopCheck;

    private LivenessWriter(final int writer)
    {
        this.writer = writer;
    }

    public static void main(final String[] args) throws Exception
    {
        final Path dir = Path.of(args[0]);
        final String name = args[1];
        final long capacity = Long.parseLong(args[2]);
        final int writer = Integer.parseInt(args[3]);
        final long millis = Long.parseLong(args[4]);
        final boolean group = Boolean.parseBoolean(args[5]);
        final Path stop = args.length > 6 ? Path.of(args[6]) : null;
        final AvAttr attr = AvAttr.builder().type(AvType.TABLE).name(name).count(capacity).groupAccess(group).build();
        final LivenessWriter w = new LivenessWriter(writer);
        if ("1".equals(System.getenv(FOREIGN_OPENS_ENV)))
        {
            openAndCloseForever(dir.resolve(name));
        }
        else if ("lock".equals(System.getenv(FOREIGN_OPENS_ENV)))
        {
            System.out.println("java " + System.getProperty("java.version") + ", lock files: " +
                org.shmav.shm.AvFileChannel.lockKind());
            openAndCloseLockFileForever(dir.resolve(".shmav-lock." + name));
        }
        try (Domain domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build()))
        {
            final AddressVector keeper = domain.openAv(attr);
            try
            {
                w.run(domain, attr, millis, stop);
            }
            finally
            {
                keeper.close();
            }
        }
    }

    /**
     * Code outside shmav in this JVM that keeps opening and closing the AV's lock file, every 1 ms (a
     * thread that reads every file of the directory): with POSIX locks, each close dropped every lock
     * this process held in it, the writers' liveness locks included.
     */
    private static void openAndCloseLockFileForever(final Path lock)
    {
        final Thread t = new Thread(() ->
        {
            while (!Thread.currentThread().isInterrupted())
            {
                try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(lock.toFile(), "r"))
                {
                    f.length();
                }
                catch (final java.io.IOException e)
                {
                    // not made yet, or removed: look again
                }
                try
                {
                    Thread.sleep(1);
                }
                catch (final InterruptedException e)
                {
                    return;
                }
            }
        }, "foreign-lock-file-opens");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Code outside shmav in this JVM that keeps opening and closing the AV file, every 2 ms, the ways
     * users do (RandomAccessFile, a read-write FileChannel, Files.size), and a second, read-only handle:
     * each close of a descriptor drops every record lock this process holds on that file.
     */
    private static void openAndCloseForever(final Path file)
    {
        final Thread t = new Thread(() ->
        {
            while (true)
            {
                try
                {
                    if (!java.nio.file.Files.exists(file))
                    {
                        Thread.sleep(2); // RandomAccessFile "rw" would create it, as an empty non-AV
                        continue;
                    }
                    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(file.toFile(), "rw"))
                    {
                        f.length();
                    }
                    java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.READ,
                        java.nio.file.StandardOpenOption.WRITE).close();
                    java.nio.file.Files.size(file);
                    // and a second handle of the library's, read-only, opened and closed
                    try (Domain d = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN)
                        .shmDirectory(file.getParent()).build());
                         AddressVector second = d.openAv(AvAttr.builder().name(file.getFileName().toString())
                             .flags(org.shmav.Fi.READ).build()))
                    {
                        second.count();
                    }
                    Thread.sleep(2);
                }
                catch (final java.io.IOException e)
                {
                    // not created yet, or removed: look again
                }
                catch (final InterruptedException e)
                {
                    return;
                }
            }
        }, "foreign-opens");
        t.setDaemon(true);
        t.start();
    }

    private void run(final Domain domain, final AvAttr attr, final long millis, final Path stop) throws Exception
    {
        final SplittableRandom random = new SplittableRandom(System.nanoTime() ^ writer);
        final long[] one = new long[1];
        final int[] err = new int[1];
        long seq = 0;
        long ops = 0;
        long reopens = 0;
        AddressVector av = domain.openAv(attr);
        System.out.println("started");
        System.out.flush();
        final long start = System.nanoTime();
        long reopenAt = start + REOPEN_MILLIS * 1_000_000;
        try
        {
            while (running(start, millis, stop))
            {
                if (live == 0 || (live < LIVE_TARGET && random.nextInt(100) < 55))
                {
                    final long s = ++seq;
                    if (av.insert(address(writer, s), 1, one, Fi.SYNC_ERR, err) == 1)
                    {
                        liveFi[live] = one[0];
                        liveSeq[live++] = s;
                    }
                    else
                    {
                        violation("insert of seq " + s + " failed: " + FiErrno.name(err[0]));
                    }
                }
                else
                {
                    final int k = random.nextInt(live);
                    one[0] = liveFi[k];
                    av.remove(one, 1, 0);
                    drop(k);
                }
                ops++;
                check(av);
                if (System.nanoTime() - reopenAt > 0)
                {
                    av.close();
                    av = domain.openAv(attr);
                    reopens++;
                    reopenAt = System.nanoTime() + REOPEN_MILLIS * 1_000_000;
                    check(av);
                }
            }
        }
        finally
        {
            av.close();
        }
        System.out.println("RESULT writer=" + writer + " ops=" + ops + " violations=" + violations + " reopens=" + reopens +
            " live=" + live);
    }

    /** Whether to go on: for {@code millis}, then until file {@code stop} exists (when given; at most {@link #MAX_MILLIS}). */
    private boolean running(final long start, final long millis, final Path stop)
    {
        final long elapsed = System.nanoTime() - start;
        if (elapsed < millis * 1_000_000)
        {
            return true;
        }
        if (stop == null || stopSeen || elapsed > MAX_MILLIS * 1_000_000)
        {
            return false;
        }
        if (System.nanoTime() - nextStopCheck > 0)
        {
            stopSeen = Files.exists(stop);
            nextStopCheck = System.nanoTime() + 10_000_000;
        }
        return !stopSeen;
    }

    /** Checks that every held fi_addr holds its own address; one that does not is a violation, and no longer held. */
    private void check(final AddressVector av) throws Exception
    {
        for (int i = live - 1; i >= 0; i--)
        {
            final ByteBuffer want = address(writer, liveSeq[i]);
            String wrong = null;
            try
            {
                got.clear().limit(want.remaining());
                av.lookup(liveFi[i], got);
                if (!got.equals(want))
                {
                    wrong = "holds " + Addresses.toInetSocketAddress(got.duplicate());
                }
            }
            catch (final FabricException e)
            {
                if (e.errno() != FiErrno.EINVAL)
                {
                    throw e;
                }
                wrong = "is empty";
            }
            if (wrong != null)
            {
                violation("fi_addr " + liveFi[i] + " given for " + Addresses.toInetSocketAddress(want) + " " + wrong);
                drop(i);
            }
        }
    }

    private void drop(final int k)
    {
        liveFi[k] = liveFi[--live];
        liveSeq[k] = liveSeq[live];
    }

    private void violation(final String message)
    {
        if (violations++ < 20)
        {
            System.out.println("VIOLATION " + message);
        }
    }
}
