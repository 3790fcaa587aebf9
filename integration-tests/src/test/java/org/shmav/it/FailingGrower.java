package org.shmav.it;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.Fi;
import org.shmav.FiErrno;

/**
 * Child JVM of ToolsDuringGrowthIT, run under a file size limit (RLIMIT_FSIZE) that leaves no room for
 * the next segment of the full AV {@code name}: each insert call tries to grow it, appends zeros until
 * the limit stops it (they stay, the start of the segment for the next grower) and fails with
 * FI_ENOSPC, for {@code seconds}. Prints the
 * calls made and the errno of the last, and exits 0 when every call failed with FI_ENOSPC, else 3.
 *
 * <pre>
 *   FailingGrower DIR NAME SECONDS
 * </pre>
 */
public final class FailingGrower
{
    private FailingGrower()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        try (Domain domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN)
                 .shmDirectory(Path.of(args[0])).build());
             AddressVector av = domain.openAv(AvAttr.builder().name(args[1]).build()))
        {
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(Long.parseLong(args[2]));
            final int[] errno = new int[1];
            int calls = 0;
            while (System.nanoTime() - end < 0)
            {
                calls++;
                if (av.insert(InetRange.of(1_000_000 + calls, 1), 1, null, Fi.SYNC_ERR, errno) != 0 ||
                    errno[0] != FiErrno.ENOSPC)
                {
                    System.out.println("RESULT call " + calls + " did not fail with FI_ENOSPC: errno " + errno[0]);
                    System.exit(3);
                }
            }
            System.out.println("RESULT " + calls + " calls, each a growth that failed: errno " + errno[0]);
        }
    }
}
