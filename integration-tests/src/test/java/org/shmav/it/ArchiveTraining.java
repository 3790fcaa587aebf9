package org.shmav.it;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.Fi;

/**
 * The run {@link HelperArchive} records its archive from: what most helper JVMs do first (a domain, a named AV
 * created, opened a second time read-only, insert, lookup, remove, count), so that the classes they load are
 * in the archive. Exits normally, which is when the JVM writes the archive.
 */
public final class ArchiveTraining
{
    private ArchiveTraining()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path dir = TestDir.createInShm("cds-training-");
        try (Domain domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN6).shmDirectory(dir).build());
             AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).name("training").count(16).maxCount(64).build());
             AddressVector reader = domain.openAv(AvAttr.builder().name("training").flags(Fi.READ).build()))
        {
            final ByteBuffer address = StormAddress.of(StormAddress.id(1, 1, 1));
            final long[] fiAddr = new long[1];
            final int[] error = new int[1];
            av.insert(address, 1, fiAddr, Fi.SYNC_ERR, error);
            reader.lookup(fiAddr[0], ByteBuffer.allocate(StormAddress.LENGTH));
            av.remove(fiAddr, 1, 0);
            av.count();
        }
        finally
        {
            TestDir.delete(dir);
        }
        System.out.println("trained in " + Path.of(args[0]));
    }
}
