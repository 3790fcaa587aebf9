package org.shmav.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.slots.Region;
import org.shmav.shm.CreatorLeftovers;
import org.shmav.shm.SharedAvFile;
import org.shmav.slots.ToolAccess;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code shmav gc}: cleans up after processes that died. An AV that no live process has open and that
 * nobody has joined for the grace period is removed (its last users are gone: a killed job, a launcher
 * run with --keep); an AV still in use whose dead attachers left claims or removals half done is
 * repaired in place ({@code recoverDead}), without disturbing its live users. The temporary file of
 * a creator that died while building an AV is removed too. Other files that are not AVs are never
 * touched.
 */
@Command(name = "gc", description = {"Removes AVs that no live process has open and nobody joined for the grace " +
    "period; repairs what dead processes left in AVs still in use; removes the temporary files of AV creators that " +
    "died. Reports what it did."})
final class GcCommand extends AvCommand implements Callable<Integer>
{
    @Option(names = "--grace", paramLabel = "S", description = "seconds since an AV was created or last joined " +
        "before it may be removed (default: ${DEFAULT-VALUE})")
    private long graceSeconds = 60;

    @Option(names = "--json", description = "print the report as JSON (schema in the README)")
    private boolean json;

    @Option(names = {"-n", "--dry-run"}, description = "report what would be done, change nothing")
    private boolean dryRun;

    private int removed;
    private int repaired;
    private int kept;
    private int failures;
    private int temporaries;

    @Override
    public Integer call()
    {
        if (json)
        {
            json = false;
            return GcJson.report(this, dryRun, this::call);
        }
        if (graceSeconds < 0)
        {
            throw new CliException(ExitCode.USAGE, "--grace must be >= 0");
        }
        final AvDirectory dir = directory();
        int others = 0;
        for (final Path file : dir.entries())
        {
            final AvSnapshot s;
            try
            {
                s = AvSnapshot.read(file.getFileName().toString(), file, AvDirectory.openReadOnly(file));
            }
            catch (final CliException e)
            {
                others++;
                continue;
            }
            collect(dir, s);
        }
        for (final Path file : dir.temporaries())
        {
            collectTemporary(file);
        }
        out().printf("gc%s: %d AV%s %s, %d %s, %d kept; %d other file%s left alone; %d temporary file%s %s%n",
            dryRun ? " (dry run)" : "", removed, removed == 1 ? "" : "s", dryRun ? "to remove" : "removed", repaired,
            dryRun ? "to repair" : "repaired", kept, others, others == 1 ? "" : "s", temporaries, temporaries == 1 ? "" : "s",
            dryRun ? "to remove" : "removed");
        return failures == 0 ? ExitCode.OK.code : ExitCode.FAILED.code;
    }

    private void collect(final AvDirectory dir, final AvSnapshot s)
    {
        final long now = System.currentTimeMillis();
        final long idleMillis = now - s.lastActivityMillis();
        if (!s.inUse() && idleMillis >= graceSeconds * 1000)
        {
            remove(dir, s, "no live process has it open (" + s.deadAttachers() + " dead attacher" +
                (s.deadAttachers() == 1 ? "" : "s") + "), last joined " + Text.age(s.lastActivityMillis(), now) + " ago");
            return;
        }
        if (s.deadAttachers() > 0)
        {
            repair(s);
            return;
        }
        kept++;
        final String why;
        if (s.liveAttachers() > 0)
        {
            why = s.liveAttachers() + " live attacher" + (s.liveAttachers() == 1 ? "" : "s") +
                (s.readers() ? " and FI_READ readers" : "");
        }
        else if (s.readers())
        {
            why = "open in FI_READ readers";
        }
        else
        {
            why = "joined " + Text.age(s.lastActivityMillis(), now) + " ago, within the grace period of " + graceSeconds + "s";
        }
        out().println("kept      " + s.name() + ": " + why);
    }

    /**
     * A file a creator was building an AV in ({@code .shmav-tmp.<name>.<pid>.<hex>}): nobody else ever
     * opens one, and its creator removes it, unless it died first. Removed only when that is proven
     * ({@link CreatorLeftovers}: this user's, older than the grace period, an AV being built, and its
     * creator lock free); anything else merely named like one is left alone.
     */
    private void collectTemporary(final Path file)
    {
        if (!CreatorLeftovers.isDeadCreators(file, graceSeconds * 1000))
        {
            return;
        }
        if (!dryRun)
        {
            try
            {
                Files.deleteIfExists(file);
            }
            catch (final IOException e)
            {
                failures++;
                out().println("failed    " + file.getFileName() + ": " + e.getMessage());
                return;
            }
        }
        temporaries++;
        out().println((dryRun ? "would remove " : "removed   ") + file.getFileName() + ": an AV being built by pid " +
            SharedAvFile.temporaryCreator(file.getFileName().toString()) + ", which died");
    }

    private void remove(final AvDirectory dir, final AvSnapshot s, final String why)
    {
        if (!dryRun)
        {
            try (Domain domain = Domain.open(DomainAttr.builder().shmDirectory(dir.path()).build()))
            {
                domain.unlinkAv(s.name());
            }
            catch (final FabricException e)
            {
                failures++;
                out().println("failed    " + s.name() + ": " + AvDirectory.reason(e));
                return;
            }
        }
        removed++;
        out().println((dryRun ? "would remove " : "removed   ") + s.name() + ": " + why);
    }

    private void repair(final AvSnapshot s)
    {
        final long abandoned = s.abandonedSlots();
        final String what = s.deadAttachers() + " dead attacher" + (s.deadAttachers() == 1 ? "" : "s") + ", " +
            abandoned + " abandoned slot" + (abandoned == 1 ? "" : "s");
        if (dryRun)
        {
            repaired++;
            out().println("would repair " + s.name() + ": " + what + " (" + s.liveAttachers() + " live)");
            return;
        }
        try
        {
            final Region region = ToolAccess.openForRepair(s.file());
            try
            {
                final int slots = region.table().recoverDead();
                repaired++;
                out().println("repaired  " + s.name() + ": " + what + "; " + slots + " slot" + (slots == 1 ? "" : "s") +
                    " repaired, dead attacher entries freed (" + s.liveAttachers() + " live kept)");
            }
            finally
            {
                region.detach();
            }
        }
        catch (final FabricException e)
        {
            failures++;
            out().println("failed    " + s.name() + ": " + AvDirectory.reason(e));
        }
    }
}
