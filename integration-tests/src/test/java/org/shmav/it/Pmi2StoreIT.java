package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.shmav.store.Pmi2Store;
import org.shmav.store.Pmi2TestServer;

/**
 * {@link Pmi2Store} in real JVMs that inherit their PMI-2 socket as a descriptor, as a Slurm task
 * inherits {@code PMI_FD} from its step daemon: bash opens the connection to {@link Pmi2TestServer} on
 * descriptor 5 ({@code exec 5<>/dev/tcp/...}) and execs the JVM with {@code PMI_FD=5}. No slurmd runs
 * here, so the server is the test's, speaking the protocol as Slurm's {@code mpi/pmi2} plugin does.
 */
class Pmi2StoreIT
{
    @Test
    void shouldGiveEveryRankEveryRanksValueOverAnInheritedDescriptor() throws Exception
    {
        Require.that("MPI", Files.isExecutable(Path.of("/bin/bash")), "needs bash for /dev/tcp");
        try (Pmi2TestServer server = Pmi2TestServer.start(3); TestDir logs = TestDir.inTmp("pmi2-store-it-"))
        {
            final List<ChildJvm> tasks = new ArrayList<>();
            try
            {
                for (int r = 0; r < 3; r++)
                {
                    final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
                    final String script = "exec 5<>/dev/tcp/127.0.0.1/" + server.port() + " && exec \"$0\" " +
                        "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xmx128m -cp \"$1\" " + Pmi2StoreRank.class.getName();
                    tasks.add(ChildJvm.command(List.of("/bin/bash", "-c", script, java, System.getProperty("java.class.path")),
                        Map.of("PMI_FD", "5", "PMI_JOBID", "77.0", "PMI_RANK", Integer.toString(r), "PMI_SIZE", "3",
                            "SLURM_JOB_ID", "77"), logs.path()));
                }
                for (int r = 0; r < 3; r++)
                {
                    final ChildJvm task = tasks.get(r);
                    assertEquals(0, task.waitFor(Duration.ofSeconds(60)), task.stdout() + task.stderr());
                    assertTrue(Pattern.compile("rank " + r + " of 3 on \\S+ sees every rank: rank-0@\\S+ rank-1@\\S+ " +
                        "rank-2@\\S+ \\(Slurm srun \\(PMI-2 over PMI_FD, job 77\\.0\\)\\)").matcher(task.stdout()).find(),
                        task.stdout() + task.stderr());
                }
            }
            finally
            {
                for (final ChildJvm task : tasks)
                {
                    task.close();
                }
            }
            assertEquals(3, server.received().stream().filter(m -> m.endsWith("cmd=finalize;")).count(),
                "every task finalized: " + server.received());
        }
    }
}
