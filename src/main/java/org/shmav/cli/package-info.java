/**
 * The {@code shmav} command-line tool (ls, show, dump, watch, create, insert, remove, rm, gc), and what
 * both command-line tools say alike (bad names, directories, their version, how to run them again).
 * It opens AV files as a tool, below the API, read-only wherever it only looks.
 *
 * <p><b>Threads and processes.</b> One command per process, on one thread; it shares the AV files with
 * the running programs on the same terms as any other process.
 */
package org.shmav.cli;
