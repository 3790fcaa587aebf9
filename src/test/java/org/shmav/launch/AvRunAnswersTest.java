package org.shmav.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What avrun answers a newcomer who types what mpirun takes, or a name or directory that cannot be
 * used: one line saying what is wrong and what to do, never a Java exception. Every case here fails
 * before a rank starts, so no process is started and nothing is created.
 */
class AvRunAnswersTest
{
    @TempDir
    Path tmp;

    /** What one run printed and returned. */
    private record Run(int code, String out, String err)
    {
        List<String> errLines()
        {
            return err.lines().toList();
        }
    }

    private static Run avrun(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = AvRun.execute(new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8), args);
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldTakeMpirunsSpellingDashNp()
    {
        // -np 0 reaches avrun's own check: proof that -np was read as the rank count
        final Run zero = avrun("-np", "0", "--demo", "ring");
        assertEquals(2, zero.code(), zero.err());
        assertEquals(List.of("avrun: -n must be at least 1, not 0", "Try 'avrun --help' for more information."),
            zero.errLines());
        final Run bad = avrun("-np", "2", "--dir", tmp.toString(), "--name", "a/b", "--demo", "ring");
        assertEquals(125, bad.code(), "a setup error, after -np 2 was parsed: " + bad.err());
    }

    @Test
    void shouldAnswerABadNameInOneLineAsTheCliDoes()
    {
        final Run slash = avrun("-n", "2", "--dir", tmp.toString(), "--name", "bad/name", "--demo", "ring");
        assertEquals(125, slash.code(), slash.err());
        assertEquals(List.of("avrun: bad AV name: name 'bad/name' holds '/', NUL or a control character; " +
            "an AV name is 1 to 200 bytes, without '/' or control characters, not starting with '.'"), slash.errLines());

        final Run tooLong = avrun("-n", "2", "--dir", tmp.toString(), "--name", "x".repeat(300), "--demo", "ring");
        assertEquals(125, tooLong.code(), tooLong.err());
        assertEquals(List.of("avrun: bad AV name: name is longer than 200 bytes; " +
            "an AV name is 1 to 200 bytes, without '/' or control characters, not starting with '.'"), tooLong.errLines());

        final Run hidden = avrun("-n", "1", "--dir", tmp.toString(), "--name", ".hidden", "--demo", "ring");
        assertEquals(125, hidden.code(), hidden.err());
        assertEquals(List.of("avrun: bad AV name: name '.hidden' is empty or starts with '.'; " +
            "an AV name is 1 to 200 bytes, without '/' or control characters, not starting with '.'"), hidden.errLines());
    }

    @Test
    void shouldAnswerADirectoryThatCannotBeCreatedWithoutAnExceptionOrAMkdirThatWouldFailToo() throws Exception
    {
        final Run proc = avrun("-n", "1", "--dir", "/proc/shmav-nope", "--demo", "ring");
        assertEquals(125, proc.code(), proc.err());
        assertEquals(List.of("avrun: directory /proc/shmav-nope does not exist and cannot be created (No such file or " +
            "directory); choose another directory with --dir or SHMAV_DIR (e.g. one under /dev/shm)"), proc.errLines());

        final Path file = Files.writeString(tmp.resolve("a-file"), "not a directory");
        final Run underFile = avrun("-n", "1", "--dir", file.resolve("sub").toString(), "--demo", "ring");
        assertEquals(125, underFile.code(), underFile.err());
        assertEquals(1, underFile.errLines().size(), underFile.err());
        assertFalse(underFile.err().contains("java."), underFile.err());
        assertFalse(underFile.err().contains("mkdir"), "mkdir would fail the same way: " + underFile.err());
    }
}
