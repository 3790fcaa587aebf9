package org.shmav;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The name MPICH's Hydra gives a job, asked of the node's proxy over the rank's PMI socket
 * ({@code PMI_FD}), in the PMI-1 wire protocol: {@code cmd=init pmi_version=1 pmi_subversion=1}, then
 * {@code cmd=get_my_kvsname}, answered {@code cmd=my_kvsname kvsname=kvs_<mpiexec pid>_<pgid>_<random>_<host>}:
 * one name per job, the same on every node.
 *
 * <p>Measured with MPICH 4.0 (a C program doing this exchange on the socket, then MPI_Init and a
 * collective; shell ranks doing only the exchange): the exchange before or after MPI_Init leaves MPI
 * working, but a {@code cmd=finalize} makes the proxy close the socket, and a later MPI_Init dies of
 * SIGPIPE; and a process that did {@code cmd=init} and exits without {@code cmd=finalize} makes Hydra
 * kill every other rank of the job with SIGKILL. So {@code cmd=finalize} is sent once, by a shutdown
 * hook, as the JVM exits: after any MPI_Finalize (which closed the socket: the write then fails,
 * harmlessly), never before MPI_Init. The exchange runs once per process ({@link Rank#fromEnvironment()});
 * a rank must not call that while another of its threads is inside an MPI call that talks to the proxy.
 *
 * <p>Java cannot open an inherited socket by number ({@code /proc/self/fd/N} refuses sockets), so the
 * descriptor is wrapped with {@code sun.misc.Unsafe} (module jdk.unsupported, no flag needed); it is
 * never closed. When that is not possible, or the proxy does not answer within {@link #ANSWER_MILLIS},
 * the result is empty and the caller falls back to the proxy's process.
 */
final class HydraPmi
{
    /** How long the proxy may take to answer. */
    static final long ANSWER_MILLIS = 5_000;

    private HydraPmi()
    {
    }

    /** The job's KVS name, or empty when {@code pmiFd} is not a Hydra PMI-1 socket that answers. */
    static Optional<String> kvsName(final String pmiFd)
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
        final CompletableFuture<Optional<String>> answer = CompletableFuture.supplyAsync(() -> ask(fd),
            r -> {
                final Thread t = new Thread(r, "shmav-hydra-pmi");
                t.setDaemon(true); // a proxy that never answers must not keep the JVM alive
                t.start();
            });
        try
        {
            return answer.get(ANSWER_MILLIS, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
        catch (final ExecutionException | TimeoutException e)
        {
            return Optional.empty();
        }
    }

    private static Optional<String> ask(final int fd)
    {
        final FileDescriptor descriptor = wrap(fd);
        if (descriptor == null)
        {
            return Optional.empty();
        }
        // Neither stream is ever closed: closing would close the socket MPI's own client uses.
        final FileOutputStream out = new FileOutputStream(descriptor);
        final FileInputStream in = new FileInputStream(descriptor);
        try
        {
            final String init = exchange(out, in, "cmd=init pmi_version=1 pmi_subversion=1");
            if (!init.startsWith("cmd=response_to_init") || !init.contains("rc=0"))
            {
                return Optional.empty();
            }
            final String reply = exchange(out, in, "cmd=get_my_kvsname");
            final String key = "kvsname=";
            final int at = reply.indexOf(key);
            if (!reply.startsWith("cmd=my_kvsname") || at < 0)
            {
                return Optional.empty();
            }
            final String name = reply.substring(at + key.length()).split(" ")[0].trim();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> finalizeAtExit(out, in), "shmav-hydra-pmi-finalize"));
            return name.isEmpty() ? Optional.empty() : Optional.of(name);
        }
        catch (final IOException e)
        {
            return Optional.empty();
        }
    }

    /** {@code cmd=finalize}, so that Hydra takes this process's exit for a normal one; bounded, never throws. */
    private static void finalizeAtExit(final FileOutputStream out, final FileInputStream in)
    {
        final Thread finalizer = new Thread(() -> {
            try
            {
                exchange(out, in, "cmd=finalize");
            }
            catch (final IOException e)
            {
                // MPI_Finalize came first and the proxy closed the socket: nothing left to finalize
            }
        }, "shmav-hydra-pmi-finalize-answer");
        finalizer.setDaemon(true);
        finalizer.start();
        try
        {
            finalizer.join(ANSWER_MILLIS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** Sends one command line and reads one answer line, byte by byte (nothing past it is consumed). */
    private static String exchange(final FileOutputStream out, final FileInputStream in, final String command)
        throws IOException
    {
        out.write((command + "\n").getBytes(StandardCharsets.US_ASCII));
        final StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read())
        {
            if (c < 0 || line.length() > 4096)
            {
                throw new IOException("no PMI answer to " + command);
            }
            line.append((char)c);
        }
        return line.toString();
    }

    /** A FileDescriptor for the inherited descriptor {@code fd}, or null when the JVM does not allow it. */
    private static FileDescriptor wrap(final int fd)
    {
        try
        {
            final Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
            final Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
            theUnsafe.setAccessible(true);
            final Object unsafe = theUnsafe.get(null);
            final long offset = (long)unsafeClass.getMethod("objectFieldOffset", Field.class)
                .invoke(unsafe, FileDescriptor.class.getDeclaredField("fd"));
            final FileDescriptor descriptor = new FileDescriptor();
            unsafeClass.getMethod("putInt", Object.class, long.class, int.class).invoke(unsafe, descriptor, offset, fd);
            return descriptor;
        }
        catch (final ReflectiveOperationException | RuntimeException | LinkageError e)
        {
            return null;
        }
    }
}
