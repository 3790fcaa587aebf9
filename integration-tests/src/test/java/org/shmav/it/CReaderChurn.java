package org.shmav.it;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;

import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;

/**
 * A Java writer child for {@link CReaderIT}, and the seeded test addresses the C reader's
 * {@code --watch-torn} mode checks (src/main/c/shmav_read.c documents the same derivation): every
 * byte of an address derives from one 32-bit seed stored in it, so a torn copy is recognisable.
 *
 * <pre>
 *   churn DIR NAME FORMAT TYPE WRITER WINDOW STOPFILE MAXSECONDS [GOFILE RAMPSECONDS]
 *       inserts seeds (WRITER + 1) &lt;&lt; 24 + 1, + 2, ... one by one, removing its own oldest entry
 *       whenever it holds more than WINDOW, until STOPFILE exists or MAXSECONDS passed; prints
 *       STARTED first and "INSERTS n REMOVES m" last. With GOFILE, starts inserting once it exists,
 *       and the window widens from 1 to WINDOW over RAMPSECONDS (so an AV created small grows
 *       all along, while a reader reads)
 * </pre>
 */
public final class CReaderChurn
{
    private CReaderChurn()
    {
    }

    /** splitmix64's output function, as sm64 in shmav_read.c. */
    static long sm64(final long x)
    {
        long z = x + 0x9e3779b97f4a7c15L;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    private static int port(final long seed)
    {
        return 1024 + (int)((sm64(seed) >>> 48) % 60000);
    }

    private static void putBe(final byte[] b, final int at, final long value, final int bytes)
    {
        for (int i = 0; i < bytes; i++)
        {
            b[at + i] = (byte)(value >>> (8 * (bytes - 1 - i)));
        }
    }

    /** The seeded sockaddr_in (16 bytes) or sockaddr_in6 (28 bytes) of {@code seed} (1 .. 2^32-1). */
    static ByteBuffer sockaddr(final AddrFormat format, final long seed)
    {
        final boolean v6 = format == AddrFormat.SOCKADDR_IN6;
        final byte[] b = new byte[v6 ? 28 : 16];
        b[0] = (byte)(v6 ? 10 : 2); // sa_family in host order: little-endian (x86-64, aarch64)
        putBe(b, 2, port(seed), 2);
        if (v6)
        {
            putBe(b, 8, seed, 4);
            putBe(b, 12, sm64(seed + 1), 8);
            putBe(b, 20, sm64(seed + 2) >>> 32, 4);
        }
        else
        {
            putBe(b, 4, seed, 4);
        }
        return ByteBuffer.wrap(b);
    }

    /** The seeded FI_ADDR_STR address of {@code seed}: 24 to 123 characters. */
    static String string(final long seed)
    {
        final int length = 24 + (int)Long.remainderUnsigned(sm64(seed), 100);
        final StringBuilder b = new StringBuilder(String.format("seed-%08x-", seed));
        for (long k = 1; b.length() < length; k++)
        {
            b.append(String.format("%016x", sm64(seed + k)));
        }
        return b.substring(0, length);
    }

    static Domain domain(final Path dir, final AddrFormat format)
    {
        return Domain.open(DomainAttr.builder().shmDirectory(dir).addrFormat(format).build());
    }

    /** Inserts the seeded address of {@code seed}; its fi_addr. */
    static long insert(final AddressVector av, final AddrFormat format, final long seed)
    {
        final long[] fiAddr = new long[1];
        final int n = format == AddrFormat.ADDR_STR
            ? av.insert(new String[] {string(seed)}, fiAddr, 0, null)
            : av.insert(sockaddr(format, seed), 1, fiAddr, 0, null);
        if (n != 1)
        {
            throw new IllegalStateException("insert of seed " + seed + " returned " + n);
        }
        return fiAddr[0];
    }

    public static void main(final String[] args) throws Exception
    {
        if (!"churn".equals(args[0]))
        {
            throw new IllegalArgumentException(args[0]);
        }
        final Path dir = Path.of(args[1]);
        final String name = args[2];
        final AddrFormat format = AddrFormat.valueOf(args[3]);
        final AvType type = AvType.valueOf(args[4]);
        final int writer = Integer.parseInt(args[5]);
        final int window = Integer.parseInt(args[6]);
        final Path stop = Path.of(args[7]);
        final long deadline = System.nanoTime() + Long.parseLong(args[8]) * 1_000_000_000L;
        final Path go = args.length > 9 ? Path.of(args[9]) : null;
        final long rampNanos = args.length > 10 ? Long.parseLong(args[10]) * 1_000_000_000L : 0;
        long inserts = 0;
        long removes = 0;
        try (Domain d = domain(dir, format);
             AddressVector av = d.openAv(AvAttr.builder().name(name).type(type).build()))
        {
            System.out.println("STARTED");
            System.out.flush();
            while (go != null && !Files.exists(go) && !Files.exists(stop) && System.nanoTime() - deadline < 0)
            {
                Thread.sleep(1);
            }
            final long start = System.nanoTime();
            final ArrayDeque<Long> live = new ArrayDeque<>();
            long seed = ((long)writer + 1) << 24;
            while (!Files.exists(stop) && System.nanoTime() - deadline < 0)
            {
                final long elapsed = System.nanoTime() - start;
                final long now = rampNanos <= 0 || elapsed >= rampNanos ? window
                    : Math.max(1, (long)(window * ((double)elapsed / rampNanos)));
                for (int i = 0; i < 64; i++)
                {
                    live.addLast(insert(av, format, ++seed));
                    inserts++;
                    while (live.size() > now)
                    {
                        av.remove(new long[] {live.removeFirst()}, 1, 0);
                        removes++;
                    }
                }
            }
        }
        System.out.println("INSERTS " + inserts + " REMOVES " + removes);
    }
}
