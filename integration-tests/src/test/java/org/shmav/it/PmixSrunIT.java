package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.shmav.store.PmixStore;

/**
 * {@link PmixStore} under a real {@code srun --mpi=pmix} (Slurm 22.05's mpi/pmix_v4 plugin on libpmix2)
 * across two simulated nodes ({@link Pmi2Slurm}): the values cross from n1 to n2 only through Slurm's step daemons.
 */
class PmixSrunIT
{
    @ParameterizedTest
    @ValueSource(strings = {"n1,n1,n2,n2", "n1,n1,n1,n2"})
    void shouldGiveEveryRankEveryRanksValueAcrossNodes(final String layout) throws Exception
    {
        final List<String> nodes = List.of(layout.split(","));
        final String out = Pmi2Slurm.srun("pmix", nodes, PmixStoreRank.class, "every");
        final String all = "rank-0@" + nodes.get(0) + " rank-1@" + nodes.get(1) + " rank-2@" + nodes.get(2) + " rank-3@" +
            nodes.get(3);
        for (int r = 0; r < 4; r++)
        {
            assertTrue(Pattern.compile("rank " + r + " of 4 on " + nodes.get(r) + " sees every rank: " + all +
                " \\(Slurm srun \\(PMIx namespace slurm\\.pmix\\.\\d+\\.0\\)\\)").matcher(out).find(), out);
        }
    }

    @Test
    void shouldAnswerAMissingKeyWithEnodataNamingRankAndLauncher() throws Exception
    {
        final String out = Pmi2Slurm.srun("pmix", List.of("n1", "n2"), PmixStoreRank.class, "missing");
        for (int r = 0; r < 2; r++)
        {
            assertTrue(Pattern.compile("rank " + r + " got FI_ENODATA after \\d+ ms: PMIx_Get: .*rank=" + (1 - r) +
                " key=no-such-key launcher=Slurm srun \\(PMIx namespace slurm\\.pmix\\.\\d+\\.0\\) answered NOT-FOUND")
                .matcher(out).find(), out);
        }
    }

    @Test
    void shouldTimeOutTheExchangeWhenARankNeverPublishes() throws Exception
    {
        final String out = Pmi2Slurm.srun("pmix", List.of("n1", "n2"), PmixStoreRank.class, "silent");
        final Matcher m = Pattern.compile("rank 0 got FI_ETIMEDOUT after (\\d+) ms: PMIx_Fence: .*launcher=Slurm srun " +
            "\\(PMIx namespace slurm\\.pmix\\.\\d+\\.0\\): the exchange did not complete within 5000 ms").matcher(out);
        assertTrue(m.find(), out);
        final long ms = Long.parseLong(m.group(1));
        assertTrue(ms >= 5_000 && ms < 8_000, out);
        assertTrue(out.contains("rank 1 stayed silent"), out);
        assertEquals(-1, out.indexOf("rank 1 got"), out);
    }

    /**
     * A rank that dies before it publishes (exit 3): srun lets the others run (no --kill-on-bad-exit),
     * and each gets an error from its exchange within the 20 s deadline, naming the launcher.
     */
    @Test
    void shouldGiveEverySurvivingRankAnErrorWhenARankDiesBeforePublishing() throws Exception
    {
        final String out = Pmi2Slurm.srun("pmix", List.of("n1", "n1", "n2", "n2"), PmixStoreRank.class, "die", false);
        assertTrue(out.contains("rank 3 dies before it publishes"), out);
        for (int r = 0; r < 3; r++)
        {
            final Matcher m = Pattern.compile("rank " + r + " got FI_E\\w+ after (\\d+) ms: .*launcher=Slurm srun " +
                "\\(PMIx namespace slurm\\.pmix\\.\\d+\\.0\\)").matcher(out);
            assertTrue(m.find(), out);
            assertTrue(Long.parseLong(m.group(1)) < 23_000, out);
        }
    }
}
