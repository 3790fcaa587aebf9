package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Shown output is real output: every {@code console} block of the README and the docs pages is run, one
 * command after another in one bash, from a fresh directory holding {@code scripts/} and with a fresh
 * AV directory as {@code /dev/shm/demo}, and what each command prints (stdout and stderr, as a terminal
 * shows them) must be what the page shows. Only what changes from run to run is masked before the
 * comparison: ports, pids, dates, ages, times in ms, job ids, the hex bytes of such values in a dump,
 * column widths, and the order in which different ranks' lines interleave. A line {@code ...} stands
 * for any number of lines.
 */
class ShownOutputIT
{
    private static final List<String> PAGES = List.of("README.md", "docs/cli.md", "docs/launchers.md");
    /** The directory the pages show; each block gets a fresh one of its own in its place. */
    private static final String SHOWN_DIR = "/dev/shm/demo";
    private static final String MARK = "@@shown-output-step@@";
    private static final long TIMEOUT_SECONDS = 240;

    private static final List<Map.Entry<Pattern, String>> MASKS = List.of(
        Map.entry(Pattern.compile("127\\.0\\.0\\.1:\\d+"), "127.0.0.1:PORT"),
        Map.entry(Pattern.compile("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d"), "DATE"),
        Map.entry(Pattern.compile("\\(\\d+s ago\\)"), "(Ns ago)"),
        Map.entry(Pattern.compile("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} "), "TIME "),
        Map.entry(Pattern.compile("\\b(pid|creatorPid) \\d+"), "$1 N"),
        Map.entry(Pattern.compile("process\\(es\\) \\d+"), "process(es) N"),
        Map.entry(Pattern.compile("\\d+(\\.\\d+)? ms\\b"), "N ms"),
        Map.entry(Pattern.compile("avrun-\\d+-[0-9a-f]+"), "avrun-JOB"),
        Map.entry(Pattern.compile("avrun-\\d+"), "avrun-PID"),
        Map.entry(Pattern.compile("\\b\\d+s$"), "Ns"),
        Map.entry(Pattern.compile("mapAddrBase 0x[0-9a-f]+"), "mapAddrBase 0xN"),
        Map.entry(Pattern.compile(" {2,}"), " "));
    /** A dump line whose bytes hold a value that changes per run: its bytes are masked too. */
    private static final Pattern VOLATILE_DUMP_LINE =
        Pattern.compile("^([0-9a-f]{8}) (?:[0-9a-f]{2} )+# (.*(?:PORT|DATE|pid N|creatorPid N|mapAddrBase).*)$");
    private static final Pattern RANK_LINE = Pattern.compile("^\\[(\\d+)\\] ");

    @TestFactory
    Stream<DynamicTest> everyConsoleBlockPrintsWhatItShows() throws IOException
    {
        final List<DynamicTest> tests = new ArrayList<>();
        for (final String page : PAGES)
        {
            for (final ShownBlock block : ShownBlock.parse(page, Files.readString(Path.of(page))))
            {
                tests.add(DynamicTest.dynamicTest(block.toString(), () -> check(block)));
            }
        }
        assertFalse(tests.isEmpty(), "the pages have console blocks");
        return tests.stream();
    }

    private static void check(final ShownBlock block) throws Exception
    {
        try (TestDir work = TestDir.inTmp("shown-output-it-"); TestDir shm = TestDir.inShm("shown-output-it-");
             TestDir logs = TestDir.inTmp("shown-output-it-logs-"))
        {
            Files.createSymbolicLink(work.path().resolve("scripts"), Path.of("scripts").toAbsolutePath());
            final StringBuilder script = new StringBuilder("exec 2>&1\n");
            for (final ShownBlock.Step step : block.steps())
            {
                script.append(step.command().replace(SHOWN_DIR, shm.path().toString())).append('\n')
                    .append("__rc=$?; printf '\\n").append(MARK).append("\\n'; (exit $__rc)\n");
            }
            final Path scriptFile = Files.writeString(work.path().resolve("block.sh"), script);
            final String output;
            try (ChildJvm bash = ChildJvm.command(List.of("bash", scriptFile.toString()), work.path(),
                Map.of("SHMAV_CLASSPATH", System.getProperty("java.class.path"), "SHMAV_DIR", shm.path().toString()),
                logs.path()))
            {
                bash.waitFor(Duration.ofSeconds(TIMEOUT_SECONDS)); // its output is read once it has ended
                output = bash.output();
            }
            final String all = output.replace(shm.path().toString(), SHOWN_DIR);
            // what was printed, unmasked, for updating a page: target/shown-output/PAGE-LINE.txt
            final Path record = Path.of("target", "shown-output", block.page().replace('/', '-') + "-" + block.line() + ".txt");
            Files.createDirectories(record.getParent());
            Files.writeString(record, all);
            final String[] outputs = all.split("\n?" + Pattern.quote(MARK) + "\n", -1);
            for (int i = 0; i < block.steps().size(); i++)
            {
                final ShownBlock.Step step = block.steps().get(i);
                final List<String> actual = outputs[i].isEmpty() ? List.of() : outputs[i].lines().toList();
                compare(block + ", $ " + step.command(), step.output(), actual);
            }
        }
    }

    private static void compare(final String where, final List<String> shown, final List<String> actual)
    {
        final List<String> expected = normalise(shown);
        final List<String> got = normalise(actual);
        if (!matches(expected, 0, got, 0))
        {
            assertEquals(String.join("\n", expected), String.join("\n", got), where + ": the page shows other output " +
                "than the command prints (both masked)");
        }
    }

    /** Whether {@code got} from {@code j} matches {@code expected} from {@code i}, a "..." line matching any lines. */
    private static boolean matches(final List<String> expected, final int i, final List<String> got, final int j)
    {
        if (i == expected.size())
        {
            return j == got.size();
        }
        if (expected.get(i).equals("..."))
        {
            for (int k = j; k <= got.size(); k++)
            {
                if (matches(expected, i + 1, got, k))
                {
                    return true;
                }
            }
            return false;
        }
        return j < got.size() && expected.get(i).equals(got.get(j)) && matches(expected, i + 1, got, j + 1);
    }

    static List<String> normalise(final List<String> lines)
    {
        final List<String> out = new ArrayList<>();
        for (final String line : lines)
        {
            String s = line.stripTrailing();
            for (final Map.Entry<Pattern, String> mask : MASKS)
            {
                s = mask.getKey().matcher(s).replaceAll(mask.getValue());
            }
            final Matcher dump = VOLATILE_DUMP_LINE.matcher(s);
            out.add(dump.matches() ? dump.group(1) + " HEX # " + dump.group(2) : s);
        }
        // Different ranks' lines interleave as they happen: keep their slots, order them by rank (stable).
        final List<Integer> slots = new ArrayList<>();
        final List<String> ranked = new ArrayList<>();
        for (int i = 0; i < out.size(); i++)
        {
            if (RANK_LINE.matcher(out.get(i)).find())
            {
                slots.add(i);
                ranked.add(out.get(i));
            }
        }
        ranked.sort(Comparator.comparingInt(ShownOutputIT::rankOf));
        for (int i = 0; i < slots.size(); i++)
        {
            out.set(slots.get(i), ranked.get(i));
        }
        return out;
    }

    private static int rankOf(final String line)
    {
        final Matcher m = RANK_LINE.matcher(line);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }
}
