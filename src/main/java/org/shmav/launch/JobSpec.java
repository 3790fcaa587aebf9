package org.shmav.launch;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

import org.shmav.JobAddrFormat;

/**
 * What one avrun job is: how many ranks run which command, and where their AV lives.
 *
 * @param size      number of ranks, at least 1
 * @param avName    name of the job's AV, created before the ranks start
 * @param directory directory of the AV ({@code SHMAV_DIR} of every rank)
 * @param keepAv    leave the AV in place after the job (for inspection with {@code scripts/shmav show})
 * @param timeout   wall-clock limit of the whole job, or null for none
 * @param command   the program every rank runs, with its arguments
 * @param prefixOutput prefix every line a rank prints with {@code [rank] }
 * @param threadDumpsOnTimeout the ranks are JVMs: at the timeout, ask each one still running for a
 *                  thread dump (SIGQUIT, printed on its stdout) before stopping it
 * @param addrFormat the address format of the job's AV, passed to every rank in {@value JobAddrFormat#ENV}
 */
public record JobSpec(int size, String avName, Path directory, boolean keepAv, Duration timeout, List<String> command,
    boolean prefixOutput, boolean threadDumpsOnTimeout, JobAddrFormat addrFormat)
{
    /** A job of FI_SOCKADDR_IN addresses. */
    public JobSpec(final int size, final String avName, final Path directory, final boolean keepAv, final Duration timeout,
        final List<String> command, final boolean prefixOutput, final boolean threadDumpsOnTimeout)
    {
        this(size, avName, directory, keepAv, timeout, command, prefixOutput, threadDumpsOnTimeout, JobAddrFormat.IN);
    }

    /** A job whose output is prefixed, without thread dumps. */
    public JobSpec(final int size, final String avName, final Path directory, final boolean keepAv, final Duration timeout,
        final List<String> command)
    {
        this(size, avName, directory, keepAv, timeout, command, true, false);
    }

    public JobSpec
    {
        if (size < 1)
        {
            throw new IllegalArgumentException("size=" + size + " must be at least 1");
        }
        Objects.requireNonNull(avName, "avName");
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(addrFormat, "addrFormat");
        command = List.copyOf(command);
        if (command.isEmpty())
        {
            throw new IllegalArgumentException("command is empty");
        }
    }
}
