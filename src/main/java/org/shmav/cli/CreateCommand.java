package org.shmav.cli;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.FiErrno;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code shmav create NAME --count N}: creates an empty named AV, as {@code fi_av_open} would, and
 * only creates: the open is {@code createOnly}, so of several concurrent creates of one name exactly
 * one succeeds and the others exit with {@link ExitCode#EXISTS}.
 */
@Command(name = "create", description = "Creates an empty named AV (fails if the name exists).")
final class CreateCommand extends AvCommand implements Callable<Integer>
{
    @Parameters(paramLabel = "NAME", description = "the AV's name")
    private String name;

    @Option(names = "--count", required = true, paramLabel = "N",
        description = "entries it is created with (0: 1024, or M when smaller); it doubles when full, up to M. At most " +
            "16777216 (in, in6) or 8388608 (str): the file stays under 2 GiB")
    private long count;

    @Option(names = "--max-count", paramLabel = "M", description = "the most entries it may grow to, exactly " +
        "(default: " + AvAttr.DEFAULT_MAX_COUNT + ", or N when larger); at most 14911168 (in, in6) or 8052394 (str) " +
        "when created with N=4; an answer past it names the largest for your N")
    private long maxCount;

    @Option(names = "--type", paramLabel = "TYPE", description = "${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE})")
    private CliNames.Type type = CliNames.Type.table;

    @Option(names = "--format", paramLabel = "FORMAT",
        description = "address format: ${COMPLETION-CANDIDATES} (sockaddr_in, sockaddr_in6, string, then libfabric's " +
            "provider formats, and opaque bytes: FI_FORMAT_UNSPEC; default: ${DEFAULT-VALUE})")
    private CliNames.Format format = CliNames.Format.in;

    @Option(names = "--addr-len", paramLabel = "BYTES", description = "for --format opaque: every address is BYTES " +
        "long (1..4096)")
    private int addrLen;

    @Option(names = "--max-addr-len", paramLabel = "BYTES", description = "for --format opaque: addresses of their own " +
        "lengths, up to BYTES (1..4096), e.g. UCX worker addresses")
    private int maxAddrLen;

    @Option(names = "--group", description = "file mode 0660 instead of 0600, for processes of the same group")
    private boolean groupAccess;

    @Option(names = "--json", description = "print JSON (schema in docs/cli.md) instead of text")
    private boolean json;

    @Override
    public Integer call()
    {
        // No range check here: the library's (NamedAvSize) is the one the API enforces too.
        final AvDirectory dir = creatingDirectory();
        final Path file = dir.fileOf(name);
        if (Files.exists(file, LinkOption.NOFOLLOW_LINKS))
        {
            throw exists(dir); // the common case, without building a file first; createOnly decides races
        }
        final DomainAttr.Builder attr = DomainAttr.builder().addrFormat(format.addrFormat).shmDirectory(dir.path());
        if (addrLen != 0)
        {
            attr.addrLen(addrLen);
        }
        if (maxAddrLen != 0)
        {
            attr.maxAddrLen(maxAddrLen);
        }
        try (Domain domain = openDomain(attr);
             AddressVector av = domain.openAv(AvAttr.builder().type(type.avType).count(count).maxCount(maxCount).name(name)
                 .groupAccess(groupAccess).createOnly(true).build()))
        {
            final long grows = av.attr().maxCount();
            if (json)
            {
                final Map<String, Object> m = new LinkedHashMap<>();
                m.put("av", name);
                m.put("file", file.toString());
                m.put("type", type.name());
                m.put("format", format.name());
                m.put("capacity", av.attr().count());
                m.put("maxCapacity", grows);
                m.put("sizeBytes", Files.size(file));
                m.put("groupAccess", groupAccess);
                out().println(Json.write(m));
            }
            else
            {
                out().printf("created AV '%s': %s, %s, capacity %d (grows to %d), %d bytes (%s)%n", name, type, format,
                    av.attr().count(), grows, Files.size(file), file);
            }
        }
        catch (final FabricException e)
        {
            if (e.errno() == FiErrno.EEXIST)
            {
                throw exists(dir); // another process created it since the check
            }
            if (e.errno() == FiErrno.EINVAL)
            {
                throw new CliException(ExitCode.USAGE, AvDirectory.reason(e));
            }
            throw AvDirectory.asCliException(file, e);
        }
        catch (final java.io.IOException e)
        {
            throw new CliException(ExitCode.FAILED, e.toString());
        }
        return ExitCode.OK.code;
    }

    private CliException exists(final AvDirectory dir)
    {
        return new CliException(ExitCode.EXISTS, "'" + name + "' exists already in " + dir.path() + " (" + hint("show " + name) + " shows it)");
    }

    /** The domain, or a usage error when its address lengths do not fit the format. */
    private static Domain openDomain(final DomainAttr.Builder attr)
    {
        try
        {
            return Domain.open(attr.build());
        }
        catch (final FabricException e)
        {
            throw new CliException(ExitCode.USAGE, e.detail());
        }
    }
}
