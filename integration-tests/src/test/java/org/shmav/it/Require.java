package org.shmav.it;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Assumptions;

/**
 * What a test needs from the machine: root, a tool, a mount, a probe that works. When it is missing the
 * test is skipped, saying what is missing and so what was not tested, on a developer's machine; and it
 * fails where the machine must have it: under {@code CI=true} (set by CI services and by {@code .ci/run}),
 * {@code SHMAV_IT_REQUIRE_ALL=1}, or {@code SHMAV_IT_REQUIRE_<AREA>=1} for the requirement's area
 * ({@code MPI}, {@code SLURM}, {@code GCC}, {@code ROOT}, {@code MOUNT}, {@code JDK25}). A test that can
 * skip asks here, never with a bare {@code assumeTrue}, so that no CI run goes green having tested nothing.
 */
public final class Require
{
    private Require()
    {
    }

    /** {@return the flag that turns a missing requirement of {@code area} into a failure, when it is set; else empty} */
    public static Optional<String> strictBy(final String area)
    {
        if ("true".equals(System.getenv("CI")))
        {
            return Optional.of("CI=true");
        }
        if ("1".equals(System.getenv("SHMAV_IT_REQUIRE_ALL")))
        {
            return Optional.of("SHMAV_IT_REQUIRE_ALL=1");
        }
        final String flag = "SHMAV_IT_REQUIRE_" + area;
        return "1".equals(System.getenv(flag)) ? Optional.of(flag + "=1") : Optional.empty();
    }

    /**
     * Goes on when {@code met}; else skips, or fails under the area's flag, with {@code missing}: what is
     * missing, how to get it, and what is therefore not tested.
     */
    public static void that(final String area, final boolean met, final String missing)
    {
        if (met)
        {
            return;
        }
        final Optional<String> strict = strictBy(area);
        if (strict.isPresent())
        {
            fail(missing + " (" + strict.get() + ": this machine must have it)");
        }
        Assumptions.abort("skipped: " + missing);
    }

    /** Needs root (area ROOT): {@code why} says what for. */
    public static void root(final String why)
    {
        that("ROOT", "root".equals(System.getProperty("user.name")), "needs root: " + why + "; running as " +
            System.getProperty("user.name"));
    }

    /** {@return the executable {@code name} found on PATH}; skips or fails (area) when there is none, naming the package to install */
    public static Path tool(final String area, final String name, final String debianPackage)
    {
        final Optional<Path> found = onPath(name);
        that(area, found.isPresent(), name + " not found on PATH: apt-get install " + debianPackage);
        return found.orElseThrow();
    }

    /** The executable {@code name} on PATH, if any. */
    public static Optional<Path> onPath(final String name)
    {
        for (final String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
        {
            final Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isExecutable(candidate) && !Files.isDirectory(candidate))
            {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /**
     * Runs {@code command} as a probe (a mount, an unshare), at most 30 s; goes on when it exits 0, else skips
     * or fails (area) with {@code missing} and the probe's output.
     */
    public static void works(final String area, final String missing, final List<String> command)
        throws InterruptedException
    {
        String outcome;
        try
        {
            final ChildJvm.Outcome o = ChildJvm.run(command, Duration.ofSeconds(30));
            outcome = o.ok() ? null : o.toString();
        }
        catch (final IOException e)
        {
            outcome = String.join(" ", command) + ": " + e;
        }
        that(area, outcome == null, missing + ": " + outcome);
    }

    /** Mounts a tmpfs of {@code options} (e.g. {@code size=32m}) at the existing directory {@code dir} (area MOUNT). */
    public static void tmpfs(final Path dir, final String options) throws InterruptedException
    {
        works("MOUNT", "cannot mount a size-limited tmpfs (needs root with CAP_SYS_ADMIN)",
            List.of("mount", "-t", "tmpfs", "-o", options, "tmpfs", dir.toString()));
    }

    /** Lazily unmounts {@code dir} (this JVM may still map files there: a mapping goes only at GC); fails when it cannot. */
    public static void unmount(final Path dir) throws IOException, InterruptedException
    {
        final ChildJvm.Outcome o = ChildJvm.run(List.of("umount", "-l", dir.toString()), Duration.ofSeconds(30));
        if (!o.ok())
        {
            fail("umount: " + o);
        }
    }
}
