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

import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.FabricException;
import org.shmav.Fi;

import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code shmav insert NAME ADDR... | --from FILE}: inserts addresses into an existing AV with
 * {@code fi_av_insert} and FI_SYNC_ERR, in batches, and says per address what happened: inserted at
 * an fi_addr, already present (which takes one more reference, as fi_av_insert does), or failed and
 * why. Every address is parsed first: one that is not an address stops the command before anything is
 * inserted.
 */
@Command(name = "insert", description = {"Inserts addresses into an AV: the ADDR arguments, or one per line of " +
    "FILE ('-' for stdin): host:port, [ipv6]:port, or fi_av_straddr text (fi_sockaddr_in://10.0.0.1:5000); for a " +
    "str AV, the text itself; for the other formats (efa, cxi, ..., opaque) the address's bytes in hex (0x " +
    "optional). Blank lines and lines starting with # are skipped.",
    "Prints per address: inserted at fi_addr N; already present at fi_addr N (one more reference, as fi_av_insert " +
    "takes: shmav remove gives it back); or failed, with the error."})
final class InsertCommand extends AvCommand implements Callable<Integer>
{
    /** Addresses per fi_av_insert call. */
    static final int BATCH = 1024;
    /** Failures listed one by one with --quiet; the rest are counted. */
    static final int LISTED_FAILURES = 20;

    @Parameters(index = "0", paramLabel = "NAME", description = "the AV's name")
    private String name;

    @Parameters(index = "1..*", paramLabel = "ADDR", description = "addresses to insert (or --from FILE)")
    private List<String> arguments = new ArrayList<>();

    @Option(names = "--from", paramLabel = "FILE", description = "the addresses, one per line ('-': stdin)")
    private String from;

    @Option(names = {"-q", "--quiet"}, description = "print only the failures and the summary")
    private boolean quiet;

    @Option(names = "--group", description = "write a group AV (create --group) that another user of its group owns")
    private boolean groupAccess;

    @Option(names = "--json", description = "print JSON (schema in docs/cli.md) instead of text")
    private boolean json;

    /** One address to insert: where it came from ("line 3", or null for an argument) and its text. */
    private record Line(String where, String text, ByteBuffer address)
    {
    }

    @Override
    public Integer call()
    {
        if (arguments.isEmpty() == (from == null))
        {
            throw new CliException(ExitCode.USAGE, arguments.isEmpty() ? "give the addresses to insert, as " +
                "arguments or with --from FILE" : "give the addresses either as arguments or with --from, not both");
        }
        final AvDirectory dir = directory();
        final Path file = dir.existingFileOf(name, "create it first: " + hint("create " + name + " --count N"));
        final org.shmav.shm.AddrShape shape = AvDirectory.shapeOf(file);
        final List<Line> lines = parse(new AddressParser(shape));
        try (Domain domain = Domain.open(AvDirectory.domainFor(shape).shmDirectory(dir.path()).build());
             AddressVector av = domain.openAv(AvAttr.builder().name(name).groupAccess(groupAccess).build()))
        {
            final InsertReport report = new InsertReport(name, av.attr().type());
            insertAll(av, lines, report);
            report.readRefs(file);
            report.count(av.count());
            if (json)
            {
                out().println(Json.write(report.toJson(dir.path())));
            }
            else
            {
                report.print(out(), quiet, LISTED_FAILURES);
            }
            if (report.full())
            {
                err().printf("shmav insert: AV '%s' is full (it holds %s and may not grow further): remove " +
                    "entries it no longer needs (%s), or free space in %s if its file system is full; then insert " +
                    "again%n", name, Text.count(av.count(), "entry", "entries"), hint("remove " + name + " ADDR"), dir.path());
                return ExitCode.NO_SPACE.code;
            }
            return report.failed() == 0 ? ExitCode.OK.code : ExitCode.PARTIAL.code;
        }
        catch (final FabricException e)
        {
            throw AvDirectory.asCliException(file, e, groupAccess);
        }
    }

    /** Every address given, parsed; BAD_INPUT listing the bad ones when there is any. */
    private List<Line> parse(final AddressParser parser)
    {
        final List<String> text = from != null ? read() : arguments;
        final List<Line> lines = new ArrayList<>();
        final List<String> bad = new ArrayList<>();
        for (int i = 0; i < text.size(); i++)
        {
            final String t = text.get(i).strip();
            if (from != null && (t.isEmpty() || t.startsWith("#")))
            {
                continue;
            }
            final String where = from != null ? "line " + (i + 1) : null;
            try
            {
                lines.add(new Line(where, t, parser.parse(t)));
            }
            catch (final AddressParser.BadLine e)
            {
                bad.add((where != null ? where + ": " : "") + "'" + t + "': " + e.getMessage());
            }
        }
        if (!bad.isEmpty())
        {
            throw new CliException(ExitCode.BAD_INPUT, bad.size() + (from != null ? " line(s) of " + from : " argument(s)") +
                " are not addresses, nothing was inserted:\n  " + String.join("\n  ", bad.subList(0, Math.min(bad.size(),
                LISTED_FAILURES))) + (bad.size() > LISTED_FAILURES ? "\n  ..." : ""));
        }
        return lines;
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

    /**
     * Inserts in batches of {@value #BATCH} (one at a time for opaque addresses of varying length, which
     * fi_av_insert takes one per call), recording each address's outcome in {@code report}.
     */
    private void insertAll(final AddressVector av, final List<Line> lines, final InsertReport report)
    {
        final Set<Long> seen = new HashSet<>();
        final int size = av.varyingAddrLen() ? 1 : BATCH;
        try (ProgressBar bar = progressBar(lines.size()))
        {
            for (int start = 0; start < lines.size(); start += size)
            {
                final List<Line> batch = lines.subList(start, Math.min(lines.size(), start + size));
                insertBatch(av, batch, report, seen);
                if (bar != null)
                {
                    bar.stepBy(batch.size());
                }
            }
        }
    }

    /**
     * Inserts one batch. An address was already present when a reverse lookup found it before the batch,
     * or an earlier address of this run got the same fi_addr (it was given twice).
     */
    private static void insertBatch(final AddressVector av, final List<Line> batch, final InsertReport report,
        final Set<Long> seen)
    {
        final boolean[] present = new boolean[batch.size()];
        final ByteBuffer packed = ByteBuffer.allocate(batch.stream().mapToInt(l -> l.address().remaining()).sum());
        for (int i = 0; i < batch.size(); i++)
        {
            present[i] = av.reverseLookup(batch.get(i).address().duplicate()) != Fi.ADDR_NOTAVAIL;
            packed.put(batch.get(i).address().duplicate());
        }
        final int[] errors = new int[batch.size()];
        final long[] fiAddr = new long[batch.size()];
        av.insert(packed.flip(), batch.size(), fiAddr, Fi.SYNC_ERR, errors);
        for (int i = 0; i < batch.size(); i++)
        {
            final Line l = batch.get(i);
            if (errors[i] != 0)
            {
                report.failed(l.where(), l.text(), errors[i]);
            }
            else
            {
                report.succeeded(l.where(), l.text(), fiAddr[i], !seen.add(fiAddr[i]) || present[i]);
            }
        }
    }

    /** A progress bar on stderr for a long input, or null with --json or when nobody watches (no terminal). */
    private ProgressBar progressBar(final int total)
    {
        if (json || System.console() == null || total < BATCH)
        {
            return null;
        }
        return new ProgressBarBuilder().setTaskName("insert " + name).setInitialMax(total)
            .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(100).continuousUpdate().build();
    }
}
