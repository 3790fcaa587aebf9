package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One C reader kept open across calls ({@code shmav_read --commands FILE}, src/main/c/shmav_read.c):
 * {@link CReaderIT} opens it before an AV grows and asks it afterwards. Every answer is awaited for at
 * most the session's timeout; {@link #close} ends the process (killing it after the timeout). Not
 * thread-safe: one test thread asks.
 */
final class CReaderSession implements AutoCloseable
{
    private final Process process;
    private final BufferedWriter in;
    private final Path err;
    private final Duration timeout;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private CReaderSession(final Process process, final Path err, final Duration timeout)
    {
        this.process = process;
        this.err = err;
        this.timeout = timeout;
        this.in = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        final Thread pump = new Thread(() ->
        {
            try (BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
            {
                for (String line = out.readLine(); line != null; line = out.readLine())
                {
                    lines.add(line);
                }
            }
            catch (final IOException e)
            {
                // the process ended: line() reports it with its stderr
            }
        }, "creader-session");
        pump.setDaemon(true);
        pump.start();
    }

    /** Starts {@code reader --commands file}, its stderr in a file under {@code logs}. */
    static CReaderSession start(final Path reader, final Path file, final Path logs, final Duration timeout)
        throws IOException
    {
        final Path err = Files.createTempFile(logs, "session-", ".err");
        final Process p = new ProcessBuilder(reader.toString(), "--commands", file.toString())
            .redirectError(err.toFile()).start();
        return new CReaderSession(p, err, timeout);
    }

    /** The next line the reader prints. */
    String line() throws InterruptedException
    {
        final String line = lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (line == null)
        {
            fail("the C reader printed nothing within " + timeout + " (alive: " + process.isAlive() + "); stderr:\n" +
                stderr());
        }
        return line;
    }

    /** Sends one command and returns its one-line answer. */
    String ask(final String command) throws InterruptedException
    {
        send(List.of(command));
        return line();
    }

    /** Sends every command at once and returns their one-line answers, in order. */
    List<String> askAll(final List<String> commands) throws InterruptedException
    {
        send(commands);
        final List<String> answers = new ArrayList<>(commands.size());
        for (int i = 0; i < commands.size(); i++)
        {
            answers.add(line());
        }
        return answers;
    }

    /** "list": fi_addr to straddr in slot order, up to its final "count N" line. */
    Map<Long, String> list() throws InterruptedException
    {
        send(List.of("list"));
        final Map<Long, String> entries = new LinkedHashMap<>();
        for (String next = line(); !next.matches("count \\d+"); next = line())
        {
            final String line = next;
            final int tab = line.indexOf('\t');
            assertTrue(tab > 0, () -> "not an entry line: " + line);
            final String previous = entries.put(Long.parseUnsignedLong(line.substring(0, tab)), line.substring(tab + 1));
            assertTrue(previous == null, () -> "fi_addr listed twice: " + line);
        }
        return entries;
    }

    private void send(final List<String> commands)
    {
        try
        {
            for (final String c : commands)
            {
                in.write(c);
                in.write('\n');
            }
            in.flush();
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("the C reader is gone; stderr:\n" + stderr(), e);
        }
    }

    private String stderr()
    {
        try
        {
            return Files.readString(err, StandardCharsets.UTF_8);
        }
        catch (final IOException e)
        {
            return "(unreadable: " + e + ")";
        }
    }

    /** Asks the reader to quit; kills it if it has not within the timeout. Fails if it exited with an error. */
    @Override
    public void close() throws InterruptedException
    {
        try
        {
            send(List.of("quit"));
        }
        catch (final UncheckedIOException e)
        {
            // already gone: its exit status says how
        }
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS))
        {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
            fail("the C reader did not quit within " + timeout);
        }
        final int code = process.exitValue();
        assertTrue(code == 0, () -> "the C reader exited with " + code + "; stderr:\n" + stderr());
    }
}
