package org.shmav.it;

import java.net.InetSocketAddress;
import java.nio.file.Path;

import org.shmav.Addresses;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.Fi;

/**
 * A writer to be killed: creates AV {@code args[1]} in directory {@code args[0]} with three entries,
 * attaches to the existing AV {@code args[2]} and inserts one entry, prints "ready" and sleeps until
 * it is killed. It never closes anything: a SIGKILL leaves both AVs with a dead attacher.
 */
public final class StaleWriter
{
    private StaleWriter()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Domain domain = Domain.open(DomainAttr.builder().shmDirectory(Path.of(args[0])).build());
        final AddressVector stale = domain.openAv(AvAttr.builder().type(AvType.TABLE).count(8).name(args[1]).build());
        for (int i = 0; i < 3; i++)
        {
            stale.insert(Addresses.toSockaddr(new InetSocketAddress("127.0.0.1", 7000 + i)), 1, null, 0, null);
        }
        final AddressVector shared = domain.openAv(AvAttr.builder().name(args[2]).build());
        shared.insert(Addresses.toSockaddr(new InetSocketAddress("127.0.0.1", 7100)), 1, new long[1], Fi.SYNC_ERR, new int[1]);
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(60_000);
    }
}
