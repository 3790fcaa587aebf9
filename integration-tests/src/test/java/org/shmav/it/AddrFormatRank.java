package org.shmav.it;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.shmav.JobAddrFormat;
import org.shmav.Rank;

/**
 * A rank of a job whose AV holds addresses of any format but the socket ones ({@code SHMAV_ADDR_FORMAT},
 * e.g. {@code efa} or {@code opaque:max:512}): publishes bytes made from its rank ({@link #address}; for
 * varying opaque addresses, of a length of its own, the last rank's the most the format takes), waits for
 * every rank, and checks every peer's bytes and length. Prints {@code formats <rank> of <size> format=<f>
 * lens=<l0,l1,...> ok}, or exits 1 naming what differed.
 */
public final class AddrFormatRank
{
    private AddrFormatRank()
    {
    }

    /** The address rank {@code rank} of {@code size} publishes in a job of {@code format}. */
    static byte[] address(final JobAddrFormat format, final int rank, final int size)
    {
        final int len = !format.varying() ? format.addrLen() :
            rank == size - 1 ? format.addrLen() : 1 + (rank * 131 + 7) % format.addrLen();
        final byte[] b = new byte[len];
        for (int i = 0; i < len; i++)
        {
            b[i] = (byte)(rank * 31 + i * 7 + 1);
        }
        b[0] = (byte)(0x80 | rank); // never all zero
        return b;
    }

    public static void main(final String[] args) throws Exception
    {
        try (Rank rank = Rank.fromEnvironment())
        {
            final JobAddrFormat format = rank.addrFormat();
            rank.publish(address(format, rank.rank(), rank.size()));
            rank.awaitAll(Duration.ofSeconds(60));
            final List<Integer> lens = new ArrayList<>();
            final ByteBuffer cut = ByteBuffer.allocate(1);
            for (int p = 0; p < rank.size(); p++)
            {
                final byte[] expected = address(format, p, rank.size());
                final byte[] found = rank.peerAddress(p);
                if (!Arrays.equals(expected, found) || rank.peerAddress(p, cut.clear()) != expected.length)
                {
                    System.err.println("rank " + rank.rank() + ": peer " + p + " published " + expected.length +
                        " bytes, the AV holds " + found.length + ": " + Arrays.toString(found));
                    System.exit(1);
                }
                lens.add(found.length);
            }
            System.out.println("formats " + rank.rank() + " of " + rank.size() + " format=" + format + " lens=" +
                lens.toString().replace(" ", "") + " local=" + rank.localRank() + "/" + rank.localSize() + " ok");
        }
    }
}
