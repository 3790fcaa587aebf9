package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;

/**
 * Several processes inserting the same new auth keys at the same moment get one handle per key: the
 * inserts are serialised by a record lock on the AV file, so no key becomes two entries (before, two
 * processes inserting one new key at once could each create one).
 */
class AuthKeyRaceIT
{
    private static final int PROCESSES = 3;
    private static final int KEYS = 60;
    private static final int REPEATS = 2_000;

    @Test
    void shouldGiveEveryProcessTheSameHandleForEachKey() throws Exception
    {
        try (TestDir dir = TestDir.inShm("authkeys"); TestDir logs = TestDir.inTmp("authkeys-logs");
             Domain d = Domain.open(DomainAttr.builder().shmDirectory(dir.path()).avAuthKey(true)
                 .authKeySize(AuthKeyRacer.KEY_SIZE).build());
             AddressVector av = d.openAv(AvAttr.builder().name("keys").count(16).build()))
        {
            final Path start = logs.path().resolve("start");
            final List<ChildJvm> racers = new ArrayList<>();
            try
            {
                for (int p = 0; p < PROCESSES; p++)
                {
                    racers.add(ChildJvm.start(AuthKeyRacer.class, logs.path(), dir.path().toString(), "keys",
                        start.toString(), Integer.toString(KEYS)));
                }
                for (final ChildJvm r : racers)
                {
                    final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                    while (!r.stdout().contains("ready"))
                    {
                        assertTrue(r.isAlive() && System.nanoTime() < deadline, "racer never got ready: " + r.output());
                        Thread.sleep(10);
                    }
                }
                Files.createFile(start);
                final Map<Integer, String> handles = new HashMap<>();
                for (final ChildJvm r : racers)
                {
                    assertEquals(0, r.waitFor(Duration.ofSeconds(60)), r.output());
                    for (final String line : r.stdout().lines().filter(l -> l.matches("\\d+ \\d+")).toList())
                    {
                        final String[] kv = line.split(" ");
                        final String before = handles.putIfAbsent(Integer.parseInt(kv[0]), kv[1]);
                        assertTrue(before == null || before.equals(kv[1]),
                            "key " + kv[0] + " has two handles: " + before + " and " + kv[1]);
                    }
                }
                assertEquals(KEYS, handles.size());
                assertEquals(KEYS, handles.values().stream().distinct().count(), "one handle per key");
            }
            finally
            {
                racers.forEach(ChildJvm::close);
            }
        }
    }

    /**
     * One process inserts the keys; then a second inserts them again, {@value #REPEATS} times over, while
     * a third sets their user ids. Each set pins the key's entry (a reference taken and dropped), so the
     * second inserter's reference CAS on a present key fails now and then: the state word moved, the key
     * is still there, and the inserter must look again, not add the key a second time (before the fix it
     * did: one key, two handles).
     */
    @Test
    void shouldKeepOneHandlePerKeyWhileAnotherProcessSetsUserIds() throws Exception
    {
        try (TestDir dir = TestDir.inShm("authkeys-pin"); TestDir logs = TestDir.inTmp("authkeys-pin-logs");
             Domain d = Domain.open(DomainAttr.builder().shmDirectory(dir.path()).avAuthKey(true)
                 .authKeySize(AuthKeyRacer.KEY_SIZE).build());
             AddressVector av = d.openAv(AvAttr.builder().name("keys").count(16).build()))
        {
            final String shm = dir.path().toString();
            final Path first = logs.path().resolve("first");
            final Path second = logs.path().resolve("second");
            final Map<Integer, String> handles = new HashMap<>();
            try (ChildJvm creator = ChildJvm.start(AuthKeyRacer.class, logs.path(), shm, "keys", first.toString(),
                Integer.toString(KEYS)))
            {
                Files.createFile(first);
                assertEquals(0, creator.waitFor(Duration.ofSeconds(60)), creator.output());
                collect(creator, handles);
            }
            try (ChildJvm pinner = ChildJvm.start(AuthKeyRacer.class, logs.path(), shm, "keys", second.toString(),
                     Integer.toString(KEYS), "pin");
                 ChildJvm inserter = ChildJvm.start(AuthKeyRacer.class, logs.path(), shm, "keys", second.toString(),
                     Integer.toString(KEYS), Integer.toString(REPEATS)))
            {
                awaitReady(pinner);
                awaitReady(inserter);
                Files.createFile(second);
                assertEquals(0, inserter.waitFor(Duration.ofSeconds(60)), inserter.output());
                Files.createFile(Path.of(second + ".stop"));
                assertEquals(0, pinner.waitFor(Duration.ofSeconds(60)), pinner.output());
                assertTrue(pinner.stdout().matches("(?s).*pinned [1-9].*"), "the pinner set no user id: " + pinner.output());
                collect(inserter, handles);
            }
            assertEquals(KEYS, handles.size());
            assertEquals(KEYS, handles.values().stream().distinct().count(), "one handle per key");
        }
    }

    /** Adds the racer's {@code key handle} lines to {@code handles}, failing on a key with two handles. */
    private static void collect(final ChildJvm racer, final Map<Integer, String> handles)
    {
        for (final String line : racer.stdout().lines().filter(l -> l.matches("\\d+ \\d+")).toList())
        {
            final String[] kv = line.split(" ");
            final String before = handles.putIfAbsent(Integer.parseInt(kv[0]), kv[1]);
            assertTrue(before == null || before.equals(kv[1]), "key " + kv[0] + " has two handles: " + before + " and " + kv[1]);
        }
    }

    private static void awaitReady(final ChildJvm racer) throws InterruptedException
    {
        racer.awaitOutput("ready", Duration.ofSeconds(60));
    }
}
