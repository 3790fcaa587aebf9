package org.shmav.launch;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;

import org.shmav.AddrFormat;
import org.shmav.Addresses;
import org.shmav.JobAddrFormat;
import org.shmav.Rank;

/**
 * The ring demo ({@code scripts/avrun -n 4 --demo ring}): every rank listens on a real TCP socket,
 * publishes its address in the job's AV, waits until every rank has, then a token goes round the ring.
 * Rank 0 sends 1 to rank 1; rank r receives r and sends r+1 to rank (r+1) % N, at the address it looked
 * up in the AV; rank 0 receives N back, and sends it round once more (2N back), to time a warm ring.
 * Nothing but the AV tells a rank where its neighbour listens. Across nodes the launcher's store fills
 * each node's AV with every rank ({@link Rank}); ranks listen on 127.0.0.1, or on ::1 in a job of IPv6
 * addresses ({@code --addr-format in6}, {@value JobAddrFormat#ENV}), unless {@value #LISTEN_ENV} names an
 * address of this node that the other nodes reach (on simulated nodes, which share one network namespace,
 * the loopback address does).
 *
 * <p>Exit status 0 when the token came back with the value N (then 2N), 1 otherwise (with the reason on stderr).
 */
public final class RingDemo
{
    /** Bound on every wait: for the other ranks, for a connection, for the token. */
    static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** Times the token goes round: the first round pays for class loading in every JVM, the second does not. */
    static final int ROUNDS = 2;
    /** Environment variable: the address to listen on (default 127.0.0.1, ::1 for in6; across real nodes, the node's own). */
    static final String LISTEN_ENV = "SHMAV_RING_LISTEN";

    private final Rank rank;
    private final ServerSocket server;

    private RingDemo(final Rank rank, final ServerSocket server)
    {
        this.rank = rank;
        this.server = server;
    }

    public static void main(final String[] args)
    {
        System.exit(run());
    }

    /** Runs this process's part of the ring; returns the exit status. */
    static int run()
    {
        try (Rank rank = Rank.fromEnvironment();
             ServerSocket server = new ServerSocket(0, 50, InetAddress.getByName(listenAddress(rank))))
        {
            server.setSoTimeout((int)TIMEOUT.toMillis());
            return new RingDemo(rank, server).play();
        }
        catch (final IOException | RuntimeException e)
        {
            System.err.println("ring: " + e);
            return 1;
        }
    }

    /** {@value #LISTEN_ENV}, else the loopback address of the job's family: 127.0.0.1 ({@code in}) or ::1 ({@code in6}). */
    private static String listenAddress(final Rank rank)
    {
        final JobAddrFormat format = rank.addrFormat();
        if (!format.socketAddresses())
        {
            throw new IllegalStateException("the ring demo's ranks publish TCP socket addresses, but this job's AV holds " +
                format.describe() + " addresses: run it with --addr-format in or in6 (" + JobAddrFormat.ENV + ")");
        }
        final String listen = System.getenv(LISTEN_ENV);
        return listen != null ? listen : format.equals(JobAddrFormat.IN6) ? "::1" : "127.0.0.1";
    }

    private int play() throws IOException
    {
        final int r = rank.rank();
        final int n = rank.size();
        final InetSocketAddress self = (InetSocketAddress)server.getLocalSocketAddress();
        rank.publish(self);
        final long publishedMillis = millisSinceJvmStart();
        System.out.println("rank " + r + " of " + n + " (" + rank.launcher() + ") listening on " + address(self) +
            ", published at fi_addr " + rank.fiAddr() + (rank.spansNodes() ? " (local rank " + rank.localRank() + " of " +
            rank.localSize() + " on its node)" : ""));
        rank.awaitAll(TIMEOUT);
        final long wiredMillis = millisSinceJvmStart();
        // across nodes without the launcher's store, peer throws FI_EOPNOTSUPP saying what the store needs
        final InetSocketAddress next = rank.peer((r + 1) % n);
        System.out.println("all " + n + " ranks in the AV; next is rank " + (r + 1) % n + " at " + address(next) +
            " (fi_addr " + rank.fiAddrOf((r + 1) % n) + ")");
        if (r != 0)
        {
            for (int round = 0; round < ROUNDS; round++)
            {
                final long token = receive();
                System.out.println("received token " + token + ", passing " + (token + 1) + " to rank " + (r + 1) % n);
                send(next, token + 1);
            }
            return 0;
        }
        final double[] roundMillis = new double[ROUNDS];
        long token = 0;
        for (int round = 0; round < ROUNDS; round++)
        {
            final long start = System.nanoTime();
            send(next, token + 1);
            token = receive();
            roundMillis[round] = (System.nanoTime() - start) / 1e6;
            if (token != (long)n * (round + 1))
            {
                System.err.println("ring: round " + (round + 1) + ": token came back as " + token + ", expected " +
                    (long)n * (round + 1));
                return 1;
            }
        }
        System.out.println("token came back with value " + n + " after " + n + " hops: ring OK (round 2: " + token + ")");
        // one println per line: a launcher that forwards output in chunks (Hydra) never splits it
        System.out.println(String.format("wire-up: %d ms from JVM start until all %d ranks were in the AV " +
            "(rank 0 published at %d ms)", wiredMillis, n, publishedMillis));
        System.out.println(String.format("ring: %.1f ms for %d hops in round 1 (cold JVMs), %.1f ms in round 2",
            roundMillis[0], n, roundMillis[1]));
        return 0;
    }

    /** Accepts one connection from the previous rank and reads the token. */
    private long receive() throws IOException
    {
        try (Socket s = server.accept())
        {
            s.setSoTimeout((int)TIMEOUT.toMillis());
            return new DataInputStream(s.getInputStream()).readLong();
        }
    }

    private static void send(final InetSocketAddress to, final long token) throws IOException
    {
        try (Socket s = new Socket())
        {
            s.connect(to, (int)TIMEOUT.toMillis());
            final DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeLong(token);
            out.flush();
        }
    }

    /**
     * Milliseconds since this JVM started, by the JVM's own start time (recorded in milliseconds when it
     * began). ProcessHandle's start time would be the kernel's, rounded down to whole seconds.
     */
    private static long millisSinceJvmStart()
    {
        return System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime();
    }

    private static String address(final InetSocketAddress a)
    {
        // as fi_av_straddr writes it, without its scheme: 127.0.0.1:5000, [::1]:5000
        final String text = Addresses.straddr(AddrFormat.SOCKADDR_IN6, Addresses.toSockaddr(a));
        return text.substring(text.indexOf("://") + 3);
    }
}
