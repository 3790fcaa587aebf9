package org.shmav.slots;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.Addresses;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;

/**
 * The promise a launcher's ranks rely on, checked on every history a reader records: a writer inserts
 * address k at index k for k = 0, 1, ... (as ranks publish), nobody removes, and a reader loops
 * {@code n = count()} then looks up indexes 0 .. n - 1. With inserts in index order and no removals,
 * the only linearizable answer is that each of those lookups finds its address: a count of n is a
 * point after the n-th insert took effect. The writer pauses 1 ms between each commit and its publish
 * ({@link ClaimCommit#pauseAfterCommitNanos}), as a cold JVM is paused by class loading or the
 * scheduler. Layout 7.0 failed this on the first insert (count 1, lookup of fi_addr 0: FI_EINVAL),
 * on both kinds of AV.
 */
class CountThenLookupTest
{
    private static final int INSERTS = 64;

    private Path dir;

    @AfterEach
    void tearDown() throws Exception
    {
        ClaimCommit.pauseAfterCommitNanos = 0;
        if (dir != null)
        {
            try (var files = Files.list(dir))
            {
                for (final Path p : (Iterable<Path>)files::iterator)
                {
                    Files.deleteIfExists(p);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    @Test
    void privateAvCountPromisesOnlyWhatLookupsFind() throws Exception
    {
        assertEquals(List.of(), run(null));
    }

    @Test
    void namedAvCountPromisesOnlyWhatLookupsFind() throws Exception
    {
        assertEquals(List.of(), run("count-then-lookup"));
    }

    /** The violations the reader recorded: a count, and an index below it whose lookup failed. */
    private List<String> run(final String name) throws Exception
    {
        dir = Files.createTempDirectory(Path.of("/dev/shm"), "count-lookup-");
        ClaimCommit.pauseAfterCommitNanos = 1_000_000;
        final List<String> violations = new ArrayList<>();
        try (Domain d = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build());
             AddressVector av = d.openAv(AvAttr.builder().name(name).type(AvType.TABLE).count(INSERTS).build()))
        {
            final AtomicBoolean done = new AtomicBoolean();
            final Thread reader = new Thread(() ->
            {
                final ByteBuffer b = ByteBuffer.allocate(16);
                while (!done.get() && violations.size() < 5)
                {
                    final long n = av.count();
                    for (long i = 0; i < n; i++)
                    {
                        b.clear();
                        try
                        {
                            av.lookup(i, b);
                        }
                        catch (final FabricException e)
                        {
                            violations.add("count " + n + ", lookup " + i + ": " + e.getMessage());
                        }
                    }
                }
            }, "count-then-lookup");
            reader.start();
            try
            {
                for (int k = 0; k < INSERTS; k++)
                {
                    av.insertAt(k, Addresses.toSockaddr(new InetSocketAddress("10.1.0." + (k + 1), 7000)));
                }
            }
            finally
            {
                done.set(true);
                reader.join(10_000);
            }
            assertEquals(INSERTS, av.count());
        }
        return violations;
    }
}
