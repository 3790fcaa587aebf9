package org.shmav.junit;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.shmav.Rank;

/**
 * The JUnit 5 side of {@link MultiJvmTest}: instead of invoking the test method in the test JVM, it
 * runs it in the rank JVMs ({@link MultiJvmRun}) and turns their outcome into the test's.
 *
 * <p>JUnit resolves a method's parameters before any interceptor runs, so the {@link Rank} parameter
 * is resolved here to null: the method is never invoked in the test JVM, and each rank JVM passes its
 * own {@code Rank} ({@link RankMain}).
 */
public final class MultiJvmExtension implements InvocationInterceptor, ParameterResolver
{
    @Override
    public void interceptTestMethod(final Invocation<Void> invocation,
        final ReflectiveInvocationContext<Method> invocationContext, final ExtensionContext extensionContext) throws Throwable
    {
        final MultiJvmTest config = invocationContext.getExecutable().getAnnotation(MultiJvmTest.class);
        if (config == null)
        {
            invocation.proceed(); // the extension was registered on the class: plain tests run as usual
            return;
        }
        invocation.skip();
        MultiJvmRun.builder(invocationContext.getTargetClass(), invocationContext.getExecutable())
            .ranks(config.ranks())
            .timeout(Duration.ofSeconds(config.timeoutSeconds()))
            .jvmArgs(List.of(config.jvmArgs()))
            .build()
            .run();
    }

    @Override
    public boolean supportsParameter(final ParameterContext parameterContext, final ExtensionContext extensionContext)
    {
        return parameterContext.getParameter().getType() == Rank.class &&
            parameterContext.getDeclaringExecutable().isAnnotationPresent(MultiJvmTest.class);
    }

    @Override
    public Object resolveParameter(final ParameterContext parameterContext, final ExtensionContext extensionContext)
    {
        return null;
    }
}
