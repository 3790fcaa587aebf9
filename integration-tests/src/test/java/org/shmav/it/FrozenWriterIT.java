package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.Fi;
import org.shmav.FiErrno;
import org.shmav.shm.AttacherDescriptor;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.IndexWord;
import org.shmav.shm.Memory;
import org.shmav.slots.Region;
import org.shmav.slots.ToolAccess;

/**
 * A writer frozen with SIGSTOP inside an insert or removal (its attacher entry's {@code phase} hint is
 * 1) must not stall the other writers. A child JVM ({@link LivenessWriter}) churns a small AV (count
 * 64); this JVM stops it at a moment its phase hint is 1 (read through {@link ToolAccess#openReadOnly}:
 * never through a descriptor of its own), then inserts and removes addresses of its own, which crowd
 * the index and move it between its areas again and again, and must be done within
 * {@value #BOUND_MILLIS} ms with no failure. Under layout 4's phase handshake an index rebuild waited
 * for the frozen writer and, once no EMPTY bucket was left, every insert of a new address failed. Then
 * SIGCONT: the child goes on without a violation, and the AV is consistent.
 */
@Isolated("asserts insert times beside a frozen writer: runs alone, not beside other test classes")
class FrozenWriterIT
{
    private static final String NAME = "frozen";
    private static final long CAPACITY = 64;
    private static final int OPS = 2_000;
    private static final long BOUND_MILLIS = 3_000;
    /** Operations after the index first moved beside the frozen writer. */
    private static final int AFTER_GIVE_UP = 50;
    /** How long to go on with the churn on a stalled AV before giving up, to report how far it got. */
    private static final long GIVE_UP_MILLIS = 15_000;
    private static final int MY_ID = 3;
    private static final int MY_LIVE_TARGET = 16;
    private static final Pattern RESULT = Pattern.compile("RESULT writer=1 ops=(\\d+) violations=(\\d+) reopens=(\\d+) live=(\\d+)");

    private Path dir;

    @AfterEach
    void tearDown() throws IOException
    {
        TestDir.delete(dir);
    }

    /**
     * This JVM churns until the index has moved to its other area (a migration ran to its end beside
     * the frozen writer), then {@value #AFTER_GIVE_UP} operations more: all within {@value #BOUND_MILLIS}
     * ms, none failing.
     */
    @Test
    void shouldMoveTheIndexBesideAFrozenWriterQuickly() throws Exception
    {
        runBesideFrozenWriter(false);
    }

    /**
     * {@value #OPS} operations beside the frozen writer within {@value #BOUND_MILLIS} ms, none failing.
     * Under layout 4 (measured): once the churn had used up the EMPTY buckets a crowded index still had,
     * no rebuild could run while the frozen writer was inside its phase, and each insert of a new
     * address failed with FI_ENOSPC after three 100 ms rebuild attempts (first failure at op 244 after
     * 495 ms, then 57 operations in 14.5 s).
     */
    @Test
    void shouldKeepChurningBesideAFrozenWriter() throws Exception
    {
        runBesideFrozenWriter(true);
    }

    private void runBesideFrozenWriter(final boolean allOps) throws Exception
    {
        dir = TestDir.createInShm("robust");
        final Path out = Files.createDirectories(dir.resolve("out"));
        try (Domain domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build());
             AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).name(NAME).count(CAPACITY).build());
             ChildJvm child = ChildJvm.start(LivenessWriter.class, out, dir.toString(), NAME, Long.toString(CAPACITY), "1",
                 "3000", "false"))
        {
            // Through the library: opening a descriptor of the file here would drop this JVM's record locks.
            final Region view = ToolAccess.openReadOnly(dir.resolve(NAME));
            try
            {
                awaitStarted(child);
                final Memory m = view.memory();
                final int tries = freezeInsidePhase(child, m, view.layout());
                final long[] live = new long[MY_LIVE_TARGET];
                final long start = System.nanoTime();
                final Churn churn = new Churn(av, m, allOps);
                try
                {
                    churn.run(live, start);
                }
                finally
                {
                    Freezer.thaw(child.pid());
                }
                final long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                final String report = String.format("child frozen with phase=1 after %d tries; %d ops in %d ms, %d index " +
                    "migration(s), the first done by op %d at %d ms; %d inserts failed%s", tries, churn.ops, millis,
                    churn.rebuilds(), churn.givenUpAtOp, churn.givenUpAtMillis, churn.failures, churn.firstFailure);
                System.out.println("FrozenWriterIT: " + report);
                assertTrue(allOps ? churn.ops == OPS : churn.givenUpAtOp >= 0, "too few operations beside a frozen writer: " + report);
                assertTrue(millis < BOUND_MILLIS, "too slow beside a frozen writer (bound " + BOUND_MILLIS + " ms): " + report);
                assertEquals(0, churn.failures, "inserts failed beside a frozen writer: " + report);

                assertEquals(0, child.waitFor(Duration.ofSeconds(60)), child.output());
                final Matcher r = RESULT.matcher(child.stdout());
                assertTrue(r.find(), child.output());
                assertEquals("0", r.group(2), "the frozen writer, once continued: " + r.group() + "\n" + child.output());
                System.out.println("FrozenWriterIT: child " + r.group());
                verify(av, Integer.parseInt(r.group(4)), liveCount(live));
            }
            finally
            {
                view.detach();
            }
        }
    }

    /** Stops the child with SIGSTOP until it is caught with its phase word 1; returns the number of tries. */
    private static int freezeInsidePhase(final ChildJvm child, final Memory m, final AvLayout layout) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        final SplittableRandom random = new SplittableRandom();
        for (int tries = 1; System.nanoTime() - deadline < 0; tries++)
        {
            if (!child.isAlive())
            {
                fail("the child exited:\n" + child.output());
            }
            Freezer.stop(child.pid());
            final long phase = phaseOf(child.pid(), m, layout);
            if (phase == 1)
            {
                return tries;
            }
            Freezer.thaw(child.pid());
            Thread.sleep(random.nextInt(3));
        }
        fail("never caught the child inside its phase within 30 s:\n" + child.output());
        return -1;
    }

    /** The highest phase word of the attacher entries process {@code pid} holds (it may hold two handles), -1 when none. */
    private static long phaseOf(final long pid, final Memory m, final AvLayout layout)
    {
        long phase = -1;
        for (int a = 0; a < layout.attachersCapacity(); a++)
        {
            final int entry = (int)layout.attachersOffset() + a * AttacherDescriptor.LENGTH;
            if (m.getLongVolatile(entry + AttacherDescriptor.TOKEN_OFFSET) != 0 &&
                m.getLongVolatile(entry + AttacherDescriptor.PID_OFFSET) == pid)
            {
                phase = Math.max(phase, m.getLongVolatile(entry + AttacherDescriptor.PHASE_OFFSET));
            }
        }
        return phase;
    }

    /** This JVM's insert/remove churn, watching indexState for migrations of the index. */
    private static final class Churn
    {
        final AddressVector av;
        final Memory m;
        final boolean allOps;
        final long firstStamp;
        int ops;
        int failures;
        String firstFailure = "";
        int givenUpAtOp = -1;
        long givenUpAtMillis = -1;

        Churn(final AddressVector av, final Memory m, final boolean allOps)
        {
            this.av = av;
            this.m = m;
            this.allOps = allOps;
            this.firstStamp = IndexWord.stamp(m.getLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET));
        }

        /** Migrations of the index ended since the churn began (each moves the stamp on by one). */
        long rebuilds()
        {
            return IndexWord.stamp(m.getLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET)) - firstStamp;
        }

        /** Inserts and removes addresses of its own, leaving the fi_addrs it holds in {@code live} (-1: none). */
        void run(final long[] live, final long start) throws Exception
        {
            final SplittableRandom random = new SplittableRandom(42);
            final long[] one = new long[1];
            final int[] err = new int[1];
            int held = 0;
            long seq = 0;
            java.util.Arrays.fill(live, -1);
            final long giveUp = start + TimeUnit.MILLISECONDS.toNanos(GIVE_UP_MILLIS);
            for (; ops < OPS && System.nanoTime() - giveUp < 0; ops++)
            {
                if (!allOps && givenUpAtOp >= 0 && ops >= givenUpAtOp + AFTER_GIVE_UP)
                {
                    return;
                }
                if (held == 0 || (held < MY_LIVE_TARGET && random.nextBoolean()))
                {
                    if (av.insert(LivenessWriter.address(MY_ID, ++seq), 1, one, Fi.SYNC_ERR, err) == 1)
                    {
                        live[held++] = one[0];
                    }
                    else if (failures++ == 0)
                    {
                        firstFailure = "; the first at op " + ops + " after " +
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms: " + FiErrno.name(err[0]);
                    }
                }
                else
                {
                    final int k = random.nextInt(held);
                    one[0] = live[k];
                    av.remove(one, 1, 0);
                    live[k] = live[--held];
                    live[held] = -1;
                }
                if (givenUpAtOp < 0 && rebuilds() > 0)
                {
                    givenUpAtOp = ops;
                    givenUpAtMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                }
            }
        }
    }

    private static int liveCount(final long[] live)
    {
        int n = 0;
        for (final long fi : live)
        {
            n += fi >= 0 ? 1 : 0;
        }
        return n;
    }

    /** count() equals the entries, the child's are as many as it holds, this JVM's as many as it holds. */
    private static void verify(final AddressVector av, final int childLive, final int myLive)
    {
        final long[] nobody = new long[1];
        final int[] entries = LivenessWriter.entriesByWriter(av, CAPACITY, MY_ID, nobody);
        assertTrue(entries != null && entries[2] == 0, "fi_addr " + nobody[0] + " holds an address of no writer");
        assertEquals(entries[0], av.count(), "count() against the entries");
        assertEquals(childLive, entries[1], "the child's entries");
        assertEquals(myLive, entries[MY_ID], "this JVM's entries");
    }

    private static void awaitStarted(final ChildJvm w) throws InterruptedException
    {
        w.awaitOutput("started", Duration.ofSeconds(60));
    }
}
