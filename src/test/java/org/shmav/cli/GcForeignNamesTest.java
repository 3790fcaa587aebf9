package org.shmav.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files that hold an AV's bytes under a name no AV has: a space (an AV's file name has underscores
 * there) or a control character (no valid name has one). No name reaches them and shmav made neither,
 * so {@code shmav gc} leaves both and says why, in its dry run as in its run. Before, the dry run
 * promised to remove both; the run then failed on the one and reported the other as "removed or made
 * anew by another process meanwhile".
 */
class GcForeignNamesTest
{
    @TempDir
    Path dir;

    @Test
    void shouldLeaveCopiesOfAnAvUnderNamesNoAvHas() throws IOException
    {
        assertEquals(0, CliRun.in(dir, "create", "real", "--count", "4").code());
        final byte[] bytes = Files.readAllBytes(dir.resolve("real"));
        final Path spaced = Files.write(dir.resolve("a b"), bytes);
        final Path control = Files.write(dir.resolve("bad\u0001name"), bytes);
        Files.delete(dir.resolve("real"));

        for (final boolean dryRun : new boolean[] {true, false})
        {
            final CliRun gc = dryRun ? CliRun.in(dir, "gc", "--grace", "0", "--dry-run") : CliRun.in(dir, "gc", "--grace", "0");
            assertEquals(0, gc.code(), gc.out() + gc.err());
            assertTrue(gc.out().contains("left      a b: not the file of an AV name"), gc.out());
            assertTrue(gc.out().contains("left      bad\\u0001name: not the file of an AV name"), gc.out());
            assertTrue(gc.out().contains(": 0 AVs " + (dryRun ? "to remove" : "removed")) &&
                gc.out().contains("2 other files left alone"), gc.out());
        }
        final CliRun json = CliRun.in(dir, "gc", "--grace", "0", "--json");
        assertEquals(0, json.code(), json.out() + json.err());
        assertTrue(json.out().contains("\"a b\""), "the JSON report names every file the text does: " + json.out());
        assertArrayEquals(bytes, Files.readAllBytes(spaced));
        assertArrayEquals(bytes, Files.readAllBytes(control));
    }
}
