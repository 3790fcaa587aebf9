/**
 * {@code @MultiJvmTest}: a JUnit 5 test run as N ranks, each in its own JVM, that share a named AV as a
 * job's ranks do.
 *
 * <p><b>Threads and processes.</b> The extension runs on the test's thread and starts the ranks as
 * child processes; a rank reports to it only through its exit status and the report file it writes.
 */
package org.shmav.junit;
