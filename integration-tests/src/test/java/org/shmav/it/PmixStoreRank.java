package org.shmav.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.store.JobStore;
import org.shmav.store.PmixStore;

/**
 * A rank for {@link PmixStoreIT}, started by {@code mpirun} or {@code srun --mpi=pmix}: opens
 * {@link PmixStore} and does one of
 * <ul>
 * <li>{@code every}: publishes {@code rank-R@HOST}, exchanges, fetches every rank's value, checks each
 *     and prints {@code rank R of N on HOST sees every rank} with the time each step took;</li>
 * <li>{@code missing}: exchanges, then fetches a key that no rank published from the next rank and
 *     prints the error;</li>
 * <li>{@code silent}: the last rank neither publishes nor exchanges; the others exchange with a 2 s
 *     timeout and print the error and how long it took; the silent rank stays until they all have (the
 *     directory of {@link RankReports}, the second argument) or, without one, for 15 s;</li>
 * <li>{@code die} or {@code die:S}: the last rank exits with status 3 right after opening the store; the others
 *     exchange with a timeout of S seconds (20), fetch every rank's value, and print whatever error they get;</li>
 * <li>{@code cost}: times fetches and exchanges after a warm-up (for {@code docs/launcher-stores.md}).</li>
 * </ul>
 * Every line starts with {@code rank R}; a line with {@code FAILED} is a failure the IT reports.
 */
public final class PmixStoreRank
{
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Duration SHORT = Duration.ofSeconds(5);
    /** The others' exchange deadline in {@code silent}: every test that waits it out waits alone (@Isolated). */
    private static final Duration SILENT = Duration.ofSeconds(2);

    private PmixStoreRank()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        // the UTS name of the simulated node (its name is in no resolver)
        final String host = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
        final long t0 = System.nanoTime();
        final Optional<JobStore> opened = PmixStore.open(System.getenv());
        final long opening = System.nanoTime() - t0;
        if (opened.isEmpty())
        {
            System.out.println("rank ? FAILED: PmixStore.open found no PMIx launcher in the environment");
            return;
        }
        run(opened.get(), args[0], args.length > 1 ? Path.of(args[1]) : null, host, opening);
    }

    /**
     * Runs {@code mode} on {@code store} and closes it, {@code reports} the directory of {@link RankReports} or null;
     * {@link Pmi2StoreRank} shares it.
     */
    static void run(final JobStore store, final String mode, final Path reports, final String host, final long opening)
        throws Exception
    {
        try (store)
        {
            final int me = store.rank();
            final String[] modeAndSeconds = mode.split(":");
            switch (modeAndSeconds[0])
            {
                case "every":
                    every(store, host, opening);
                    break;
                case "missing":
                    store.publish("addr", "rank-" + me);
                    store.exchange(TIMEOUT);
                    expect(store, FiErrno.ENODATA, () -> store.fetch((me + 1) % store.size(), "no-such-key", SHORT));
                    break;
                case "silent":
                    if (me == store.size() - 1)
                    {
                        // past the others' deadline: until they reported it, at most 3 times the deadline
                        RankReports.awaitOthers(reports, me, store.size(), SHORT.multipliedBy(3));
                        System.out.println("rank " + me + " stayed silent");
                        break;
                    }
                    store.publish("addr", "rank-" + me);
                    expect(store, FiErrno.ETIMEDOUT, () -> store.exchange(SILENT));
                    RankReports.reported(reports, me);
                    break;
                case "die":
                    if (me == store.size() - 1)
                    {
                        System.out.println("rank " + me + " dies before it publishes");
                        System.out.flush();
                        Runtime.getRuntime().halt(3);
                    }
                    store.publish("addr", "rank-" + me);
                    final Duration deadline = modeAndSeconds.length > 1 ? Duration.ofSeconds(Long.parseLong(modeAndSeconds[1])) :
                        SHORT.multipliedBy(4);
                    expect(store, 0, () -> {
                        // a PMIx server may end the fence without the dead rank: then its value is missing
                        store.exchange(deadline);
                        for (int r = 0; r < store.size(); r++)
                        {
                            store.fetch(r, "addr", SHORT);
                        }
                    });
                    break;
                case "cost":
                    cost(store);
                    break;
                default:
                    throw new IllegalArgumentException(mode);
            }
        }
        System.out.flush();
    }

    private static void every(final JobStore store, final String host, final long opening)
    {
        final int me = store.rank();
        final long t0 = System.nanoTime();
        store.publish("addr", "rank-" + me + "@" + host);
        final long t1 = System.nanoTime();
        store.exchange(TIMEOUT);
        final long t2 = System.nanoTime();
        final StringBuilder seen = new StringBuilder();
        for (int r = 0; r < store.size(); r++)
        {
            final String value = store.fetch(r, "addr", TIMEOUT);
            if (!value.startsWith("rank-" + r + "@"))
            {
                System.out.println("rank " + me + " FAILED: rank " + r + "'s value is " + value);
                return;
            }
            seen.append(' ').append(value);
        }
        final long t3 = System.nanoTime();
        System.out.println(String.format("rank %d of %d on %s sees every rank:%s (%s) open=%.1fms put=%.3fms fence=%.1fms get=%.3fms",
            me, store.size(), host, seen, store.describe(), opening / 1e6, (t1 - t0) / 1e6, (t2 - t1) / 1e6,
            (t3 - t2) / 1e6 / store.size()));
    }

    /** Mean time of a fetch and of an exchange through the store, after a warm-up (for docs/launcher-stores.md). */
    private static void cost(final JobStore store)
    {
        final int me = store.rank();
        store.publish("addr", "rank-" + me);
        store.exchange(TIMEOUT);
        final int peer = (me + 1) % store.size();
        final int fetches = 2_000;
        for (int i = 0; i < fetches; i++)
        {
            store.fetch(peer, "addr", TIMEOUT);
        }
        long t0 = System.nanoTime();
        for (int i = 0; i < fetches; i++)
        {
            store.fetch(peer, "addr", TIMEOUT);
        }
        final long fetch = (System.nanoTime() - t0) / fetches;
        final int exchanges = 20;
        t0 = System.nanoTime();
        for (int i = 0; i < exchanges; i++)
        {
            store.exchange(TIMEOUT);
        }
        final long exchange = (System.nanoTime() - t0) / exchanges;
        System.out.println(String.format("rank %d cost (%s): fetch %.1f us, exchange %.1f us", me, store.describe(),
            fetch / 1e3, exchange / 1e3));
    }

    /** Runs {@code call}, which must fail with {@code errno} (0: with any errno), and prints how it failed. */
    private static void expect(final JobStore store, final int errno, final Runnable call)
    {
        final long t0 = System.nanoTime();
        try
        {
            call.run();
            System.out.println("rank " + store.rank() + " FAILED: no error, expected " +
                (errno == 0 ? "one" : FiErrno.name(errno)));
        }
        catch (final FabricException e)
        {
            final String verdict = errno == 0 || e.errno() == errno ? "got" : "FAILED: expected " + FiErrno.name(errno) +
                ", got";
            System.out.println(String.format("rank %d %s %s after %d ms: %s", store.rank(), verdict, FiErrno.name(e.errno()),
                (System.nanoTime() - t0) / 1_000_000, e.getMessage()));
        }
    }
}
