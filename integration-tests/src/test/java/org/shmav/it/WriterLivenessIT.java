package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.Fi;
import org.shmav.cli.ShmavCli;

/**
 * Two writer JVMs share one named AV while they see processes differently: one in its own pid
 * namespace, one that reads another boot time (start times disagree as after a clock step), or
 * both as different users under a /proc mounted {@code hidepid=2}. Each runs
 * {@link LivenessWriter} (insert, check every fi_addr it holds, remove, reopen, which recovers dead
 * writers); a writer taken for dead by the other has its claims undone and its entry handed out again,
 * which it reports as violations. Expected: no violation in either, and a consistent AV afterwards
 * (count() equals the entries, each entry is one of a writer's, as many as that writer holds). With
 * a pid namespace or another boot time, {@code shmav gc --grace 0} run while only the writer with the
 * other view is alive keeps the AV. Namespaces, mounts and other users need root, unshare and setpriv:
 * skipped otherwise, saying why.
 */
@Isolated("asserts that each writer made progress in its time: runs alone, not beside other test classes")
class WriterLivenessIT
{
    private static final String NAME = "liveness";
    private static final long CAPACITY = 256;
    /** Writer 1 runs this long; writer 2 (the one with the other view) at least as long, then until the gc check is done. */
    private static final long RUN_MILLIS = 2_000;
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Pattern RESULT = Pattern.compile("RESULT writer=(\\d+) ops=(\\d+) violations=(\\d+) reopens=(\\d+) live=(\\d+)");
    private static final int GROUP = 50010;
    private static final int ALICE = 50011;
    private static final int BOB = 50012;

    /** Where CI machines have a Java 22+ JDK beside Java 17. */
    private static final String JAVA22_DEFAULT = "/usr/lib/jvm/temurin-25-jdk-amd64";

    private Path base;
    /** The JDK the writers run on: this test's own unless a test sets another. */
    private Path javaHome = Path.of(System.getProperty("java.home"));

    @AfterEach
    void tearDown() throws IOException
    {
        TestDir.delete(base);
    }

    @Test
    void shouldKeepAWriterInAnotherPidNamespaceAlive() throws Exception
    {
        Require.root("unshare --pid");
        Require.works("MOUNT", "unshare --pid is not supported here", List.of("unshare", "--pid", "--fork", "--mount-proc",
            "true"));
        base = TestDir.createInShm("robust");
        final String cp = System.getProperty("java.class.path");
        runPair("pid namespace", List.of(), List.of("unshare", "--pid", "--fork", "--mount-proc"), cp, false, true);
    }

    /**
     * Writer 2's JVM opens and closes the AV file every 2 ms, as code outside shmav may (a monitoring
     * thread, Files.size); writer 1 runs in its own pid namespace, and {@code gc --grace 0} runs while
     * writer 2 is alone. Closing a descriptor drops every record lock the process holds on that file, so
     * the writers' locks must live where nothing else opens (the lock file): else writer 1 recovers
     * writer 2's claims and gc removes the AV under it.
     */
    @Test
    void shouldKeepAWriterWhoseJvmOpensAndClosesTheAvFileAlive() throws Exception
    {
        Require.root("unshare --pid");
        Require.works("MOUNT", "unshare --pid is not supported here", List.of("unshare", "--pid", "--fork", "--mount-proc",
            "true"));
        base = TestDir.createInShm("robust");
        final String cp = System.getProperty("java.class.path");
        runPair("foreign opens and closes of the AV file", List.of("unshare", "--pid", "--fork", "--mount-proc"),
            List.of(), cp, false, true, Map.of(LivenessWriter.FOREIGN_OPENS_ENV, "1"));
    }

    /**
     * Writer 2's JVM opens and closes the AV's lock file every 1 ms (RandomAccessFile, as a thread that
     * reads every file of the directory would), while writer 1 reopens the AV every 50 ms (recovering
     * writers it finds dead), and {@code gc --grace 0} runs while writer 2 is alone. With POSIX locks
     * (the fallback, {@code -Dshmav.locks=posix}) every such close dropped writer 2's locks: writer 1
     * recovered its entries and gc removed the AV. Open-file-description locks survive. Run on this JVM
     * (Java 17: JNA) here, on Java 22+ below; no root needed.
     */
    @Test
    void shouldKeepAWriterWhoseJvmOpensAndClosesTheLockFileAlive() throws Exception
    {
        base = TestDir.createInShm("robust");
        runPair("foreign opens and closes of the lock file, java " + System.getProperty("java.version"), List.of(),
            List.of(), System.getProperty("java.class.path"), false, true,
            Map.of(LivenessWriter.FOREIGN_OPENS_ENV, "lock"));
    }

    /**
     * The same with both writers on a Java 22+ JDK ({@code -Dshmav.it.java22=HOME}, default Temurin 25 at
     * {@value #JAVA22_DEFAULT}; skipped, saying so, when it is absent, and failing so under CI's flag).
     */
    @Test
    void shouldKeepAWriterWhoseJvmOpensAndClosesTheLockFileAliveOnJava22Plus() throws Exception
    {
        final Path home = Path.of(System.getProperty("shmav.it.java22", JAVA22_DEFAULT));
        Require.that("JDK25", Files.isExecutable(home.resolve("bin").resolve("java")), "no Java 22+ JDK at " + home +
            " (set -Dshmav.it.java22=HOME): the Java 22+ path is not tested here");
        base = TestDir.createInShm("robust");
        javaHome = home;
        runPair("foreign opens and closes of the lock file, " + home.getFileName(), List.of(), List.of(),
            System.getProperty("java.class.path"), false, true, Map.of(LivenessWriter.FOREIGN_OPENS_ENV, "lock"));
    }

    /**
     * Writer 2 reads a boot time ({@code btime} in /proc/stat) one day later than writer 1, as every
     * process that reads it after the wall clock was stepped by a day does (the kernel moves btime with
     * the clock; start times since boot stay): its /proc/stat is a copy with btime shifted, bind-mounted
     * in its own mount namespace. A time namespace ({@code unshare --time --boottime}) would not do:
     * it shifts btime and every process's start time alike, so start times computed there agree
     * (measured on Linux 6.18).
     */
    @Test
    void shouldKeepAWriterThatSeesAnotherBootTimeAlive() throws Exception
    {
        Require.root("unshare --mount and mount --bind");
        base = TestDir.createInShm("robust");
        final List<String> shifted = shiftedBootTime(base.resolve("stat"));
        final List<String> probe = new java.util.ArrayList<>(shifted);
        probe.add("true");
        Require.works("MOUNT", "cannot bind-mount a /proc/stat in a mount namespace here", probe);
        final String cp = System.getProperty("java.class.path");
        runPair("btime +1 day", List.of(), shifted, cp, false, true);
    }

    /** Runs the command in a mount namespace whose /proc/stat shows a boot time one day later. */
    private static List<String> shiftedBootTime(final Path copy)
    {
        return List.of("unshare", "--mount", "--propagation", "private", "sh", "-c",
            "f=" + copy + " && awk '/^btime /{print \"btime \" $2 + 86400; next} {print}' /proc/stat > \"$f\" && " +
                "mount --bind \"$f\" /proc/stat && rm \"$f\" && exec \"$@\"", "sh");
    }

    @Test
    void shouldKeepWritersOfOtherUsersAliveUnderHidepid() throws Exception
    {
        Require.root("setpriv to other users and a /proc mounted hidepid=2");
        Require.that("ROOT", OtherUsers.canRunAs(ALICE), "needs setpriv to run child JVMs as other users (util-linux)");
        Require.works("MOUNT", "unshare --mount or a hidepid=2 proc mount is not supported here", List.of("unshare",
            "--mount", "--propagation", "private", "sh", "-c", "mount -t proc -o hidepid=2 proc /proc"));
        base = TestDir.createInShm("robust");
        OtherUsers.run("chmod", "0755", base.toString());
        final Path avs = Files.createDirectories(base.resolve("avs"));
        OtherUsers.run("chmod", "1777", avs.toString()); // sticky and world-writable, like /dev/shm
        final String cp = OtherUsers.copyClasspath(base.resolve("cp"));
        runPair("hidepid=2, uids " + ALICE + " and " + BOB, hidepidAs(ALICE), hidepidAs(BOB), cp, true, false);
    }

    /** Runs the command as {@code uid} (primary group {@link #GROUP}) in a mount namespace whose /proc has hidepid=2. */
    private static List<String> hidepidAs(final int uid)
    {
        return List.of("unshare", "--mount", "--propagation", "private", "sh", "-c",
            "mount -t proc -o hidepid=2 proc /proc && exec setpriv --reuid=" + uid + " --regid=" + GROUP +
                " --clear-groups -- \"$@\"", "sh");
    }

    /**
     * Writer 1 through {@code prefix1}, writer 2 through {@code prefix2}, on one AV; with {@code gc}, a
     * {@code shmav gc --grace 0} after writer 1's exit, while writer 2 runs (it waits for a stop file).
     */
    private void runPair(final String view, final List<String> prefix1, final List<String> prefix2, final String cp,
        final boolean group, final boolean gc) throws Exception
    {
        runPair(view, prefix1, prefix2, cp, group, gc, Map.of());
    }

    /** {@link #runPair(String, List, List, String, boolean, boolean)}, writer 2 with {@code env2} in its environment too. */
    private void runPair(final String view, final List<String> prefix1, final List<String> prefix2, final String cp,
        final boolean group, final boolean gc, final Map<String, String> env2) throws Exception
    {
        final Path avs = group ? base.resolve("avs") : base;
        final Path out = Files.createDirectories(base.resolve("out"));
        final long start = System.nanoTime();
        final Path stop = base.resolve("stop");
        try (ChildJvm w1 = writer(javaHome, prefix1, cp, avs, out, 1, RUN_MILLIS, group, List.of(), Map.of());
             ChildJvm w2 = writer(javaHome, prefix2, cp, avs, out, 2, RUN_MILLIS, group, List.of(stop.toString()), env2))
        {
            awaitStarted(w1);
            awaitStarted(w2);
            final int[] live = new int[3];
            final String r1 = result(w1, live);
            System.out.println("WriterLivenessIT (" + view + "): " + r1);
            String gcReport = "";
            if (gc)
            {
                final StringWriter gcOut = new StringWriter();
                final int code = ShmavCli.execute(new PrintWriter(gcOut), new PrintWriter(gcOut), "--dir", avs.toString(),
                    "gc", "--grace", "0");
                gcReport = " gc: exit " + code + ", " + gcOut.toString().trim().replace('\n', ';');
                assertTrue(Files.exists(avs.resolve(NAME)), "shmav gc removed the AV of a live writer (" + view + "):" +
                    gcReport + "\nwriter 2 so far:\n" + w2.output());
                assertTrue(w2.isAlive(), "writer 2 must still run after the gc check:\n" + w2.output());
            }
            Files.createFile(stop);
            final String r2 = result(w2, live);
            System.out.printf("WriterLivenessIT (%s): %s |%s | %.1f s%n", view, r2, gcReport,
                (System.nanoTime() - start) / 1e9);
            verifyAv(avs, live, view);
        }
    }

    private static ChildJvm writer(final Path javaHome, final List<String> prefix, final String cp, final Path avs, final Path out, final int id,
        final long millis, final boolean group, final List<String> stop, final Map<String, String> extraEnv) throws IOException
    {
        final Map<String, String> env = new java.util.HashMap<>(extraEnv);
        env.put("HOME", "/");
        final List<String> args = new java.util.ArrayList<>(List.of(avs.toString(), NAME, Long.toString(CAPACITY),
            Integer.toString(id), Long.toString(millis), Boolean.toString(group)));
        args.addAll(stop);
        return ChildJvm.start(javaHome, prefix, cp, env, LivenessWriter.class, out, args.toArray(String[]::new));
    }

    private static void awaitStarted(final ChildJvm w) throws InterruptedException
    {
        w.awaitOutput("started", Duration.ofSeconds(60));
    }

    /** Waits for a writer's exit, asserts it ran and saw no violation, records how many entries it holds. */
    private static String result(final ChildJvm w, final int[] live) throws InterruptedException
    {
        final int exit = w.waitFor(WAIT);
        final Matcher m = RESULT.matcher(w.stdout());
        assertTrue(exit == 0 && m.find(), "writer exited with " + exit + ":\n" + w.output());
        final int id = Integer.parseInt(m.group(1));
        assertEquals(0, Long.parseLong(m.group(3)), "writer " + id + " was taken for dead: " + m.group() + "\n" + w.output());
        assertTrue(Long.parseLong(m.group(2)) > 1_000 && Long.parseLong(m.group(4)) > 10, "writer " + id + " did too little: " + m.group());
        live[id] = Integer.parseInt(m.group(5));
        return m.group();
    }

    /** count() equals the entries; every entry is one of a writer's, and each writer's entries are those it holds. */
    private static void verifyAv(final Path avs, final int[] live, final String view)
    {
        try (Domain d = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(avs).build());
             AddressVector av = d.openAv(AvAttr.builder().name(NAME).flags(Fi.READ).build()))
        {
            final long[] nobody = new long[1];
            final int[] entries = LivenessWriter.entriesByWriter(av, CAPACITY, 2, nobody);
            assertTrue(entries != null, "fi_addr " + nobody[0] + " holds an address of no writer (" + view + ")");
            assertEquals(entries[0], av.count(), "count() against the entries (" + view + ")");
            assertEquals(live[1], entries[1], "writer 1's entries (" + view + ")");
            assertEquals(live[2], entries[2], "writer 2's entries (" + view + ")");
            // every entry is found through the index, at its own fi_addr (one slot per address)
            final java.nio.ByteBuffer addr = java.nio.ByteBuffer.allocate(16);
            for (long fi = 0; fi < CAPACITY; fi++)
            {
                try
                {
                    av.lookup(fi, addr.clear()); // absolute: addr stays [0, 16)
                }
                catch (final org.shmav.FabricException e)
                {
                    continue; // no entry there
                }
                assertEquals(fi, av.reverseLookup(addr), "reverse lookup of fi_addr " + fi + " (" + view + ")");
            }
        }
    }
}
