package org.shmav.store;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One PMI-1 text connection to the node's Hydra proxy: a command line out, one answer line back, each
 * exchange bounded by a deadline.
 *
 * <p>Java cannot open an inherited socket by number ({@code /proc/self/fd/N} refuses sockets), so the
 * descriptor {@code PMI_FD} is wrapped with {@code sun.misc.Unsafe} (module jdk.unsupported, no flag
 * needed); it is never closed, as MPI's own client in the same process may use it. Answers are read
 * through a buffer: the proxy sends nothing it was not asked for, so what the buffer holds past the
 * answers awaited is nothing.
 *
 * <p>Several commands may go out in one write and their answers come back in order (the proxy reads a
 * buffer of commands and answers each): a fetch of many values is one round trip, not one per value,
 * which matters where each wake-up of a thread waits for a CPU shared with a hundred ranks.
 *
 * <p>Each exchange runs on one daemon thread (a proxy that never answers must not keep the JVM alive);
 * the caller waits for it at most until its deadline. An exchange that timed out leaves its answer
 * pending on the socket, so the wire is broken from then on: every later exchange fails at once.
 * Exchanges are serialised: safe for use by several threads.
 */
final class Pmi1Wire
{
    private final OutputStream out;
    private final InputStream in;
    private final ExecutorService reader;
    private final byte[] buffer = new byte[16384];
    private int position;
    private int limit;
    private volatile String broken;

    Pmi1Wire(final OutputStream out, final InputStream in)
    {
        this.out = out;
        this.in = in;
        this.reader = Executors.newSingleThreadExecutor(r -> {
            final Thread t = new Thread(r, "shmav-pmi1");
            t.setDaemon(true);
            return t;
        });
    }

    /** The wire over the inherited descriptor {@code pmiFd}, or empty when it is no number or the JVM cannot wrap it. */
    static Optional<Pmi1Wire> ofDescriptor(final String pmiFd)
    {
        final int fd;
        try
        {
            fd = Integer.parseInt(pmiFd.trim());
        }
        catch (final NumberFormatException | NullPointerException e)
        {
            return Optional.empty();
        }
        final FileDescriptor descriptor = wrap(fd);
        return descriptor == null ? Optional.empty() :
            Optional.of(new Pmi1Wire(new FileOutputStream(descriptor), new FileInputStream(descriptor)));
    }

    /**
     * Sends {@code command} and returns the answer line, waiting at most until {@code deadlineNanos}
     * ({@link System#nanoTime()}).
     *
     * @throws TimeoutException when no answer came in time (the wire is broken from then on)
     * @throws IOException      when the socket failed or the wire broke earlier
     */
    String exchange(final String command, final long deadlineNanos) throws IOException, TimeoutException,
        InterruptedException
    {
        return exchangeAll(List.of(command), deadlineNanos).get(0);
    }

    /**
     * Sends {@code commands} in one write and returns their answer lines in the same order, waiting at
     * most until {@code deadlineNanos} ({@link System#nanoTime()}) for the last.
     *
     * @throws TimeoutException when the answers did not all come in time (the wire is broken from then on)
     * @throws IOException      when the socket failed or the wire broke earlier
     */
    synchronized List<String> exchangeAll(final List<String> commands, final long deadlineNanos) throws IOException,
        TimeoutException, InterruptedException
    {
        if (broken != null)
        {
            throw new IOException(broken);
        }
        final StringBuilder text = new StringBuilder();
        commands.forEach(c -> text.append(c).append('\n'));
        final Future<List<String>> answers = reader.submit(() -> {
            out.write(text.toString().getBytes(StandardCharsets.US_ASCII));
            out.flush();
            final List<String> lines = new ArrayList<>(commands.size());
            for (final String command : commands)
            {
                lines.add(readLine(command));
            }
            return lines;
        });
        try
        {
            return answers.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        catch (final TimeoutException e)
        {
            broken = "an earlier '" + firstWord(commands.get(0)) + "' got no answer in time, so the connection is out of step";
            throw e;
        }
        catch (final ExecutionException e)
        {
            broken = "the connection failed: " + e.getCause();
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
    }

    private String readLine(final String command) throws IOException
    {
        final StringBuilder line = new StringBuilder();
        while (true)
        {
            if (position == limit)
            {
                position = 0;
                limit = Math.max(0, in.read(buffer));
                if (limit == 0)
                {
                    throw new IOException("the proxy closed the PMI socket instead of answering " + firstWord(command));
                }
            }
            final byte c = buffer[position++];
            if (c == '\n')
            {
                return line.toString();
            }
            if (line.length() > 8192)
            {
                throw new IOException("the proxy's answer to " + firstWord(command) + " is longer than 8,192 characters");
            }
            line.append((char)c);
        }
    }

    /**
     * {@code cmd=finalize} at exit, also on a wire broken by an exchange that got no answer in time (a
     * barrier a rank left at its deadline): without it, Hydra takes the exit for a crash and kills every
     * other rank of the job with SIGKILL, so that ranks still waiting for their own deadline never report
     * it. On a broken wire the command is written from this thread (the reader thread may still wait for
     * the earlier answer), and the proxy's answer is waited for, until {@code deadlineNanos}, by waiting
     * for that reader to read a line (finalize_ack, or the earlier answer come late) or the socket's end.
     */
    synchronized void finalizeAtExit(final long deadlineNanos) throws IOException, TimeoutException, InterruptedException
    {
        if (broken == null)
        {
            exchange("cmd=finalize", deadlineNanos);
            return;
        }
        out.write("cmd=finalize\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        final Future<?> pendingRead = reader.submit(() -> null); // runs once the read in flight has its line
        try
        {
            pendingRead.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        catch (final ExecutionException e)
        {
            throw new IOException(e.getCause());
        }
    }

    /** The value of {@code name=} in an answer line, or null. */
    static String field(final String line, final String name)
    {
        for (final String word : line.trim().split(" "))
        {
            if (word.startsWith(name + "="))
            {
                return word.substring(name.length() + 1);
            }
        }
        return null;
    }

    private static String firstWord(final String command)
    {
        final int space = command.indexOf(' ');
        return space < 0 ? command : command.substring(0, space);
    }

    /** A FileDescriptor for the inherited descriptor {@code fd}, or null when the JVM does not allow it. */
    private static FileDescriptor wrap(final int fd)
    {
        try
        {
            return InheritedDescriptor.wrap(fd);
        }
        catch (final ReflectiveOperationException | RuntimeException | LinkageError e)
        {
            return null;
        }
    }
}
