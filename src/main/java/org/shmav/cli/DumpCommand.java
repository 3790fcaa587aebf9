package org.shmav.cli;

import java.util.LinkedHashMap;
import java.util.Map;
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

    @Option(names = "--json", description = "print the fields as JSON (schema in docs/cli.md) instead of a hex dump")
    private boolean json;

    @Override
    public Integer call()
    {
        final AvDirectory dir = directory();
        final java.nio.file.Path file = dir.existingFileOf(name);
        final Region region = AvDirectory.openReadOnly(file);
        try
        {
            if (json)
            {
                final Map<String, Object> m = new LinkedHashMap<>();
                m.put("av", name);
                m.put("file", file.toString());
                m.putAll(AvHexDump.json(region, Math.max(0, limit)));
                out().println(Json.write(m));
            }
            else
            {
                out().printf("# AV '%s' (%s)%n", name, file);
                out().print(AvHexDump.of(region, Math.max(0, limit)));
            }
        }
        finally
        {
            region.detach();
        }
        return ExitCode.OK.code;
    }
}
