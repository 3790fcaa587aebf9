package org.shmav.it;

import java.io.BufferedWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

import org.shmav.AddressVector;
import org.shmav.Addresses;
import org.shmav.AvAttr;
import org.shmav.AvSet;
import org.shmav.AvSetAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.Fi;

/**
 * The child side of the multi-JVM tests: one process doing one role against a named AV, reporting
 * on stdout in lines the parent parses ({@code KEY value}).
 *
 * <pre>
 *   insert   DIR NAME COUNT START N STARTMILLIS  insert addresses START..START+N-1, then read all COUNT back
 *   readonly DIR NAME N                          attach with FI_READ, resolve addresses 0..N-1, try to insert
 *   loop     DIR NAME START LOG                  insert START, START+1, ... forever, logging each ack first
 *   create   DIR NAME COUNT ID STARTMILLIS       open (create or attach) at STARTMILLIS, insert address ID
 *   setaddr  DIR NAME                            print the collective address of an FI_UNIVERSE set, reversed
 * </pre>
 */
public final class AvWorker
{
    private AvWorker()
    {
    }

    /** The test address number {@code i}: 10.0.0.0 + i + 1, port 5000 + i % 1000. */
    public static InetSocketAddress address(final long i)
    {
        final long ip = 0x0A00_0000L + i + 1;
        try
        {
            return new InetSocketAddress(InetAddress.getByAddress(new byte[] {
                (byte)(ip >>> 24), (byte)(ip >>> 16), (byte)(ip >>> 8), (byte)ip}), 5000 + (int)(i % 1000));
        }
        catch (final UnknownHostException e)
        {
            throw new IllegalStateException(e);
        }
    }

    public static Domain domain(final String dir)
    {
        return Domain.open(DomainAttr.builder().shmDirectory(Path.of(dir)).build());
    }

    public static void main(final String[] args) throws Exception
    {
        switch (args[0])
        {
            case "insert" -> insert(args[1], args[2], Long.parseLong(args[3]), Long.parseLong(args[4]),
                Long.parseLong(args[5]), Long.parseLong(args[6]));
            case "readonly" -> readOnly(args[1], args[2], Long.parseLong(args[3]));
            case "loop" -> loop(args[1], args[2], Long.parseLong(args[3]), Path.of(args[4]));
            case "create" -> create(args[1], args[2], Long.parseLong(args[3]), Long.parseLong(args[4]),
                Long.parseLong(args[5]));
            case "setaddr" -> setAddr(args[1], args[2]);
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    private static void awaitStart(final long startMillis)
    {
        while (System.currentTimeMillis() < startMillis)
        {
            Thread.onSpinWait();
        }
    }

    private static void insert(final String dir, final String name, final long count, final long start, final long n,
        final long startMillis)
    {
        try (Domain d = domain(dir); AddressVector av = d.openAv(AvAttr.builder().name(name).count(count).build()))
        {
            final ByteBuffer one = ByteBuffer.allocateDirect(16);
            final long[] fiAddr = new long[1];
            awaitStart(startMillis);
            for (long i = start; i < start + n; i++)
            {
                one.clear();
                Addresses.put(one, address(i));
                one.flip();
                if (av.insert(one, 1, fiAddr, 0, null) != 1)
                {
                    System.out.println("FAIL insert " + i);
                    System.exit(2);
                }
            }
            System.out.println("INSERTED " + n);
            if (!av.awaitCount(count, Duration.ofSeconds(60)))
            {
                System.out.println("FAIL count " + av.count());
                System.exit(3);
            }
            // Read every entry back and check that the AV holds exactly the expected universe.
            final boolean[] seen = new boolean[(int)count];
            final ByteBuffer out = ByteBuffer.allocate(16);
            for (long f = 0; f < count; f++)
            {
                out.clear();
                av.lookup(f, out);
                final InetSocketAddress a = Addresses.toInetSocketAddress(out);
                final long id = (Integer.toUnsignedLong(ByteBuffer.wrap(a.getAddress().getAddress()).getInt()) - 0x0A00_0000L) - 1;
                if (id < 0 || id >= count || seen[(int)id] || !address(id).equals(a))
                {
                    System.out.println("FAIL readback fi_addr=" + f + " address=" + a);
                    System.exit(4);
                }
                seen[(int)id] = true;
            }
            System.out.println("READBACK " + count);
        }
    }

    private static void readOnly(final String dir, final String name, final long n)
    {
        try (Domain d = domain(dir);
             AddressVector av = d.openAv(AvAttr.builder().name(name).flags(Fi.READ).build()))
        {
            final StringBuilder line = new StringBuilder("FIADDRS");
            for (long i = 0; i < n; i++)
            {
                line.append(' ').append(av.reverseLookup(Addresses.toSockaddr(address(i))));
            }
            System.out.println(line);
            final ByteBuffer out = ByteBuffer.allocate(16);
            av.lookup(0, out);
            System.out.println("LOOKUP0 " + av.straddr(out));
            System.out.println("COUNT " + av.count());
            try
            {
                av.insert(Addresses.toSockaddr(address(n + 1)), 1, null, 0, null);
                System.out.println("INSERT succeeded");
            }
            catch (final FabricException e)
            {
                System.out.println("INSERT errno " + e.errno());
            }
        }
    }

    private static void loop(final String dir, final String name, final long start, final Path log) throws Exception
    {
        try (Domain d = domain(dir); AddressVector av = d.openAv(AvAttr.builder().name(name).build());
             BufferedWriter out = Files.newBufferedWriter(log, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                 StandardOpenOption.APPEND))
        {
            final ByteBuffer one = ByteBuffer.allocateDirect(16);
            final long[] fiAddr = new long[1];
            System.out.println("READY");
            for (long i = start; ; i++)
            {
                one.clear();
                Addresses.put(one, address(i));
                one.flip();
                if (av.insert(one, 1, fiAddr, 0, null) == 1)
                {
                    out.write(fiAddr[0] + " " + i + "\n");
                    out.flush();
                }
            }
        }
    }

    /** Builds the same group another process builds (every entry, reversed) and prints its address. */
    private static void setAddr(final String dir, final String name)
    {
        try (Domain d = domain(dir);
             AddressVector av = d.openAv(AvAttr.builder().name(name).flags(Fi.READ).build());
             AvSet all = av.openSet(AvSetAttr.builder().flags(Fi.UNIVERSE).build());
             AvSet reversed = av.openSet(AvSetAttr.builder().build()))
        {
            final long[] members = all.members();
            for (int i = members.length - 1; i >= 0; i--)
            {
                reversed.insert(members[i]);
            }
            System.out.println("SETADDR " + reversed.addr());
        }
    }

    private static void create(final String dir, final String name, final long count, final long id, final long startMillis)
    {
        awaitStart(startMillis);
        try (Domain d = domain(dir); AddressVector av = d.openAv(AvAttr.builder().name(name).count(count).build()))
        {
            final long[] fiAddr = new long[1];
            av.insert(Addresses.toSockaddr(address(id)), 1, fiAddr, 0, null);
            System.out.println("FIADDR " + fiAddr[0]);
            System.out.println("MAPADDR " + av.attr().mapAddr());
        }
    }
}
