package org.shmav.it;

import java.nio.file.Files;
import java.nio.file.Path;

import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.slots.Region;
import org.shmav.slots.ToolAccess;

/**
 * A child JVM of {@link FrozenPeerIT}, doing what the parent freezes it in the middle of.
 * {@code grow}: for k = 1, 2, ...: waits for the file {@code go.k}, inserts one new address into the
 * full AV (which grows it), prints {@code grew k}. {@code rebuild}: prints {@code writer A} (its
 * attacher index), waits for {@code go.1}, then migrates the AV's index between its areas over and over until killed.
 * Arguments: directory, AV name, mode, directory of the go files.
 */
public final class FrozenPeer
{
    private FrozenPeer()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path dir = Path.of(args[0]);
        final Path gates = Path.of(args[3]);
        if (args[2].equals("rebuild"))
        {
            final Region r = ToolAccess.openForRepair(dir.resolve(args[1]));
            System.out.println("writer " + r.writer().index());
            await(gates.resolve("go.1"));
            while (true)
            {
                r.table().migrateIndex(r.writer());
            }
        }
        try (Domain d = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build());
             AddressVector av = d.openAv(AvAttr.builder().name(args[1]).build()))
        {
            System.out.println("ready");
            for (int k = 1; ; k++)
            {
                await(gates.resolve("go." + k));
                av.insert(InetRange.of(100_000_000 + k, 1), 1, new long[1], 0, null);
                System.out.println("grew " + k);
            }
        }
    }

    private static void await(final Path gate) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 120_000_000_000L;
        while (!Files.exists(gate))
        {
            if (System.nanoTime() - deadline > 0)
            {
                System.exit(2);
            }
            Thread.sleep(1);
        }
    }
}
