package org.shmav.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code shmav rm NAME}: removes an AV's file, only when it is a valid shmav AV, and only when no live
 * process has it open unless {@code --force} (processes that have it open keep their mapping, but
 * anyone who opens the name afterwards gets a new, empty AV).
 */
@Command(name = "rm", description = {"Removes an AV. Only a valid shmav AV is removed; one that a live process " +
    "has open only with --force."})
final class RmCommand extends AvCommand implements Callable<Integer>
{
    @Parameters(paramLabel = "NAME", description = "the AV's name")
    private String name;

    @Option(names = {"-f", "--force"}, description = "remove it even while live processes have it open")
    private boolean force;

    @Option(names = "--json", description = "print JSON (schema in docs/cli.md) instead of text")
    private boolean json;

    @Override
    public Integer call()
    {
        final AvDirectory dir = directory();
        final Path file = dir.existingFileOf(name);
        AvSnapshot read;
        String damage = null;
        try
        {
            read = AvSnapshot.read(name, file, dir.openReadOnly(name));
        }
        catch (final CliException e)
        {
            if (!force)
            {
                throw new CliException(e.exitCode(), e.getMessage() + " ('shmav rm " + name + " --force' removes a " +
                    "damaged AV whose header is a shmav AV's)");
            }
            // A damaged AV (truncated under its processes, say): --force removes it if its header is a shmav AV's.
            read = null;
            damage = e.getMessage();
        }
        final AvSnapshot s = read;
        if (s != null && s.inUse() && !force)
        {
            throw new CliException(ExitCode.IN_USE, "AV '" + name + "' is open in live process(es)" +
                (s.liveAttachers() > 0 ? " " + s.attachers().stream().filter(AvSnapshot.Attacher::alive)
                    .map(a -> Long.toString(a.pid())).collect(Collectors.joining(",")) : "") +
                (s.readers() ? (s.liveAttachers() > 0 ? " and" : "") + " of FI_READ readers" : "") +
                "; --force removes it anyway");
        }
        try (Domain domain = Domain.open(DomainAttr.builder().shmDirectory(dir.path()).build()))
        {
            if (!domain.unlinkAv(name))
            {
                throw new CliException(ExitCode.NOT_FOUND, "AV '" + name + "' vanished before it could be removed");
            }
        }
        catch (final FabricException e)
        {
            throw AvDirectory.asCliException(file, e);
        }
        if (json)
        {
            final java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("av", name);
            m.put("file", file.toString());
            m.put("removed", true);
            m.put("count", s == null ? null : s.count());
            m.put("forced", s == null || s.inUse());
            if (damage != null)
            {
                m.put("damage", damage);
            }
            out().println(Json.write(m));
        }
        else
        {
            out().println("removed AV '" + name + "' (" + file + (s == null ? "; it could not be read: " + damage
                : ", " + s.count() + (s.count() == 1 ? " entry" : " entries")) + ")");
        }
        return ExitCode.OK.code;
    }
}
