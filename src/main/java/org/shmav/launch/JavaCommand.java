package org.shmav.launch;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a JVM that runs a main class with this JVM's java and classpath: how avrun's
 * demos and the {@code @MultiJvmTest} ranks are started. Tuned for a fast start, since a job starts
 * many short-lived JVMs at once: serial GC and C1 only.
 */
public final class JavaCommand
{
    /** Flags every rank JVM gets before the caller's own. */
    public static final List<String> FAST_START = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto");

    /**
     * On Java 22+, native access for the classpath, which shmav's lock files use (JNA): without it Java 24+ prints
     * four WARNING lines in every rank. Java 17 to 21 need nothing (and some refuse the flag for the classpath).
     */
    public static final List<String> NATIVE_ACCESS = Runtime.version().feature() >= 22 ?
        List.of("--enable-native-access=ALL-UNNAMED") : List.of();

    private JavaCommand()
    {
    }

    /** {@code java FAST_START NATIVE_ACCESS jvmArgs -cp <this classpath> mainClass args}. */
    public static List<String> forMain(final String mainClass, final List<String> jvmArgs, final List<String> args)
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(FAST_START);
        command.addAll(NATIVE_ACCESS);
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass);
        command.addAll(args);
        return command;
    }
}
