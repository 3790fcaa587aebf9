/**
 * The implementations behind the API's interfaces: an AV handle ({@code AddressVectorImpl}) and what it
 * does per call (insert, lookup, removal, auth keys, argument checks, faults, lifecycle), the AV set, the
 * event queue, the endpoint, and the opening of a named AV over its file. Each AV call checks its
 * arguments here and then runs the slot protocol of {@code org.shmav.slots}. The method that implements a
 * man-page call names it in the errors it throws ({@code FabricException.in}); the classes it hands the
 * call to, here and below, raise errors without a call's name.
 *
 * <p><b>Threads and processes.</b> A handle may be used by many threads (writes through one handle take
 * its {@code HandleLock}; reads take none); the processes that share a named AV never meet in this
 * package, only in the slot protocol below it.
 */
package org.shmav.av;
