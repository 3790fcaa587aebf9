package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.GrowthClaim;
import org.shmav.shm.IndexWord;
import org.shmav.slots.Region;
import org.shmav.slots.ToolAccess;

/**
 * A process frozen (SIGSTOP) in the middle of a growth, or of a migration of the index. Neither holds
 * anything another writer needs: a grower's claim that stops making progress is taken over (layout 6;
 * under layout 5 the frozen grower's lock made the batch below fail FI_EAGAIN after 5 s), a migration
 * is finished by whoever needs it. The child is caught inside by watching the growth claim or
 * indexState through this JVM's read-only view, then stopped; a child that left before the stop
 * landed is let go on to the next attempt.
 */
@Isolated("asserts insert times beside a frozen peer: runs alone, not beside other test classes")
class FrozenPeerIT
{
    /**
     * Segments this large (and larger: each growth doubles) take milliseconds to reserve: time enough to
     * catch the grower inside. The default maximum leaves room for 4 growths.
     */
    private static final int COUNT = 1 << 18;
    private static final int BATCH = 16;
    /** A takeover waits 200 ms for a stalled claim, then grows the AV itself (tens of ms at these sizes). */
    private static final long BOUND_MILLIS = 3_000;
    private static final int ATTEMPTS = 4;

    private Path dir;

    @AfterEach
    void tearDown() throws Exception
    {
        TestDir.delete(dir);
    }

    @Test
    void shouldGrowTheAvItselfBesideAGrowerFrozenInsideItsGrowth() throws Exception
    {
        dir = TestDir.createInShm("robust");
        final Path gates = Files.createDirectories(dir.resolve("gates"));
        try (Domain d = domain(); AddressVector av = open(d, "grows"))
        {
            final Region view = ToolAccess.openReadOnly(dir.resolve("grows"));
            try (ChildJvm grower = ChildJvm.start(FrozenPeer.class, dir.resolve("out"), dir.toString(), "grows", "grow",
                gates.toString()))
            {
                awaitLine(grower, "ready");
                int next = 0;
                boolean caught = false;
                int k = 0;
                while (++k <= ATTEMPTS && !caught)
                {
                    next = fillTo(av, next, (long)COUNT << (k - 1)); // full: the grower's next insert grows it
                    Files.createFile(gates.resolve("go." + k));
                    caught = freezeWhen(grower, () -> growing(view));
                    if (!caught)
                    {
                        awaitLine(grower, "grew " + k); // it finished before the stop landed: again, on the grown AV
                    }
                }
                assertTrue(caught, "never caught the grower inside a growth in " + ATTEMPTS + " attempts:\n" + grower.output());
                final int segments = segments(view);
                final long[] fiAddr = new long[BATCH];
                try
                {
                    // Every new address needs a slot and the AV is full: this call grows it, past the frozen claim.
                    final long start = System.nanoTime();
                    assertEquals(BATCH, av.insert(InetRange.of(200_000_000, BATCH), BATCH, fiAddr, 0, null));
                    final long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    System.out.println("FrozenPeerIT: beside a frozen grower, a batch of " + BATCH + " grew the AV in " +
                        millis + " ms");
                    assertTrue(millis < BOUND_MILLIS, "a batch of " + BATCH + " took " + millis + " ms beside a frozen grower");
                    assertEquals(segments + 1, segments(view), "one segment published, by this process");
                }
                finally
                {
                    Freezer.thaw(grower.pid());
                }
                // The grower wakes inside the segment published meanwhile: it must lose its CAS and follow,
                // changing nothing in it (layout 5 would have zeroed it; layout 7 appends its zeros past it).
                awaitLine(grower, "grew " + (k - 1));
                assertEquals(segments + 1, segments(view), "the woken grower published nothing more");
                final ByteBuffer addr = ByteBuffer.allocate(16);
                for (int i = 0; i < BATCH; i++)
                {
                    addr.clear();
                    assertEquals(16, av.lookup(fiAddr[i], addr));
                    final ByteBuffer want = InetRange.of(200_000_000 + i, 1);
                    assertEquals(want.getLong(0), addr.getLong(0), "address " + i + " intact");
                    assertEquals(want.getLong(8), addr.getLong(8), "address " + i + " intact");
                    assertEquals(fiAddr[i], av.reverseLookup(InetRange.of(200_000_000 + i, 1)), "address " + i + " indexed");
                }
                assertEquals(BATCH, av.insert(InetRange.of(300_000_000, BATCH), BATCH, new long[BATCH], 0, null),
                    "inserts go on");
            }
            finally
            {
                view.detach();
            }
        }
    }

    /** True while a growth claim stands for the segment after the published ones. */
    private static boolean growing(final Region view)
    {
        final long claim = view.memory().getLongVolatile(AvFileDescriptor.GROWTH_CLAIM_OFFSET);
        return GrowthClaim.segment(claim) == segments(view);
    }

    private static int segments(final Region view)
    {
        return view.memory().getIntAcquire(AvFileDescriptor.SEGMENT_COUNT_OFFSET);
    }

    /**
     * A migrator of the index frozen half-way through its copy delays nobody: a batch of new addresses
     * and a removal beside it succeed at once (they place into both areas), lookups and reverse lookups
     * go on, and once the migrator is killed the next writer that needs the migration done finishes it.
     * Under layout 4 a frozen rebuilder made every insert and removal wait 5 s, then fail FI_EAGAIN.
     */
    @Test
    void shouldNotWaitForAMigratorFrozenInsideItsMigration() throws Exception
    {
        dir = TestDir.createInShm("robust");
        final Path gates = Files.createDirectories(dir.resolve("gates"));
        try (Domain d = domain(); AddressVector av = open(d, "rebuilds"))
        {
            final int present = COUNT / 2; // a migration then has work to do, and inserts have free slots
            fillTo(av, 0, present);
            final long[] some = {1, 2, 3};
            final Region view = ToolAccess.openReadOnly(dir.resolve("rebuilds"));
            try (ChildJvm migrator = ChildJvm.start(FrozenPeer.class, dir.resolve("out"), dir.toString(), "rebuilds",
                "rebuild", gates.toString()))
            {
                final int index = Integer.parseInt(awaitLine(migrator, "writer ").substring("writer ".length()).trim());
                Files.createFile(gates.resolve("go.1"));
                boolean caught = false;
                for (int k = 1; k <= ATTEMPTS && !caught; k++)
                {
                    caught = freezeWhen(migrator, () ->
                    {
                        final long state = view.memory().getLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET);
                        return IndexWord.migrating(state) && IndexWord.migrator(state) == index;
                    });
                }
                assertTrue(caught, "never caught the migrator inside a migration:\n" + migrator.output());
                final long frozenState = view.memory().getLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET);
                try
                {
                    final long[] fiAddr = new long[BATCH];
                    long start = System.nanoTime();
                    assertEquals(BATCH, av.insert(InetRange.of(300_000_000, BATCH), BATCH, fiAddr, 0, null));
                    final long insertMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    start = System.nanoTime();
                    av.remove(some, some.length, 0);
                    final long removeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    System.out.println("FrozenPeerIT: beside a frozen migrator, a batch of " + BATCH + " inserts took " +
                        insertMillis + " ms, a removal of " + some.length + " " + removeMillis + " ms");
                    assertTrue(insertMillis < 1_000 && removeMillis < 1_000, "beside a frozen migrator: " +
                        insertMillis + " ms for the inserts, " + removeMillis + " ms for the removal");
                    assertEquals(frozenState, view.memory().getLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET),
                        "the frozen migrator's migration still runs");
                    assertEquals(16, av.lookup(5, ByteBuffer.allocate(16)), "lookups go on");
                    assertEquals(5, av.reverseLookup(InetRange.of(5, 1)), "reverse lookups go on");
                    for (int i = 0; i < BATCH; i++)
                    {
                        assertEquals(fiAddr[i], av.reverseLookup(InetRange.of(300_000_000 + i, 1)), "new address " + i);
                    }
                }
                finally
                {
                    Freezer.thaw(migrator.pid());
                }
                migrator.kill(); // a migrator killed mid-migration: the next writer that needs it done finishes it
                assertEquals(BATCH, av.insert(InetRange.of(400_000_000, BATCH), BATCH, new long[BATCH], 0, null),
                    "inserts go on once the migrator is gone");
                assertEquals(present + 2 * BATCH - some.length, av.count());
                av.recover();
                assertTrue(!IndexWord.migrating(view.memory().getLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET)),
                    "the orphaned migration was finished");
                for (int i = 0; i < BATCH; i++)
                {
                    assertTrue(av.reverseLookup(InetRange.of(300_000_000 + i, 1)) >= 0, "new address " + i + " after the switch");
                }
            }
            finally
            {
                view.detach();
            }
        }
    }

    /**
     * Polls {@code inside} (10 s at most); when it holds, stops the child and checks again: true when the
     * child is stopped inside; false (child running again) when it left before the stop landed, or never
     * went in.
     */
    private static boolean freezeWhen(final ChildJvm child, final BooleanSupplier inside) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() - deadline < 0)
        {
            if (!child.isAlive())
            {
                fail("the child exited:\n" + child.output());
            }
            if (inside.getAsBoolean())
            {
                Freezer.stop(child.pid());
                if (inside.getAsBoolean())
                {
                    return true;
                }
                Freezer.thaw(child.pid());
            }
        }
        return false;
    }

    private static String awaitLine(final ChildJvm child, final String prefix) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true)
        {
            final String line = child.stdout().lines().filter(l -> l.startsWith(prefix)).reduce((a, b) -> b).orElse(null);
            if (line != null)
            {
                return line;
            }
            if (!child.isAlive() || System.nanoTime() - deadline > 0)
            {
                fail("no line '" + prefix + "...' from the child:\n" + child.output());
            }
            Thread.sleep(5);
        }
    }

    private Domain domain()
    {
        return Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build());
    }

    private static AddressVector open(final Domain d, final String name)
    {
        return d.openAv(AvAttr.builder().type(AvType.TABLE).name(name).count(COUNT).build());
    }

    /** Inserts new addresses from number {@code from} until the AV holds {@code count}; returns the next number. */
    private static int fillTo(final AddressVector av, final int from, final long count)
    {
        int next = from;
        for (long n = Math.min(4_096, count - av.count()); n > 0; n = Math.min(4_096, count - av.count()))
        {
            assertEquals(n, av.insert(InetRange.of(next, (int)n), (int)n, null, 0, null));
            next += (int)n;
        }
        return next;
    }
}
