package org.shmav.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmav.it.TestDir;

/**
 * Commands run inside a long-lived JVM (a test, a service embedding the CLI) give back the AV files they
 * read: no descriptor of an AV stays open after a command, so a removed AV's memory is freed at once.
 */
class ShmavCliDescriptorsTest
{
    private Path dir;

    @BeforeEach
    void setUp() throws IOException
    {
        dir = TestDir.createInShm("cli-fds");
    }

    @AfterEach
    void cleanUp()
    {
        TestDir.delete(dir);
    }

    private int shmav(final String... args)
    {
        final String[] all = new String[args.length + 2];
        all[0] = "--dir";
        all[1] = dir.toString();
        System.arraycopy(args, 0, all, 2, args.length);
        return ShmavCli.execute(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()), all);
    }

    /** Descriptors of this JVM open on files in the test's directory (deleted ones included). */
    private long openDescriptors() throws IOException
    {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd")))
        {
            return fds.filter(fd ->
            {
                try
                {
                    return Files.readSymbolicLink(fd).toString().startsWith(dir.toString());
                }
                catch (final IOException e)
                {
                    return false; // closed meanwhile (the listing's own descriptor)
                }
            }).count();
        }
    }

    @Test
    void shouldCloseEveryAvFileAReadingCommandOpened() throws IOException
    {
        assertEquals(0, shmav("create", "a", "--count", "16"));
        assertEquals(0, openDescriptors(), "after create");
        for (int i = 0; i < 3; i++)
        {
            assertEquals(0, shmav("ls"));
            assertEquals(0, shmav("show", "a"));
            assertEquals(0, shmav("dump", "a"));
            assertEquals(0, shmav("watch", "a", "--duration", "0.05", "--interval", "10"));
            assertEquals(0, shmav("gc"));
        }
        assertEquals(0, openDescriptors(), "after ls, show, dump, watch and gc");
        assertEquals(0, shmav("rm", "a"));
        assertEquals(0, openDescriptors(), "after rm: a descriptor would keep the removed AV's memory");
    }
}
