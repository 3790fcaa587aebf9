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
}
