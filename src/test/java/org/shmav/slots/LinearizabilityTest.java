package org.shmav.slots;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.Addresses;
import org.shmav.AvAttr;
import org.shmav.AvEntry;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;
import org.shmav.it.TestDir;
import org.shmav.slots.AvHistory.Kind;
import org.shmav.slots.AvHistory.Op;

/**
 * Linearizability of insert (at index k, as ranks publish), remove, count, lookup, reverse lookup and
 * entries() (weakly consistent by contract: see {@link AvHistory}) on real handles, a private AV and a
 * named one, against a sequential map ({@link AvHistory}): many short rounds, each a history of {@value #THREADS} threads x
 * {@value #OPS_PER_THREAD} operations on {@value #KEYS} keys started together from an empty AV, every
 * history checked by a Wing and Gong search. Thread 0 mostly writes; the others mostly read, through
 * an FI_READ handle of their own on the named AV (as another process would). Each operation starts
 * after a random nap of up to {@value #MAX_PAUSE_MICROS} us, and each insert of a new key pauses 1 ms
 * between its commit and its publish ({@link ClaimCommit#pauseAfterCommitNanos}), as a cold JVM is paused
 * by class loading or the scheduler, so that many reads land inside that window.
 *
 * <p>Layout 7.0 fails this within a few rounds: its count took an entry at the commit while lookup,
 * reverse lookup and entries() waited for the publish (e.g. {@code COUNT -> 1} then {@code LOOKUP(0) ->
 * -22} in one thread). A failure prints the seed and the history.
 */
class LinearizabilityTest
{
    private static final int KEYS = AvHistory.KEYS;
    private static final int THREADS = 3;
    private static final int OPS_PER_THREAD = 6;
    private static final int ROUNDS = 100;
    private static final int MAX_PAUSE_MICROS = 400;
    private static final long WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long ROUND_TIMEOUT_SECONDS = 30;

    private Path dir;

    @AfterEach
    void tearDown()
    {
        ClaimCommit.pauseAfterCommitNanos = 0;
        TestDir.delete(dir);
    }

    @Test
    void privateAvIsLinearizable() throws Exception
    {
        dir = TestDir.createInShm("linearizability-");
        try (Domain d = domain(dir); AddressVector av = d.openAv(AvAttr.builder().type(AvType.TABLE).count(8).build()))
        {
            check(av, av);
        }
    }

    @Test
    void namedAvIsLinearizable() throws Exception
    {
        dir = TestDir.createInShm("linearizability-");
        try (Domain d = domain(dir);
             AddressVector av = d.openAv(AvAttr.builder().type(AvType.TABLE).count(8).name("lin").build());
             AddressVector reader = d.openAv(AvAttr.builder().type(AvType.UNSPEC).name("lin").flags(Fi.READ).build()))
        {
            check(av, reader);
        }
    }

    private static Domain domain(final Path directory)
    {
        return Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(directory).build());
    }

    /** Runs the rounds; thread 0 reads and writes through {@code writer}, the others read through {@code reader}. */
    private static void check(final AddressVector writer, final AddressVector reader) throws Exception
    {
        ClaimCommit.pauseAfterCommitNanos = WINDOW_NANOS;
        final long seed = System.nanoTime();
        final SplittableRandom seeds = new SplittableRandom(seed);
        final List<List<Op>> recorded = new ArrayList<>();
        for (int t = 0; t < THREADS; t++)
        {
            recorded.add(new ArrayList<>());
        }
        final long[] threadSeeds = new long[THREADS];
        final CyclicBarrier start = new CyclicBarrier(THREADS + 1);
        final CyclicBarrier end = new CyclicBarrier(THREADS + 1);
        final Thread[] threads = new Thread[THREADS];
        for (int t = 0; t < THREADS; t++)
        {
            final int id = t;
            threads[t] = new Thread(() -> loop(id, id == 0 ? writer : reader, writer, threadSeeds, recorded.get(id), start, end),
                "linearizability-" + t);
            threads[t].setDaemon(true);
            threads[t].start();
        }
        try
        {
            for (int round = 0; round < ROUNDS; round++)
            {
                for (int t = 0; t < THREADS; t++)
                {
                    threadSeeds[t] = seeds.nextLong();
                    recorded.get(t).clear();
                }
                start.await(ROUND_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                end.await(ROUND_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                final List<Op> history = new ArrayList<>();
                recorded.forEach(history::addAll);
                if (!AvHistory.linearizable(history))
                {
                    fail("round " + round + " of seed " + seed + " is not linearizable (results: index, 0 or -errno; " +
                        "LOOKUP 1 = address k; ENTRIES bit k = fi_addr k):\n" + AvHistory.describe(history));
                }
                emptyAv(writer);
            }
        }
        finally
        {
            for (final Thread t : threads)
            {
                t.interrupt();
            }
        }
    }

    /** One thread's rounds: waits for the start, runs its operations, records them, waits for the end. */
    private static void loop(final int id, final AddressVector av, final AddressVector writer, final long[] seeds,
        final List<Op> ops, final CyclicBarrier start, final CyclicBarrier end)
    {
        try
        {
            while (true)
            {
                start.await();
                final SplittableRandom random = new SplittableRandom(seeds[id]);
                for (int i = 0; i < OPS_PER_THREAD; i++)
                {
                    pause(random.nextInt(MAX_PAUSE_MICROS));
                    ops.add(run(id, pick(id, random), random.nextInt(KEYS), av, writer));
                }
                end.await();
            }
        }
        catch (final InterruptedException | BrokenBarrierException e)
        {
            // the test is over
        }
    }

    /** Thread 0 mostly inserts and removes; the others mostly read, with a write now and then. */
    private static Kind pick(final int id, final SplittableRandom random)
    {
        final int r = random.nextInt(100);
        if (id == 0)
        {
            return r < 55 ? Kind.INSERT_AT : r < 90 ? Kind.REMOVE : Kind.COUNT;
        }
        return r < 30 ? Kind.COUNT : r < 55 ? Kind.LOOKUP : r < 72 ? Kind.REVERSE_LOOKUP : r < 94 ? Kind.ENTRIES :
            r < 97 ? Kind.INSERT_AT : Kind.REMOVE;
    }

    private static Op run(final int id, final Kind kind, final int k, final AddressVector av, final AddressVector writer)
    {
        final ByteBuffer expected = address(k);
        final ByteBuffer buffer = ByteBuffer.allocate(16);
        final long invoked = System.nanoTime();
        long result;
        try
        {
            result = switch (kind)
            {
                case INSERT_AT -> writer.insertAt(k, expected);
                case REMOVE -> remove(writer, k);
                case COUNT -> av.count();
                case LOOKUP -> sameBytes(buffer, av.lookup(k, buffer), expected) ? 1 : 2;
                case REVERSE_LOOKUP -> reverse(av, expected);
                case ENTRIES -> entries(av);
                case ENTRY -> throw new IllegalArgumentException("recorded as ENTRIES");
            };
        }
        catch (final FabricException e)
        {
            result = -e.errno();
        }
        return new Op(id, kind, k, result, invoked, System.nanoTime());
    }

    private static boolean sameBytes(final ByteBuffer found, final int len, final ByteBuffer expected)
    {
        return len == expected.remaining() && found.duplicate().position(0).limit(len).equals(expected);
    }

    private static long remove(final AddressVector av, final int k)
    {
        av.remove(k);
        return 0;
    }

    private static long reverse(final AddressVector av, final ByteBuffer address)
    {
        final long fiAddr = av.reverseLookup(address);
        return fiAddr == Fi.ADDR_NOTAVAIL ? -1 : fiAddr;
    }

    private static long entries(final AddressVector av)
    {
        long listed = 0;
        for (final long f : av.entries().mapToLong(AvEntry::fiAddr).toArray())
        {
            final long bit = f >= 0 && f < KEYS ? 1L << f : 1L << 63;
            listed |= (listed & bit) != 0 ? 1L << 63 : bit; // listed twice: as wrong as an unknown fi_addr
        }
        return listed;
    }

    /** Removes every reference, so that the next round starts from an empty AV as the model does. */
    private static void emptyAv(final AddressVector av)
    {
        for (int k = 0; k < KEYS; k++)
        {
            for (int refs = 0; ; refs++)
            {
                try
                {
                    av.remove(k);
                }
                catch (final FabricException e)
                {
                    assertEquals(FiErrno.EINVAL, e.errno(), "remove(" + k + ") after the round: " + e.getMessage());
                    break;
                }
                if (refs > THREADS * OPS_PER_THREAD)
                {
                    fail("key " + k + " holds more references than the round inserted");
                }
            }
        }
        assertEquals(0, av.count(), "count after emptying the AV");
    }

    /** A nap, not a spin: on a loaded machine spinning threads would take the CPU the others need. */
    private static void pause(final int micros)
    {
        LockSupport.parkNanos(micros * 1_000L);
    }

    private static ByteBuffer address(final int k)
    {
        return Addresses.toSockaddr(new InetSocketAddress("10.0.0." + (k + 1), 7000));
    }
}
