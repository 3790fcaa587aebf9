package org.shmav;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The outcome of a batch insert made through a Java convenience ({@link AddressVector#insert(ByteBuffer, int)},
 * {@link AddressVector#insertAll(List)}, {@link AddressVector#insertAllStrings(List)}): what C returns in
 * {@code fi_addr[]} and the FI_SYNC_ERR array, without the caller having to pass either.
 *
 * <p>Element {@code i} describes the {@code i}-th address of the batch: its fi_addr, or
 * {@link Fi#ADDR_NOTAVAIL} and a positive errno ({@link FiErrno#EADDRNOTAVAIL} for an invalid address,
 * {@link FiErrno#ENOSPC} when a named AV is full). Immutable and safe to share between threads.
 */
public final class InsertResult
{
    private final long[] fiAddr;
    private final int[] errno;
    private final int inserted;

    /**
     * A result from the arrays {@code fi_av_insert} filled with FI_SYNC_ERR. The arrays are copied.
     *
     * @param fiAddr   the fi_addr of each address, {@link Fi#ADDR_NOTAVAIL} for a failed one
     * @param errno    0 for each inserted address, a positive errno for each failed one; same length as fiAddr
     * @param inserted the count {@code fi_av_insert} returned
     * @throws IllegalArgumentException when the arrays differ in length
     */
    public InsertResult(final long[] fiAddr, final int[] errno, final int inserted)
    {
        if (fiAddr.length != errno.length)
        {
            throw new IllegalArgumentException("fiAddr has " + fiAddr.length + " elements, errno " + errno.length);
        }
        this.fiAddr = fiAddr.clone();
        this.errno = errno.clone();
        this.inserted = inserted;
    }

    /**
     * The number of addresses in the batch.
     *
     * @return the batch size
     */
    public int size()
    {
        return fiAddr.length;
    }

    /**
     * The number of addresses inserted: what {@code fi_av_insert} returned.
     *
     * @return {@code size() - failures().size()}
     */
    public int inserted()
    {
        return inserted;
    }

    /**
     * Whether every address of the batch was inserted.
     *
     * @return true when no address failed
     */
    public boolean allInserted()
    {
        return inserted == fiAddr.length;
    }

    /**
     * The fi_addr of the {@code i}-th address.
     *
     * @param i index in the batch, 0 to {@code size() - 1}
     * @return its fi_addr, or {@link Fi#ADDR_NOTAVAIL} when it failed
     * @throws IndexOutOfBoundsException for an index outside the batch
     */
    public long fiAddr(final int i)
    {
        return fiAddr[i];
    }

    /**
     * The errno of the {@code i}-th address.
     *
     * @param i index in the batch, 0 to {@code size() - 1}
     * @return 0 when it was inserted, otherwise a positive errno such as {@link FiErrno#EADDRNOTAVAIL}
     * @throws IndexOutOfBoundsException for an index outside the batch
     */
    public int errno(final int i)
    {
        return errno[i];
    }

    /**
     * The fi_addr of every address, as {@code fi_av_insert} fills {@code fi_addr[]}.
     *
     * @return a copy, {@link Fi#ADDR_NOTAVAIL} at each failed address
     */
    public long[] fiAddrs()
    {
        return fiAddr.clone();
    }

    /**
     * The addresses that were not inserted, in batch order.
     *
     * @return an unmodifiable list, empty when every address was inserted
     */
    public List<Failure> failures()
    {
        final List<Failure> out = new ArrayList<>();
        for (int i = 0; i < errno.length; i++)
        {
            if (errno[i] != 0)
            {
                out.add(new Failure(i, errno[i]));
            }
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * Turns failures into an exception, for callers that treat any failed address as an error.
     *
     * @return this result, when every address was inserted
     * @throws FabricException {@code fi_av_insert} with the errno of the first failed address, naming
     *                         every failed index
     */
    public InsertResult orThrow()
    {
        if (allInserted())
        {
            return this;
        }
        final List<Failure> failures = failures();
        final Failure first = failures.get(0);
        throw new FabricException("fi_av_insert", first.errno(), failures.size() + " of " + size() +
            " address(es) not inserted: " + failures + AvConveniences.advice(first.errno()));
    }

    @Override
    public String toString()
    {
        return "InsertResult{inserted=" + inserted + " of " + size() + ", failures=" + failures() + '}';
    }

    /**
     * One address of a batch that was not inserted.
     *
     * @param index its position in the batch
     * @param errno the positive errno: {@link FiErrno#EADDRNOTAVAIL}, {@link FiErrno#ENOSPC}, ...
     */
    public record Failure(int index, int errno)
    {
        @Override
        public String toString()
        {
            return "[" + index + "] " + FiErrno.name(errno);
        }
    }
}
