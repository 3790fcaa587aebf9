package org.shmav.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A PMI-2 server for tests, speaking to each task as Slurm's {@code mpi/pmi2} plugin does (read in
 * Slurm 22.05's {@code src/plugins/mpi/pmi2}: {@code agent.c} for the first line, {@code client.c} for
 * the framing, {@code pmi2.c} for the commands), since no {@code slurmd} runs here:
 * <ul>
 * <li>the first message is read with one {@code read} of at most 64 bytes and must be
 *     {@code cmd=init pmi_version=2 pmi_subversion=0\n}; answer
 *     {@code cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n};</li>
 * <li>then 6 bytes of length ({@code atoi}) and the body; answers are framed with {@code "%-6d"};</li>
 * <li>{@code fullinit} (needs {@code pmijobid}, {@code pmirank}, {@code threaded}) answers
 *     {@code cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=R;size=N;appnum=-1;debugged=FALSE;pmiverbose=FALSE;};</li>
 * <li>{@code kvs-put} keeps the pair until the fence ({@code temp_kvs_add}), answers rc=0;</li>
 * <li>{@code kvs-fence} answers nobody until every task of the step has fenced, then publishes every
 *     pending pair and answers each {@code cmd=kvs-fence-response;rc=0;} (or the rc and errmsg set with
 *     {@link #failFences});</li>
 * <li>{@code kvs-get} looks the key up in the step's one key space, ignoring {@code srcid}: found
 *     {@code cmd=kvs-get-response;rc=0;found=TRUE;value=V;}, else {@code ...;rc=0;found=FALSE;};</li>
 * <li>{@code finalize} answers {@code cmd=finalize-response;rc=0;} and closes the task's socket.</li>
 * </ul>
 * Each task connects over TCP (in a real step it inherits a socketpair end as {@code PMI_FD}); the rank
 * is the one the task names in {@code fullinit}.
 */
public final class Pmi2TestServer implements AutoCloseable
{
    private final ServerSocket listener;
    private final int size;
    private final boolean answerInit;
    private final List<String> received = new CopyOnWriteArrayList<>();
    private final Map<String, String> kvs = new ConcurrentHashMap<>();
    private final Map<String, String> pending = new HashMap<>();
    private final List<OutputStream> fenced = new ArrayList<>();
    private final List<Socket> tasks = new CopyOnWriteArrayList<>();
    private volatile String fenceFailure;

    private Pmi2TestServer(final int size, final boolean answerInit) throws IOException
    {
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.size = size;
        this.answerInit = answerInit;
        final Thread acceptor = new Thread(this::accept, "pmi2-test-server");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A server for a step of {@code size} tasks. */
    public static Pmi2TestServer start(final int size) throws IOException
    {
        return new Pmi2TestServer(size, true);
    }

    /** A server that reads the first line and never answers it: a frozen step daemon. */
    public static Pmi2TestServer silent() throws IOException
    {
        return new Pmi2TestServer(1, false);
    }

    public int port()
    {
        return listener.getLocalPort();
    }

    /** Every message received, in order, as sent: the init line, then each length field and body. */
    public List<String> received()
    {
        return received;
    }

    /** Fences end with {@code rc} and {@code errmsg}, as Slurm answers when forwarding the KVS fails. */
    public void failFences(final int rc, final String errmsg)
    {
        fenceFailure = "rc=" + rc + ";errmsg=" + errmsg + ";";
    }

    @Override
    public void close() throws IOException
    {
        listener.close();
        for (final Socket task : tasks)
        {
            task.close();
        }
    }

    private void accept()
    {
        try
        {
            while (true)
            {
                final Socket task = listener.accept();
                tasks.add(task);
                final Thread t = new Thread(() -> serve(task), "pmi2-test-task");
                t.setDaemon(true);
                t.start();
            }
        }
        catch (final IOException e)
        {
            // closed
        }
    }

    private void serve(final Socket task)
    {
        try (task)
        {
            final InputStream in = task.getInputStream();
            final OutputStream out = task.getOutputStream();
            final byte[] first = new byte[64];
            final int n = in.read(first); // one read, as Slurm's agent does: the line must come in one write
            final String init = n < 0 ? "" : new String(first, 0, n, StandardCharsets.US_ASCII);
            received.add(init);
            if (!answerInit)
            {
                in.read(); // until the client gives up
                return;
            }
            if (!init.equals("cmd=init pmi_version=2 pmi_subversion=0\n"))
            {
                out.write("cmd=response_to_init rc=1 pmi_version=2 pmi_subversion=0\n".getBytes(StandardCharsets.US_ASCII));
                return;
            }
            out.write("cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n".getBytes(StandardCharsets.US_ASCII));
            while (true)
            {
                final byte[] field = in.readNBytes(6);
                if (field.length < 6)
                {
                    return;
                }
                final String length = new String(field, StandardCharsets.US_ASCII);
                final String body = new String(in.readNBytes(Integer.parseInt(length.trim())), StandardCharsets.US_ASCII);
                received.add(length + body);
                if (!handle(Pmi2Wire.parse(body), out))
                {
                    return;
                }
            }
        }
        catch (final IOException | RuntimeException e)
        {
            // the task went away
        }
    }

    /** One command; false when the task finalized. */
    private boolean handle(final Map<String, String> req, final OutputStream out) throws IOException
    {
        final String cmd = req.get("cmd");
        switch (cmd)
        {
            case "fullinit":
                final boolean ok = req.containsKey("pmijobid") && req.containsKey("pmirank") && req.containsKey("threaded");
                send(out, "cmd=fullinit-response;rc=" + (ok ? 0 : 3) + ";pmi-version=2;pmi-subversion=0;rank=" +
                    req.get("pmirank") + ";size=" + size + ";appnum=-1;debugged=FALSE;pmiverbose=FALSE;");
                return true;
            case "kvs-put":
                synchronized (this)
                {
                    pending.put(req.get("key"), req.get("value"));
                }
                send(out, "cmd=kvs-put-response;rc=0;");
                return true;
            case "kvs-fence":
                fence(out);
                return true;
            case "kvs-get":
                final String value = kvs.get(req.get("key"));
                send(out, "cmd=kvs-get-response;rc=0;" + (value == null ? "found=FALSE;" : "found=TRUE;value=" + value + ";"));
                return true;
            case "finalize":
                send(out, "cmd=finalize-response;rc=0;");
                return false;
            default:
                send(out, "cmd=" + cmd + "-response;rc=14;errmsg=unknown command;");
                return true;
        }
    }

    private synchronized void fence(final OutputStream out) throws IOException
    {
        fenced.add(out);
        if (fenced.size() < size)
        {
            return;
        }
        kvs.putAll(pending);
        pending.clear();
        final String failure = fenceFailure;
        for (final OutputStream task : fenced)
        {
            send(task, "cmd=kvs-fence-response;" + (failure == null ? "rc=0;" : failure));
        }
        fenced.clear();
    }

    private static void send(final OutputStream out, final String body) throws IOException
    {
        final byte[] bytes = body.getBytes(StandardCharsets.US_ASCII);
        synchronized (out)
        {
            out.write(String.format("%-6d", bytes.length).getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.flush();
        }
    }
}
