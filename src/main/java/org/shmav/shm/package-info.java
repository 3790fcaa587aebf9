/**
 * The file side of a named AV and the memory beneath every AV: the binary layout (descriptor classes
 * with their diagrams, mirrored in shm-layout.md), the one class that reads and writes shared memory
 * with an ordering ({@code Memory}), atomic creation, validated attach, removal by identity, growth of
 * the file, and the record locks through which the kernel says which process is alive. Its errors are
 * {@code FabricException}s with an errno and a detail, naming no call: the call that reaches them names itself.
 *
 * <p><b>Threads and processes.</b> The descriptors are constants; a file's open channel and locks are
 * shared by the JVM's threads through one {@code AvFileChannel} per file; between processes nothing is
 * shared but the files themselves, whose every field is written in the order shm-layout.md gives.
 */
package org.shmav.shm;
