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
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
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
        final Path mpiexec = Path.of("/usr/bin/mpiexec.hydra");
        if (!Files.isExecutable(mpiexec))
        {
            if ("1".equals(System.getenv("SHMAV_IT_REQUIRE_MPI")))
            {
                throw new AssertionError("mpiexec.hydra missing: apt-get install mpich (SHMAV_IT_REQUIRE_MPI=1)");
            }
            Assumptions.abort("skipped: mpiexec.hydra missing: apt-get install mpich");
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

            final String c = runC(dir.path().resolve(name), logs.path());
            for (int r = 0; r < RANKS; r++)
            {
                assertTrue(c.contains("rank " + r + " fi_addr ") && c.contains(" 127.0.0.1:" + (9100 + r) + "\n"), c);
            }
            assertTrue(c.contains("found 3 of 3"), c);

            assertTrue(gc(dir.path()).contains("removed   " + name), "after its job, gc removes it as any idle AV");
            assertFalse(Files.exists(dir.path().resolve(name)));
        }
    }

    private static String gc(final Path dir)
    {
        final StringWriter out = new StringWriter();
        ShmavCli.execute(new PrintWriter(out, true), new PrintWriter(new StringWriter(), true), "--dir", dir.toString(),
            "gc", "--grace", "0");
        return out.toString();
    }

    /** Builds shmav_job_peers.c with gcc (skipped without gcc) and runs it on the AV file. */
    private static String runC(final Path av, final Path logs) throws Exception
    {
        final Path base = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
        final Path binary = base.resolve("target/c/shmav_job_peers");
        Files.createDirectories(binary.getParent());
        final Process gcc;
        try
        {
            gcc = new ProcessBuilder("gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-o", binary.toString(),
                base.resolve("src/main/c/shmav_job_peers.c").toString()).redirectErrorStream(true)
                .redirectOutput(logs.resolve("gcc.out").toFile()).start();
        }
        catch (final java.io.IOException e)
        {
            Assumptions.abort("gcc not found: the C program is NOT tested");
            return "";
        }
        assertTrue(gcc.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, gcc.exitValue(), () -> read(logs.resolve("gcc.out")));
        final Process p = new ProcessBuilder(binary.toString(), av.toString(), Integer.toString(RANKS))
            .redirectErrorStream(true).redirectOutput(logs.resolve("c.out").toFile()).start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        final String out = read(logs.resolve("c.out"));
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    private static String read(final Path p)
    {
        try
        {
            return Files.readString(p);
        }
        catch (final java.io.IOException e)
        {
            return e.toString();
        }
    }
}
