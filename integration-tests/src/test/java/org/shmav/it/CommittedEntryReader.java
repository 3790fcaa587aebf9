package org.shmav.it;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;

import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.Addresses;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.Fi;

/**
 * A child JVM of {@code FrozenCommitIT}: what a program that waits for a count and then reads does, as
 * {@code Rank.awaitAll} then a lookup of the next rank. It opens the AV ({@code FI_READ} when asked),
 * waits for {@code awaitCount(1)} (10 s), then looks up fi_addr 0, reverse-looks-up address number k
 * and lists the entries, printing one line of each: {@code count n}, {@code lookup ADDR} or
 * {@code lookup failed: ...}, {@code reverse F}, {@code entries n}. Arguments: directory, AV name, k,
 * {@code read} or {@code write}.
 */
public final class CommittedEntryReader
{
    private CommittedEntryReader()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final long flags = args[3].equals("read") ? Fi.READ : 0;
        try (Domain d = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(Path.of(args[0])).build());
             AddressVector av = d.openAv(AvAttr.builder().name(args[1]).flags(flags).build()))
        {
            try
            {
                av.awaitCount(1, Duration.ofSeconds(10));
            }
            catch (final FabricException e)
            {
                System.out.println("await failed: " + e.getMessage());
            }
            System.out.println("count " + av.count());
            final ByteBuffer addr = ByteBuffer.allocate(16);
            try
            {
                av.lookup(0, addr);
                System.out.println("lookup " + Addresses.straddr(AddrFormat.SOCKADDR_IN, addr));
            }
            catch (final FabricException e)
            {
                System.out.println("lookup failed: " + e.getMessage());
            }
            System.out.println("reverse " + av.reverseLookup(InetRange.of(Integer.parseInt(args[2]), 1)));
            System.out.println("entries " + av.entries().count());
        }
    }
}
