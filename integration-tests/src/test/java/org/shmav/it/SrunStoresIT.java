package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.parallel.Isolated;
import org.shmav.store.Pmi2Store;
import org.shmav.store.PmixStore;

/**
 * {@link Pmi2Store} and {@link PmixStore} under a real {@code srun} (Slurm 22.05's mpi/pmi2 plugin, and
 * its mpi/pmix_v4 plugin on libpmix2) across two simulated nodes ({@link SimulatedSlurm}): the values cross
 * from n1 to n2 only through Slurm's step daemons.
 */
@Isolated("asserts when a timeout fires (2 to 5 s): runs alone, not beside other test classes")
class SrunStoresIT
{
    /** The survivors' exchange deadline when a rank dies before publishing. */
    private static final int DIE_DEADLINE_SECONDS = 5;

    /** One of Slurm's stores: srun's --mpi value, the rank program, and how its messages read. */
    enum Store
    {
        PMI2("pmi2", Pmi2StoreRank.class, "PMI-2 over PMI_FD, job \\d+\\.0", "kvs-get", "kvs-fence",
            ": launcher=%s has no such value"),
        PMIX("pmix", PmixStoreRank.class, "PMIx namespace slurm\\.pmix\\.\\d+\\.0", "PMIx_Get", "PMIx_Fence",
            " launcher=%s answered NOT-FOUND");

        final String mpi;
        final Class<?> rank;
        /** The launcher as the store's messages name it, as a regular expression. */
        final String launcher;
        final String get;
        final String fence;
        /** What follows "key=no-such-key" in a missing key's message (%s: the launcher). */
        final String missing;

        Store(final String mpi, final Class<?> rank, final String store, final String get, final String fence,
            final String missing)
        {
            this.mpi = mpi;
            this.rank = rank;
            this.launcher = "Slurm srun \\(" + store + "\\)";
            this.get = get;
            this.fence = fence;
            this.missing = missing;
        }
    }

    @ParameterizedTest
    @EnumSource(Store.class)
    void shouldGiveEveryRankEveryRanksValueAcrossNodes(final Store store) throws Exception
    {
        for (final String layout : List.of("n1,n1,n2,n2", "n1,n1,n1,n2"))
        {
            final List<String> nodes = List.of(layout.split(","));
            final String out = SimulatedSlurm.srun(store.mpi, nodes, store.rank, "every");
            final String all = "rank-0@" + nodes.get(0) + " rank-1@" + nodes.get(1) + " rank-2@" + nodes.get(2) +
                " rank-3@" + nodes.get(3);
            for (int r = 0; r < 4; r++)
            {
                assertTrue(Pattern.compile("rank " + r + " of 4 on " + nodes.get(r) + " sees every rank: " + all +
                    " \\(" + store.launcher + "\\)").matcher(out).find(), out);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Store.class)
    void shouldAnswerAMissingKeyWithEnodataNamingRankAndLauncher(final Store store) throws Exception
    {
        final String out = SimulatedSlurm.srun(store.mpi, List.of("n1", "n2"), store.rank, "missing");
        for (int r = 0; r < 2; r++)
        {
            assertTrue(Pattern.compile("rank " + r + " got FI_ENODATA after \\d+ ms: " + store.get + ": .*rank=" +
                (1 - r) + " key=no-such-key" + String.format(store.missing, store.launcher)).matcher(out).find(), out);
        }
    }

    @ParameterizedTest
    @EnumSource(Store.class)
    void shouldTimeOutTheExchangeWhenARankNeverPublishes(final Store store) throws Exception
    {
        final String out;
        try (TestDir reports = TestDir.inVarTmp("srun-silent-it-"))
        {
            out = SimulatedSlurm.srun(store.mpi, List.of("n1", "n2"), store.rank, List.of("silent", reports.path().toString()),
                true);
        }
        final Matcher m = Pattern.compile("rank 0 got FI_ETIMEDOUT after (\\d+) ms: " + store.fence + ": .*launcher=" +
            store.launcher + ": the exchange did not complete within 2000 ms").matcher(out);
        assertTrue(m.find(), out);
        final long ms = Long.parseLong(m.group(1));
        assertTrue(ms >= 2_000 && ms < 5_000, out);
        assertTrue(out.contains("rank 1 stayed silent"), out);
        assertEquals(-1, out.indexOf("rank 1 got"), out);
    }

    /**
     * A rank that dies before it publishes (exit 3): srun lets the others run (no --kill-on-bad-exit),
     * and each gets an error from its exchange within its deadline (5 s), naming the launcher. Under pmi2
     * the survivors wait out the whole deadline (Slurm's pmi2 plugin does not end the fence), so it is short.
     */
    @ParameterizedTest
    @EnumSource(Store.class)
    void shouldGiveEverySurvivingRankAnErrorWhenARankDiesBeforePublishing(final Store store) throws Exception
    {
        final String out = SimulatedSlurm.srun(store.mpi, List.of("n1", "n1", "n2", "n2"), store.rank,
            List.of("die:" + DIE_DEADLINE_SECONDS), false);
        assertTrue(out.contains("rank 3 dies before it publishes"), out);
        for (int r = 0; r < 3; r++)
        {
            final Matcher m = Pattern.compile("rank " + r + " got FI_E\\w+ after (\\d+) ms: .*launcher=" +
                store.launcher).matcher(out);
            assertTrue(m.find(), out);
            assertTrue(Long.parseLong(m.group(1)) < (DIE_DEADLINE_SECONDS + 3) * 1_000L, out);
        }
    }
}
