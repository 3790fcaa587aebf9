/**
 * The slot protocol of one AV region: claim, fill, index, publish, look up, remove, grow, and the
 * recovery of what a writer that died (or a thread an Error cut short) left half-done. One class per
 * concern, wired together by {@code SlotTable}; the states and their transitions are drawn in each
 * class and in shm-layout.md. Its errors carry an errno and a detail, not the call they serve.
 *
 * <p><b>Threads and processes.</b> Safe for any number of threads in any number of processes at once:
 * writers coordinate by compare-and-swap on the mapped words alone, every wait on another writer ends
 * at a deadline, and reads are lock-free seqlock reads that never return a torn entry.
 */
package org.shmav.slots;
