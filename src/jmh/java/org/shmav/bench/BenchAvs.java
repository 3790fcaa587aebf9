package org.shmav.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.Fi;

/** Opening the AVs the benchmarks time: private (process memory) or shared (a named AV in /dev/shm). */
public final class BenchAvs
{
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** The two kinds of AV, as a JMH parameter value. */
    public static final String PRIVATE = "private";
    public static final String SHARED = "shared";

    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final Path SELF_MAPS = Path.of("/proc/self/maps");

    private BenchAvs()
    {
    }

    /** A domain for sockaddr_in AVs whose named AVs live in {@code shmav.dir} (default /dev/shm). */
    public static Domain domain()
    {
        return Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).build());
    }

    /** A name no other benchmark run uses. */
    public static String uniqueName(final String what)
    {
        return "shmav-bench-" + what + "-" + ProcessHandle.current().pid() + "-" + NAMES.incrementAndGet();
    }

    /** A new TABLE AV of {@code count} entries: private, or shared under {@code name}. */
    public static AddressVector open(final Domain domain, final String kind, final String name, final long count)
    {
        final AvAttr.Builder attr = AvAttr.builder().type(AvType.TABLE).count(count);
        if (SHARED.equals(kind))
        {
            attr.name(name);
        }
        else if (!PRIVATE.equals(kind))
        {
            throw new IllegalArgumentException("av must be private or shared, not " + kind);
        }
        return domain.openAv(attr.build());
    }

    /** Attaches read-only (FI_READ) to the shared AV {@code name}. */
    public static AddressVector attachReadOnly(final Domain domain, final String name)
    {
        return domain.openAv(AvAttr.builder().name(name).flags(Fi.READ).build());
    }

    /** Closes {@code av} and removes its file if it is shared; tolerant of nulls and repeats. */
    public static void closeAndUnlink(final Domain domain, final AddressVector av, final String kind, final String name)
    {
        if (av != null)
        {
            av.close();
        }
        if (SHARED.equals(kind) && name != null)
        {
            domain.unlinkAv(name);
        }
    }

    /**
     * Collects garbage until this JVM maps no file of the named AVs {@code closed} (closed and removed by
     * now), or {@code timeoutMillis} passed; returns whether it got there. A closed handle's mappings stay
     * until a collection lets their cleaner unmap them, and that munmap, hundreds of MB of page tables
     * and a TLB shootdown, ran in the Reference Handler at whatever moment followed the collection: inside
     * a timed round it took a core from the writers.
     */
    public static boolean awaitUnmapped(final Collection<String> closed, final long timeoutMillis)
        throws IOException, InterruptedException
    {
        if (closed.isEmpty())
        {
            return true;
        }
        final Pattern mapped = Pattern.compile("/[^ ]*(" + closed.stream().map(Pattern::quote).collect(Collectors.joining("|")) +
            ")([. ]|$)");
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (true)
        {
            System.gc();
            if (Files.readAllLines(SELF_MAPS).stream().noneMatch(l -> mapped.matcher(l).find()))
            {
                return true;
            }
            if (System.nanoTime() - deadline > 0)
            {
                return false;
            }
            Thread.sleep(10);
        }
    }

    /** The directory named AVs are created in. */
    public static Path shmDirectory()
    {
        return DomainAttr.defaultShmDirectory();
    }

    /**
     * Removes leftover benchmark AVs of dead runs (names start with shmav-bench-) as any AV is removed, by identity
     * and with its lock file; one that cannot be removed (not an AV, still held) is left.
     */
    public static void removeLeftovers() throws IOException
    {
        try (var files = Files.list(shmDirectory()); Domain domain = domain())
        {
            for (final Path p : files.toList())
            {
                final String n = p.getFileName().toString();
                if (n.startsWith("shmav-bench-") && !n.contains("-" + ProcessHandle.current().pid() + "-"))
                {
                    final String[] parts = n.split("-");
                    if (parts.length > 3 && isDead(parts[3]))
                    {
                        try
                        {
                            domain.unlinkAv(n);
                        }
                        catch (final FabricException e)
                        {
                            System.err.println("left " + p + ": " + e.getMessage());
                        }
                    }
                }
            }
        }
    }

    private static boolean isDead(final String pid)
    {
        try
        {
            return ProcessHandle.of(Long.parseLong(pid)).map(h -> !h.isAlive()).orElse(true);
        }
        catch (final NumberFormatException e)
        {
            return false;
        }
    }

    /**
     * Inserts the first {@code n} addresses of {@code addrs} one a call, as a program does one by one.
     *
     * @return this thread's CPU time per insert, in ns (elapsed time is meaningless on a shared host)
     */
    static double cpuNanosPerInsert(final AddressVector av, final ByteBuffer addrs, final int n)
    {
        final long[] one = new long[1];
        final long t0 = THREADS.getCurrentThreadCpuTime();
        for (int i = 0; i < n; i++)
        {
            addrs.position(i * BenchAddresses.ADDRLEN);
            if (av.insert(addrs, 1, one, 0, null) != 1)
            {
                throw new IllegalStateException("insert " + i + " failed");
            }
        }
        return (THREADS.getCurrentThreadCpuTime() - t0) / (double)n;
    }
}
