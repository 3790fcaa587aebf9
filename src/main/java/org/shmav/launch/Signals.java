package org.shmav.launch;

import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The signals avrun takes and sends. Java has no public API for either: ProcessHandle sends only
 * SIGTERM and SIGKILL, and a shutdown hook cannot tell SIGINT from SIGTERM. So avrun sends other
 * signals with the shell's {@code kill} ({@code sh} is on every machine, {@code /bin/kill} is not), and
 * takes SIGINT and SIGTERM through {@code sun.misc.Signal} (module jdk.unsupported, present in every
 * JDK since 9 and needing no flag), called reflectively so that the build stays warning-free. When that
 * class is missing, the JVM's default handling remains: the shutdown hook stops the ranks.
 */
final class Signals
{
    /** The signals avrun handles, with their numbers on Linux. */
    static final List<String> HANDLED = List.of("INT", "TERM");

    private Signals()
    {
    }

    /** 128 + the signal's number: the status of a process that a signal stopped (130, 143). */
    static int exitStatus(final String name)
    {
        return 128 + switch (name)
        {
            case "INT" -> 2;
            case "QUIT" -> 3;
            case "TERM" -> 15;
            default -> throw new IllegalArgumentException("signal " + name);
        };
    }

    /**
     * Calls {@code handler} with the signal's name ({@code INT}, {@code TERM}) instead of the JVM's
     * default (exit). Returns false when the JVM lets us handle none of them. A signal that was ignored
     * when the JVM started (SIGINT of a background job of a shell without job control) stays ignored.
     */
    static boolean handle(final Consumer<String> handler)
    {
        try
        {
            final Class<?> signal = Class.forName("sun.misc.Signal");
            final Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
            final Method getName = signal.getMethod("getName");
            final InvocationHandler call = (proxy, method, args) ->
            {
                if (method.getName().equals("handle"))
                {
                    handler.accept((String)getName.invoke(args[0]));
                    return null;
                }
                return switch (method.getName())
                {
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> "avrun signal handler";
                };
            };
            final Object proxy = Proxy.newProxyInstance(Signals.class.getClassLoader(), new Class<?>[] {handlerType}, call);
            boolean any = false;
            for (final String name : HANDLED)
            {
                try
                {
                    signal.getMethod("handle", signal, handlerType).invoke(null,
                        signal.getConstructor(String.class).newInstance(name), proxy);
                    any = true;
                }
                catch (final java.lang.reflect.InvocationTargetException e)
                {
                    // IllegalArgumentException: the JVM leaves this signal alone (ignored at start, or -Xrs)
                }
            }
            return any;
        }
        catch (final ReflectiveOperationException | RuntimeException | LinkageError e)
        {
            return false;
        }
    }

    /** Sends signal {@code name} ({@code INT}, {@code QUIT}, ...) to {@code pid}; false if that failed. */
    static boolean send(final long pid, final String name)
    {
        try
        {
            final Process kill = new ProcessBuilder("sh", "-c", "kill -s " + name + " " + pid)
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!kill.waitFor(5, TimeUnit.SECONDS))
            {
                kill.destroyForcibly();
                return false;
            }
            return kill.exitValue() == 0;
        }
        catch (final IOException e)
        {
            return false;
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Whether this process is in the foreground process group of its terminal: then a Ctrl-C on the
     * terminal reached every rank too (they inherit avrun's group), and forwarding it would deliver it
     * twice. From {@code /proc/self/stat}: pgrp (field 5) equals tpgid (field 8).
     */
    static boolean inTerminalForeground()
    {
        try
        {
            final String stat = Files.readString(Path.of("/proc/self/stat"), StandardCharsets.US_ASCII);
            final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // after "pid (comm) ": state ppid pgrp session tty_nr tpgid
            return Long.parseLong(f[5]) > 0 && f[2].equals(f[5]);
        }
        catch (final IOException | RuntimeException e)
        {
            return false;
        }
    }
}
