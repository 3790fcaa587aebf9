package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.shm.SlotDescriptor;
import org.shmav.slots.ClaimHolder;
import org.shmav.slots.Region;
import org.shmav.slots.ToolAccess;

/**
 * An insert of the very address that another writer, frozen (SIGSTOP), holds claimed and indexed but
 * not yet published. Layout 7 (shm-layout.md, Slot states): a committed claim (PUBLISHING) is published
 * by the inserter that meets it; an uncommitted one is cancelled after a short grace, and the inserter
 * places its own. Either way the insert returns at once, and the frozen writer, thawed, neither
 * publishes twice nor counts twice. Under layout 6 the inserter waited for the frozen claim until its
 * call's deadline (5 s), then failed the address with FI_EAGAIN. The child is {@link ClaimHolder}.
 */
@Isolated("asserts a cancel's time bound: runs alone, not beside other test classes")
class ClaimHelpIT
{
    private static final String NAME = "claims";
    private static final int ADDRESS = 4242;
    /** A cancel waits 1 ms of grace; the bound leaves room for a busy machine. */
    private static final long BOUND_MILLIS = 1_500;

    private Path dir;

    @AfterEach
    void tearDown() throws Exception
    {
        TestDir.delete(dir);
    }

    /**
     * The frozen writer's claim is indexed, not committed: the insert cancels it and takes slot 1 (slot 0
     * stays the frozen writer's until it wakes and gives it back); thawed, the writer's publish fails,
     * and its insert again finds the address at slot 1.
     */
    @Test
    void shouldInsertPromptlyBesideAFrozenWritersIndexedClaim() throws Exception
    {
        final String[] out = besideFrozenClaim("claimed", 1);
        assertTrue(out[0].contains("published -"), "the woken writer's publish fails: its claim was cancelled\n" + out[0]);
        assertTrue(out[0].contains("inserted 1"), "its insert again finds the address at slot 1\n" + out[0]);
        assertTrue(out[0].contains("count 1"), out[0]);
    }

    /**
     * The frozen writer's claim is committed (PUBLISHING): the insert publishes it for the frozen writer
     * and takes a reference; thawed, the writer's own publish finds it VALID and returns slot 0 without
     * counting it again.
     */
    @Test
    void shouldPublishAFrozenWritersCommittedClaim() throws Exception
    {
        final String[] out = besideFrozenClaim("decided", 0);
        assertTrue(out[0].contains("decided 0"), out[0]);
        assertTrue(out[0].contains("published 0"), "the woken writer returns its slot\n" + out[0]);
        assertTrue(out[0].contains("count 1"), "counted once\n" + out[0]);
    }

    /**
     * Runs the child in {@code mode}, freezes it holding slot 0, inserts the same address here within
     * {@value #BOUND_MILLIS} ms at {@code expectedSlot}, thaws the child and lets it finish; checks the
     * entry holds two references (the child's and this insert's) and the count is 1. The child's output.
     */
    private String[] besideFrozenClaim(final String mode, final long expectedSlot) throws Exception
    {
        dir = TestDir.createInShm("robust");
        final Path gates = Files.createDirectories(dir.resolve("gates"));
        final String name = NAME + ProcessHandle.current().pid() + "x" + System.nanoTime() % 100_000;
        try (Domain d = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build());
             AddressVector av = d.openAv(AvAttr.builder().name(name).type(AvType.TABLE).count(16).build());
             ChildJvm child = ChildJvm.start(ClaimHolder.class, dir.resolve("out"), dir.resolve(name).toString(),
                 Integer.toString(ADDRESS), mode, gates.toString()))
        {
            child.awaitOutput("holding slot 0", Duration.ofSeconds(60));
            Freezer.stop(child.pid());
            final long[] fiAddr = new long[1];
            final long start = System.nanoTime();
            final int inserted;
            try
            {
                inserted = av.insert(InetRange.of(ADDRESS, 1), 1, fiAddr, 0, null);
            }
            finally
            {
                Freezer.thaw(child.pid());
            }
            final long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.println("ClaimHelpIT " + mode + ": insert beside a frozen claim: " + inserted + " in " + millis + " ms");
            assertEquals(1, inserted, "the insert beside the frozen claim succeeds (" + millis + " ms)");
            assertTrue(millis < BOUND_MILLIS, "it took " + millis + " ms");
            assertEquals(expectedSlot, fiAddr[0]);
            Files.createFile(gates.resolve("go"));
            assertEquals(0, child.waitFor(Duration.ofSeconds(60)), child.output());
            final Region view = ToolAccess.openReadOnly(dir.resolve(name));
            try
            {
                final long word = view.table().stateWord(expectedSlot);
                assertEquals(SlotDescriptor.VALID, SlotDescriptor.state(word));
                assertEquals(2, SlotDescriptor.payload(word), "this insert's reference and the child's");
                assertEquals(1, av.count());
                assertEquals(expectedSlot, av.reverseLookup(InetRange.of(ADDRESS, 1)));
            }
            finally
            {
                view.detach();
            }
            return new String[] {child.stdout()};
        }
    }
}
