package org.shmav.it;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.Fi;

/**
 * Child JVM of GrowthIT: inserts {@code count} addresses of its own lane, and every 25th step one of
 * {@code common} addresses every writer inserts, into named AV {@code name} (attached with count 4: a
 * hint), logging each acknowledged insert (StormLog, which survives a SIGKILL). Exit 2 when an insert
 * fails.
 *
 * <pre>
 *   GrowthWriter DIR NAME LANE COUNT COMMON LOG
 * </pre>
 */
public final class GrowthWriter
{
    private GrowthWriter()
    {
    }

    /** The id of common address {@code k}: lane 255, shared by every writer. */
    static long commonId(final long k)
    {
        return StormAddress.id(255, 0, k + 1);
    }

    public static void main(final String[] args) throws Exception
    {
        final Path dir = Path.of(args[0]);
        final String name = args[1];
        final int lane = Integer.parseInt(args[2]);
        final long count = Long.parseLong(args[3]);
        final long common = Long.parseLong(args[4]);
        try (StormLog log = StormLog.create(Path.of(args[5]));
             Domain domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN6).shmDirectory(dir).build());
             AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).name(name).count(4)
                 .lowestIndex(lane % 2 == 0).build())) // odd lanes spread their claims: both kinds of writer meet
        {
            log.started();
            final ByteBuffer buf = ByteBuffer.allocate(StormAddress.LENGTH);
            final long[] one = new long[1];
            final int[] err = new int[1];
            long nextCommon = (lane * 7919L) % Math.max(common, 1);
            long commonDone = 0;
            for (long seq = 1; seq <= count; seq++)
            {
                final boolean shared = common > 0 && commonDone < common && seq % 25 == 0;
                final long id = shared ? commonId(nextCommon) : StormAddress.id(lane, 1, seq);
                StormAddress.put(buf, 0, id);
                if (av.insert(buf.clear(), 1, one, Fi.SYNC_ERR, err) != 1)
                {
                    System.out.println("GROWTH-FAILURE insert of " + Long.toHexString(id) + ": errno " + err[0] +
                        " at count " + av.count());
                    System.exit(2);
                }
                log.append(StormLog.INSERTED, one[0], id);
                log.countOp();
                if (shared)
                {
                    nextCommon = (nextCommon + 1) % common;
                    commonDone++;
                    seq--; // a common address does not use up one of this lane's own
                }
            }
        }
    }
}
