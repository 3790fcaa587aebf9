package org.shmav.it;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;

/**
 * Child JVM of ExactMaxCountIT: attaches FI_READ to AV {@code name} before it grows, says READY with
 * the capacity it saw, waits (bounded) for {@code go}, then checks that the AV holds exactly {@code max}
 * entries, number k at fi_addr k ({@link InetRange}), each found by lookup and reverse lookup, and
 * nothing at fi_addr max. Prints OK and exits 0, or prints what is wrong and exits 3.
 *
 * <pre>
 *   ExactMaxReader DIR NAME GO MAX
 * </pre>
 */
public final class ExactMaxReader
{
    private ExactMaxReader()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int max = Integer.parseInt(args[3]);
        try (Domain domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN)
                 .shmDirectory(Path.of(args[0])).build());
             AddressVector av = domain.openAv(AvAttr.builder().name(args[1]).flags(Fi.READ).build()))
        {
            System.out.println("READY capacity " + av.attr().count());
            System.out.flush();
            final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (!Files.exists(Path.of(args[2])))
            {
                if (System.nanoTime() - deadline > 0)
                {
                    fail("no go within 5 minutes");
                }
                Thread.sleep(10);
            }
            check(av.count() == max, "count() " + av.count());
            check(av.attr().count() == max, "capacity " + av.attr().count());
            final ByteBuffer all = InetRange.of(0, max);
            final ByteBuffer got = ByteBuffer.allocate(16);
            for (int k = 0; k < max; k++)
            {
                final ByteBuffer expected = all.slice(16 * k, 16);
                check(av.lookup(k, got.clear()) == 16 && got.clear().equals(expected), "lookup " + k);
                check(av.reverseLookup(expected) == k, "reverse lookup of number " + k);
            }
            try
            {
                av.lookup(max, got.clear());
                fail("fi_addr " + max + " looks up, past the maximum");
            }
            catch (final FabricException e)
            {
                check(e.errno() == FiErrno.EINVAL, "lookup " + max + ": " + e.getMessage());
            }
            System.out.println("OK " + max + " entries");
        }
    }

    private static void check(final boolean ok, final String what)
    {
        if (!ok)
        {
            fail(what);
        }
    }

    private static void fail(final String why)
    {
        System.out.println("FAIL " + why);
        System.exit(3);
    }
}
