package org.shmav.it;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;

/**
 * A child JVM of {@link AuthKeyRaceIT}: waits for the start file, then inserts auth keys 0..n-1 into
 * the named AV as fast as it can and prints {@code key handle} for each.
 * Arguments: directory, AV name, start file, n.
 */
public final class AuthKeyRacer
{
    static final int KEY_SIZE = 8;

    private AuthKeyRacer()
    {
    }

    static ByteBuffer key(final int k)
    {
        return ByteBuffer.allocate(KEY_SIZE).putLong(0, 0x5EED_0000_0000L + k);
    }

    public static void main(final String[] args) throws Exception
    {
        final Path start = Path.of(args[2]);
        final int n = Integer.parseInt(args[3]);
        try (Domain d = Domain.open(DomainAttr.builder().shmDirectory(Path.of(args[0])).avAuthKey(true)
                .authKeySize(KEY_SIZE).build());
             AddressVector av = d.openAv(AvAttr.builder().name(args[1]).build()))
        {
            System.out.println("ready");
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while (!Files.exists(start) && System.nanoTime() < deadline)
            {
                Thread.onSpinWait();
            }
            final StringBuilder out = new StringBuilder();
            for (int k = 0; k < n; k++)
            {
                out.append(k).append(' ').append(av.insertAuthKey(key(k), 0)).append('\n');
            }
            System.out.print(out);
            System.out.println("done");
        }
    }
}
