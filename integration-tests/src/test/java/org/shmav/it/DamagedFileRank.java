package org.shmav.it;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;

/**
 * The other JVM of {@link DamagedFileIT}: attaches to AV {@code args[1]} in directory {@code args[0]} as a
 * writer and inserts, prints "ready", waits (bounded) for the file {@code args[3]} to appear, meanwhile
 * the test damages the AV file, then calls insert, lookup, count and insert again on it and prints
 * each outcome; then uses AV {@code args[2]}, closes everything and prints "alive". It runs cold
 * (C1 only, little warm-up), where an atomic update on a missing page would kill the JVM.
 */
public final class DamagedFileRank
{
    private DamagedFileRank()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        try (Domain domain = Domain.open(DomainAttr.builder().shmDirectory(Path.of(args[0])).build());
             AddressVector victim = domain.openAv(AvAttr.builder().name(args[1]).build());
             AddressVector bystander = domain.openAv(AvAttr.builder().name(args[2]).build()))
        {
            victim.insert(new InetSocketAddress("10.1.0.1", 1));
            System.out.println("ready");
            final Path go = Path.of(args[3]);
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while (!Files.exists(go) && System.nanoTime() < deadline)
            {
                Thread.sleep(10);
            }
            report("insert", () -> victim.insert(new InetSocketAddress("10.1.0.2", 2)));
            report("lookup", () -> victim.lookup(0, ByteBuffer.allocate(16)));
            report("count", victim::count);
            report("insert again", () -> victim.insert(new InetSocketAddress("10.1.0.3", 3)));
            final long at = bystander.insert(new InetSocketAddress("10.2.0.1", 1));
            System.out.println("bystander: " + bystander.findAddress(at).orElseThrow());
        }
        System.out.println("alive");
    }

    private static void report(final String call, final Supplier<Object> op)
    {
        try
        {
            System.out.println(call + ": returned " + op.get());
        }
        catch (final FabricException e)
        {
            System.out.println(call + ": " + e.getMessage());
        }
    }
}
