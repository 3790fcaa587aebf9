package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.shm.SlotDescriptor;
import org.shmav.slots.Region;
import org.shmav.slots.ToolAccess;

/**
 * Writers in three JVMs ({@link SharedAddressWriter}) insert, check and remove the same four
 * addresses at full speed while this JVM freezes one of them at a time (SIGSTOP) for
 * {@value #FREEZE_MILLIS} ms, at random moments: often while it holds a claim of an address the others
 * insert too. No insert may fail, nor take {@value #BOUND_MILLIS} ms unless its own writer was frozen
 * meanwhile (layout 7: a frozen writer's committed claim is published by the next inserter, an
 * uncommitted one cancelled after 1 ms); every fi_addr
 * looks up to its address; and at the end, every reference removed, the AV is empty with every slot
 * FREE (the thawed writers gave their cancelled claims back). Under layout 6 an insert of the address a
 * frozen writer held claimed waited for the whole freeze.
 */
@Isolated("asserts insert times beside writers frozen at random: runs alone, not beside other test classes")
class SharedAddressFreezeIT
{
    private static final String NAME = "shared";
    private static final int WRITERS = 3;
    private static final int ADDRESSES = 4;
    private static final int FREEZES = 16;
    private static final long FREEZE_MILLIS = 1_200;
    /** An insert beside a frozen writer takes a 1 ms grace plus scheduling: far below a freeze. */
    private static final long BOUND_MILLIS = 1_000;
    private static final Pattern SLOW = Pattern.compile("SLOW at=(\\d+) millis=(\\d+)");
    private static final Pattern RESULT = Pattern.compile(
        "RESULT ops=(\\d+) failed=(\\d+) wrong=(\\d+) maxInsertMillis=(\\d+) lastErrno=(-?\\d+)");

    private Path dir;

    @AfterEach
    void tearDown() throws Exception
    {
        TestDir.delete(dir);
    }

    @Test
    void shouldInsertSharedAddressesBesideWritersFrozenAtRandom() throws Exception
    {
        dir = TestDir.createInShm("robust");
        final Path gates = Files.createDirectories(dir.resolve("gates"));
        final String name = NAME + ProcessHandle.current().pid() + "x" + System.nanoTime() % 100_000;
        final long seed = System.nanoTime();
        final SplittableRandom random = new SplittableRandom(seed);
        try (Domain d = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build());
             AddressVector av = d.openAv(AvAttr.builder().name(name).count(64).build()))
        {
            final ChildJvm[] writers = new ChildJvm[WRITERS];
            final List<List<long[]>> frozenAt = new ArrayList<>(); // per writer: [stop, thaw] in ms since the epoch
            for (int w = 0; w < WRITERS; w++)
            {
                frozenAt.add(new ArrayList<>());
            }
            try
            {
                for (int w = 0; w < WRITERS; w++)
                {
                    writers[w] = ChildJvm.start(SharedAddressWriter.class, dir.resolve("out" + w), dir.toString(), name,
                        Integer.toString(ADDRESSES), Long.toString(seed + w), gates.toString(), Long.toString(BOUND_MILLIS));
                }
                for (final ChildJvm w : writers)
                {
                    w.awaitOutput("started", Duration.ofSeconds(60));
                }
                final Region view = ToolAccess.openReadOnly(dir.resolve(name));
                int caught = 0;
                for (int f = 0; f < FREEZES; f++)
                {
                    Thread.sleep(20 + random.nextInt(80));
                    final int which = random.nextInt(WRITERS);
                    final ChildJvm frozen = writers[which];
                    final long stopped = System.currentTimeMillis();
                    Freezer.stop(frozen.pid());
                    try
                    {
                        Thread.sleep(FREEZE_MILLIS / 2);
                        caught += holdsClaim(view) ? 1 : 0; // by now only a frozen writer can still hold one
                        Thread.sleep(FREEZE_MILLIS / 2);
                    }
                    finally
                    {
                        Freezer.thaw(frozen.pid());
                        frozenAt.get(which).add(new long[] {stopped, System.currentTimeMillis()});
                    }
                }
                view.detach();
                System.out.println("SharedAddressFreezeIT: " + caught + " of " + FREEZES +
                    " freezes caught a writer holding a claim (CLAIMED, PUBLISHING or CANCELLED at mid-freeze)");
                Files.createFile(gates.resolve("stop"));
                long ops = 0;
                for (int w = 0; w < WRITERS; w++)
                {
                    assertEquals(0, writers[w].waitFor(Duration.ofSeconds(60)), writers[w].output());
                    final Matcher m = RESULT.matcher(writers[w].stdout());
                    assertTrue(m.find(), writers[w].output());
                    System.out.println("SharedAddressFreezeIT (seed " + seed + "): writer " + w + ": " + m.group());
                    ops += Long.parseLong(m.group(1));
                    assertEquals(0, Long.parseLong(m.group(2)), "inserts that failed, last errno " + m.group(5));
                    assertEquals(0, Long.parseLong(m.group(3)), "fi_addrs that looked up to another address");
                    final Matcher slow = SLOW.matcher(writers[w].stdout());
                    while (slow.find())
                    {
                        final long from = Long.parseLong(slow.group(1));
                        final long to = from + Long.parseLong(slow.group(2));
                        assertTrue(frozenAt.get(w).stream().anyMatch(f -> f[0] <= to && from <= f[1]),
                            "writer " + w + ": an insert took " + slow.group(2) + " ms while this writer was not frozen: " +
                            "it waited on a frozen writer");
                    }
                }
                assertTrue(ops > WRITERS * 100L, "the writers got on: " + ops + " operations");
            }
            finally
            {
                for (final ChildJvm w : writers)
                {
                    if (w != null)
                    {
                        w.close(); // SIGKILL, which ends a stopped child too
                    }
                }
            }
            assertEquals(0, av.count(), "every reference was removed");
            final Region view = ToolAccess.openReadOnly(dir.resolve(name));
            try
            {
                for (long i = 0; i < view.layout().capacity(); i++)
                {
                    assertEquals(SlotDescriptor.FREE, SlotDescriptor.state(view.table().stateWord(i)), "slot " + i);
                }
            }
            finally
            {
                view.detach();
            }
        }
    }

    /** True when a slot is CLAIMED, PUBLISHING or CANCELLED: held by a writer inside an insert. */
    private static boolean holdsClaim(final Region view)
    {
        for (long i = 0; i < view.layout().capacity(); i++)
        {
            final int state = SlotDescriptor.state(view.table().stateWord(i));
            if (state != SlotDescriptor.FREE && state != SlotDescriptor.VALID && state != SlotDescriptor.REMOVING)
            {
                return true;
            }
        }
        return false;
    }
}
