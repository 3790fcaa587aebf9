package org.shmav.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;

import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code shmav insert NAME --from FILE}: bulk-loads addresses into an existing AV with
 * {@code fi_av_insert} and FI_SYNC_ERR, in batches, with a progress bar. The whole file is parsed
 * first: a line that is not an address stops the command before anything is inserted.
 */
@Command(name = "insert", description = {"Inserts addresses into an AV, one per line of FILE ('-' for stdin):",
    "host:port, [ipv6]:port, or fi_av_straddr text (fi_sockaddr_in://10.0.0.1:5000); for a str AV, the line itself.",
    "Blank lines and lines starting with # are skipped. An address already present takes a reference, as fi_av_insert."})
final class InsertCommand extends AvCommand implements Callable<Integer>
{
    /** Addresses per fi_av_insert call. */
    static final int BATCH = 1024;
    /** Failed addresses listed one by one; the rest are counted. */
    static final int LISTED_FAILURES = 20;

    @Parameters(paramLabel = "NAME", description = "the AV's name")
    private String name;

    @Option(names = "--from", required = true, paramLabel = "FILE", description = "the addresses, one per line")
    private String from;

    @Option(names = {"-q", "--quiet"}, description = "no progress bar")
    private boolean quiet;

    /** Set when an address was refused with FI_ENOSPC: the AV is full (exit code 10, not 9). */
    private boolean full;

    /** One address to insert, with the line it came from. */
    private record Line(int number, String text, ByteBuffer address)
    {
    }

    @Override
    public Integer call()
    {
        final AvDirectory dir = directory();
        final AddrFormat format = AvDirectory.addrFormatOf(dir.existingFileOf(name));
        final List<Line> lines = parse(read(), new AddressParser(format));
        try (Domain domain = Domain.open(DomainAttr.builder().addrFormat(format).shmDirectory(dir.path()).build());
             AddressVector av = domain.openAv(AvAttr.builder().name(name).build()))
        {
            final Set<Long> entries = new HashSet<>();
            final List<String> failures = insertAll(av, lines, entries);
            final int inserted = lines.size() - failures.size();
            out().printf("inserted %d of %d addresses into '%s'%s; count now %d%n", inserted, lines.size(), name,
                entries.size() == inserted ? "" : " as " + entries.size() + " entries (an address given twice or " +
                    "already present takes one more reference)", av.count());
            failures.stream().limit(LISTED_FAILURES).forEach(f -> out().println("  not inserted: " + f));
            if (failures.size() > LISTED_FAILURES)
            {
                out().println("  ... and " + (failures.size() - LISTED_FAILURES) + " more");
            }
            if (full)
            {
                err().printf("shmav insert: AV '%s' is full (capacity %d): remove entries (shmav rm, or the API), or " +
                    "create it with a larger --max-count, or free space in its directory if that is full; then " +
                    "insert again%n", name, av.count());
                return ExitCode.NO_SPACE.code;
            }
            return failures.isEmpty() ? ExitCode.OK.code : ExitCode.PARTIAL.code;
        }
        catch (final FabricException e)
        {
            throw AvDirectory.asCliException(dir.fileOf(name), e);
        }
    }

    private List<String> read()
    {
        try
        {
            if ("-".equals(from))
            {
                return new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).lines().toList();
            }
            return Files.readAllLines(Path.of(from), StandardCharsets.UTF_8);
        }
        catch (final NoSuchFileException e)
        {
            throw new CliException(ExitCode.NOT_FOUND, "input file " + from + " does not exist");
        }
        catch (final IOException e)
        {
            throw new CliException(ExitCode.FAILED, "cannot read " + from + ": " + e);
        }
    }

    /** Every address line parsed; BAD_INPUT listing the bad lines when there is any. */
    private List<Line> parse(final List<String> text, final AddressParser parser)
    {
        final List<Line> lines = new ArrayList<>();
        final List<String> bad = new ArrayList<>();
        for (int i = 0; i < text.size(); i++)
        {
            final String t = text.get(i).strip();
            if (t.isEmpty() || t.startsWith("#"))
            {
                continue;
            }
            try
            {
                lines.add(new Line(i + 1, t, parser.parse(t)));
            }
            catch (final AddressParser.BadLine e)
            {
                bad.add("line " + (i + 1) + ": '" + t + "': " + e.getMessage());
            }
        }
        if (!bad.isEmpty())
        {
            throw new CliException(ExitCode.BAD_INPUT, bad.size() + " line(s) of " + from +
                " are not addresses, nothing was inserted:\n  " + String.join("\n  ", bad.subList(0, Math.min(bad.size(),
                LISTED_FAILURES))) + (bad.size() > LISTED_FAILURES ? "\n  ..." : ""));
        }
        return lines;
    }

    /** Inserts in batches of {@value #BATCH}; returns one description per address that failed. */
    private List<String> insertAll(final AddressVector av, final List<Line> lines, final Set<Long> entries)
    {
        final List<String> failures = new ArrayList<>();
        try (ProgressBar bar = progressBar(lines.size()))
        {
            for (int start = 0; start < lines.size(); start += BATCH)
            {
                final List<Line> batch = lines.subList(start, Math.min(lines.size(), start + BATCH));
                insertBatch(av, batch, failures, entries);
                if (bar != null)
                {
                    bar.stepBy(batch.size());
                }
            }
        }
        return failures;
    }

    /** Inserts one batch; adds a description of each failure to {@code failures}, each fi_addr to {@code entries}. */
    private void insertBatch(final AddressVector av, final List<Line> batch, final List<String> failures,
        final Set<Long> entries)
    {
        final int[] errors = new int[batch.size()];
        final long[] fiAddr = new long[batch.size()];
        final ByteBuffer packed = ByteBuffer.allocate(batch.stream().mapToInt(l -> l.address().remaining()).sum());
        batch.forEach(l -> packed.put(l.address().duplicate()));
        av.insert(packed.flip(), batch.size(), fiAddr, Fi.SYNC_ERR, errors);
        for (int i = 0; i < batch.size(); i++)
        {
            if (errors[i] == 0)
            {
                entries.add(fiAddr[i]);
            }
            else
            {
                full |= errors[i] == FiErrno.ENOSPC;
                failures.add("line " + batch.get(i).number() + ": " + batch.get(i).text() + ": " +
                    FiErrno.name(errors[i]) + " (" + FiErrno.strerror(errors[i]) + ")");
            }
        }
    }

    /** A progress bar on stderr, or null with --quiet or when nobody watches (no terminal). */
    private ProgressBar progressBar(final int total)
    {
        if (quiet || System.console() == null)
        {
            return null;
        }
        return new ProgressBarBuilder().setTaskName("insert " + name).setInitialMax(total)
            .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(100).continuousUpdate().build();
    }
}
