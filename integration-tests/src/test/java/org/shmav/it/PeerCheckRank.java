package org.shmav.it;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;

import org.shmav.Rank;

/**
 * A rank for the launcher tests: listens on a real socket, publishes it, waits for every rank, looks
 * every peer up and checks it found itself where it published. Prints one summary line.
 */
public final class PeerCheckRank
{
    private PeerCheckRank()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        try (Rank rank = Rank.fromEnvironment();
             ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress()))
        {
            final InetSocketAddress self = (InetSocketAddress)server.getLocalSocketAddress();
            rank.publish(self);
            rank.awaitAll(Duration.ofSeconds(60));
            int distinct = 0;
            for (int r = 0; r < rank.size(); r++)
            {
                final InetSocketAddress peer = rank.peer(r);
                if (r == rank.rank() && !peer.equals(self))
                {
                    System.err.println("rank " + r + " published " + self + " but the AV holds " + peer);
                    System.exit(1);
                }
                distinct += peer.getPort() > 0 ? 1 : 0;
            }
            System.out.println("rank " + rank.rank() + " of " + rank.size() + " env=" + System.getenv("SHMAV_SIZE") +
                "," + System.getenv("SHMAV_AV") + " peers=" + distinct + " launcher=" + rank.launcher() + " local=" +
                rank.localRank() + "/" + rank.localSize() + " av=" + rank.av().attr().name());
        }
    }
}
