package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;

/**
 * A real fabric library end to end: rank 0 is a C program on libfabric's udp provider
 * (integration-tests/fabric/fabric_peer.c, built here with gcc against libfabric-dev), which publishes
 * its fi_getname address with the shmav CLI and reads rank 1's with shmav_av.h; rank 1 is this JVM,
 * which finds rank 0 by its fi_addr in the named AV, publishes its own UDP address, sends rank 0 a
 * message and gets libfabric's fi_send reply. Without gcc or libfabric's headers it skips, or fails
 * under {@code SHMAV_IT_REQUIRE_FABRIC=1} (set by .ci/run, which installs libfabric-dev).
 *
 * <p>The udp provider, not tcp: a datagram endpoint puts a message on the wire as it is, so a plain
 * Java socket can talk to it, where the tcp provider's connections start with its own handshake.
 */
@Timeout(120)
class FabricEndToEndIT
{
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void shouldExchangeMessagesWithALibfabricRankFoundThroughTheNamedAv() throws Exception
    {
        final Path base = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
        try (TestDir dir = TestDir.inShm("fabric"); TestDir work = TestDir.inTmp("fabric-build"))
        {
            final Path peer = build(base, work.path());
            try (Domain d = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir.path()).build());
                 AddressVector av = d.openAv(AvAttr.builder().name("job").type(AvType.TABLE).count(4).build());
                 DatagramChannel socket = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0)))
            {
                final List<String> command = new ArrayList<>(List.of(peer.toString(), dir.path().toString(), "job",
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                    System.getProperty("java.class.path"), "org.shmav.cli.ShmavCli"));
                final Path log = work.path().resolve("peer.log");
                final Process rank0 = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
                try
                {
                    assertTrue(av.awaitCount(1, WAIT), "rank 0 published its address");
                    final InetSocketAddress rank0Address = av.findAddress(0).orElseThrow();
                    assertEquals(1, av.insert((InetSocketAddress)socket.getLocalAddress()), "rank 1 is fi_addr 1");

                    final String hello = "hello from java rank 1";
                    socket.send(ByteBuffer.wrap(hello.getBytes(StandardCharsets.UTF_8)), rank0Address);
                    final String reply = receive(socket);
                    assertEquals("reply from rank 0 over libfabric udp: got '" + hello + "'", reply);
                    assertTrue(rank0.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS), "rank 0 exits");
                    final String out = Files.readString(log);
                    assertEquals(0, rank0.exitValue(), out);
                    assertTrue(out.contains("ADDR fi_sockaddr_in://127.0.0.1:" + rank0Address.getPort()), out);
                    assertTrue(out.contains("PEER fi_sockaddr_in://" + socket.getLocalAddress().toString().substring(1)), out);
                    assertTrue(out.contains("RECEIVED " + hello), out);
                    assertEquals(2, av.count());
                }
                finally
                {
                    rank0.destroyForcibly();
                }
            }
        }
    }

    /** One datagram, within WAIT. */
    private static String receive(final DatagramChannel socket) throws IOException
    {
        socket.socket().setSoTimeout((int)WAIT.toMillis());
        final java.net.DatagramPacket p = new java.net.DatagramPacket(new byte[512], 512);
        try
        {
            socket.socket().receive(p);
        }
        catch (final SocketTimeoutException e)
        {
            fail("no reply from rank 0 within " + WAIT);
        }
        return new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8);
    }

    /** gcc fabric_peer.c -lfabric; skips without gcc or libfabric-dev, or fails under SHMAV_IT_REQUIRE_FABRIC=1. */
    private static Path build(final Path base, final Path work) throws Exception
    {
        final Path out = work.resolve("fabric_peer");
        final List<String> gcc = List.of("gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror",
            "-I", base.resolve("src/main/c").toString(), "-o", out.toString(),
            base.resolve("integration-tests/fabric/fabric_peer.c").toString(), "-lfabric");
        final String why;
        Process p = null;
        try
        {
            p = new ProcessBuilder(gcc).redirectErrorStream(true).start();
        }
        catch (final IOException e)
        {
            p = null;
        }
        if (p == null)
        {
            why = "gcc not found";
        }
        else
        {
            final boolean done = p.waitFor(120, TimeUnit.SECONDS);
            final String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (done && p.exitValue() == 0)
            {
                return out;
            }
            if (!output.contains("rdma/fabric.h") && !output.contains("-lfabric"))
            {
                fail("gcc fabric_peer.c failed:\n" + output);
            }
            why = "libfabric's headers or library are missing (apt-get install libfabric-dev): " + output.strip();
        }
        if ("1".equals(System.getenv("SHMAV_IT_REQUIRE_FABRIC")))
        {
            fail(why + " (SHMAV_IT_REQUIRE_FABRIC=1: this machine must have it)");
        }
        Assumptions.abort(why + ": the end-to-end test with a real fabric library is NOT run");
        return out;
    }
}
