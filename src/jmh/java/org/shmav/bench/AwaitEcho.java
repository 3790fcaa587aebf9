package org.shmav.bench;

import java.nio.ByteBuffer;
import java.time.Duration;

import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;

/**
 * The child of {@link AwaitCountBench}: {@code AwaitEcho PING PONG ROUNDS}. Inserts a sentinel into
 * PONG, then for r = 1.. ROUNDS waits until PING holds r entries and inserts address r into PONG. Exits
 * when a wait times out (the parent stopped) or after the last round.
 */
public final class AwaitEcho
{
    private AwaitEcho()
    {
    }

    public static void main(final String[] args)
    {
        final int rounds = Integer.parseInt(args[2]);
        try (Domain domain = BenchAvs.domain();
             AddressVector ping = domain.openAv(AvAttr.builder().name(args[0]).build());
             AddressVector pong = domain.openAv(AvAttr.builder().name(args[1]).build()))
        {
            final ByteBuffer addrs = BenchAddresses.direct(1, rounds + 1);
            final long[] one = new long[1];
            pong.insert(addrs, 1, one, 0, null); // sentinel: attached and ready
            for (int r = 1; r <= rounds; r++)
            {
                if (!ping.awaitCount(r, Duration.ofSeconds(30)))
                {
                    return;
                }
                addrs.position(r * BenchAddresses.ADDRLEN);
                pong.insert(addrs, 1, one, 0, null);
            }
        }
    }
}
