package org.shmav.junit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.shmav.DomainAttr;
import org.shmav.launch.ExitStatus;
import org.shmav.launch.JavaCommand;
import org.shmav.launch.Job;
import org.shmav.launch.JobSpec;

/**
 * One run of a {@link MultiJvmTest} method: an avrun {@link Job} whose ranks are JVMs running
 * {@link RankMain} on the test method, with the ranks' output collected (prefixed with their rank)
 * instead of printed. On success the output is echoed to {@code System.out}; on failure
 * {@link #run()} throws an {@link AssertionError} naming the rank, with the rank's throwable as the
 * cause and every rank's output in the message, rank by rank. At the timeout every rank still running
 * prints a thread dump (SIGQUIT) before it is stopped, and the message names the ranks that did not
 * finish.
 *
 * <p>The job machinery gives the guarantees the extension promises: a fresh AV created before the
 * ranks start and removed afterwards, the other ranks stopped when one fails, every rank killed at the
 * timeout, and no rank left running when {@link #run()} returns.
 */
public final class MultiJvmRun
{
    private static final AtomicInteger RUNS = new AtomicInteger();

    private final Class<?> testClass;
    private final Method method;
    private final int ranks;
    private final Duration timeout;
    private final List<String> jvmArgs;
    private final Path directory;

    private MultiJvmRun(final Builder b)
    {
        this.testClass = b.testClass;
        this.method = b.method;
        this.ranks = b.ranks;
        this.timeout = b.timeout;
        this.jvmArgs = List.copyOf(b.jvmArgs);
        this.directory = b.directory != null ? b.directory : DomainAttr.defaultShmDirectory();
    }

    /**
     * A run of {@code method} (declared by, or inherited into, {@code testClass}); 2 ranks, 60 s by default.
     *
     * @param testClass the class whose new instance each rank runs the method on
     * @param method    the test method, taking a {@link org.shmav.Rank} or nothing
     * @return a builder for the run
     */
    public static Builder builder(final Class<?> testClass, final Method method)
    {
        return new Builder(testClass, method);
    }

    /**
     * Runs the ranks and waits for them (at most the timeout, plus the few seconds stopping takes).
     *
     * @throws AssertionError       when a rank failed, a rank JVM exited with another status, or the timeout passed
     * @throws IllegalStateException when the job cannot be set up (its AV exists already or cannot be created,
     *                               or the directory is unusable)
     * @throws IOException           when the temporary directory of the ranks' failure reports cannot be
     *                               created, read or removed
     * @throws InterruptedException  when this thread is interrupted while waiting for the ranks (they are stopped)
     */
    public void run() throws IOException, InterruptedException
    {
        final Path reports = Files.createTempDirectory("shmav-multijvm-");
        try
        {
            final ByteArrayOutputStream captured = new ByteArrayOutputStream();
            final PrintStream log = new PrintStream(captured, true, StandardCharsets.UTF_8);
            final Job job;
            try
            {
                job = Job.create(spec(reports), log, log);
            }
            catch (final Job.SetupException e)
            {
                throw new IllegalStateException("@MultiJvmTest " + testName() + ": " + e.getMessage(), e);
            }
            final int status = job.run();
            final String output = captured.toString(StandardCharsets.UTF_8);
            if (status != ExitStatus.OK)
            {
                throw failure(status, output, RankReport.readAll(reports), job.unfinishedRanks());
            }
            System.out.print(output);
        }
        finally
        {
            deleteTree(reports);
        }
    }

    private JobSpec spec(final Path reports)
    {
        final List<String> command = JavaCommand.forMain(RankMain.class.getName(), jvmArgs,
            List.of(testClass.getName(), method.getName(), reports.toString()));
        return new JobSpec(ranks, avName(), directory, false, timeout, command, true, true);
    }

    /** A fresh AV name per run: test, process and a counter, in the characters every file system takes. */
    private String avName()
    {
        final String base = ("multijvm-" + testClass.getSimpleName() + "-" + method.getName())
            .replaceAll("[^A-Za-z0-9_-]", "_");
        return base.substring(0, Math.min(base.length(), 120)) + "-" + ProcessHandle.current().pid() + "-" +
            RUNS.incrementAndGet();
    }

    private AssertionError failure(final int status, final String output, final List<RankReport> reports,
        final List<Integer> unfinished)
    {
        final String what;
        Throwable cause = null;
        if (!reports.isEmpty())
        {
            final RankReport first = reports.get(0);
            cause = first.throwable();
            what = "rank " + first.rank() + " of " + ranks + " failed: " + first.description() + (reports.size() == 1 ? ""
                : " (also failed: ranks " + reports.stream().skip(1).map(r -> Integer.toString(r.rank()))
                    .collect(Collectors.joining(",")) + ")");
        }
        else if (status == ExitStatus.TIMEOUT)
        {
            what = "the ranks did not finish within " + timeout.toSeconds() + " s; every rank was stopped; " +
                (unfinished.isEmpty() ? "all had exited by then" : (unfinished.size() == 1 ? "rank " : "ranks ") +
                    unfinished.stream().map(String::valueOf).collect(Collectors.joining(",")) +
                    " did not finish (thread dumps in their output below)");
        }
        else
        {
            what = "a rank exited with status " + ExitStatus.describe(status) + " without a test failure (see its output)";
        }
        final AssertionError error = new AssertionError("@MultiJvmTest " + testName() + ": " + what + "\n" +
            byRank(output, unfinished), cause);
        reports.stream().skip(1).map(RankReport::throwable).filter(Objects::nonNull).forEach(error::addSuppressed);
        return error;
    }

    /** The output rank by rank ({@code [r] } lines), then the launcher's own lines. */
    private String byRank(final String output, final List<Integer> unfinished)
    {
        final StringBuilder sb = new StringBuilder();
        final List<String> lines = output.lines().collect(Collectors.toList());
        for (int r = 0; r < ranks; r++)
        {
            final String prefix = "[" + r + "] ";
            sb.append("--- output of rank ").append(r).append(unfinished.contains(r) ? " (did not finish)" : "")
                .append(" ---\n");
            lines.stream().filter(l -> l.startsWith(prefix)).forEach(l -> sb.append(l).append('\n'));
        }
        sb.append("--- launcher ---\n");
        lines.stream().filter(l -> !l.matches("\\[\\d+] .*") && !l.matches("\\[\\d+]")).forEach(l -> sb.append(l).append('\n'));
        return sb.toString();
    }

    private String testName()
    {
        return testClass.getSimpleName() + "." + method.getName();
    }

    private static void deleteTree(final Path dir) throws IOException
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            for (final Path p : (Iterable<Path>)files.sorted(Comparator.reverseOrder())::iterator)
            {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Builder for {@link MultiJvmRun}. */
    public static final class Builder
    {
        private final Class<?> testClass;
        private final Method method;
        private int ranks = 2;
        private Duration timeout = Duration.ofSeconds(60);
        private List<String> jvmArgs = List.of();
        private Path directory;

        private Builder(final Class<?> testClass, final Method method)
        {
            this.testClass = Objects.requireNonNull(testClass, "testClass");
            this.method = Objects.requireNonNull(method, "method");
        }

        /**
         * Number of rank JVMs, at least 1.
         *
         * @param ranks the number of ranks
         * @return this builder
         * @throws IllegalArgumentException when {@code ranks} is less than 1
         */
        public Builder ranks(final int ranks)
        {
            if (ranks < 1)
            {
                throw new IllegalArgumentException("ranks=" + ranks + " must be at least 1");
            }
            this.ranks = ranks;
            return this;
        }

        /**
         * Bound on the whole run; positive.
         *
         * @param timeout the bound
         * @return this builder
         * @throws IllegalArgumentException when {@code timeout} is zero or negative
         */
        public Builder timeout(final Duration timeout)
        {
            if (timeout.isNegative() || timeout.isZero())
            {
                throw new IllegalArgumentException("timeout=" + timeout + " must be positive");
            }
            this.timeout = timeout;
            return this;
        }

        /**
         * Extra JVM options of every rank.
         *
         * @param jvmArgs the options, e.g. {@code -Xmx64m}
         * @return this builder
         */
        public Builder jvmArgs(final List<String> jvmArgs)
        {
            this.jvmArgs = List.copyOf(jvmArgs);
            return this;
        }

        /**
         * Directory of the run's AV.
         *
         * @param directory the directory, or null for {@link DomainAttr#defaultShmDirectory()}
         * @return this builder
         */
        public Builder directory(final Path directory)
        {
            this.directory = directory;
            return this;
        }

        /** {@return the run, ready to {@link MultiJvmRun#run()}} */
        public MultiJvmRun build()
        {
            return new MultiJvmRun(this);
        }
    }
}
