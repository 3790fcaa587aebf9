package org.shmav.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The answers a newcomer meets first: the count limits told one way whatever count is asked for, a
 * bad name or a directory that cannot be made answered with what to do, and counts in plain English.
 */
class ShmavCliAnswersTest
{
    private static final String TRY_CREATE_HELP = "Try 'shmav create --help' for more information.";

    @TempDir
    Path dir;

    /** What one run printed and returned. */
    private record Run(int code, String out, String err)
    {
        List<String> errLines()
        {
            return err.lines().toList();
        }
    }

    private static Run shmav(final String... args)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = ShmavCli.execute(new PrintWriter(out), new PrintWriter(err), args);
        return new Run(code, out.toString(), err.toString());
    }

    /**
     * A count far past the limit (999999999) used to be refused as "must be 0..268435456", one just past it
     * (20000000) as "at most 16777216 entries": now both name the largest that fits, the same way.
     */
    @Test
    void shouldStateTheCountLimitOneWayHoweverFarACountIsPastIt()
    {
        final String limit = "-byte file, more than the 2147483647 bytes a named AV's file may have: at most 16777216 " +
            "entries of FI_SOCKADDR_IN; use a count up to that";
        final Run huge = shmav("create", "big", "--dir", dir.toString(), "--count", "999999999");
        assertEquals(2, huge.code(), huge.err());
        assertEquals(List.of("shmav create: count=999999999 needs over a 27917357056" + limit, TRY_CREATE_HELP),
            huge.errLines());

        final Run past = shmav("create", "big", "--dir", dir.toString(), "--count", "20000000");
        assertEquals(2, past.code(), past.err());
        assertEquals(List.of("shmav create: count=20000000 needs a 2513813504" + limit, TRY_CREATE_HELP), past.errLines());

        final Run str = shmav("create", "big", "--dir", dir.toString(), "--count", "999999999", "--format", "str");
        assertEquals(2, str.code(), str.err());
        assertTrue(str.errLines().get(0).endsWith("at most 8388608 entries of FI_ADDR_STR; use a count up to that"),
            str.err());

        final Run max = shmav("create", "big", "--dir", dir.toString(), "--count", "4", "--max-count", "999999999");
        assertEquals(2, max.code(), max.err());
        assertTrue(max.errLines().get(0).startsWith("shmav create: maxCount=999999999 with count=4 needs over a "), max.err());
        assertTrue(max.errLines().get(0).endsWith("at most 14911168 for count=4 (FI_SOCKADDR_IN); use a maxCount up to " +
            "that"), max.err());
        assertFalse(huge.err().contains("268435456") || max.err().contains("268435456"), "one limit, not two");

        // create --help states the same limits the refusals name (one statement, not two)
        final String help = shmav("create", "--help").out().replaceAll("\\s+", " ");
        assertTrue(help.contains("At most 16777216 (in, in6) or 8388608 (str)"), help);
        assertTrue(help.contains("at most 14911168 (in, in6) or 8052394 (str) when created with N=4"), help);
        final Run str4 = shmav("create", "big", "--dir", dir.toString(), "--count", "4", "--max-count", "999999999",
            "--format", "str");
        assertTrue(str4.errLines().get(0).contains("at most 8052394 for count=4 (FI_ADDR_STR)"), str4.err());

        final Run negative = shmav("create", "big", "--dir", dir.toString(), "--count", "-1");
        assertEquals(List.of("shmav create: count=-1 is negative: use 0 (the default) or a positive count",
            TRY_CREATE_HELP), negative.errLines());
    }

    @Test
    void shouldSayWhatANameMayBe()
    {
        final Run slash = shmav("create", "a/b", "--dir", dir.toString(), "--count", "4");
        assertEquals(5, slash.code(), slash.err());
        assertEquals(List.of("shmav create: bad AV name: name 'a/b' holds '/', NUL or a control character; an AV name " +
            "is 1 to 200 bytes, without '/' or control characters, not starting with '.'"), slash.errLines());
    }

    @Test
    void shouldNotAdviseAMkdirThatWouldFailToo()
    {
        final Run proc = shmav("create", "x", "--dir", "/proc/shmav-nope", "--count", "4");
        assertEquals(1, proc.code(), proc.err());
        assertEquals(List.of("shmav create: directory /proc/shmav-nope (from --dir) does not exist and cannot be created " +
            "(No such file or directory); choose another directory with --dir or SHMAV_DIR (e.g. one under /dev/shm)"),
            proc.errLines());
    }

    @Test
    void shouldNotAdviseAMkdirThatWouldFailTooWhenOnlyReading()
    {
        final Run proc = shmav("ls", "--dir", "/proc/shmav-nope");
        assertEquals(3, proc.code(), proc.err());
        assertEquals(List.of("shmav ls: directory /proc/shmav-nope (from --dir) does not exist, and nothing can be " +
            "created under /proc (a read-only or virtual file system): choose another directory with --dir or " +
            "SHMAV_DIR (e.g. one under /dev/shm)"), proc.errLines());
    }

    @Test
    void shouldCountOneEntryInTheSingular()
    {
        assertEquals(0, shmav("create", "one", "--dir", dir.toString(), "--count", "4").code());
        assertEquals(0, shmav("insert", "one", "--dir", dir.toString(), "10.0.0.1:5000").code());
        final Run rm = shmav("rm", "one", "--dir", dir.toString());
        assertEquals(0, rm.code(), rm.err());
        assertEquals("removed AV 'one' (" + dir.resolve("one") + ", 1 entry)\n", rm.out());
        assertFalse(rm.out().contains("1 entries"), rm.out());
    }

    @Test
    void shouldCountOneOfAnythingInTheSingular()
    {
        assertEquals(0, shmav("create", "single", "--dir", dir.toString(), "--count", "1", "--max-count", "1").code());
        assertEquals(0, shmav("insert", "single", "--dir", dir.toString(), "10.0.0.1:5000").code());
        final Run watch = shmav("watch", "single", "--dir", dir.toString(), "--duration", "0.1");
        assertEquals(0, watch.code(), watch.err());
        assertEquals("watching AV 'single': 1 entry, change counter 1, for 0.1 s", watch.out().lines().findFirst().orElseThrow());
        final Run show = shmav("show", "single", "--dir", dir.toString());
        assertTrue(show.out().contains("segments 1 (created with 1 slot, grows to at most 1)"), show.out());
        assertTrue(show.out().contains(", 1 change\n"), show.out());
        assertEquals(0, shmav("create", "pair", "--dir", dir.toString(), "--count", "2").code());
        assertEquals(0, shmav("insert", "pair", "--dir", dir.toString(), "10.0.0.1:5000", "10.0.0.2:5000").code());
        final Run dump = shmav("dump", "pair", "--dir", dir.toString(), "--limit", "1");
        assertTrue(dump.out().endsWith("# ... 1 more used slot (--limit)\n"), dump.out());
        final Run full = shmav("insert", "single", "--dir", dir.toString(), "10.0.0.2:5000");
        assertEquals(10, full.code(), full.err());
        assertTrue(full.err().contains("it holds 1 entry and may not grow further"), full.err());
        for (final Run run : List.of(watch, show, dump, full))
        {
            assertFalse((run.out() + run.err()).matches("(?s).*\\b1 (entries|slots|changes|groups)\\b.*"), run.out() + run.err());
        }
    }
}
