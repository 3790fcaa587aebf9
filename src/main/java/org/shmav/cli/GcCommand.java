package org.shmav.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Callable;

import org.shmav.FabricException;
import org.shmav.job.JobFile;
import org.shmav.job.JobRecord;
import org.shmav.job.PrefilledAv;
import org.shmav.slots.Region;
import org.shmav.shm.AvLockFile;
import org.shmav.shm.AvName;
import org.shmav.shm.CreatorLeftovers;
import org.shmav.shm.FileIdentity;
import org.shmav.shm.OlderLayout;
import org.shmav.shm.SharedAvFile;
import org.shmav.slots.ToolAccess;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code shmav gc}: cleans up after processes that died. An AV that no live process has open is
 * removed when nobody has joined it for the grace period (a launcher run with --keep, an AV made by
 * hand), or at once when its job file ({@link JobFile}) shows its job is over: every process of the
 * job that joined is gone (a killed job). The job file goes with its AV, and a job file whose AV is
 * gone and whose job no longer runs is removed too. An AV still in use whose dead attachers left
 * claims or removals half done is repaired in place ({@code recoverDead}), and so are slots held in the
 * name of no writer, which only a damaged file has ({@code repairOrphans}), without disturbing its live
 * users. The temporary file of a creator that died while building an AV is removed too. Files that
 * shmav did not make are never touched; each one is reported.
 */
@Command(name = "gc", description = {"Removes AVs that no live process has open, once their job is over (every " +
    "process of it gone) or nobody joined them for the grace period, with their job files; repairs what dead " +
    "processes left in AVs still in use; removes the temporary files of AV creators that died. Reports what it " +
    "removed, what it left and why."})
final class GcCommand extends AvCommand implements Callable<Integer>
{
    @Option(names = "--grace", paramLabel = "S", description = "seconds since an AV was created or last joined " +
        "before it may be removed (default: ${DEFAULT-VALUE})")
    private long graceSeconds = 60;

    @Option(names = "--json", description = "print the report as JSON (schema in docs/cli.md)")
    private boolean json;

    @Option(names = {"-n", "--dry-run"}, description = "report what would be done, change nothing")
    private boolean dryRun;

    private int removed;
    private int repaired;
    private int kept;
    private int failures;
    private int temporaries;
    private int jobFiles;
    private int lockFiles;
    /** Job files already decided with their AV. */
    private final Set<Path> decided = new HashSet<>();

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
            final String notNamed = notAnAvFileName(file.getFileName().toString());
            if (notNamed != null)
            {
                others++;
                out().println("left      " + AvName.printable(file.getFileName().toString()) + ": " + notNamed);
                continue;
            }
            final AvSnapshot s;
            // Before the snapshot: a removal then takes only the file judged, or an older one (which it refuses)
            final FileIdentity identity = FileIdentity.of(file);
            try
            {
                s = AvSnapshot.read(file.getFileName().toString(), file, AvDirectory.openReadOnly(file));
            }
            catch (final CliException e)
            {
                final OlderLayout.Found older = OlderLayout.probe(file);
                if (older != null)
                {
                    collectOlder(dir, file, identity, older);
                    continue;
                }
                others++;
                out().println("left      " + file.getFileName() + ": not a shmav AV (" + e.getMessage() + ")");
                continue;
            }
            collect(dir, s, identity, job(dir, s.name()));
        }
        for (final Path file : dir.jobFiles())
        {
            collectJobFile(dir, file);
        }
        for (final Path file : dir.temporaries())
        {
            collectTemporary(file);
        }
        for (final Path file : dir.lockFiles())
        {
            collectLockFile(dir, file);
        }
        out().printf("gc%s: %d AV%s %s, %d %s, %d kept; %d job file%s %s; %d other file%s left alone; " +
            "%d temporary file%s %s; %d lock file%s %s%n", dryRun ? " (dry run)" : "", removed, removed == 1 ? "" : "s",
            dryRun ? "to remove" : "removed", repaired, dryRun ? "to repair" : "repaired", kept, jobFiles,
            jobFiles == 1 ? "" : "s", dryRun ? "to remove" : "removed", others, others == 1 ? "" : "s", temporaries,
            temporaries == 1 ? "" : "s", dryRun ? "to remove" : "removed", lockFiles, lockFiles == 1 ? "" : "s",
            dryRun ? "to remove" : "removed");
        return failures == 0 ? ExitCode.OK.code : ExitCode.FAILED.code;
    }

    /**
     * Why {@code fileName} is the file of no AV name (an AV's file name is its name with spaces as
     * underscores, and a valid name has no control character), or null when it is one. Such a file may
     * hold an AV's bytes (copied, or written by another program), but no shmav process made it, and no
     * name reaches it: gc leaves it, as it leaves every file it did not make.
     */
    private static String notAnAvFileName(final String fileName)
    {
        String why;
        try
        {
            why = AvName.of(fileName).fileName().equals(fileName) ? null : "an AV's file name has no space";
        }
        catch (final FabricException e)
        {
            why = e.getMessage();
        }
        return why == null ? null
            : "not the file of an AV name (" + why + "): shmav made no such file; remove it by hand if it is yours";
    }

    /** What the job file of AV {@code name} says, if it has one that can be read. */
    private static JobRecord job(final AvDirectory dir, final String name)
    {
        try
        {
            return JobRecord.read(JobFile.path(dir.path(), name)).orElse(null);
        }
        catch (final IOException e)
        {
            return null;
        }
    }

    private void collect(final AvDirectory dir, final AvSnapshot s, final FileIdentity identity, final JobRecord job)
    {
        final long now = System.currentTimeMillis();
        final long idleMillis = now - s.lastActivityMillis();
        final String dead = "no live process has it open (" + s.deadAttachers() + " dead attacher" +
            (s.deadAttachers() == 1 ? "" : "s") + ")";
        // A job file tells more than the time since the last join: whether the AV's job is over.
        if (!s.inUse() && job != null && job.over())
        {
            if (remove(dir, s, identity, dead + ", and its job " + job.job() + " is over: " + (job.joined() == 1
                ? "its one process that joined is gone" : "all " + job.joined() + " of its processes that joined are gone")))
            {
                removeJobFile(job.file(), "the job file of '" + s.name() + "', removed with it");
            }
            return;
        }
        if (!s.inUse() && (job == null || job.running() == 0) && idleMillis >= graceSeconds * 1000 &&
            !PrefilledAv.awaitsItsJob(dir.path(), s.name()))
        {
            if (remove(dir, s, identity, dead + ", last joined " + Text.age(s.lastActivityMillis(), now) + " ago") && job != null)
            {
                removeJobFile(job.file(), "the job file of '" + s.name() + "', removed with it");
            }
            return;
        }
        if (s.deadAttachers() > 0 || s.abandonedSlots() > 0)
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
        else if (PrefilledAv.awaitsItsJob(dir.path(), s.name()))
        {
            why = "filled for a job that has not run yet (" + PrefilledAv.PREFIX + s.name() + ")";
        }
        else if (job != null && job.running() > 0)
        {
            why = "its " + job.describe();
        }
        else
        {
            why = "joined " + Text.age(s.lastActivityMillis(), now) + " ago, within the grace period of " + graceSeconds + "s";
        }
        out().println("kept      " + s.name() + ": " + why);
    }

    /**
     * An AV of an older layout, which no process of this version can open: removed once it is known that
     * no process holds it and its file has not changed for the grace period (nothing of it is read past
     * the header, so its last join is unknown); one whose liveness cannot be told is left to
     * {@code shmav rm --force}.
     */
    private void collectOlder(final AvDirectory dir, final Path file, final FileIdentity identity,
        final OlderLayout.Found older)
    {
        final String name = file.getFileName().toString();
        final OlderLayout.Holders h = older.holders();
        final long age = System.currentTimeMillis() - modified(file);
        if (!h.known())
        {
            kept++;
            out().println("kept      " + name + ": layout " + older.version() + ", whose liveness cannot be told (" +
                h.unknownWhy() + "); once its processes are gone, 'shmav rm " + name + " --force' removes it");
        }
        else if (!h.none())
        {
            kept++;
            out().println("kept      " + name + ": layout " + older.version() + ", open in " + (h.writerPids().size() +
                (h.readers() ? " live writer(s) and FI_READ readers" : " live writer(s)")));
        }
        else if (age < graceSeconds * 1000)
        {
            kept++;
            out().println("kept      " + name + ": layout " + older.version() + ", changed " +
                Text.age(modified(file), System.currentTimeMillis()) + " ago, within the grace period of " +
                graceSeconds + "s");
        }
        else if (!dryRun && !removeOlder(dir, name, identity))
        {
            return;
        }
        else
        {
            removed++;
            out().println((dryRun ? "would remove " : "removed   ") + name + ": of the older layout " +
                older.version() + ", which this version cannot open; no live process has it open");
        }
    }

    private boolean removeOlder(final AvDirectory dir, final String name, final FileIdentity identity)
    {
        try
        {
            if (identity != null && SharedAvFile.unlink(dir.path(), name, identity))
            {
                return true;
            }
            kept++;
            out().println("kept      " + name + ": removed or made anew by another process meanwhile");
        }
        catch (final FabricException e)
        {
            failures++;
            out().println("failed    " + name + ": " + AvDirectory.reason(e));
        }
        return false;
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

    /** A lock file whose AV is gone (removed by an older shmav, or by hand): removed once nobody holds a lock in it. */
    private void collectLockFile(final AvDirectory dir, final Path file)
    {
        final String av = AvLockFile.avNameOf(file.getFileName().toString());
        if (Files.exists(dir.path().resolve(av), LinkOption.NOFOLLOW_LINKS))
        {
            return; // its AV's: removed with it
        }
        try
        {
            if (!AvLockFile.deleteIfUnused(file, dir.path().resolve(av), dryRun))
            {
                out().println("kept      " + file.getFileName() + ": a process still holds a lock in it");
                return;
            }
        }
        catch (final IOException e)
        {
            failures++;
            out().println("failed    " + file.getFileName() + ": " + e.getMessage());
            return;
        }
        lockFiles++;
        out().println((dryRun ? "would remove " : "removed   ") + file.getFileName() + ": the lock file of AV '" + av +
            "', which is gone");
    }

    /** Removes the AV judged in {@code s}, by identity: an AV made anew under its name since is left. */
    private boolean remove(final AvDirectory dir, final AvSnapshot s, final FileIdentity identity, final String why)
    {
        if (!dryRun)
        {
            try
            {
                if (identity == null || !SharedAvFile.unlink(dir.path(), s.name(), identity))
                {
                    kept++;
                    out().println("kept      " + s.name() + ": removed or made anew by another process meanwhile");
                    return false;
                }
            }
            catch (final FabricException e)
            {
                failures++;
                out().println("failed    " + s.name() + ": " + AvDirectory.reason(e));
                return false;
            }
        }
        removed++;
        out().println((dryRun ? "would remove " : "removed   ") + s.name() + ": " + why);
        return true;
    }

    /**
     * A job file whose AV is gone (or went with the AV above): removed when its job is over or its
     * creator died while writing it (older than the grace period, no lock held); kept while a process
     * of its job runs.
     */
    private void collectJobFile(final AvDirectory dir, final Path file)
    {
        final String av = JobFile.avNameOf(file.getFileName().toString());
        if (decided.contains(file) || Files.exists(dir.path().resolve(av), LinkOption.NOFOLLOW_LINKS))
        {
            return; // decided with its AV above
        }
        final JobRecord job;
        try
        {
            job = JobRecord.read(file).orElse(null);
        }
        catch (final IOException e)
        {
            out().println("left      " + file.getFileName() + ": cannot read it (" + e.getMessage() + ")");
            return;
        }
        if (job == null)
        {
            return; // removed meanwhile
        }
        if (job.running() > 0)
        {
            out().println("kept      " + file.getFileName() + ": " + job.describe());
            return;
        }
        final long age = System.currentTimeMillis() - modified(file);
        if (job.job() == null && age < graceSeconds * 1000)
        {
            out().println("kept      " + file.getFileName() + ": being written, " + Text.age(modified(file),
                System.currentTimeMillis()) + " old, within the grace period of " + graceSeconds + "s");
            return;
        }
        removeJobFile(file, job.job() == null ? "a job file its creator never finished (it died)" :
            "the job file of AV '" + av + "', which is gone; its job " + job.job() + " is over");
    }

    private void removeJobFile(final Path file, final String why)
    {
        decided.add(file);
        if (!dryRun)
        {
            try
            {
                if (!JobFile.deleteIfOver(file))
                {
                    out().println("kept      " + file.getFileName() + ": a process of its job joined it meanwhile");
                    return;
                }
            }
            catch (final IOException e)
            {
                failures++;
                out().println("failed    " + file.getFileName() + ": " + e.getMessage());
                return;
            }
        }
        jobFiles++;
        out().println((dryRun ? "would remove " : "removed   ") + file.getFileName() + ": " + why);
    }

    private static long modified(final Path file)
    {
        try
        {
            return Files.getLastModifiedTime(file, LinkOption.NOFOLLOW_LINKS).toMillis();
        }
        catch (final IOException e)
        {
            return System.currentTimeMillis();
        }
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
                region.table().recoverDead();
                region.table().repairOrphans();
                // What is still dead or abandoned afterwards was not repaired: say so rather than claim it was.
                // (The attach above may have repaired slots too: those held in the name of the entry it took.)
                final AvSnapshot after = AvSnapshot.read(s.name(), s.file(), ToolAccess.openReadOnly(s.file()));
                final long left = after.deadAttachers();
                final long freed = Math.max(0, s.deadAttachers() - left);
                final long slots = Math.max(0, abandoned - after.abandonedSlots());
                repaired++;
                out().println("repaired  " + s.name() + ": " + what + "; " + slots + " slot" + (slots == 1 ? "" : "s") +
                    " repaired, " + freed + " dead attacher entr" + (freed == 1 ? "y" : "ies") + " freed" + (left == 0 ? ""
                    : ", " + left + " not freed (another process is recovering them, or their lock could not be taken)") +
                    " (" + s.liveAttachers() + " live kept)");
            }
            finally
            {
                if (region.writer() != null)
                {
                    region.writer().attachedAt(s.lastActivityMillis()); // a repair is no join: the grace runs on
                }
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
