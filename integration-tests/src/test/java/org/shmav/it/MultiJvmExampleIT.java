package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;

import org.shmav.Rank;
import org.shmav.junit.MultiJvmTest;

/** The README's example of a multi-JVM test: four JVMs find each other through a fresh AV and talk over TCP. */
class MultiJvmExampleIT
{
    @MultiJvmTest(ranks = 4, timeoutSeconds = 60)
    void everyRankReachesTheNextOneAtTheAddressInTheAv(final Rank rank) throws IOException
    {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress()))
        {
            server.setSoTimeout(30_000);
            rank.publish((InetSocketAddress)server.getLocalSocketAddress()); // at fi_addr = rank
            rank.awaitAll(Duration.ofSeconds(30));

            final int next = (rank.rank() + 1) % rank.size();
            final int previous = (rank.rank() + rank.size() - 1) % rank.size();
            try (Socket toNext = new Socket(rank.peer(next).getAddress(), rank.peer(next).getPort()))
            {
                new DataOutputStream(toNext.getOutputStream()).writeInt(rank.rank());
            }
            try (Socket fromPrevious = server.accept())
            {
                assertEquals(previous, new DataInputStream(fromPrevious.getInputStream()).readInt());
            }
            System.out.println("rank " + rank.rank() + " heard from rank " + previous);
        }
    }
}
