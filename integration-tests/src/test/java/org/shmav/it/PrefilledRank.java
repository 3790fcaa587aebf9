package org.shmav.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.shmav.Rank;

/**
 * A rank of a job whose AV a prologue filled ({@code SHMAV_PREFILLED=1}): inserts nothing, prints
 * {@code prefilled R fiaddr=F readonly=B view: IP:PORT ...} with every rank's address as the AV holds it.
 */
public final class PrefilledRank
{
    private PrefilledRank()
    {
    }

    public static void main(final String[] args)
    {
        try (Rank rank = Rank.fromEnvironment())
        {
            rank.awaitAll(Duration.ofSeconds(30));
            final List<String> view = new ArrayList<>();
            for (int r = 0; r < rank.size(); r++)
            {
                view.add(rank.peer(r).getAddress().getHostAddress() + ":" + rank.peer(r).getPort());
            }
            rank.publish(rank.peer(rank.rank())); // only checks this rank's entry
            System.out.println("prefilled " + rank.rank() + " fiaddr=" + rank.fiAddr() + " readonly=" +
                ((rank.av().attr().flags() & org.shmav.Fi.READ) != 0) + " view: " + String.join(" ", view));
        }
    }
}
