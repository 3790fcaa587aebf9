package org.shmav.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Help and usage errors of the shmav CLI: no AV is touched, so these run in the unit-test phase. */
class ShmavCliUsageTest
{
    private static final List<String> COMMANDS = List.of("ls", "show", "dump", "watch", "create", "insert", "remove", "rm",
        "gc");

    /** What one run printed and returned. */
    private record Run(int code, String out, String err)
    {
    }

    private static Run shmav(final String... args)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = ShmavCli.execute(new PrintWriter(out), new PrintWriter(err), args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void shouldPrintEachCommandsHelpWithDashDashHelpAndWithHelpCommand()
    {
        for (final String command : COMMANDS)
        {
            final Run dashDash = shmav(command, "--help");
            assertEquals(0, dashDash.code(), command + " --help: " + dashDash.err());
            assertTrue(dashDash.out().startsWith("Usage: shmav " + command + " "), dashDash.out());
            assertTrue(dashDash.out().contains("Exit codes:"), dashDash.out());
            assertEquals("", dashDash.err());

            final Run help = shmav("help", command);
            assertEquals(0, help.code(), "help " + command + ": " + help.err());
            assertEquals(dashDash.out(), help.out(), "shmav help " + command + " is shmav " + command + " --help");
        }
        final Run top = shmav("--help");
        assertEquals(0, top.code());
        assertTrue(top.out().contains("help"), "the help command is listed: " + top.out());
        assertEquals(top.out(), shmav("help").out());
    }

    @Test
    void shouldPrintOneLineAndAPointerToHelpOnAUsageError()
    {
        final Run unknownOption = shmav("ls", "--frobnicate");
        assertEquals(2, unknownOption.code());
        assertEquals("", unknownOption.out());
        assertEquals(List.of("shmav ls: Unknown option: '--frobnicate'", "Try 'shmav ls --help' for more information."),
            unknownOption.err().lines().toList());

        final Run missing = shmav("create", "x");
        assertEquals(2, missing.code());
        assertEquals(2, missing.err().lines().count(), missing.err());
        assertTrue(missing.err().startsWith("shmav create: Missing required option: '--count=N"), missing.err());
        assertTrue(missing.err().endsWith("Try 'shmav create --help' for more information.\n"), missing.err());

        final Run unknownCommand = shmav("lss");
        assertEquals(2, unknownCommand.code());
        assertTrue(unknownCommand.err().lines().count() <= 3, unknownCommand.err());
        assertTrue(unknownCommand.err().startsWith("shmav: Unmatched argument at index 0: 'lss'"), unknownCommand.err());
        assertTrue(unknownCommand.err().contains("Did you mean: ls"), unknownCommand.err());
        assertTrue(unknownCommand.err().endsWith("Try 'shmav --help' for more information.\n"), unknownCommand.err());

        final Run none = shmav();
        assertEquals(2, none.code());
        assertEquals(2, none.err().lines().count(), none.err());
    }

    @Test
    void shouldAnswerEveryUsageErrorOfEveryCommandWithTheErrorAndOneLineOfHelp()
    {
        for (final String command : COMMANDS)
        {
            assertUsageError(command, "", command, "--frobnicate");
        }
        // errors the parser cannot see: the command finds them, and answers the same way
        // the library's limits (NamedAvSize), as the API enforces them
        assertUsageError("create", "count=-1 is negative: use 0 (the default) or a positive count", "create", "x", "--count", "-1");
        assertUsageError("create", "count=8 is more than maxCount=4", "create", "x", "--count", "8", "--max-count", "4");
        assertUsageError("create", "at most 14910848 for count=1 (FI_SOCKADDR_IN)", "create", "x", "--count", "1", "--max-count", "268435457");
        assertUsageError("insert", "give the addresses to insert", "insert", "x");
        assertUsageError("insert", "either as arguments or with --from", "insert", "x", "127.0.0.1:1", "--from", "f");
        assertUsageError("remove", "give the entry to remove", "remove", "x");
        assertUsageError("remove", "either an address or --fi-addr", "remove", "x", "127.0.0.1:1", "--fi-addr", "0");
        assertUsageError("watch", "--interval must be >= 1", "watch", "x", "--interval", "0");
        assertUsageError("gc", "--grace must be >= 0", "gc", "--grace", "-1");
    }

    /** Exit code 2, nothing on stdout, and on stderr exactly "shmav COMMAND: ...what..." and the pointer to help. */
    private static void assertUsageError(final String command, final String what, final String... args)
    {
        final Run run = shmav(args);
        final String context = String.join(" ", args) + ": " + run.err();
        assertEquals(2, run.code(), context);
        assertEquals("", run.out(), context);
        final List<String> lines = run.err().lines().toList();
        assertEquals(2, lines.size(), context);
        assertTrue(lines.get(0).startsWith("shmav " + command + ": ") && lines.get(0).toLowerCase().contains(what.toLowerCase()),
            context);
        assertEquals("Try 'shmav " + command + " --help' for more information.", lines.get(1), context);
    }
}
