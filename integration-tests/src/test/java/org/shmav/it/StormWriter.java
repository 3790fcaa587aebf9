package org.shmav.it;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.SplittableRandom;

import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;

/**
 * A crash-storm writer JVM: inserts and removes self-checking addresses into one named AV at full
 * speed until it is killed. Every insert the library acknowledged is logged (fi_addr and id) before
 * the next step; every removal is logged before remove is called. It only ever removes addresses of
 * its own lane (its own, or those a killed predecessor in the lane left behind), so no two processes
 * remove the same fi_addr. Exit code 3 means it saw the library break a promise. Writers of odd lanes
 * spread their claims ({@code AvAttr.lowestIndex(false)}), so the storm kills both kinds of writer;
 * writers of lanes 0, 4, 8 ... insert half of their addresses in batches of 2 to 8, whose claims take
 * runs of slots, so the storm also kills batches in the middle of their runs.
 *
 * <p>Arguments: directory, AV name, capacity, lane, incarnation, log file, seed, live target.
 */
public final class StormWriter
{
    /** Most addresses one batch insert of a writer holds. */
    private static final int MAX_BATCH = 8;

    private StormWriter()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path dir = Path.of(args[0]);
        final String name = args[1];
        final long capacity = Long.parseLong(args[2]);
        final int lane = Integer.parseInt(args[3]);
        final int incarnation = Integer.parseInt(args[4]);
        final Path logFile = Path.of(args[5]);
        final SplittableRandom random = new SplittableRandom(Long.parseLong(args[6]));
        final int target = Integer.parseInt(args[7]);

        try (StormLog log = StormLog.create(logFile);
             Domain domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN6).shmDirectory(dir).build());
             AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).name(name).count(capacity)
                 .lowestIndex(lane % 2 == 0).build())) // odd lanes spread their claims: both kinds of writer meet
        {
            log.started();
            final long[] liveFi = new long[(int)capacity];
            final long[] liveId = new long[(int)capacity];
            int live = 0;
            final ByteBuffer buf = ByteBuffer.allocate(StormAddress.LENGTH);
            final long[] one = new long[1];
            final int[] err = new int[1];
            final ByteBuffer batch = ByteBuffer.allocate(MAX_BATCH * StormAddress.LENGTH);
            final long[] batchFi = new long[MAX_BATCH];
            final int[] batchErr = new int[MAX_BATCH];

            // Entries of this lane left by killed predecessors: remove them (logged first).
            for (long i = 0; i < capacity; i++)
            {
                final long id = lookupId(av, i, buf);
                if (id != 0 && StormAddress.lane(id) == lane)
                {
                    log.append(StormLog.REMOVING, i, id);
                    one[0] = i;
                    av.remove(one, 1, 0);
                }
            }

            long seq = 0;
            while (!log.full())
            {
                final boolean insert = live == 0 || (live < target && random.nextInt(100) < 60);
                if (insert && lane % 4 == 0 && target - live > 1 && random.nextBoolean())
                {
                    // a batch: its claims take a run of slots (FreeSlots.reserveRun), killed or not mid-call
                    final int k = 2 + random.nextInt(Math.min(MAX_BATCH, target - live) - 1);
                    final long[] ids = new long[k];
                    for (int j = 0; j < k; j++)
                    {
                        ids[j] = StormAddress.id(lane, incarnation, ++seq);
                        StormAddress.put(batch, j * StormAddress.LENGTH, ids[j]);
                    }
                    java.util.Arrays.fill(batchErr, 0);
                    av.insert(batch.clear().limit(k * StormAddress.LENGTH), k, batchFi, Fi.SYNC_ERR, batchErr);
                    for (int j = 0; j < k; j++)
                    {
                        if (batchErr[j] != 0)
                        {
                            log.insertFailed(batchErr[j]);
                            continue;
                        }
                        log.append(StormLog.INSERTED, batchFi[j], ids[j]);
                        liveFi[live] = batchFi[j];
                        liveId[live++] = ids[j];
                        if (lookupId(av, batchFi[j], buf) != ids[j])
                        {
                            fail("batch insert of id " + Long.toHexString(ids[j]) + " acknowledged at fi_addr " + batchFi[j] +
                                " but lookup does not return it");
                        }
                    }
                }
                else if (insert)
                {
                    final long id = StormAddress.id(lane, incarnation, ++seq);
                    StormAddress.put(buf, 0, id);
                    if (av.insert(buf, 1, one, Fi.SYNC_ERR, err) != 1)
                    {
                        log.insertFailed(err[0]);
                        continue;
                    }
                    log.append(StormLog.INSERTED, one[0], id);
                    liveFi[live] = one[0];
                    liveId[live++] = id;
                    if (lookupId(av, one[0], buf) != id)
                    {
                        fail("insert of id " + Long.toHexString(id) + " acknowledged at fi_addr " + one[0] +
                            " but lookup does not return it");
                    }
                }
                else
                {
                    final int k = random.nextInt(live);
                    log.append(StormLog.REMOVING, liveFi[k], liveId[k]);
                    one[0] = liveFi[k];
                    av.remove(one, 1, 0);
                    liveFi[k] = liveFi[--live];
                    liveId[k] = liveId[live];
                }
                log.countOp();
            }
            Thread.sleep(Long.MAX_VALUE); // log full: wait to be killed
        }
    }

    /** The id stored at {@code fiAddr}, 0 when the slot is empty; exits with 3 on a malformed address. */
    static long lookupId(final AddressVector av, final long fiAddr, final ByteBuffer buf)
    {
        try
        {
            av.lookup(fiAddr, buf.clear());
        }
        catch (final FabricException e)
        {
            if (e.errno() != FiErrno.EINVAL)
            {
                throw e;
            }
            return 0;
        }
        final long id = StormAddress.check(buf, 0);
        if (id == 0)
        {
            fail("lookup of fi_addr " + fiAddr + " returned a malformed address " + StormAddress.hex(buf, 0));
        }
        return id;
    }

    static void fail(final String message)
    {
        System.out.println("STORM-FAILURE " + message);
        System.out.flush();
        Runtime.getRuntime().halt(3);
    }
}
