package org.shmav.it;

import java.net.InetSocketAddress;
import java.time.Duration;

import org.shmav.Rank;

/**
 * A rank for {@link ForeignLauncherJobIT}: takes its rank from the environment, publishes, waits for
 * the node's ranks, prints one line, then either closes its {@code Rank} ({@code close}) or dies
 * without closing anything ({@code die}: {@code Runtime.halt}, as a killed process would).
 */
public final class NodeRankProbe
{
    private NodeRankProbe()
    {
    }

    public static void main(final String[] args)
    {
        final Rank rank = Rank.fromEnvironment();
        rank.publish(new InetSocketAddress("127.0.0.1", 20_000 + rank.rank()));
        rank.awaitAll(Duration.ofSeconds(60));
        System.out.println("rank " + rank.rank() + " of " + rank.size() + " (" + rank.launcher() + ") local " +
            rank.localRank() + "/" + rank.localSize() + " av=" + rank.av().attr().name() + " peer0=" + rank.nodePeer(0));
        System.out.flush();
        if ("die".equals(args[0]))
        {
            Runtime.getRuntime().halt(0);
        }
        rank.close();
    }
}
