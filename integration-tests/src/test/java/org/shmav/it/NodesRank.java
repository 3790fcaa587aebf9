package org.shmav.it;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.shmav.FabricException;
import org.shmav.Rank;

/**
 * A rank for the tests across simulated nodes: listens on a real socket, publishes it, waits for the
 * whole job, and prints the address it published and every rank's address as its node's AV holds it:
 * {@code self R host=H local=L/LS at=A fiaddr=F} and {@code view R: A0 A1 ...}. A
 * {@link FabricException} prints {@code error R errno=E: message} and exits with 0 (so that Hydra, which
 * ends a job at a rank's failure, lets every rank report).
 *
 * <p>Faults, chosen by {@code NODES_FAULT}: {@code skip-publish:R} (rank R calls awaitAll without
 * publishing), {@code hang:R} (rank R never reaches awaitAll), {@code exit:R} (rank R exits before it
 * publishes, with status 0). {@code NODES_WAIT} is awaitAll's timeout in seconds (60). With {@code NODES_REPORTS}
 * set, a directory every node sees, the ranks that print an error say so there ({@link RankReports}) and a hanging
 * rank ends once every other rank has, instead of after 3 times the timeout.
 */
public final class NodesRank
{
    private NodesRank()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String fault = System.getenv().getOrDefault("NODES_FAULT", "none");
        final Duration wait = Duration.ofSeconds(Long.parseLong(System.getenv().getOrDefault("NODES_WAIT", "60")));
        final Path reports = System.getenv("NODES_REPORTS") == null ? null : Path.of(System.getenv("NODES_REPORTS"));
        final Rank opened;
        try
        {
            opened = Rank.fromEnvironment();
        }
        catch (final FabricException e)
        {
            System.out.println("error " + System.getenv("PMI_RANK") + " errno=" + e.errno() + ": " + e.getMessage());
            System.out.flush();
            System.exit(0);
            return;
        }
        try (Rank rank = opened;
             ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress()))
        {
            final InetSocketAddress self = (InetSocketAddress)server.getLocalSocketAddress();
            final String host = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
            if (fault.equals("exit:" + rank.rank()))
            {
                System.out.println("exit " + rank.rank());
                System.out.flush();
                System.exit(0);
            }
            if (fault.equals("hang:" + rank.rank()))
            {
                RankReports.awaitOthers(reports, rank.rank(), rank.size(), wait.multipliedBy(3));
                return;
            }
            if (!fault.equals("skip-publish:" + rank.rank()))
            {
                rank.publish(self);
            }
            try
            {
                rank.awaitAll(wait);
            }
            catch (final FabricException e)
            {
                System.out.println("error " + rank.rank() + " errno=" + e.errno() + ": " + e.getMessage());
                RankReports.reported(reports, rank.rank());
                System.out.flush();
                System.exit(0); // status 0 and cmd=finalize: Hydra lets the other ranks report too
            }
            System.out.println("self " + rank.rank() + " host=" + host + " local=" + rank.localRank() + "/" +
                rank.localSize() + " at=" + self.getPort() + " fiaddr=" + rank.fiAddr() + " type=" +
                rank.av().attr().type() + " count=" + rank.av().count() + " " + rank);
            final List<String> view = new ArrayList<>();
            for (int r = 0; r < rank.size(); r++)
            {
                view.add(Integer.toString(rank.peer(r).getPort()));
            }
            System.out.println("view " + rank.rank() + ": " + String.join(" ", view));
        }
    }
}
