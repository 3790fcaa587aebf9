package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.shmav.Addresses;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.cli.ShmavCli;

/**
 * A user who may only read an AV (group member of a 0640 AV) takes shared record locks on every byte
 * of every file it can open, and holds them, while the owner's writers work: they must open, insert
 * past several growths, insert auth keys, and recover a writer killed with SIGKILL, and {@code shmav gc}
 * must report what it really did. Shared locks conflict with the writers' exclusive ones, so this holds
 * only because the writers lock the AV's lock file, which a reader cannot open. Needs root (setpriv to
 * another user): skipped otherwise, saying why.
 */
class ReadOnlyLockerIT
{
    private static final int GROUP = 50030;
    private static final int READER = 50031;
    private static final Duration WAIT = Duration.ofSeconds(60);

    private Path base;

    @AfterEach
    void tearDown() throws IOException
    {
        TestDir.delete(base);
    }

    @Test
    void shouldLetNoReadOnlyUserStopWritersOrHideADeadOne() throws Exception
    {
        Require.root("to run a child JVM as another user (setpriv)");
        Require.that("ROOT", OtherUsers.canRunAs(READER), "needs setpriv to run child JVMs as other users");
        base = TestDir.createInShm("robust");
        OtherUsers.run("chmod", "0755", base.toString());
        final Path avs = Files.createDirectories(base.resolve("avs"));
        OtherUsers.run("chmod", "1777", avs.toString());
        final String cp = OtherUsers.copyClasspath(base.resolve("cp"));
        try (Domain d = domain(avs))
        {
            d.openAv(AvAttr.builder().type(AvType.TABLE).name("ro").count(4).groupAccess(true).build()).close();
        }
        // The owner lets the group read the AV, not write it.
        OtherUsers.run("chgrp", Integer.toString(GROUP), avs.resolve("ro").toString());
        OtherUsers.run("chmod", "0640", avs.resolve("ro").toString());
        try (Domain d = domain(avs);
             ChildJvm reader = ChildJvm.start(List.of("setpriv", "--reuid=" + READER, "--regid=" + GROUP,
                 "--clear-groups", "--"), cp, Map.of("HOME", "/"), HostileLocker.class, base.resolve("out"),
                 avs.toString(), "120"))
        {
            reader.awaitOutput("ro]", WAIT);
            assertFalse(reader.stdout().contains(".shmav-lock.ro"), "a reader cannot open the lock file: " + reader.stdout());
            try (AddressVector owner = d.openAv(AvAttr.builder().name("ro").build()))
            {
                assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
                    avs.resolve(".shmav-lock.ro"))), "the owner's writer narrowed the lock file to the AV's writers");
                work(avs, owner);
            }
            assertTrue(reader.isAlive(), "the reader held its locks throughout:\n" + reader.output());
        }
    }

    /** With the reader's locks held: inserts past several growths, auth keys, a dead writer recovered, gc's report. */
    private void work(final Path avs, final AddressVector owner) throws Exception
    {
        // Inserts past several growths (4 -> 1024), and auth keys, with the reader's locks held.
        final long[] fiAddr = new long[1];
        for (int i = 0; i < 1000; i++)
        {
            assertEquals(1, owner.insert(address(i), 1, fiAddr, 0, null), "insert " + i);
        }
        assertEquals(1000, owner.count());
        assertTrue(owner.attr().count() >= 1000, "grew to " + owner.attr().count());
        for (int k = 0; k < 3; k++)
        {
            final long handle = owner.insertAuthKey(ByteBuffer.allocate(8).putLong(0, 1000 + k), 0);
            assertEquals(handle, owner.insertAuthKey(ByteBuffer.allocate(8).putLong(0, 1000 + k), 0), "key " + k);
        }

        // A second writer dies holding its entry; the owner's writer recovers it.
        try (ChildJvm doomed = ChildJvm.start(StaleWriter.class, base.resolve("out"), avs.toString(), "doomed", "ro"))
        {
            doomed.awaitOutput("ready", WAIT);
            doomed.kill();
        }
        final String gc = run(avs, "gc");
        assertTrue(gc.contains("repaired  ro:") && gc.contains("1 dead attacher entr"), gc);
        assertTrue(owner.reverseLookup(Addresses.toSockaddr(new InetSocketAddress("127.0.0.1", 7100))) >= 0,
            "the dead writer's published entry stays");
        final String show = run(avs, "show", "ro");
        assertTrue(show.contains("attachers: 1 live, 0 dead"), show);
    }

    private static Domain domain(final Path avs)
    {
        return Domain.open(DomainAttr.builder().shmDirectory(avs).avAuthKey(true).authKeySize(8).build());
    }

    private static ByteBuffer address(final int i)
    {
        return Addresses.toSockaddr(new InetSocketAddress("10.31." + (i >>> 8) + "." + (i & 255), 7000));
    }

    private static String run(final Path avs, final String... args)
    {
        final StringWriter out = new StringWriter();
        final String[] all = new String[args.length + 2];
        all[0] = "--dir";
        all[1] = avs.toString();
        System.arraycopy(args, 0, all, 2, args.length);
        final int code = ShmavCli.execute(new PrintWriter(out), new PrintWriter(out), all);
        assertEquals(0, code, out::toString);
        return out.toString();
    }
}
