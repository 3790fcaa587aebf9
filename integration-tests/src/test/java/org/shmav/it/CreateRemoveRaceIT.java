package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * Opens that create a named AV while other processes remove the same name (shm-layout.md, WRITER'S
 * CHECKLIST, Create): a create-only open and a plain open, each looping in a JVM of its own, race a
 * JVM that loops {@code Domain.unlinkAv}. Every open succeeds, or (create-only) fails with FI_EEXIST;
 * none fails with FI_ENOENT or FI_EIO because the AV or its lock file went away under it.
 */
class CreateRemoveRaceIT
{
    /** How long each child loops once started. */
    private static final long RACE_MILLIS = 3_000;

    private Path dir;

    @AfterEach
    void tearDown() throws IOException
    {
        TestDir.delete(dir);
    }

    @Test
    void shouldCreateOrFindItExistingWhileAnotherProcessRemovesTheName() throws Exception
    {
        dir = TestDir.createInShm("shmav-it-");
        final Path avs = Files.createDirectories(dir.resolve("avs"));
        final Path go = dir.resolve("go");
        final List<ChildJvm> children = new ArrayList<>();
        try
        {
            children.add(ChildJvm.start(Racer.class, dir.resolve("out-create-only"), go.toString(), avs.toString(), "createOnly"));
            children.add(ChildJvm.start(Racer.class, dir.resolve("out-open"), go.toString(), avs.toString(), "open"));
            children.add(ChildJvm.start(Racer.class, dir.resolve("out-remove"), go.toString(), avs.toString(), "remove"));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (final ChildJvm c : children)
            {
                while (!c.stdout().contains("waiting"))
                {
                    if (!c.isAlive() || System.nanoTime() - deadline > 0)
                    {
                        fail("a child never got ready:\n" + c.output());
                    }
                    Thread.sleep(10);
                }
            }
            Files.createFile(go);
            final List<String> outputs = new ArrayList<>();
            for (final ChildJvm c : children)
            {
                assertEquals(0, c.waitFor(Duration.ofSeconds(60)), c.output());
                outputs.add(c.stdout().replace("waiting\n", "").trim());
            }
            final String all = String.join("\n", outputs);
            System.out.println("CreateRemoveRaceIT:\n" + all);
            for (final String out : outputs)
            {
                assertTrue(out.contains(" 0 failed"), "an open failed other than with FI_EEXIST while the name was " +
                    "removed:\n" + all);
            }
            assertTrue(all.matches("(?s).*removed [1-9].*"), "the race was not met: nothing was removed\n" + all);
        }
        finally
        {
            for (final ChildJvm c : children)
            {
                c.close();
            }
        }
    }

    /**
     * Child: args are the start file, the AV directory and a role: {@code createOnly} or {@code open}
     * (open and close AV "race" in a loop) or {@code remove} (unlink it in a loop). Prints a summary.
     */
    public static final class Racer
    {
        public static void main(final String[] args) throws Exception
        {
            final Domain domain = Domain.open(DomainAttr.builder().shmDirectory(Path.of(args[1])).build());
            final String role = args[2];
            // Warmed up first (classes loaded, the lock kind chosen), so that the race itself is what is timed.
            for (int i = 0; i < 20; i++)
            {
                try (AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).name("warm-" + role).count(4)
                    .build()))
                {
                    av.count();
                }
                domain.unlinkAv("warm-" + role);
            }
            System.out.println("waiting");
            System.out.flush();
            final Path go = Path.of(args[0]);
            final long ready = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.exists(go))
            {
                if (System.nanoTime() - ready > 0)
                {
                    System.exit(99);
                }
                Thread.sleep(1);
            }
            final AvAttr attr = AvAttr.builder().type(AvType.TABLE).name("race").count(4)
                .createOnly(role.equals("createOnly")).build();
            final List<String> failures = new ArrayList<>();
            int opened = 0;
            int exists = 0;
            int removed = 0;
            final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RACE_MILLIS);
            while (System.nanoTime() - end < 0)
            {
                try
                {
                    if (role.equals("remove"))
                    {
                        removed += domain.unlinkAv("race") ? 1 : 0;
                        continue;
                    }
                    try (AddressVector av = domain.openAv(attr))
                    {
                        av.count();
                        opened++;
                    }
                }
                catch (final FabricException e)
                {
                    if (e.errno() == FiErrno.EEXIST && attr.createOnly())
                    {
                        exists++;
                    }
                    else if (failures.size() < 5)
                    {
                        failures.add(e.errno() + ": " + e.getMessage() + where(e));
                    }
                    else
                    {
                        failures.add("");
                    }
                }
            }
            System.out.println(role + ": opened " + opened + ", exists " + exists + ", removed " + removed + ", " +
                failures.size() + " failed");
            for (final String f : failures)
            {
                if (!f.isEmpty())
                {
                    System.out.println("  " + f);
                }
            }
            System.exit(0);
        }

        /** Where a failure came from: the first frames of the library, for whoever reads the report. */
        private static String where(final Throwable e)
        {
            final StringBuilder b = new StringBuilder();
            final StackTraceElement[] frames = e.getStackTrace();
            for (int i = 0; i < Math.min(6, frames.length); i++)
            {
                b.append("\n    at ").append(frames[i]);
            }
            return b.toString();
        }
    }
}
