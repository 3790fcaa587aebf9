package org.shmav.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.shm.AvName;
import org.shmav.shm.FileIdentity;
import org.shmav.shm.OlderLayout;
import org.shmav.shm.SharedAvFile;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code shmav rm NAME}: removes an AV's file, only when it is a valid shmav AV (or one of an older layout,
 * {@link OlderLayout}), and only when no live
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

    /**
     * An AV of an older layout, which this version reads no further than its header: removed like any
     * AV (by identity, with its lock file) when it is known that no process holds it, or with --force.
     */
    private Integer removeOlder(final AvDirectory dir, final AvName avName, final Path file, final FileIdentity identity,
        final OlderLayout.Found older)
    {
        final OlderLayout.Holders h = older.holders();
        if (!force && !h.known())
        {
            throw new CliException(ExitCode.IN_USE, "AV '" + name + "' has the older layout " + older.version() +
                ", and whether a process still has it open cannot be told: " + h.unknownWhy() + ". Once its " +
                "processes are gone, 'shmav rm " + name + " --force' removes it");
        }
        if (!force && !h.none())
        {
            throw new CliException(ExitCode.IN_USE, "AV '" + name + "' (older layout " + older.version() +
                ") is open in live process(es)" + (h.writerPids().isEmpty() ? "" : " " + h.writerPids().stream()
                .map(String::valueOf).collect(Collectors.joining(","))) + (h.readers() ? (h.writerPids().isEmpty()
                ? "" : " and") + " of FI_READ readers" : "") + ": stop them, then 'shmav rm " + name +
                "' removes it (--force removes it anyway)");
        }
        try
        {
            if (identity == null || !SharedAvFile.unlink(dir.path(), avName, identity))
            {
                throw new CliException(ExitCode.NOT_FOUND, "AV '" + name + "' was removed or made anew by another " +
                    "process before it could be removed");
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
            m.put("count", null);
            m.put("forced", !h.none());
            m.put("layout", older.version());
            out().println(Json.write(m));
        }
        else
        {
            out().println("removed AV '" + name + "' (" + file + ", of the older layout " + older.version() + ")");
        }
        return ExitCode.OK.code;
    }

    private void unlink(final AvDirectory dir, final Path file)
    {
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
    }

    @Override
    public Integer call()
    {
        final AvDirectory dir = directory();
        final AvName avName = AvDirectory.nameOf(name); // checked once: the removal below takes it as it is
        final Path file = dir.existingFileOf(avName, null);
        final FileIdentity identity = FileIdentity.of(file); // before the look: the removal takes this file only
        final OlderLayout.Found older = OlderLayout.probe(file);
        if (older != null)
        {
            return removeOlder(dir, avName, file, identity, older);
        }
        AvSnapshot read;
        String damage = null;
        try
        {
            read = AvSnapshot.read(name, file, AvDirectory.openReadOnly(file));
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
        unlink(dir, file);
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
