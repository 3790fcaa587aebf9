package org.shmav.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import org.shmav.FabricException;
import org.shmav.job.JobFile;
import org.shmav.job.JobRecord;
import org.shmav.shm.AvLockFile;
import org.shmav.shm.CreatorLeftovers;
import org.shmav.shm.SharedAvFile;
import org.shmav.slots.ToolAccess;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code shmav ls}: every AV of the directory, one line each, from read-only mappings. */
@Command(name = "ls", description = {"Lists the AVs in the directory: name, type, address format, capacity, " +
    "count, live and dead attachers, file size, age.", "Files that are not shmav AVs are counted, or listed with --all, " +
    "which also lists the files shmav keeps beside AVs: job files (.shmav-job.NAME) and AVs being built (.shmav-tmp.*)."})
final class LsCommand extends AvCommand implements Callable<Integer>
{
    @Option(names = "--json", description = "print JSON instead of a table")
    private boolean json;

    @Option(names = {"-a", "--all"}, description = "also list shmav's job files and temporary files, and the files " +
        "that are not AVs, with the reason")
    private boolean all;

    /** A file of the directory that could not be read as an AV, and why. */
    private record Other(String name, String reason)
    {
    }

    @Override
    public Integer call()
    {
        final AvDirectory dir = directory();
        final List<AvSnapshot> avs = new ArrayList<>();
        final List<Other> others = new ArrayList<>();
        final List<Other> shmavFiles = all ? shmavFiles(dir) : List.of();
        for (final Path file : dir.entries())
        {
            try
            {
                avs.add(AvSnapshot.read(file.getFileName().toString(), file, ToolAccess.openReadOnly(file)));
            }
            catch (final FabricException e)
            {
                final String name = file.getFileName().toString();
                others.add(new Other(name, AvDirectory.reason(e).replace("named AV '" + name + "' (" + file + "): file ", "file ")
                    .replace("named AV '" + name + "' (" + file + ")", "file").replace("'" + file + "'", "file")));
            }
        }
        if (json)
        {
            out().println(Json.write(toJson(avs, others, shmavFiles)));
        }
        else
        {
            printTable(dir, avs, others, shmavFiles);
        }
        return ExitCode.OK.code;
    }

    /** The files shmav keeps beside its AVs (hidden: their names start with '.'), each with what it is. */
    private static List<Other> shmavFiles(final AvDirectory dir)
    {
        final List<Other> list = new ArrayList<>();
        for (final Path file : dir.jobFiles())
        {
            final String av = JobFile.avNameOf(file.getFileName().toString());
            String what;
            try
            {
                what = JobRecord.read(file).map(JobRecord::describe).orElse("removed meanwhile");
            }
            catch (final IOException e)
            {
                what = "cannot read it: " + e.getMessage();
            }
            list.add(new Other(file.getFileName().toString(), "job file of AV '" + av + "'" +
                (Files.exists(dir.path().resolve(av), LinkOption.NOFOLLOW_LINKS) ? "" : " (AV gone)") + ": " + what));
        }
        for (final Path file : dir.lockFiles())
        {
            final String av = AvLockFile.avNameOf(file.getFileName().toString());
            list.add(new Other(file.getFileName().toString(), "lock file of AV '" + av + "'" +
                (Files.exists(dir.path().resolve(av), LinkOption.NOFOLLOW_LINKS) ? "" : " (AV gone: shmav gc removes it)")));
        }
        for (final Path file : dir.temporaries())
        {
            list.add(new Other(file.getFileName().toString(), "AV being built by pid " +
                SharedAvFile.temporaryCreator(file.getFileName().toString()) +
                (CreatorLeftovers.isDeadCreators(file, 0) ? ", which died (shmav gc removes it)" : "")));
        }
        return list;
    }

    private void printTable(final AvDirectory dir, final List<AvSnapshot> avs, final List<Other> others,
        final List<Other> shmavFiles)
    {
        if (avs.isEmpty() && shmavFiles.isEmpty() && (others.isEmpty() || !all))
        {
            out().println("no AVs in " + dir.path());
        }
        else
        {
            final long now = System.currentTimeMillis();
            final Text.Table table = new Text.Table("NAME", "TYPE", "FORMAT", "CAPACITY", "COUNT", "LIVE", "DEAD",
                "SIZE", "AGE");
            for (final AvSnapshot s : avs)
            {
                table.row(s.name(), s.typeName(), s.formatName(), s.layout().capacity(), s.count(), s.liveAttachers(),
                    s.deadAttachers(), Text.size(s.layout().fileLength()), Text.age(s.createdMillis(), now));
            }
            if (all)
            {
                shmavFiles.forEach(o -> table.row(o.name(), o.reason()));
                others.forEach(o -> table.row(o.name(), "not an AV: " + o.reason()));
            }
            table.print(out(), "");
        }
        if (!all && !others.isEmpty())
        {
            out().println("(" + others.size() + " other file" + (others.size() == 1 ? "" : "s") +
                " in " + dir.path() + " not shown: not shmav AVs; --all lists them)");
        }
    }

    private Map<String, Object> toJson(final List<AvSnapshot> avs, final List<Other> others, final List<Other> shmavFiles)
    {
        final List<Object> list = new ArrayList<>();
        avs.forEach(s -> list.add(ShowCommand.summaryJson(s)));
        if (all)
        {
            for (final Other o : shmavFiles)
            {
                final Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", o.name());
                m.put("valid", false);
                m.put("shmavFile", o.reason());
                list.add(m);
            }
            for (final Other o : others)
            {
                final Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", o.name());
                m.put("valid", false);
                m.put("error", o.reason());
                list.add(m);
            }
        }
        final Map<String, Object> root = new LinkedHashMap<>();
        root.put("directory", directory().path().toString());
        root.put("avs", list);
        root.put("otherFiles", others.size());
        return root;
    }
}
