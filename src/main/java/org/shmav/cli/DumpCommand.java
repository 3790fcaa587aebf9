package org.shmav.cli;

import java.util.concurrent.Callable;

import org.shmav.slots.Region;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code shmav dump NAME}: annotated hex dump of an AV's header, attachers and used slots. */
@Command(name = "dump", description = {"Annotated hex dump of an AV file: header fields, segment table, used " +
    "attacher entries and used slots, with file offsets.", "Read through a read-only mapping; not atomic while writers run."})
final class DumpCommand extends AvCommand implements Callable<Integer>
{
    @Parameters(paramLabel = "NAME", description = "the AV's name")
    private String name;

    @Option(names = "--limit", paramLabel = "N", description = "dump at most N used slots (default: ${DEFAULT-VALUE})")
    private int limit = 64;

    @Override
    public Integer call()
    {
        final AvDirectory dir = directory();
        out().printf("# AV '%s' (%s)%n", name, dir.existingFileOf(name));
        final Region region = dir.openReadOnly(name);
        try
        {
            out().print(AvHexDump.of(region, Math.max(0, limit)));
        }
        finally
        {
            region.detach();
        }
        return ExitCode.OK.code;
    }
}
