package org.shmav.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;

/**
 * One run of the shmav CLI inside the test JVM, on a directory of the test's: its exit code and what it
 * printed to each stream.
 *
 * @param code the exit code
 * @param out  standard output
 * @param err  standard error
 */
record CliRun(int code, String out, String err)
{
    /** Runs {@code shmav ARGS --dir DIR}. */
    static CliRun in(final Path dir, final String... args)
    {
        final String[] all = new String[args.length + 2];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--dir";
        all[args.length + 1] = dir.toString();
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = ShmavCli.execute(new PrintWriter(out), new PrintWriter(err), all);
        return new CliRun(code, out.toString(), err.toString());
    }
}
