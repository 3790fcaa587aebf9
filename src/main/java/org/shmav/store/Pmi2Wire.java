package org.shmav.store;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * The PMI-2 wire protocol on the task's socket ({@code PMI_FD}), as Slurm's {@code mpi/pmi2} plugin
 * speaks it (its {@code agent.c}, {@code client.c}, {@code pmi2.c}):
 * <ul>
 * <li>first one PMI-1 style line, {@code cmd=init pmi_version=2 pmi_subversion=0\n}, sent in one write
 *     (the server reads it with a single {@code read}), answered
 *     {@code cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n};</li>
 * <li>then every command and answer is a 6-character length field (the decimal length, left-aligned and
 *     padded with spaces: {@code "%-6d"}) followed by that many bytes of {@code key=value;} pairs, the
 *     first pair being {@code cmd=NAME;}. The server splits on {@code ;} and does not unescape, so keys
 *     and values carry no {@code ;}.</li>
 * </ul>
 * Each exchange runs on the connection's own daemon thread while the caller waits with a deadline; an
 * answer that does not come in time leaves the connection broken (a late answer would be taken for the
 * next command's), and later calls fail at once. Not for concurrent use: {@link Pmi2Store} serialises.
 */
final class Pmi2Wire
{
    /** The longest answer accepted (Slurm's values are at most 1024 bytes, a get answer adds little). */
    static final int MAX_MESSAGE = 64 * 1024;

    private final InputStream in;
    private final OutputStream out;
    private final String launcher;
    private final ExecutorService thread;
    private String broken;

    Pmi2Wire(final InputStream in, final OutputStream out, final String launcher)
    {
        this.in = in;
        this.out = out;
        this.launcher = launcher;
        this.thread = Executors.newSingleThreadExecutor(r -> {
            final Thread t = new Thread(r, "shmav-pmi2");
            t.setDaemon(true); // a server that never answers must not keep the JVM alive
            return t;
        });
    }

    /** The PMI-1 style version handshake; throws unless the server agrees to PMI-2.0. */
    void handshake(final Duration timeout)
    {
        final String answer = bounded("init", timeout, () -> {
            out.write("cmd=init pmi_version=2 pmi_subversion=0\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return readLine();
        });
        if (!answer.startsWith("cmd=response_to_init") || !answer.contains(" rc=0") ||
            !answer.contains("pmi_version=2"))
        {
            throw new FabricException("PMI2_Init", FiErrno.EIO, "launcher=" + launcher + " refused PMI-2.0: " +
                "answered '" + answer + "'");
        }
    }

    /**
     * Sends {@code cmd=NAME;k=v;...;} and returns the answer's pairs (with {@code cmd}), after checking that
     * the answer is {@code NAME-response}.
     */
    Map<String, String> command(final String name, final Map<String, String> pairs, final Duration timeout)
    {
        final StringBuilder body = new StringBuilder("cmd=").append(name).append(';');
        pairs.forEach((k, v) -> body.append(k).append('=').append(v).append(';'));
        final byte[] bytes = body.toString().getBytes(StandardCharsets.US_ASCII);
        final Map<String, String> answer = parse(bounded(name, timeout, () -> {
            out.write(String.format("%-6d", bytes.length).getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.flush();
            return readMessage();
        }));
        if (!(name + "-response").equals(answer.get("cmd")))
        {
            broken = name;
            throw new FabricException(name, FiErrno.EIO, "launcher=" + launcher + " answered " + answer +
                " to cmd=" + name);
        }
        return answer;
    }

    /** Parses {@code k=v;k=v;} (no escapes: Slurm neither sends nor accepts them). */
    static Map<String, String> parse(final String message)
    {
        final Map<String, String> pairs = new LinkedHashMap<>();
        for (final String pair : message.split(";"))
        {
            final int eq = pair.indexOf('=');
            if (eq > 0)
            {
                pairs.putIfAbsent(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        return pairs;
    }

    /** Stops the connection's thread; the socket itself stays open (see {@link #overDescriptor}). */
    void shutdown()
    {
        thread.shutdownNow();
    }

    boolean isBroken()
    {
        return broken != null;
    }

    /**
     * A wire over the inherited descriptor {@code fd} ({@link InheritedDescriptor}); it is never closed.
     *
     * @throws FabricException FI_EBADF when the JVM does not allow it
     */
    static Pmi2Wire overDescriptor(final int fd, final String launcher)
    {
        final FileDescriptor descriptor;
        try
        {
            descriptor = InheritedDescriptor.wrap(fd);
        }
        catch (final ReflectiveOperationException | RuntimeException | LinkageError e)
        {
            throw new FabricException("PMI2_Init", FiErrno.EBADF, "launcher=" + launcher + ": this JVM cannot use the " +
                "inherited PMI_FD=" + fd + " (sun.misc.Unsafe unavailable: " + e + ")", e);
        }
        return new Pmi2Wire(new FileInputStream(descriptor), new FileOutputStream(descriptor), launcher);
    }

    private <T> T bounded(final String name, final Duration timeout, final Callable<T> exchange)
    {
        if (broken != null)
        {
            throw new FabricException(name, FiErrno.EOPBADSTATE, "launcher=" + launcher + ": the PMI-2 connection " +
                "is unusable since cmd=" + broken + " got no proper answer");
        }
        final Future<T> answer;
        try
        {
            answer = thread.submit(exchange);
        }
        catch (final java.util.concurrent.RejectedExecutionException e)
        {
            throw new FabricException(name, FiErrno.EOPBADSTATE, "launcher=" + launcher + ": the store is closed", e);
        }
        try
        {
            return answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final TimeoutException e)
        {
            broken = name;
            answer.cancel(true);
            throw new FabricException(name, FiErrno.ETIMEDOUT, "launcher=" + launcher + " did not answer cmd=" +
                name + " within " + timeout.toMillis() + " ms", e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            broken = name;
            throw new FabricException(name, FiErrno.EINTR, "launcher=" + launcher + ": interrupted while waiting", e);
        }
        catch (final ExecutionException e)
        {
            broken = name;
            throw new FabricException(name, FiErrno.EIO, "launcher=" + launcher + ": the PMI-2 socket failed during " +
                "cmd=" + name + ": " + e.getCause(), e.getCause());
        }
    }

    /** One {@code \n}-terminated line, byte by byte (nothing past it is consumed). */
    private String readLine() throws IOException
    {
        final StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read())
        {
            if (c < 0 || line.length() > MAX_MESSAGE)
            {
                throw new IOException(c < 0 ? "the server closed the socket" : "answer too long");
            }
            line.append((char)c);
        }
        return line.toString();
    }

    /** One length-prefixed message. */
    private String readMessage() throws IOException
    {
        final String field = new String(readFully(6), StandardCharsets.US_ASCII).trim();
        final int length;
        try
        {
            length = Integer.parseInt(field);
        }
        catch (final NumberFormatException e)
        {
            throw new IOException("length field '" + field + "' is not a number", e);
        }
        if (length < 0 || length > MAX_MESSAGE)
        {
            throw new IOException("length field " + length + " out of range");
        }
        return new String(readFully(length), StandardCharsets.US_ASCII);
    }

    /**
     * Exactly {@code n} bytes, by plain reads: Java 17's {@code FileInputStream.readNBytes} asks the
     * descriptor for its position first, which a socket refuses ("Illegal seek").
     */
    private byte[] readFully(final int n) throws IOException
    {
        final byte[] bytes = new byte[n];
        for (int got = 0; got < n; )
        {
            final int r = in.read(bytes, got, n - got);
            if (r < 0)
            {
                throw new IOException("the server closed the socket after " + got + " of " + n + " bytes");
            }
            got += r;
        }
        return bytes;
    }
}
