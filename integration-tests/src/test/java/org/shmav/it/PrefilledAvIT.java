package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.shmav.AddressVector;
import org.shmav.Addresses;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.cli.ShmavCli;
import org.shmav.job.PrefilledAv;

/**
 * The pre-filled pattern (docs/jobs-across-nodes.md): a prologue fills the node's AV (rank r at entry r)
 * and marks it; {@code shmav gc} keeps it however idle until its job runs; the ranks, under MPICH's
 * mpiexec with {@code SHMAV_PREFILLED=1}, open it read-only and find every rank without inserting; the C
 * program {@code src/main/c/shmav_job_peers.c}, built on the shipped header, finds every rank through
 * {@code map_addr}; after the job, gc removes the AV.
 */
class PrefilledAvIT
{
    private static final int RANKS = 3;

    @Test
    void shouldLetRanksAndACProgramReadAnAvFilledBeforeTheJob() throws Exception
    {
        final Path mpiexec = Path.of(System.getProperty("shmav.it.mpiexec.hydra", "/usr/bin/mpiexec.hydra"));
        Require.that("MPI", Files.isExecutable(mpiexec), mpiexec + " missing: apt-get install mpich");
        // Without gcc the C part is left out and the test reports itself skipped at its end; where MPI is
        // required, gcc is too (.ci/run installs both), and its absence fails here before anything runs.
        final boolean gcc = Require.onPath("gcc").isPresent();
        if (!gcc)
        {
            Require.that("MPI", Require.strictBy("MPI").isEmpty(), "gcc not found on PATH: apt-get install gcc");
        }
        try (TestDir dir = TestDir.inShm("prefilled-it-"); TestDir logs = TestDir.inTmp("prefilled-it-logs-"))
        {
            final String name = "job-" + ProcessHandle.current().pid() + "-" + Long.toHexString(System.nanoTime());
            final List<String> expected = new ArrayList<>();
            // the prologue: an FI_AV_MAP AV, rank r's address at entry r, then the mark
            try (Domain domain = Domain.open(DomainAttr.builder().shmDirectory(dir.path()).build());
                 AddressVector av = domain.openAv(AvAttr.builder().type(AvType.MAP).count(RANKS).name(name).build()))
            {
                for (int r = 0; r < RANKS; r++)
                {
                    av.insertAt(r, Addresses.toSockaddr(new InetSocketAddress("127.0.0.1", 9100 + r)));
                    expected.add("127.0.0.1:" + (9100 + r));
                }
            }
            PrefilledAv.mark(dir.path(), name);
            assertTrue(gc(dir.path()).contains("kept      " + name + ": filled for a job that has not run yet"),
                "gc --grace 0 keeps the AV its job has not opened");

            final String view = String.join(" ", expected);
            try (ChildJvm run = ChildJvm.command(List.of(mpiexec.toString(), "-n", Integer.toString(RANKS),
                     "-genv", "SHMAV_PREFILLED", "1", "-genv", "SHMAV_AV", name, Path.of(System.getProperty("java.home"),
                     "bin", "java").toString(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
                     System.getProperty("java.class.path"), PrefilledRank.class.getName()),
                 Map.of("SHMAV_DIR", dir.path().toString()), logs.path()))
            {
                assertEquals(0, run.waitFor(Duration.ofSeconds(120)), () -> run.stdout() + run.stderr());
                for (int r = 0; r < RANKS; r++)
                {
                    assertTrue(run.stdout().contains("prefilled " + r + " fiaddr=") &&
                        run.stdout().contains("readonly=true view: " + view), run.stdout());
                }
            }
            assertFalse(Files.exists(PrefilledAv.path(dir.path(), name)), "the job's first rank removed the mark");

            if (gcc)
            {
                final String c = runC(dir.path().resolve(name), logs.path());
                for (int r = 0; r < RANKS; r++)
                {
                    assertTrue(c.contains("rank " + r + " fi_addr ") && c.contains(" 127.0.0.1:" + (9100 + r) + "\n"), c);
                }
                assertTrue(c.contains("found 3 of 3"), c);
            }

            assertTrue(gc(dir.path()).contains("removed   " + name), "after its job, gc removes it as any idle AV");
            assertFalse(Files.exists(dir.path().resolve(name)));
        }
        Require.that("MPI", gcc, "gcc not found on PATH (apt-get install gcc): the C program src/main/c/shmav_job_peers.c " +
            "was NOT tested; the rest was");
    }

    private static String gc(final Path dir)
    {
        final StringWriter out = new StringWriter();
        ShmavCli.execute(new PrintWriter(out, true), new PrintWriter(new StringWriter(), true), "--dir", dir.toString(),
            "gc", "--grace", "0");
        return out.toString();
    }

    /** Builds shmav_job_peers.c with gcc and runs it on the AV file. */
    private static String runC(final Path av, final Path logs) throws Exception
    {
        final Path base = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
        final Path binary = base.resolve("target/c/shmav_job_peers");
        Files.createDirectories(binary.getParent());
        final ChildJvm.Outcome gcc = ChildJvm.run(List.of("gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-o",
            binary.toString(), base.resolve("src/main/c/shmav_job_peers.c").toString()), Duration.ofSeconds(60));
        assertEquals(0, gcc.code(), gcc::toString);
        final ChildJvm.Outcome c = ChildJvm.run(List.of(binary.toString(), av.toString(), Integer.toString(RANKS)),
            Duration.ofSeconds(30));
        assertEquals(0, c.code(), c::toString);
        return c.stdout() + c.stderr();
    }
}
