package org.shmav.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.it.TestDir;

/**
 * A remover of a named AV removes only the files that belong to the AV it checked: never the lock
 * file (nor the AV) of a newer AV of the same name, however long it is delayed between its steps.
 */
class RemovalByIdentityTest
{
    private static final long BOUND_SECONDS = 30;

    private Path dir;
    private Domain domain;

    @BeforeEach
    void setUp()
    {
        dir = TestDir.createInShm("shmav-removal-");
        domain = Domain.open(DomainAttr.builder().shmDirectory(dir).build());
    }

    @AfterEach
    void tearDown()
    {
        AvRemover.betweenRemovals = null;
        domain.close();
        TestDir.delete(dir);
    }

    private void create(final String name)
    {
        try (AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).name(name).count(8).build()))
        {
            av.count();
        }
    }

    /**
     * The remover pauses after removing the AV, before its lock file (the test hook); meanwhile another
     * thread creates the AV anew. Before the fix the remover then removed the new AV's lock file by name,
     * and every later writer of the live new AV failed with FI_EIO ("the lock file ... is missing").
     */
    @Test
    void shouldLeaveANewerAvsLockFileToARemoverDelayedBetweenItsSteps() throws Exception
    {
        create("av");
        final CountDownLatch paused = new CountDownLatch(1);
        final CountDownLatch resume = new CountDownLatch(1);
        AvRemover.betweenRemovals = () ->
        {
            paused.countDown();
            await(resume);
        };
        final AtomicReference<Object> removed = new AtomicReference<>();
        final Thread remover = new Thread(() -> removed.set(outcome(() -> SharedAvFile.unlink(dir, "av"))), "remover");
        remover.start();
        assertTrue(paused.await(BOUND_SECONDS, TimeUnit.SECONDS), "the remover never reached its pause");
        AvRemover.betweenRemovals = null;

        // The new creator: it may be kept out while the remover holds the name (FI_EAGAIN), never longer.
        final CountDownLatch createdOrKeptOut = new CountDownLatch(1);
        final AtomicReference<Object> created = new AtomicReference<>();
        final Thread creator = new Thread(() ->
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
            while (true)
            {
                try
                {
                    create("av");
                    created.set(Boolean.TRUE);
                    createdOrKeptOut.countDown();
                    return;
                }
                catch (final FabricException e)
                {
                    createdOrKeptOut.countDown();
                    if (e.errno() != FiErrno.EAGAIN || System.nanoTime() - deadline > 0)
                    {
                        created.set(e);
                        return;
                    }
                }
            }
        }, "creator");
        creator.start();
        assertTrue(createdOrKeptOut.await(BOUND_SECONDS, TimeUnit.SECONDS), "the creator neither made the AV nor gave up");
        resume.countDown();
        remover.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
        creator.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
        assertEquals(Boolean.TRUE, removed.get(), "the remover removed the old AV");
        assertEquals(Boolean.TRUE, created.get(), "the AV was made anew");

        final Path lock = AvLockFile.of(dir.resolve("av"));
        assertTrue(Files.exists(lock), "the new AV's lock file is still there");
        // and a writer can still join the new AV
        try (AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).name("av").count(8).build()))
        {
            assertEquals(0, av.count());
        }
    }

    /** gc's removal: an AV judged and then removed and made anew by someone else is not the one removed. */
    @Test
    void shouldLeaveAnAvMadeAnewSinceItWasJudged()
    {
        create("av");
        final FileIdentity judged = FileIdentity.of(dir.resolve("av"));
        assertTrue(SharedAvFile.unlink(dir, "av"));
        create("av");
        assertFalse(SharedAvFile.unlink(dir, "av", judged), "the newer AV is not the one judged");
        assertTrue(Files.exists(dir.resolve("av")));
        assertTrue(Files.exists(AvLockFile.of(dir.resolve("av"))));
        assertTrue(SharedAvFile.unlink(dir, "av", FileIdentity.of(dir.resolve("av"))));
        assertFalse(Files.exists(AvLockFile.of(dir.resolve("av"))), "the lock file goes with its AV");
        assertNull(FileIdentity.of(dir.resolve("av")));
    }

    /** A lock file a newer AV does not use but that is not the old AV's (replaced by hand) is left to gc. */
    @Test
    void shouldLeaveALockFileTheAvDoesNotName() throws Exception
    {
        create("av");
        final Path lock = AvLockFile.of(dir.resolve("av"));
        Files.delete(lock);
        Files.createFile(lock);
        assertTrue(SharedAvFile.unlink(dir, "av"));
        assertTrue(Files.exists(lock), "not the AV's lock file: left");
    }

    /**
     * gc's removal of an orphan lock file: between its open and its lock, the file was removed and another
     * made under the name (a remover of the old AV, then a new creator). Before the fix gc removed the new
     * one by name, under a lock of the old one.
     */
    @Test
    void shouldLeaveALockFileMadeAnewSinceGcOpenedTheOrphan() throws Exception
    {
        create("av");
        final Path av = dir.resolve("av");
        final Path lock = AvLockFile.of(av);
        Files.delete(av); // the AV removed by hand: its lock file is an orphan
        AvLockFile.afterOpenForRemoval = () ->
        {
            try
            {
                Files.delete(lock);
                Files.createFile(lock);
            }
            catch (final java.io.IOException e)
            {
                throw new java.io.UncheckedIOException(e);
            }
        };
        final FileIdentity newer;
        try
        {
            assertFalse(AvLockFile.deleteIfUnused(lock, av, false), "not the file it opened: left");
        }
        finally
        {
            AvLockFile.afterOpenForRemoval = null;
        }
        newer = FileIdentity.of(lock);
        assertTrue(newer != null, "the newer lock file is still there");
        assertTrue(AvLockFile.deleteIfUnused(lock, av, false), "an orphan itself, it goes at the next look");
    }

    private static Object outcome(final java.util.function.BooleanSupplier call)
    {
        try
        {
            return call.getAsBoolean();
        }
        catch (final RuntimeException e)
        {
            return e;
        }
    }

    private static void await(final CountDownLatch latch)
    {
        try
        {
            latch.await(BOUND_SECONDS, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
