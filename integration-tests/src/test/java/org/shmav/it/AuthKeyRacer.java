package org.shmav.it;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.Fi;

/**
 * A child JVM of {@link AuthKeyRaceIT}: waits for the start file, then inserts auth keys 0..n-1 into
 * the named AV as fast as it can and prints {@code key handle} for each; with a fifth argument
 * {@code R}, it inserts them R times over (each insert of a present key takes a reference). With
 * {@code pin} instead, it sets the user id of every valid auth-key handle, over and over, until the
 * stop file (the start file's name + ".stop") exists: each set pins the key's entry with a reference
 * and drops it, so the entry's state word keeps changing under the inserters.
 * Arguments: directory, AV name, start file, n[, R | pin].
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
        final boolean pin = args.length > 4 && args[4].equals("pin");
        final int rounds = args.length > 4 && !pin ? Integer.parseInt(args[4]) : 1;
        try (Domain d = Domain.open(DomainAttr.builder().shmDirectory(Path.of(args[0])).avAuthKey(true)
                .authKeySize(KEY_SIZE).build());
             AddressVector av = d.openAv(AvAttr.builder().name(args[1]).flags(pin ? Fi.AV_USER_ID : 0).build()))
        {
            System.out.println("ready");
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while (!Files.exists(start) && System.nanoTime() < deadline)
            {
                Thread.onSpinWait();
            }
            if (pin)
            {
                pinUntilStopped(av, n, Path.of(start + ".stop"), deadline);
                return;
            }
            final StringBuilder out = new StringBuilder();
            for (int r = 0; r < rounds; r++)
            {
                for (int k = 0; k < n; k++)
                {
                    out.append(k).append(' ').append(av.insertAuthKey(key(k), 0)).append('\n');
                }
            }
            System.out.print(out);
            System.out.println("done");
        }
    }

    /** Sets the user id of handles 0..n-1 over and over until {@code stop} exists; prints how many sets. */
    private static void pinUntilStopped(final AddressVector av, final int n, final Path stop, final long deadline)
    {
        long sets = 0;
        while (!Files.exists(stop) && System.nanoTime() < deadline)
        {
            for (int k = 0; k < n; k++)
            {
                try
                {
                    av.setUserId(1L << 62 | k, k, Fi.AUTH_KEY);
                    sets++;
                }
                catch (final FabricException notThere)
                {
                    // FI_EINVAL: no key at this handle
                }
            }
        }
        System.out.println("pinned " + sets);
    }
}
