package org.shmav;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.shmav.shm.SharedAvFile;

/**
 * One process of a job started by {@code scripts/avrun} (or by the {@code @MultiJvmTest} extension):
 * its rank, the job's size and the job's named AV, in which <b>rank r's address is at fi_addr r</b>.
 *
 * <pre>{@code
 * try (Rank rank = Rank.fromEnvironment();
 *      ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
 *     rank.publish((InetSocketAddress) server.getLocalSocketAddress());
 *     rank.awaitAll(Duration.ofSeconds(30));
 *     InetSocketAddress next = rank.peer((rank.rank() + 1) % rank.size());
 * }
 * }</pre>
 *
 * The job's AV is created by the launcher (FI_AV_TABLE, FI_SOCKADDR_IN, count = size) before any rank
 * starts; a rank only attaches to it and never creates one, so a rank started outside a job fails
 * with a message instead of publishing into an AV nobody else will read. Not safe for use by several
 * threads at once while it is being closed; every other method may be called from any thread.
 */
public final class Rank implements AutoCloseable
{
    /** Environment variable: this process's rank, 0 .. size-1. */
    public static final String RANK_ENV = "SHMAV_RANK";
    /** Environment variable: the number of ranks in the job. */
    public static final String SIZE_ENV = "SHMAV_SIZE";
    /** Environment variable: the name of the job's AV. */
    public static final String AV_ENV = "SHMAV_AV";
    /** Environment variable: the directory of the job's AV (same as {@link DomainAttr#SHM_DIR_ENV}). */
    public static final String DIR_ENV = DomainAttr.SHM_DIR_ENV;

    private final int rank;
    private final int size;
    private final Domain domain;
    private final AddressVector av;

    private Rank(final int rank, final int size, final Domain domain, final AddressVector av)
    {
        this.rank = rank;
        this.size = size;
        this.domain = domain;
        this.av = av;
    }

    /**
     * The rank of this process, from {@value #RANK_ENV}, {@value #SIZE_ENV}, {@value #AV_ENV} and
     * {@value #DIR_ENV} (default {@link DomainAttr#defaultShmDirectory()}).
     *
     * @throws IllegalStateException when a variable is missing or malformed: the process was not
     *                               started by a launcher
     * @throws FabricException       FI_ENOENT when the job's AV does not exist, FI_EINVAL when it is
     *                               smaller than the job or holds another address format
     */
    public static Rank fromEnvironment()
    {
        return fromEnvironment(System.getenv());
    }

    /** {@link #fromEnvironment()} reading the variables from {@code env}. */
    public static Rank fromEnvironment(final Map<String, String> env)
    {
        final int rank = intVariable(env, RANK_ENV);
        final int size = intVariable(env, SIZE_ENV);
        final String name = env.get(AV_ENV);
        if (name == null || name.isEmpty())
        {
            throw new IllegalStateException(AV_ENV + " is not set: start this program with scripts/avrun");
        }
        final String dir = env.get(DIR_ENV);
        return open(rank, size, name, dir == null || dir.isEmpty() ? DomainAttr.defaultShmDirectory() : Path.of(dir));
    }

    /**
     * Attaches rank {@code rank} of a job of {@code size} ranks to the existing AV {@code avName} in
     * {@code directory}.
     */
    public static Rank open(final int rank, final int size, final String avName, final Path directory)
    {
        if (size < 1 || rank < 0 || rank >= size)
        {
            throw new IllegalArgumentException("rank=" + rank + " size=" + size + ": need 0 <= rank < size");
        }
        final Path file = directory.resolve(SharedAvFile.fileName(avName));
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS))
        {
            throw new FabricException("shmav_rank_open", FiErrno.ENOENT, "the job's AV '" + avName +
                "' does not exist in " + directory + ": ranks attach to the AV their launcher created");
        }
        final Domain domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN)
            .shmDirectory(directory).build());
        try
        {
            final AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).name(avName).build());
            if (av.attr().count() < size)
            {
                av.close();
                throw new FabricException("shmav_rank_open", FiErrno.EINVAL, "AV '" + avName + "' holds " +
                    av.attr().count() + " entries, fewer than size=" + size);
            }
            return new Rank(rank, size, domain, av);
        }
        catch (final RuntimeException e)
        {
            domain.close();
            throw e;
        }
    }

    private static int intVariable(final Map<String, String> env, final String name)
    {
        final String value = env.get(name);
        if (value == null || value.isEmpty())
        {
            throw new IllegalStateException(name + " is not set: start this program with scripts/avrun");
        }
        try
        {
            return Integer.parseInt(value.trim());
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalStateException(name + "='" + value + "' is not a number", e);
        }
    }

    /** This process's rank, 0 .. size-1. */
    public int rank()
    {
        return rank;
    }

    /** The number of ranks in the job. */
    public int size()
    {
        return size;
    }

    /** The job's AV, for calls beyond publish and peer (e.g. an AV set over all ranks). */
    public AddressVector av()
    {
        return av;
    }

    /**
     * Publishes this rank's address at fi_addr {@link #rank()} ({@link AddressVector#insertAt}).
     * Publishing the same address again is harmless.
     *
     * @throws FabricException FI_EADDRINUSE when another address is already published for this rank
     *                         (two processes were given the same rank)
     */
    public void publish(final InetSocketAddress address)
    {
        av.insertAt(rank, Addresses.toSockaddr(address));
    }

    /**
     * Waits until every rank has published ({@link AddressVector#awaitCount}), at most {@code timeout}.
     *
     * @throws FabricException FI_ETIMEDOUT naming the ranks still missing
     */
    public void awaitAll(final Duration timeout)
    {
        if (!av.awaitCount(size, timeout))
        {
            throw new FabricException("shmav_rank_await_all", FiErrno.ETIMEDOUT, "ranks " + missingRanks() +
                " of " + size + " did not publish within " + timeout.toMillis() + " ms");
        }
    }

    /** The ranks whose address is not in the AV yet. */
    public List<Integer> missingRanks()
    {
        final List<Integer> missing = new ArrayList<>();
        final ByteBuffer addr = ByteBuffer.allocate(AddrFormat.SOCKADDR_IN.addrlen());
        for (int r = 0; r < size; r++)
        {
            try
            {
                av.lookup(r, addr);
            }
            catch (final FabricException e)
            {
                missing.add(r);
            }
        }
        return missing;
    }

    /**
     * The address rank {@code peer} published ({@link AddressVector#lookup} of fi_addr {@code peer}).
     *
     * @throws FabricException FI_EINVAL when that rank has not published (yet)
     */
    public InetSocketAddress peer(final int peer)
    {
        if (peer < 0 || peer >= size)
        {
            throw new IllegalArgumentException("peer=" + peer + " is outside 0.." + (size - 1));
        }
        final ByteBuffer addr = ByteBuffer.allocate(AddrFormat.SOCKADDR_IN.addrlen());
        av.lookup(peer, addr);
        return Addresses.toInetSocketAddress(addr);
    }

    /** Closes the AV handle and the domain; the job's AV stays for the other ranks. */
    @Override
    public void close()
    {
        try
        {
            av.close();
        }
        finally
        {
            domain.close();
        }
    }

    @Override
    public String toString()
    {
        return "Rank{rank=" + rank + ", size=" + size + ", av='" + av.attr().name() + "'}";
    }
}
