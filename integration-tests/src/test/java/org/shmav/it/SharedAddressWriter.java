package org.shmav.it;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.Fi;

/**
 * A child JVM of {@link SharedAddressFreezeIT}: inserts one of a few addresses that every writer
 * inserts (number 1 .. {@code addresses} of {@link InetRange}), checks that its fi_addr looks up to
 * that address, and removes it again (its own reference), at full speed, until the file {@code stop}
 * exists. Counts the inserts that failed (with their errno) or whose fi_addr held something else,
 * and the longest insert call. Prints {@code started}, {@code SLOW at=T millis=M} for each of the
 * first 100 inserts that took {@code slowMillis} or more (T its start, ms since the epoch: the parent
 * tells the calls this writer was frozen in from those that waited on another), then
 * {@code RESULT ops=N failed=F wrong=W maxInsertMillis=M lastErrno=E}.
 * Arguments: directory, AV name, number of addresses, seed, directory of the stop file, slowMillis.
 */
public final class SharedAddressWriter
{
    private SharedAddressWriter()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path dir = Path.of(args[0]);
        final int addresses = Integer.parseInt(args[2]);
        final SplittableRandom random = new SplittableRandom(Long.parseLong(args[3]));
        final Path stop = Path.of(args[4], "stop");
        final long slowNanos = Long.parseLong(args[5]) * 1_000_000;
        int slowShown = 0;
        final ByteBuffer[] all = new ByteBuffer[addresses];
        for (int k = 0; k < addresses; k++)
        {
            all[k] = InetRange.of(1 + k, 1);
        }
        long ops = 0;
        long failed = 0;
        long wrong = 0;
        long maxNanos = 0;
        int lastErrno = 0;
        final long[] fiAddr = new long[1];
        final int[] errors = new int[1];
        final ByteBuffer out = ByteBuffer.allocate(16);
        try (Domain d = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build());
             AddressVector av = d.openAv(AvAttr.builder().name(args[1]).build()))
        {
            System.out.println("started");
            while ((ops & 255) != 0 || !Files.exists(stop))
            {
                final ByteBuffer a = all[random.nextInt(addresses)];
                final long startMillis = System.currentTimeMillis();
                final long start = System.nanoTime();
                final int n = av.insert(a, 1, fiAddr, Fi.SYNC_ERR, errors);
                final long took = System.nanoTime() - start;
                maxNanos = Math.max(maxNanos, took);
                if (took >= slowNanos && slowShown++ < 100)
                {
                    System.out.println("SLOW at=" + startMillis + " millis=" + took / 1_000_000);
                }
                ops++;
                if (n != 1)
                {
                    failed++;
                    lastErrno = errors[0];
                    continue;
                }
                out.clear();
                if (av.lookup(fiAddr[0], out) != 16 || out.getLong(0) != a.getLong(0) || out.getLong(8) != a.getLong(8))
                {
                    wrong++;
                }
                av.remove(fiAddr, 1, 0);
            }
        }
        System.out.println("RESULT ops=" + ops + " failed=" + failed + " wrong=" + wrong + " maxInsertMillis=" +
            maxNanos / 1_000_000 + " lastErrno=" + lastErrno);
    }
}
