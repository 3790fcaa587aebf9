/**
 * The API: libfabric's address vectors ({@code fi_av}, {@code fi_av_set}) for the JVM, with named AVs
 * shared by processes through files in {@code /dev/shm}. Two kinds of class live here (docs/architecture.md):
 * the entry points {@code Domain} and {@code Rank}, which build on the layers below, and the vocabulary
 * every layer speaks (the interfaces {@code AddressVector}, {@code AvSet}, {@code EventQueue},
 * {@code Endpoint}; the attributes; {@code FabricException} and {@code FiErrno}; the enums and constants;
 * {@code Addresses}).
 *
 * <p><b>Threads and processes.</b> Domains, AVs and sets may be shared by the threads of a process
 * (each interface says which calls may race; {@code close} never may), and a named AV by any number of
 * processes, which coordinate through the file alone; attributes and exceptions are immutable values.
 */
package org.shmav;
