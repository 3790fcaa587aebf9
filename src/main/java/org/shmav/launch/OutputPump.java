package org.shmav.launch;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Copies one output stream of a rank line by line to the launcher's stream, each line prefixed with
 * the rank ({@code "[2] ..."}) unless prefixes are off, so that the output of many ranks can be told
 * apart. One line is printed with one call, so lines of different ranks never mix within a line. It
 * reads to EOF: avrun waits for that before it exits, so a rank's last words (what its signal handler
 * prints) are shown and its pipe never breaks under it.
 */
final class OutputPump implements Runnable
{
    private final InputStream from;
    private final PrintStream to;
    private final String prefix;

    private OutputPump(final InputStream from, final PrintStream to, final String prefix)
    {
        this.from = from;
        this.to = to;
        this.prefix = prefix;
    }

    /** Starts a daemon thread copying {@code from} to {@code to}, each line after {@code prefix}. */
    static Thread start(final int rank, final String prefix, final String streamName, final InputStream from,
        final PrintStream to)
    {
        final Thread t = new Thread(new OutputPump(from, to, prefix), "avrun-rank-" + rank + "-" + streamName);
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Override
    public void run()
    {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(from, StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = reader.readLine()) != null)
            {
                to.println(prefix + line);
            }
        }
        catch (final IOException e)
        {
            // the rank's pipe broke: it is gone, and its status says why
        }
        to.flush();
    }
}
