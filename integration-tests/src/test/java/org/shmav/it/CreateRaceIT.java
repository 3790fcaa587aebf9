package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.shmav.cli.ShmavCli;

/**
 * {@code shmav create} only creates: {@value #RACERS} child JVMs run {@code shmav create race} at the
 * same moment (each has loaded the CLI and waits for a start file); exactly one prints "created" and
 * exits with 0, every other one exits with 6 (the name exists) and says so.
 */
class CreateRaceIT
{
    private static final int RACERS = 8;
    /** The exit code of {@code shmav create} for a name that exists (cli.ExitCode.EXISTS). */
    private static final int EXISTS = 6;

    private Path dir;

    @AfterEach
    void tearDown() throws IOException
    {
        TestDir.delete(dir);
    }

    @Test
    void shouldLetExactlyOneOfConcurrentCreatesCreate() throws Exception
    {
        dir = TestDir.createInShm("robust");
        final Path avs = Files.createDirectories(dir.resolve("avs"));
        final Path go = dir.resolve("go");
        final List<ChildJvm> racers = new ArrayList<>();
        try
        {
            for (int i = 0; i < RACERS; i++)
            {
                racers.add(ChildJvm.start(Racer.class, dir.resolve("out"), go.toString(), "--dir", avs.toString(), "create",
                    "race", "--count", "64"));
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (final ChildJvm r : racers)
            {
                while (!r.stdout().contains("waiting"))
                {
                    if (!r.isAlive() || System.nanoTime() - deadline > 0)
                    {
                        fail("a racer never got ready:\n" + r.output());
                    }
                    Thread.sleep(10);
                }
            }
            Files.createFile(go);
            int created = 0;
            int exists = 0;
            final List<String> outcomes = new ArrayList<>();
            for (final ChildJvm r : racers)
            {
                final int code = r.waitFor(Duration.ofSeconds(60));
                final String out = r.output();
                outcomes.add(code + ": " + out.replace("waiting\n", "").trim());
                if (code == 0 && out.contains("created AV 'race'"))
                {
                    created++;
                }
                else if (code == EXISTS && out.contains("'race' exists already"))
                {
                    exists++;
                }
            }
            System.out.println("CreateRaceIT: " + created + " created, " + exists + " exists of " + RACERS);
            assertEquals(1, created, "exactly one concurrent create may create:\n" + String.join("\n", outcomes));
            assertEquals(RACERS - 1, exists, "every other one must say the name exists:\n" + String.join("\n", outcomes));
            assertTrue(Files.exists(avs.resolve("race")));
        }
        finally
        {
            for (final ChildJvm r : racers)
            {
                r.close();
            }
        }
    }

    /** Child: loads the CLI (an {@code ls}), prints "waiting", waits for file {@code args[0]}, runs {@code shmav args[1..]}. */
    public static final class Racer
    {
        public static void main(final String[] args) throws Exception
        {
            final String[] cli = java.util.Arrays.copyOfRange(args, 1, args.length);
            ShmavCli.execute(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()), cli[0], cli[1], "ls");
            System.out.println("waiting");
            System.out.flush();
            final Path go = Path.of(args[0]);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.exists(go))
            {
                if (System.nanoTime() - deadline > 0)
                {
                    System.exit(99);
                }
                Thread.sleep(1);
            }
            System.exit(ShmavCli.execute(new PrintWriter(System.out, true), new PrintWriter(System.out, true), cli));
        }
    }
}
