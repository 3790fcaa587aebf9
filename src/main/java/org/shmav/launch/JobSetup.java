package org.shmav.launch;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.cli.Answers;
import org.shmav.job.JobFile;
import org.shmav.job.JobId;
import org.shmav.job.JobRecord;

/**
 * What avrun does before it starts a rank: makes the job's directory, claims the AV's name with the
 * job file ({@link JobFile}), then creates the AV. Of two jobs given one name, of any launcher,
 * exactly one gets past the job file; the other is refused with both jobs named.
 */
final class JobSetup
{
    /** A claimed name: the job's domain, AV, job file and identity. */
    record Claimed(Domain domain, AddressVector av, JobFile jobFile, JobId id)
    {
    }

    /** How long a refused launcher waits for the job file that beat it to the name to be written. */
    static final long CLAIMING_MILLIS = 5_000;

    private JobSetup()
    {
    }

    /**
     * Creates the job's AV (FI_AV_TABLE of the job's address format, count = size), and its directory (mode 0700)
     * when that does not exist.
     *
     * @throws SetupException when the AV exists already or cannot be created
     */
    static Claimed claim(final JobSpec spec, final PrintStream err)
    {
        // The name first, as the CLI checks it: a bad one would otherwise surface as the job file's I/O error.
        final String badName = Answers.badName(spec.avName());
        if (badName != null)
        {
            throw new Job.SetupException(badName);
        }
        ensureDirectory(spec, err);
        final Domain domain;
        try
        {
            domain = Domain.open(spec.addrFormat().domainAttr(spec.directory()));
        }
        catch (final FabricException e)
        {
            throw new Job.SetupException(e.getMessage());
        }
        final JobId id = new JobId("avrun", "avrun-" + ProcessHandle.current().pid() + "-" +
            Long.toHexString(Double.doubleToLongBits(Math.random()) & 0xffffffffL));
        final JobFile jobFile;
        try
        {
            // The job file first: of two launchers (or jobs of any launcher) given one name, exactly one
            // claims it, and ranks of the others refuse this job's AV instead of attaching to it.
            jobFile = JobFile.create(spec.directory(), spec.avName(), id, 1);
        }
        catch (final FileAlreadyExistsException e)
        {
            domain.close();
            throw taken(spec, id);
        }
        catch (final IOException e)
        {
            domain.close();
            throw new Job.SetupException("cannot create the job file " + JobFile.path(spec.directory(), spec.avName()) + " (" +
                Answers.reason(e) + "); check that you may write in " + spec.directory() + ", or choose another --dir");
        }
        try
        {
            // createOnly: of two launchers of one --name, exactly one creates the AV; the other never attaches to it.
            final AddressVector av = domain.openAv(AvAttr.builder().type(AvType.TABLE).count(spec.size())
                .name(spec.avName()).createOnly(true).build());
            jobFile.avCreated();
            return new Claimed(domain, av, jobFile, id);
        }
        catch (final FabricException | IOException e)
        {
            deleteQuietly(jobFile);
            domain.close();
            if (e instanceof FabricException f && f.errno() == FiErrno.EEXIST)
            {
                throw new Job.SetupException("AV '" + spec.avName() + "' already exists in " + spec.directory() +
                    " (left by an earlier job?): remove it with '" + Job.shmav(spec, "rm " + spec.avName()) +
                    "' or choose another --name");
            }
            throw new Job.SetupException("cannot create AV '" + spec.avName() + "': " + e.getMessage());
        }
    }

    /**
     * The name is another job's: running (choose another name), or over (gc removes what it left). A job
     * file being written is another launcher's that claimed the name a moment ago (two jobs started
     * together): its job is named once written, so its creator gets {@value #CLAIMING_MILLIS} ms for that.
     */
    private static Job.SetupException taken(final JobSpec spec, final JobId id)
    {
        JobRecord owner = null;
        try
        {
            owner = JobRecord.readRecorded(JobFile.path(spec.directory(), spec.avName()), CLAIMING_MILLIS).orElse(null);
        }
        catch (final IOException e)
        {
            // described without the owner below
        }
        if (owner != null && owner.running() > 0)
        {
            return new Job.SetupException("job " + id + " refused AV '" + spec.avName() + "' in " + spec.directory() +
                ": it belongs to " + (owner.job() != null ? "job " + owner.job() + ", which is running" :
                "a job whose launcher (pid " + owner.creatorPid() + ") is still claiming it") + "; choose another --name");
        }
        return new Job.SetupException("AV '" + spec.avName() + "' in " + spec.directory() + " was left by " +
            (owner == null || owner.job() == null ? "a job" : "job " + owner.job()) + ", which is over: remove it with '" +
            Job.shmav(spec, "gc") + "' or choose another --name");
    }

    static void deleteQuietly(final JobFile jobFile)
    {
        deleteQuietly(jobFile, () -> { });
    }

    /** Removes the job file, running {@code removeAvFirst} just before under its locks ({@link JobFile#delete(Runnable)}). */
    static void deleteQuietly(final JobFile jobFile, final Runnable removeAvFirst)
    {
        try
        {
            jobFile.delete(removeAvFirst);
            jobFile.close();
        }
        catch (final IOException e)
        {
            // a leftover job file that no process holds: shmav gc removes it
        }
    }

    private static void ensureDirectory(final JobSpec spec, final PrintStream err)
    {
        final Path dir = spec.directory();
        if (Files.isDirectory(dir))
        {
            return;
        }
        if (Files.exists(dir))
        {
            throw new Job.SetupException(dir + " is not a directory (see --dir and SHMAV_DIR)");
        }
        try
        {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            err.println("avrun: created directory " + dir + " (mode 0700) for the job's AV");
        }
        catch (final IOException | UnsupportedOperationException e)
        {
            throw new Job.SetupException(Answers.cannotCreateDirectory(dir, null,
                e instanceof IOException io ? io : new IOException(e.getMessage())));
        }
    }

}
