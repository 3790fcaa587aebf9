/**
 * The job-wide key-value stores of the launchers (PMI-1, PMI-2, PMIx), through which the ranks of a job
 * on several nodes exchange their addresses: each client speaks its launcher's wire or library and
 * nothing else of shmav.
 *
 * <p><b>Threads and processes.</b> A store belongs to one rank; its calls run on the store's own thread
 * with the caller's deadline, and the processes of a job meet only through the launcher.
 */
package org.shmav.store;
