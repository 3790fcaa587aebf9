package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;

/**
 * File modes between users. The creator and the openers are child JVMs run as other (non-root)
 * users through {@code setpriv}, because root bypasses file permissions: a 0600 AV of one user gives
 * FI_EACCES to another user, read-write and read-only; an AV created with groupAccess(true) is 0660
 * even under umask 077, and a member of its group can open it read-write, insert, and see the
 * creator's entries, while a user outside the group gets FI_EACCES. Needs root and setpriv (to switch
 * to uids that need no /etc/passwd entry); skipped otherwise, saying why.
 */
class PermissionsIT
{
    private static final int GROUP = 50000;
    private static final int ALICE = 50001;
    private static final int BOB = 50002;
    private static final int MALLORY = 50003;

    private static Path base;
    private static Path avDir;
    private static String classpath;

    @BeforeAll
    static void setUp() throws Exception
    {
        Require.that("ROOT", OtherUsers.canRunAs(MALLORY), "needs root and setpriv to run child JVMs as other users " +
            "(root bypasses file permissions, so the opener must not be root); running as " + System.getProperty("user.name"));
        base = TestDir.createInShm("robust");
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-xr-x"));
        avDir = Files.createDirectories(base.resolve("avs"));
        Files.setPosixFilePermissions(avDir, PosixFilePermissions.fromString("rwxrwxrwx"));
        OtherUsers.run("chmod", "1777", avDir.toString()); // sticky and world-writable, like /dev/shm
        classpath = OtherUsers.copyClasspath(base.resolve("cp"));
    }

    @AfterAll
    static void tearDown() throws IOException
    {
        TestDir.delete(base);
    }

    @Test
    void shouldRefuseAnotherUsersPrivateAvWithEacces() throws Exception
    {
        assertEquals("ok count=1", probe(ALICE, ALICE, "", "create", "alice0600"));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(avDir.resolve("alice0600"))));
        assertEquals("errno=" + FiErrno.EACCES, probe(BOB, BOB, "", "open-rw", "alice0600"));
        assertEquals("errno=" + FiErrno.EACCES, probe(BOB, BOB, "", "open-ro", "alice0600"));
        assertEquals("errno=" + FiErrno.EACCES, probe(BOB, BOB, "", "unlink", "alice0600"));
        assertEquals("ok count=2", probe(ALICE, ALICE, "", "open-rw", "alice0600"), "the owner still can");
    }

    @Test
    void shouldShareAGroupAvWithTheGroupOnly() throws Exception
    {
        assertEquals("ok count=1", probe(ALICE, GROUP, "", "create-group", "team0660"));
        assertEquals("rw-rw----", PosixFilePermissions.toString(Files.getPosixFilePermissions(avDir.resolve("team0660"))),
            "groupAccess must survive umask 077");
        // A writer writes another user's file only when it asked for group access and is in its group.
        assertEquals("errno=" + FiErrno.EACCES, probe(BOB, BOB, Integer.toString(GROUP), "open-rw", "team0660"));
        assertEquals("ok count=2", probe(BOB, BOB, Integer.toString(GROUP), "open-rw-group", "team0660"));
        assertEquals("ok count=2", probe(BOB, BOB, Integer.toString(GROUP), "open-ro", "team0660"));
        assertEquals("errno=" + FiErrno.EACCES, probe(MALLORY, MALLORY, "", "open-rw", "team0660"));
        assertEquals("errno=" + FiErrno.EACCES, probe(MALLORY, MALLORY, "", "open-ro", "team0660"));
        assertEquals("ok count=3", probe(ALICE, GROUP, "", "open-rw", "team0660"), "the creator sees the member's insert");
    }

    /**
     * The CLI writes a group AV that another member of the group created when asked with {@code --group},
     * as the API does with groupAccess; without it, it refuses, and says to add {@code --group} (the
     * library's advice names the API's groupAccess). Both insert and remove had no way to do it.
     */
    @Test
    void shouldLetTheCliWriteAnotherMembersGroupAvWithGroup() throws Exception
    {
        assertEquals("ok count=1", probe(ALICE, GROUP, "", "create-group", "teamcli"));
        final String refused = cli(BOB, "insert", "teamcli", "10.0.0.9:5000");
        assertTrue(refused.startsWith("exit=8 ") && refused.contains("add --group") && // 8: permission denied
            !refused.contains("groupAccess"), refused);
        final String inserted = cli(BOB, "insert", "teamcli", "10.0.0.9:5000", "--group");
        assertTrue(inserted.startsWith("exit=0") && inserted.contains("10.0.0.9:5000: inserted at fi_addr 1"), inserted);
        final String removed = cli(BOB, "remove", "teamcli", "10.0.0.9:5000", "--group");
        assertTrue(removed.startsWith("exit=0") && removed.contains("count now 1"), removed);
    }

    /** Runs the shmav CLI as {@code uid} (in the group) on the test's directory: "exit=N" and its output. */
    private static String cli(final int uid, final String... args) throws Exception
    {
        final List<String> prefix = List.of("sh", "-c", "umask 077 && exec \"$@\"", "sh", "setpriv",
            "--reuid=" + uid, "--regid=" + uid, "--groups=" + GROUP, "--");
        final List<String> command = new java.util.ArrayList<>(List.of(args));
        command.addAll(List.of("--dir", avDir.toString()));
        try (ChildJvm child = ChildJvm.start(prefix, classpath, Map.of("HOME", "/"), org.shmav.cli.ShmavCli.class,
            base.resolve("out"), command.toArray(String[]::new)))
        {
            final int exit = child.waitFor(Duration.ofSeconds(60));
            System.out.println("PermissionsIT: uid=" + uid + " shmav " + String.join(" ", args) + " -> exit " + exit);
            return "exit=" + exit + " " + child.output();
        }
    }

    /** Runs {@link Probe} as uid/gid (umask 077) and returns its RESULT. */
    private static String probe(final int uid, final int gid, final String groups, final String action, final String name)
        throws Exception
    {
        final List<String> prefix = List.of("sh", "-c", "umask 077 && exec \"$@\"", "sh", "setpriv",
            "--reuid=" + uid, "--regid=" + gid, groups.isEmpty() ? "--clear-groups" : "--groups=" + groups, "--");
        try (ChildJvm child = ChildJvm.start(prefix, classpath, Map.of("HOME", "/"), Probe.class, base.resolve("out"),
            avDir.toString(), action, name))
        {
            assertEquals(0, child.waitFor(Duration.ofSeconds(60)), child.output());
            final String out = child.output();
            final String result = out.lines().filter(l -> l.startsWith("RESULT ")).findFirst().orElse("RESULT none: " + out);
            System.out.println("PermissionsIT: uid=" + uid + " gid=" + gid + " groups=" + groups + " " + action + " " + name +
                " -> " + result);
            final String outcome = result.substring("RESULT ".length());
            return outcome.startsWith("errno=") ? outcome.split(" ")[0] : outcome;
        }
    }

    /** Child: creates or opens an AV and prints {@code RESULT ok count=N} or {@code RESULT errno=E message}. */
    public static final class Probe
    {
        public static void main(final String[] args)
        {
            final String action = args[1];
            final String name = args[2];
            try (Domain d = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(Path.of(args[0])).build()))
            {
                if (action.equals("unlink"))
                {
                    d.unlinkAv(name);
                    System.out.println("RESULT ok count=-1");
                    return;
                }
                final AvAttr.Builder attr = AvAttr.builder().name(name).count(action.startsWith("create") ? 16 : 0)
                    .groupAccess(action.equals("create-group") || action.equals("open-rw-group")).flags(action.equals("open-ro") ? Fi.READ : 0);
                try (AddressVector av = d.openAv(attr.build()))
                {
                    if (!av.isReadOnly())
                    {
                        av.insert(FuzzRunner.inet((int)(ProcessHandle.current().pid() & 0x7FFF) + 1), 1, null, 0, null);
                    }
                    System.out.println("RESULT ok count=" + av.count());
                }
            }
            catch (final FabricException e)
            {
                System.out.println("RESULT errno=" + e.errno() + " " + e.getMessage());
            }
        }
    }
}
