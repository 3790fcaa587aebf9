package org.shmav.it;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;

/**
 * The crash storm's reader JVM: a read-only handle (FI_READ) looking up every index over and over
 * with the library's seqlock read, checking every address it gets (see {@link StormAddress}), and
 * checking that reverse lookup of that address gives the same index or nothing (an address is never
 * in two slots). Writes "lookups hits reverse" to its stats file now and then and when it stops
 * (stop file present). Exit code 3: it saw a torn or foreign address.
 *
 * <p>Arguments: directory, AV name, stats file, stop file.
 */
public final class StormReader
{
    private StormReader()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path dir = Path.of(args[0]);
        final String name = args[1];
        final Path stats = Path.of(args[2]);
        final Path stop = Path.of(args[3]);
        try (Domain domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN6).shmDirectory(dir).build());
             AddressVector av = domain.openAv(AvAttr.builder().name(name).flags(Fi.READ).build()))
        {
            // Every index the AV may grow to: lookups past its capacity follow its growth or fail (EINVAL).
            final long capacity = args.length > 4 ? Long.parseLong(args[4]) : av.attr().count();
            final ByteBuffer buf = ByteBuffer.allocateDirect(StormAddress.LENGTH);
            long lookups = 0;
            long hits = 0;
            long reverse = 0;
            long nextReport = System.nanoTime();
            while (true)
            {
                for (long i = 0; i < capacity; i++)
                {
                    lookups++;
                    try
                    {
                        av.lookup(i, buf.clear());
                    }
                    catch (final FabricException e)
                    {
                        if (e.errno() != FiErrno.EINVAL)
                        {
                            throw e;
                        }
                        continue;
                    }
                    hits++;
                    if (StormAddress.check(buf, 0) == 0)
                    {
                        report(stats, lookups, hits, reverse, "TORN index " + i + " bytes " + StormAddress.hex(buf, 0));
                        Runtime.getRuntime().halt(3);
                    }
                    if ((hits & 63) == 0)
                    {
                        reverse++;
                        final long at = av.reverseLookup(buf.clear());
                        if (at != i && at != Fi.ADDR_NOTAVAIL)
                        {
                            report(stats, lookups, hits, reverse, "DUPLICATE address of index " + i + " also at " + at);
                            Runtime.getRuntime().halt(3);
                        }
                    }
                }
                if (System.nanoTime() - nextReport > 0)
                {
                    nextReport = System.nanoTime() + 200_000_000L;
                    report(stats, lookups, hits, reverse, "ok");
                    if (Files.exists(stop))
                    {
                        return;
                    }
                }
                Thread.yield(); // share the two cores with the writers
            }
        }
    }

    private static void report(final Path stats, final long lookups, final long hits, final long reverse,
        final String status) throws java.io.IOException
    {
        final Path tmp = stats.resolveSibling(stats.getFileName() + ".tmp");
        Files.writeString(tmp, lookups + " " + hits + " " + reverse + " " + status + "\n");
        Files.move(tmp, stats, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
