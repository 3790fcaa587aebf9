/**
 * A job's named AV as its ranks meet it: which rank of which job this process is (from the launcher's
 * environment), the job file that records who joined and who still runs, the wire-up of the ranks of
 * several nodes through a launcher's store, pre-filled AVs, and the cleanup process that removes a
 * job's files once every process of the job is gone.
 *
 * <p><b>Threads and processes.</b> A job's objects belong to the one rank that opened them; the ranks of
 * a node coordinate through the job file's record locks and its atomically replaced contents.
 */
package org.shmav.job;
