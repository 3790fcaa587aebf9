package org.shmav.junit;

import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.shmav.Rank;

/**
 * The main class of a {@link MultiJvmTest} rank JVM: runs one test method with this process's
 * {@link Rank} and reports a failure where the test JVM finds it ({@link RankReport}).
 *
 * <p>Arguments: test class, method name, report directory. Exit status 0 when the method returned,
 * 1 when it (or the setup: class, method, constructor, rank environment) threw.
 */
public final class RankMain
{
    private RankMain()
    {
    }

    /**
     * Runs the test method and exits: 0 when it returned, 1 when it threw, 2 for bad arguments.
     *
     * @param args test class, method name, report directory
     */
    public static void main(final String[] args)
    {
        if (args.length != 3)
        {
            System.err.println("usage: RankMain TEST_CLASS METHOD REPORT_DIR (started by @MultiJvmTest)");
            System.exit(2);
        }
        final Path reports = Path.of(args[2]);
        final String rank = System.getenv().getOrDefault(Rank.RANK_ENV, "unknown");
        int status = 0;
        try
        {
            runTest(args[0], args[1]);
        }
        catch (final Throwable t)
        {
            t.printStackTrace();
            report(reports, rank, t);
            status = 1;
        }
        System.out.flush();
        System.err.flush();
        System.exit(status); // threads the test left running must not keep the rank alive
    }

    /** Runs {@code methodName} of {@code className} with this process's rank; throws what the test threw. */
    static void runTest(final String className, final String methodName) throws Throwable
    {
        final Class<?> testClass = Class.forName(className, true, RankMain.class.getClassLoader());
        final Method method = find(testClass, methodName);
        method.setAccessible(true);
        final Object instance = Modifier.isStatic(method.getModifiers()) ? null : newInstance(testClass);
        try (Rank rank = Rank.fromEnvironment())
        {
            method.invoke(instance, method.getParameterCount() == 1 ? new Object[] {rank} : new Object[0]);
        }
        catch (final InvocationTargetException e)
        {
            throw e.getCause();
        }
    }

    /** The method named {@code name} that takes a {@link Rank} or nothing, declared in the class or a superclass. */
    private static Method find(final Class<?> testClass, final String name) throws NoSuchMethodException
    {
        for (Class<?> c = testClass; c != null; c = c.getSuperclass())
        {
            for (final Method m : c.getDeclaredMethods())
            {
                final Class<?>[] params = m.getParameterTypes();
                if (m.getName().equals(name) && (params.length == 0 || params.length == 1 && params[0] == Rank.class))
                {
                    return m;
                }
            }
        }
        throw new NoSuchMethodException(testClass.getName() + "." + name + "(Rank) or " + name + "(): a @MultiJvmTest " +
            "method takes a Rank parameter or none");
    }

    private static Object newInstance(final Class<?> testClass) throws ReflectiveOperationException
    {
        final var constructor = testClass.getDeclaredConstructor();
        constructor.setAccessible(true);
        return constructor.newInstance();
    }

    /** Writes the failure for the test JVM: its one-line description, and the throwable itself when it serializes. */
    private static void report(final Path reports, final String rank, final Throwable t)
    {
        try
        {
            Files.writeString(RankReport.descriptionFile(reports, rank), t.toString(), StandardCharsets.UTF_8);
            try (OutputStream file = Files.newOutputStream(RankReport.throwableFile(reports, rank));
                 ObjectOutputStream out = new ObjectOutputStream(file))
            {
                out.writeObject(t);
            }
        }
        catch (final IOException | RuntimeException e)
        {
            // not serializable (a field of the exception is not): the description and the output remain
            System.err.println("(the failure could not be passed to the test JVM as an object: " + e + ")");
        }
    }
}
