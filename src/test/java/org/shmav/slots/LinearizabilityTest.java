package org.shmav.slots;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.jetbrains.kotlinx.lincheck.LinChecker;
import org.jetbrains.kotlinx.lincheck.annotations.Operation;
import org.jetbrains.kotlinx.lincheck.annotations.Param;
import org.jetbrains.kotlinx.lincheck.paramgen.IntGen;
import org.jetbrains.kotlinx.lincheck.strategy.stress.StressOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.Addresses;
import org.shmav.AvAttr;
import org.shmav.AvEntry;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.Fi;

/**
 * Linearizability of an AV's operations (Lincheck, stress mode on real handles) against a sequential
 * model: insert at index k of address k (as a launcher publishes rank k), removal, count, lookup,
 * reverse lookup and entries(), on a private AV and on a named one. Every result must be one the model
 * gives for some order of the operations that keeps each thread's order and real time: in particular
 * a count of n is never followed, in real time, by a lookup that misses one of those n entries.
 *
 * <p>Writers of one handle take turns (its lock), readers do not; the window a reader may meet is a
 * writer between its commit and its publish, widened here to 5 ms ({@link ClaimCommit#pauseAfterCommitNanos})
 * so that a few thousand runs meet it; no sequential part runs before the threads (a key already
 * present has no commit window: its insert only takes a reference). Layout 7.0 failed this: a count of 1 (counted at the commit) with
 * a lookup that answered FI_EINVAL (its slot not yet VALID).
 *
 * <p>Model checking (Lincheck's other mode) cannot follow these operations: every shared access is a
 * VarHandle or Unsafe access to off-heap memory (a mapping, or a direct buffer for a private AV), which
 * Lincheck neither records nor interleaves, so it would explore nothing but the handle lock's field.
 * The jcstress tests (CommitCountLookupTest and the others) are the interleaving evidence at that level.
 */
class LinearizabilityTest
{
    private static final int KEYS = 3;
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static Path dir;
    private static Domain domain;
    /** Lincheck makes one instance per run: the previous run's AV is closed when the next one starts. */
    private static AddressVector previous;
    private static String previousName;
    private static boolean named;

    @BeforeAll
    static void open() throws Exception
    {
        dir = Files.createTempDirectory(Path.of("/dev/shm"), "lincheck-");
        domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir).build());
        ClaimCommit.pauseAfterCommitNanos = 5_000_000;
    }

    @AfterAll
    static void close() throws Exception
    {
        ClaimCommit.pauseAfterCommitNanos = 0;
        closePrevious();
        domain.close();
        try (var files = Files.list(dir))
        {
            for (final Path p : (Iterable<Path>)files::iterator)
            {
                Files.deleteIfExists(p);
            }
        }
        Files.deleteIfExists(dir);
    }

    @Test
    void privateAvIsLinearizable()
    {
        named = false;
        LinChecker.check(PrivateOrNamedAv.class, options());
    }

    @Test
    void namedAvIsLinearizable()
    {
        named = true;
        LinChecker.check(PrivateOrNamedAv.class, options());
    }

    private static StressOptions options()
    {
        return new StressOptions().sequentialSpecification(Model.class).iterations(10).invocationsPerIteration(60)
            .actorsBefore(0).threads(2).actorsPerThread(4).minimizeFailedScenario(false);
    }

    private static synchronized AddressVector next()
    {
        closePrevious();
        final AvAttr.Builder attr = AvAttr.builder().type(AvType.TABLE).count(8);
        if (named)
        {
            previousName = "lin" + NAMES.incrementAndGet();
            attr.name(previousName);
        }
        previous = domain.openAv(attr.build());
        return previous;
    }

    private static void closePrevious()
    {
        if (previous != null)
        {
            previous.close();
            if (previousName != null)
            {
                domain.unlinkAv(previousName);
            }
            previous = null;
            previousName = null;
        }
    }

    static ByteBuffer address(final int k)
    {
        return Addresses.toSockaddr(new InetSocketAddress("10.0.0." + (k + 1), 7000));
    }

    /** The AV under test: operations on keys 0..2, key k always at index k. */
    @Param(name = "key", gen = IntGen.class, conf = "0:2")
    public static class PrivateOrNamedAv
    {
        private final AddressVector av = next();

        @Operation
        public String insertAt(@Param(name = "key") final int k)
        {
            try
            {
                return "at " + av.insertAt(k, address(k));
            }
            catch (final FabricException e)
            {
                return org.shmav.FiErrno.name(e.errno());
            }
        }

        @Operation
        public String remove(@Param(name = "key") final int k)
        {
            try
            {
                av.remove(k);
                return "removed";
            }
            catch (final FabricException e)
            {
                return org.shmav.FiErrno.name(e.errno());
            }
        }

        @Operation
        public long count()
        {
            return av.count();
        }

        @Operation
        public String lookup(@Param(name = "key") final int k)
        {
            final ByteBuffer b = ByteBuffer.allocate(16);
            try
            {
                av.lookup(k, b);
                return Addresses.straddr(AddrFormat.SOCKADDR_IN, b);
            }
            catch (final FabricException e)
            {
                return org.shmav.FiErrno.name(e.errno());
            }
        }

        @Operation
        public long reverseLookup(@Param(name = "key") final int k)
        {
            final long f = av.reverseLookup(address(k));
            return f == Fi.ADDR_NOTAVAIL ? -1 : f;
        }

        @Operation
        public List<Long> entries()
        {
            final List<Long> list = new ArrayList<>();
            av.entries().map(AvEntry::fiAddr).sorted().forEach(list::add);
            return list;
        }
    }

    /** The sequential model: references of key k at index k. */
    public static class Model
    {
        private final int[] refs = new int[KEYS];

        public String insertAt(final int k)
        {
            refs[k]++;
            return "at " + k;
        }

        public String remove(final int k)
        {
            if (refs[k] == 0)
            {
                return org.shmav.FiErrno.name(org.shmav.FiErrno.EINVAL);
            }
            refs[k]--;
            return "removed";
        }

        public long count()
        {
            long n = 0;
            for (final int r : refs)
            {
                n += r > 0 ? 1 : 0;
            }
            return n;
        }

        public String lookup(final int k)
        {
            return refs[k] > 0 ? Addresses.straddr(AddrFormat.SOCKADDR_IN, address(k)) : org.shmav.FiErrno.name(org.shmav.FiErrno.EINVAL);
        }

        public long reverseLookup(final int k)
        {
            return refs[k] > 0 ? k : -1;
        }

        public List<Long> entries()
        {
            final List<Long> list = new ArrayList<>();
            for (int k = 0; k < KEYS; k++)
            {
                if (refs[k] > 0)
                {
                    list.add((long)k);
                }
            }
            return list;
        }
    }
}
