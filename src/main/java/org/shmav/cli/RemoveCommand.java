package org.shmav.cli;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.FiErrno;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code shmav remove NAME ADDR | --fi-addr N}: {@code fi_av_remove} of one entry, which gives back one
 * reference: an address inserted twice stays until it is removed twice. Says which entry it was and
 * whether it is gone. The AV itself stays ({@code shmav rm} removes a whole AV).
 */
@Command(name = "remove", description = {"Removes one entry of an AV, found by its address or its fi_addr: one " +
    "reference, as fi_av_remove (an address inserted twice stays until removed twice). The AV stays; shmav rm " +
    "removes a whole AV."})
final class RemoveCommand extends AvCommand implements Callable<Integer>
{
    @Parameters(index = "0", paramLabel = "NAME", description = "the AV's name")
    private String name;

    @Parameters(index = "1", arity = "0..1", paramLabel = "ADDR",
        description = "the entry's address (host:port, [ipv6]:port, fi_sockaddr_in://..., or a str AV's text)")
    private String address;

    @Option(names = "--fi-addr", paramLabel = "N", description = "the entry's fi_addr instead (0x... for a map AV)")
    private String fiAddrText;

    @Option(names = "--group", description = "write a group AV (create --group) that another user of its group owns")
    private boolean groupAccess;

    @Option(names = "--json", description = "print JSON (schema in docs/cli.md) instead of text")
    private boolean json;

    @Override
    public Integer call()
    {
        if ((address == null) == (fiAddrText == null))
        {
            throw new CliException(ExitCode.USAGE, address == null ? "give the entry to remove: its address, or " +
                "--fi-addr N" : "give either an address or --fi-addr, not both");
        }
        final AvDirectory dir = directory();
        final Path file = dir.existingFileOf(name);
        final org.shmav.shm.AddrShape shape = AvDirectory.shapeOf(file);
        try (Domain domain = Domain.open(AvDirectory.domainFor(shape).shmDirectory(dir.path()).build());
             AddressVector av = domain.openAv(AvAttr.builder().name(name).groupAccess(groupAccess).build()))
        {
            final long fiAddr = address != null ? find(av, shape) : parseFiAddr();
            final AvSnapshot.Entry before = EntriesAt.read(file, new long[] {fiAddr})[0];
            if (before == null)
            {
                throw noEntry("no entry at fi_addr " + EntriesAt.text(av.attr().type(), fiAddr));
            }
            try
            {
                av.remove(new long[] {fiAddr}, 1, 0);
            }
            catch (final FabricException e)
            {
                if (e.errno() == FiErrno.EINVAL)
                {
                    throw noEntry("the entry at fi_addr " + EntriesAt.text(av.attr().type(), fiAddr) + " (" +
                        before.address() + ") was removed by another process meanwhile");
                }
                throw e;
            }
            final AvSnapshot.Entry after = EntriesAt.read(file, new long[] {fiAddr})[0];
            final boolean stays = after != null && after.generation() == before.generation();
            report(av, before, stays ? after.refs() : 0, dir.path());
            return ExitCode.OK.code;
        }
        catch (final FabricException e)
        {
            throw AvDirectory.asCliException(file, e, groupAccess);
        }
    }

    /** The fi_addr of the address argument; NOT_FOUND when the AV does not hold it. */
    private long find(final AddressVector av, final org.shmav.shm.AddrShape shape)
    {
        final ByteBuffer addr;
        try
        {
            addr = new AddressParser(shape).parse(address.strip());
        }
        catch (final AddressParser.BadLine e)
        {
            throw new CliException(ExitCode.USAGE, "'" + address + "' is not an address: " + e.getMessage());
        }
        final long fiAddr = av.reverseLookup(addr);
        if (fiAddr == Fi.ADDR_NOTAVAIL)
        {
            throw noEntry(address + " is not in the AV");
        }
        return fiAddr;
    }

    private long parseFiAddr()
    {
        try
        {
            return Long.decode(fiAddrText.strip());
        }
        catch (final NumberFormatException e)
        {
            throw new CliException(ExitCode.USAGE, "--fi-addr takes a number (0x... for hexadecimal), not '" +
                fiAddrText + "'");
        }
    }

    private CliException noEntry(final String what)
    {
        return new CliException(ExitCode.NOT_FOUND, what + " of '" + name + "'; nothing was removed (" +
            hint("show " + name) + " lists its entries)");
    }

    private void report(final AddressVector av, final AvSnapshot.Entry before, final long refsNow, final Path dir)
    {
        final String at = "fi_addr " + EntriesAt.text(av.attr().type(), before.fiAddr());
        if (json)
        {
            final Map<String, Object> m = new LinkedHashMap<>();
            m.put("av", name);
            m.put("directory", dir.toString());
            m.put("fiAddr", before.fiAddr());
            m.put("address", before.address());
            m.put("refsBefore", before.refs());
            m.put("refs", refsNow);
            m.put("entryRemoved", refsNow == 0);
            m.put("count", av.count());
            out().println(Json.write(m));
        }
        else if (refsNow > 0)
        {
            out().printf("removed one reference of %s at %s from '%s'; %d left, so the entry stays%n", before.address(),
                at, name, refsNow);
        }
        else
        {
            out().printf("removed %s at %s from '%s' (it was its last reference); count now %d%n", before.address(), at,
                name, av.count());
        }
    }
}
