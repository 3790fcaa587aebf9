/**
 * {@code avrun}, which starts a command as N ranks that share a named AV and cleans up after them, and
 * the entry point of the executable jar ({@code Tools}), which runs avrun or the {@code shmav} CLI.
 *
 * <p><b>Threads and processes.</b> One job per launcher process; its ranks are child processes that meet
 * only through the AV and the job file, and the launcher's threads only pump their output and signals.
 */
package org.shmav.launch;
