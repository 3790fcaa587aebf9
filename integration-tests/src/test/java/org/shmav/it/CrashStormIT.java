package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
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
import org.shmav.shm.Liveness;
import org.shmav.shm.Memory;
import org.shmav.slots.ToolAccess;
import org.shmav.shm.Processes;
import org.shmav.shm.SlotDescriptor;
import org.shmav.slots.SlotTable;

/**
 * Crash storm: writer JVMs insert and remove at full speed in one named AV and are killed with
 * SIGKILL at random moments, {@code shmav.storm.kills} times in all (default 150; e.g.
 * {@code -Dshmav.storm.kills=2000} for the long run), while a reader JVM checks every address it
 * looks up. Half of the kills are recovered at once by this JVM ({@code av.recover()}), the other
 * half by the writers themselves (on open, or when an insert meets a dead owner). Afterwards: nothing
 * acknowledged and not removed is missing, no address is in two slots, no slot is CLAIMED or
 * REMOVING, count() equals the VALID slots, no attacher entry or index lock of a dead process is
 * left, and the reader never saw a torn address. The AV starts with 16 slots and grows to 256 while
 * writers are killed around it.
 *
 * <p>Other knobs: {@code shmav.storm.lanes} (writers running at once, default 2),
 * {@code shmav.storm.seed}, {@code shmav.storm.maxLifeMillis} (longest a writer runs, default 300).
 */
@ResourceLock(value = "cpu-bound storm", mode = ResourceAccessMode.READ_WRITE) // saturates the CPUs: never beside another storm
class CrashStormIT
{
    private static final String NAME = "storm";
    private static final long CAPACITY = 256;
    /** The storm's AV starts this small and grows to CAPACITY while writers are killed around it. */
    private static final long START_COUNT = 16;
    private static final int LIVE_TARGET = 48;

    private Path dir;

    @AfterEach
    void tearDown() throws IOException
    {
        TestDir.delete(dir);
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES) // 150 writer JVM starts: 1-4 min on a loaded 2-core machine
    void shouldLoseNothingWhenWritersAreKilledAtRandomMoments() throws Exception
    {
        final int kills = Integer.getInteger("shmav.storm.kills", 150);
        final int lanes = Integer.getInteger("shmav.storm.lanes", 2);
        final long seed = Long.getLong("shmav.storm.seed", System.nanoTime());
        final int maxLife = Integer.getInteger("shmav.storm.maxLifeMillis", 300);
        System.out.println("CrashStormIT: seed=" + seed + " kills=" + kills + " lanes=" + lanes + " (rerun with -Dshmav.storm.seed=" + seed + ")");
        dir = TestDir.createInShm("robust");
        final Path work = Files.createDirectories(dir.resolve("work"));
        final long start = System.nanoTime();

        try (Domain domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN6).shmDirectory(dir).build());
             AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).name(NAME).count(START_COUNT)
                 .maxCount(CAPACITY).build()))
        {
            final Memory shared = mapReadOnly(dir.resolve(NAME));
            final Path stats = work.resolve("reader.stats");
            final Path stop = work.resolve("reader.stop");
            final Storm storm = new Storm(kills, seed, maxLife, work, av, shared);
            try (ChildJvm reader = ChildJvm.start(StormReader.class, work, dir.toString(), NAME, stats.toString(), stop.toString(),
                Long.toString(CAPACITY)))
            {
                final ExecutorService pool = Executors.newFixedThreadPool(lanes);
                final List<Future<?>> lanesDone = new ArrayList<>();
                for (int lane = 1; lane <= lanes; lane++)
                {
                    final int l = lane;
                    lanesDone.add(pool.submit(() -> { storm.runLane(l); return null; }));
                }
                pool.shutdown();
                for (final Future<?> f : lanesDone)
                {
                    f.get(30, TimeUnit.MINUTES);
                }
                Files.createFile(stop);
                final int readerExit = reader.waitFor(Duration.ofSeconds(60));
                final String readerStats = Files.readString(stats).trim();
                assertEquals(0, readerExit, "reader: " + readerStats + "\n" + reader.output());
                final String[] numbers = readerStats.split(" ");
                assertTrue(Long.parseLong(numbers[1]) > 0 && "ok".equals(numbers[3]), "the reader checked nothing: " + readerStats);
                storm.readerStats = readerStats;
            }

            av.recover();
            final Memory grown = mapReadOnly(dir.resolve(NAME)); // the AV grew since `shared` was mapped
            storm.verify(grown, av);
            storm.fillUp(grown, av);
            System.out.printf("CrashStormIT: %s in %.0f s%n", storm.summary(), (System.nanoTime() - start) / 1e9);
        }
    }

    /**
     * A read-only view of the AV for inspection, through the library: opening and closing a descriptor of
     * the file here would drop this JVM's record locks, and the children would take its writer for dead.
     */
    private static Memory mapReadOnly(final Path file)
    {
        return ToolAccess.openReadOnly(file).memory();
    }

    /** The shared state of one run: kill budget, what the logs said, counters for the report. */
    private static final class Storm
    {
        final int kills;
        final long seed;
        final int maxLife;
        final Path work;
        final AddressVector av;
        final Memory shared;
        final AtomicInteger killed = new AtomicInteger();
        final AtomicInteger killedInFlight = new AtomicInteger();
        final AtomicInteger killedRebuilding = new AtomicInteger();
        final AtomicInteger recoveredHere = new AtomicInteger();
        final AtomicLong repairedHere = new AtomicLong();
        final AtomicLong ops = new AtomicLong();
        /** From a writer's start until it opened the AV: the JVM's start, which takes most of the storm's time. */
        final AtomicLong startupNanos = new AtomicLong();
        final AtomicLong startupMaxNanos = new AtomicLong();
        /**
         * Acknowledged and not (yet) removed: id -> fi_addr. A lane folds its logs in order, and only
         * ever removes ids of its own lane, so a removal always meets its insert here (or an insert
         * that was never acknowledged): the map holds live entries only, whatever the run's length.
         */
        final Map<Long, Long> outstanding = new ConcurrentHashMap<>();
        final AtomicLong acknowledged = new AtomicLong();
        final AtomicLong removalsLogged = new AtomicLong();
        String readerStats = "";
        int checkedLive;
        int validSlots;
        long unmarkedFreeGroups;

        Storm(final int kills, final long seed, final int maxLife, final Path work, final AddressVector av, final Memory shared)
        {
            this.kills = kills;
            this.seed = seed;
            this.maxLife = maxLife;
            this.work = work;
            this.av = av;
            this.shared = shared;
        }

        void runLane(final int lane) throws Exception
        {
            final SplittableRandom random = new SplittableRandom(seed * 31 + lane);
            for (int incarnation = 1; killed.get() < kills; incarnation++)
            {
                final Path log = work.resolve("lane" + lane + "-" + incarnation + ".log");
                final long launched = System.nanoTime();
                try (ChildJvm writer = ChildJvm.start(StormWriter.class, work, dir(), NAME, Long.toString(CAPACITY),
                    Integer.toString(lane), Integer.toString(incarnation), log.toString(), Long.toString(random.nextLong()),
                    Integer.toString(LIVE_TARGET)))
                {
                    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    while (!StormLog.isStarted(log))
                    {
                        if (!writer.isAlive() || System.nanoTime() - deadline > 0)
                        {
                            writer.kill();
                            fail("writer lane " + lane + " #" + incarnation + " never started:\n" + writer.output());
                        }
                        Thread.sleep(5);
                    }
                    final long startup = System.nanoTime() - launched;
                    startupNanos.addAndGet(startup);
                    startupMaxNanos.accumulateAndGet(startup, Math::max);
                    Thread.sleep(random.nextInt(maxLife + 1));
                    if (killed.get() >= kills - 2)
                    {
                        // the lanes' last writers decide which entries are live at the end: the final check needs
                        // some, so these live to their first acknowledged insert (a kill before it loses nothing)
                        awaitFirstInsert(writer, log, lane, incarnation);
                    }
                    if (!writer.isAlive())
                    {
                        fail("writer lane " + lane + " #" + incarnation + " exited by itself:\n" + writer.output());
                    }
                    writer.kill();
                    killed.incrementAndGet();
                    inspectCorpse(writer.pid());
                    if ((incarnation & 1) == 0)
                    {
                        recoveredHere.incrementAndGet();
                        repairedHere.addAndGet(av.recover());
                    }
                    final StormLog.Summary summary = StormLog.read(log, (type, fiAddr, id) ->
                    {
                        if (type == StormLog.INSERTED)
                        {
                            acknowledged.incrementAndGet();
                            outstanding.put(id, fiAddr);
                        }
                        else
                        {
                            removalsLogged.incrementAndGet();
                            outstanding.remove(id);
                        }
                    });
                    assertEquals(0, summary.insertFailures(), "writer lane " + lane + " #" + incarnation +
                        " had inserts fail, last errno " + summary.lastErrno());
                    ops.addAndGet(summary.ops());
                    StormLog.delete(log);
                }
            }
        }

        private static void awaitFirstInsert(final ChildJvm writer, final Path log, final int lane, final int incarnation)
            throws Exception
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            final long[] inserted = new long[1];
            while (true)
            {
                inserted[0] = 0;
                StormLog.read(log, (type, fiAddr, id) -> inserted[0] += type == StormLog.INSERTED ? 1 : 0);
                if (inserted[0] > 0)
                {
                    return;
                }
                if (!writer.isAlive() || System.nanoTime() - deadline > 0)
                {
                    fail("writer lane " + lane + " #" + incarnation + " acknowledged no insert within 60 s:\n" + writer.output());
                }
                Thread.sleep(5);
            }
        }

        private String dir()
        {
            return work.getParent().toString();
        }

        /** Right after a kill: was the dead writer inside an operation, or migrating the index? (best effort: others may recover it first) */
        private void inspectCorpse(final long pid)
        {
            final AvLayout layout = AvLayout.read(shared, shared.capacity());
            final long state = shared.getLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET);
            final long rebuilder = IndexWord.migrating(state) ? IndexWord.migrator(state) : -1;
            if (rebuilder >= 0 && rebuilder < layout.attachersCapacity() &&
                shared.getLongVolatile(layout.attacher((int)rebuilder) + AttacherDescriptor.PID_OFFSET) == pid)
            {
                killedRebuilding.incrementAndGet();
            }
            for (int a = 0; a < layout.attachersCapacity(); a++)
            {
                final int entry = layout.attacher(a);
                final long token = shared.getLongVolatile(entry + AttacherDescriptor.TOKEN_OFFSET);
                if (token != 0 && shared.getLongVolatile(entry + AttacherDescriptor.PID_OFFSET) == pid)
                {
                    final long journal = shared.getLongVolatile(entry + AttacherDescriptor.JOURNAL_OFFSET);
                    if (shared.getLongVolatile(entry + AttacherDescriptor.PHASE_OFFSET) != 0 ||
                        AttacherDescriptor.op(journal) != AttacherDescriptor.OP_NONE)
                    {
                        killedInFlight.incrementAndGet();
                    }
                    return;
                }
            }
        }

        void verify(final Memory m, final AddressVector av)
        {
            final AvLayout layout = AvLayout.read(m, m.capacity());
            final SlotTable table = new SlotTable(m, layout, Liveness.local());
            final List<String> problems = new ArrayList<>();
            final Map<Long, Long> slotOfId = new HashMap<>();
            final ByteBuffer buf = ByteBuffer.allocate(StormAddress.LENGTH);
            for (long i = 0; i < layout.capacity(); i++)
            {
                final long word = table.stateWord(i);
                final int state = SlotDescriptor.state(word);
                if (state != SlotDescriptor.FREE && state != SlotDescriptor.VALID)
                {
                    problems.add("slot " + i + " is " + SlotDescriptor.stateName(state) + " (owner " +
                        SlotDescriptor.payload(word) + ") after recovery");
                    continue;
                }
                if (state == SlotDescriptor.VALID)
                {
                    validSlots++;
                    if (table.lookup(i, buf.clear()) != StormAddress.LENGTH || StormAddress.check(buf, 0) == 0)
                    {
                        problems.add("slot " + i + " holds a malformed address " + StormAddress.hex(buf, 0));
                        continue;
                    }
                    final Long other = slotOfId.put(StormAddress.check(buf, 0), i);
                    if (other != null)
                    {
                        problems.add("address " + StormAddress.hex(buf, 0) + " is in slots " + other + " and " + i);
                    }
                    // The index misses no VALID slot (shm-layout.md, The index and its migration): else a later insert of
                    // this address would take a second slot, and its reverse lookup would fail for good.
                    final long indexed = table.reverseLookup(buf, 0, StormAddress.LENGTH, -1L);
                    if (indexed != i && other == null)
                    {
                        problems.add("slot " + i + " holds " + StormAddress.hex(buf, 0) + " but the index finds " +
                            (indexed < 0 ? "nothing" : "slot " + indexed) + " for it");
                    }
                }
            }
            final Set<Long> fiAddrs = new java.util.HashSet<>();
            for (final Map.Entry<Long, Long> e : outstanding.entrySet())
            {
                checkedLive++;
                final Long at = slotOfId.get(e.getKey());
                if (at == null || at.longValue() != e.getValue())
                {
                    problems.add("acknowledged id " + Long.toHexString(e.getKey()) + " at fi_addr " + e.getValue() +
                        " is " + (at == null ? "missing" : "at " + at));
                }
                if (!fiAddrs.add(e.getValue()))
                {
                    problems.add("fi_addr " + e.getValue() + " was acknowledged for two live addresses");
                }
            }
            if (av.count() != validSlots || table.count() != validSlots)
            {
                problems.add("count()=" + av.count() + " but " + validSlots + " slots are VALID");
            }
            if (IndexWord.migrating(m.getLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET)))
            {
                problems.add("a migration of the index still runs after recovery: indexState=0x" +
                    Long.toHexString(m.getLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET)));
            }
            for (int a = 0; a < layout.attachersCapacity(); a++)
            {
                final long token = m.getLongVolatile(layout.attacher(a) + AttacherDescriptor.TOKEN_OFFSET);
                if (token != 0 && token != Processes.SELF_TOKEN)
                {
                    problems.add("attacher " + a + " still held by pid " +
                        m.getLongVolatile(layout.attacher(a) + AttacherDescriptor.PID_OFFSET));
                }
            }
            assertTrue(problems.isEmpty(), problems.size() + " problem(s), seed " + seed + ":\n" +
                String.join("\n", problems.subList(0, Math.min(50, problems.size()))));
            assertTrue(acknowledged.get() > 0 && checkedLive > 0, "the storm acknowledged nothing to check");
        }

        /**
         * No FREE slot was lost to the claim search (a writer killed between freeing a slot and marking its
         * free group leaves it unmarked, for the slot-by-slot scan): inserting fresh addresses fills every
         * slot, then the AV reports FI_ENOSPC.
         */
        void fillUp(final Memory m, final AddressVector av)
        {
            final AvLayout layout = AvLayout.read(m, m.capacity());
            final SlotTable table = new SlotTable(m, layout, Liveness.local());
            final long free = layout.maxCapacity() - av.count(); // growing to the maximum on the way
            unmarkedFreeGroups = 0;
            final int shift = layout.freeGroupShift();
            for (long g = 0; g < layout.freeGroups(); g++)
            {
                final boolean marked = (m.getLongVolatile(AvFileDescriptor.freeGroupWordOffset(g)) & (1L << g)) != 0;
                for (long i = g << shift; i < Math.min(layout.capacity(), (g + 1) << shift); i++)
                {
                    if (!marked && SlotDescriptor.state(table.stateWord(i)) == SlotDescriptor.FREE)
                    {
                        unmarkedFreeGroups++;
                        break;
                    }
                }
            }
            final long[] fiAddr = new long[1];
            for (long k = 0; k < free; k++)
            {
                assertEquals(1, av.insert(StormAddress.of(StormAddress.id(255, 0xFF_FFFF, k)), 1, fiAddr, 0, null),
                    "insert " + k + " of the " + free + " free slots");
            }
            assertEquals(layout.maxCapacity(), av.count());
            final int[] error = new int[1];
            assertEquals(0, av.insert(StormAddress.of(StormAddress.id(255, 0xFF_FFFF, free)), 1, fiAddr, Fi.SYNC_ERR, error));
            assertEquals(FiErrno.ENOSPC, error[0], "one more than the maximum");
        }

        String summary()
        {
            final long startupMillis = TimeUnit.NANOSECONDS.toMillis(startupNanos.get()) / Math.max(1, killed.get());
            return "kills=" + killed.get() + " (writers took " + startupMillis + " ms on average, " +
                TimeUnit.NANOSECONDS.toMillis(startupMaxNanos.get()) + " ms at most, from their start to an open AV)" +
                " (in an operation: " + killedInFlight.get() + ", migrating the index: " +
                killedRebuilding.get() + "; recovered by the test JVM: " + recoveredHere.get() + ", slots it repaired: " +
                repairedHere.get() + "), writer ops=" + ops.get() + ", acknowledged inserts=" + acknowledged.get() +
                ", removals logged=" + removalsLogged.get() + ", live entries checked=" + checkedLive + ", VALID slots=" +
                validSlots + ", free groups left unmarked by kills=" + unmarkedFreeGroups +
                " (all free slots refilled), reader lookups/hits/reverse-checks=" + readerStats;
        }
    }
}
