package org.shmav.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test whose body runs in {@link #ranks()} child JVMs at once, like an MPI job: each child gets
 * a {@link org.shmav.Rank} parameter for a fresh AV shared by all of them (rank r publishes at
 * fi_addr r). The test passes when every rank returns normally; a rank that throws fails the test
 * with its rank number, its exception as the cause and the output of every rank; the ranks still
 * running are then stopped. After {@link #timeoutSeconds()} every rank still running prints a thread
 * dump, is stopped, and the test fails naming the ranks that did not finish, with each rank's output
 * so far (dump included).
 * The AV is removed afterwards in every case.
 *
 * <pre>{@code
 * @MultiJvmTest(ranks = 4, timeoutSeconds = 60)
 * void everyRankSeesEveryOther(Rank rank) { ... }
 * }</pre>
 *
 * <p>Only the method body runs in the ranks, on a new instance of the test class made with its
 * no-argument constructor: {@code @BeforeEach}, {@code @AfterEach} and other extensions run once, in
 * the test JVM. The ranks share the test JVM's classpath, not its system properties (pass them with
 * {@link #jvmArgs()}).
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Test
@ExtendWith(MultiJvmExtension.class)
public @interface MultiJvmTest
{
    /** {@return the number of child JVMs (ranks)} */
    int ranks() default 2;

    /** {@return the bound on the whole run in seconds, JVM starts included} Then every rank is killed and the test fails. */
    int timeoutSeconds() default 60;

    /** {@return extra JVM options for every rank, e.g. {@code -Dsome.property=value} or {@code -Xmx64m}} */
    String[] jvmArgs() default {};
}
