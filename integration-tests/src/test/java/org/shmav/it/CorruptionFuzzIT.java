package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Corruption fuzzing: thousands of mutated AV files through the whole read path (see
 * {@link FuzzRunner}), in a child JVM so that a crash is reported here with the case that caused it.
 * Every run does the fixed seeds, one random seed (printed) and the fixed edge cases. Knobs:
 * {@code shmav.fuzz.cases} (cases per seed, default 600), {@code shmav.fuzz.seed} (the random seed),
 * {@code shmav.fuzz.case} (replay one case seed).
 */
@ResourceLock(value = "cpu-bound storm", mode = ResourceAccessMode.READ_WRITE) // saturates the CPUs: never beside another storm
class CorruptionFuzzIT
{
    /** Fixed seeds: every build runs them. Seeds that once found a bug are kept here too. */
    private static final long[] FIXED_SEEDS = {1, 2, 3, 4, 5, 6, 7, 20250101,
        5432475298182L,  // an attacher phase word set without an owner hung an index rebuild
        6508792517568L}; // a corrupt addrLen or rebuilder index sent an index rebuild out of bounds

    private Path dir;

    @AfterEach
    void tearDown() throws IOException
    {
        TestDir.delete(dir);
    }

    @Test
    @Timeout(value = 25, unit = TimeUnit.MINUTES) // the fuzzer's own bound (20 min) decides, not the default
    void shouldRefuseOrServeEveryMutatedFileWithoutCrashing() throws Exception
    {
        dir = TestDir.createInShm("robust");
        final Path work = Files.createDirectories(dir.resolve("work"));
        final Path avs = Files.createDirectories(dir.resolve("avs"));
        final Path progress = work.resolve("progress");
        final List<String> args = new ArrayList<>(List.of(avs.toString(), progress.toString()));
        final String single = System.getProperty("shmav.fuzz.case");
        final long randomSeed = Long.getLong("shmav.fuzz.seed", System.nanoTime());
        if (single != null)
        {
            args.add("case=" + single);
        }
        else
        {
            args.add(Integer.toString(Integer.getInteger("shmav.fuzz.cases", 600)));
            for (final long seed : FIXED_SEEDS)
            {
                args.add(Long.toString(seed));
            }
            args.add(Long.toString(randomSeed));
        }
        System.out.println("CorruptionFuzzIT: random seed " + randomSeed + " (replay with -Dshmav.fuzz.seed=" + randomSeed + ")");
        final long start = System.nanoTime();
        try (ChildJvm fuzzer = ChildJvm.start(FuzzRunner.class, work, args.toArray(new String[0])))
        {
            final int exit = fuzzer.waitFor(Duration.ofMinutes(20));
            final String output = fuzzer.output();
            final String summary = output.lines().filter(l -> l.startsWith("FUZZ-SUMMARY")).findFirst().orElse("(no summary)");
            System.out.printf("CorruptionFuzzIT: %s in %.0f s%n", summary, (System.nanoTime() - start) / 1e9);
            assertTrue(exit == 0 || exit == 3, "the fuzzer JVM died with exit code " + exit + " (a crash?) while running " +
                FuzzRunner.readProgress(progress) + " (replay with -Dshmav.fuzz.case=<case>)\n" + tail(output));
            assertEquals(0, exit, "cases failed (an exception other than FabricException):\n" +
                output.lines().filter(l -> l.startsWith("FUZZ-FAILURE")).limit(20).reduce("", (a, b) -> a + b + "\n"));
            // Writers must meet mutated files too, not only readers: from layout 4.0 until this check
            // every read-write open was refused (the copies had no lock file) and nobody noticed.
            final java.util.regex.Matcher rw = java.util.regex.Pattern.compile("openedReadWrite=(\\d+)").matcher(summary);
            assertTrue(rw.find() && Long.parseLong(rw.group(1)) > 0, "no mutated file was opened read-write: " + summary);
        }
    }

    private static String tail(final String output)
    {
        final String[] lines = output.split("\n");
        return String.join("\n", java.util.Arrays.copyOfRange(lines, Math.max(0, lines.length - 40), lines.length));
    }
}
