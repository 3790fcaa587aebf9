package org.shmav.it;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.Fi;
import org.shmav.FiErrno;
import org.shmav.FabricException;

/**
 * Child JVM of GrowthIT: attaches FI_READ to named AV {@code name} at once (before the writers grow
 * it), says READY, waits (bounded) for {@code go}, then checks every insert the writers' logs
 * acknowledge: lookup of its fi_addr gives the address, reverse lookup gives the fi_addr, one fi_addr
 * per address and one address per fi_addr, and count() is the number of distinct addresses. Prints
 * OK n and exits 0, or prints what is wrong and exits 3.
 *
 * <pre>
 *   GrowthChecker DIR NAME GO LOG...
 * </pre>
 */
public final class GrowthChecker
{
    private GrowthChecker()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        try (Domain domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN6)
                 .shmDirectory(Path.of(args[0])).build());
             AddressVector av = domain.openAv(AvAttr.builder().name(args[1]).flags(Fi.READ).build()))
        {
            final long capacityAtAttach = av.attr().count();
            System.out.println("READY capacity " + capacityAtAttach);
            System.out.flush();
            final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
            while (!Files.exists(Path.of(args[2])))
            {
                if (System.nanoTime() - deadline > 0)
                {
                    fail("no go within 10 minutes");
                }
                Thread.sleep(10);
            }
            final Map<Long, Long> fiOfId = new HashMap<>();
            final Map<Long, Long> idOfFi = new HashMap<>();
            for (int i = 3; i < args.length; i++)
            {
                StormLog.read(Path.of(args[i]), (type, fiAddr, id) ->
                {
                    final Long was = fiOfId.putIfAbsent(id, fiAddr);
                    if (was != null && was != fiAddr)
                    {
                        fail("address " + Long.toHexString(id) + " was acknowledged at fi_addr " + was + " and " + fiAddr);
                    }
                    final Long other = idOfFi.putIfAbsent(fiAddr, id);
                    if (other != null && other != id)
                    {
                        fail("fi_addr " + fiAddr + " was acknowledged for " + Long.toHexString(other) + " and " +
                            Long.toHexString(id));
                    }
                });
            }
            final ByteBuffer buf = ByteBuffer.allocate(StormAddress.LENGTH);
            for (final Map.Entry<Long, Long> e : fiOfId.entrySet())
            {
                try
                {
                    av.lookup(e.getValue(), buf.clear());
                }
                catch (final FabricException x)
                {
                    fail("fi_addr " + e.getValue() + " of " + Long.toHexString(e.getKey()) + ": " + x.getMessage());
                }
                if (StormAddress.check(buf, 0) != e.getKey())
                {
                    fail("fi_addr " + e.getValue() + " holds " + StormAddress.hex(buf, 0) + ", not " + Long.toHexString(e.getKey()));
                }
                final long back = av.reverseLookup(StormAddress.of(e.getKey()));
                if (back != e.getValue())
                {
                    fail("reverse lookup of " + Long.toHexString(e.getKey()) + " gave " + back + ", not " + e.getValue());
                }
            }
            if (av.count() != fiOfId.size())
            {
                fail("count() " + av.count() + " but " + fiOfId.size() + " distinct addresses were acknowledged");
            }
            try
            {
                av.lookup(av.attr().count() + (1L << 30), buf.clear());
                fail("an fi_addr far past the AV was found");
            }
            catch (final FabricException expected)
            {
                if (expected.errno() != FiErrno.EINVAL)
                {
                    throw expected;
                }
            }
            System.out.println("OK " + fiOfId.size() + " entries checked by a reader attached at capacity " + capacityAtAttach);
        }
    }

    private static void fail(final String message)
    {
        System.out.println("GROWTH-FAILURE " + message);
        System.out.flush();
        Runtime.getRuntime().halt(3);
    }
}
