package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Freezing child processes with SIGSTOP and thawing them with SIGCONT, for the tests of frozen peers. */
final class Freezer
{
    private Freezer()
    {
    }

    /** Sends SIGSTOP and waits (bounded) until /proc says the process is stopped: delivery is asynchronous. */
    static void stop(final long pid) throws Exception
    {
        signal("STOP", pid);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true)
        {
            final String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            final char state = stat.charAt(stat.lastIndexOf(')') + 2);
            if (state == 'T' || state == 't')
            {
                return;
            }
            if (System.nanoTime() - deadline > 0)
            {
                fail("pid " + pid + " is not stopped 5 s after SIGSTOP: state " + state);
            }
            Thread.sleep(1);
        }
    }

    static void thaw(final long pid) throws Exception
    {
        signal("CONT", pid);
    }

    private static void signal(final String signal, final long pid) throws Exception
    {
        final Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "kill -" + signal + " " + pid);
    }
}
