package org.shmav.slots;

/**
 * The header's {@code growthClaim} word (layout 6): who is growing the AV, and whether it is getting on.
 *
 * <pre>
 *   bits 63..32  progress: raised by the owner after every step of its growth (a chunk of zeros written,
 *                a stretch of map_addr entries prepared); wraps
 *   bits 31..8   ticket: raised by every new claim, so that a taken-over owner's next CAS fails
 *   bits  7..0   segment: the segment the claim is for; 0 for none (the claim was given back)
 * </pre>
 *
 * A claim for a segment that is already published is over. A writer that needs segment n while
 * another's claim for n stands waits while the word changes, and takes the claim over once it has not
 * changed for {@link #STALL_NANOS}: its owner is frozen, dead, or hit an Error. Taking over is safe
 * because each claim writes only into its own range of the file (shm-layout.md, GROWTH).
 */
final class GrowthClaim
{
    /** How long a claim may stand without progress before another writer takes it over. */
    static final long STALL_NANOS = 200_000_000L;

    private static final long SEGMENT_MASK = 0xFFL;
    private static final long TICKET_MASK = 0xFFFFFFL;
    private static final int TICKET_SHIFT = 8;
    private static final long PROGRESS_UNIT = 1L << 32;

    private GrowthClaim()
    {
    }

    /** The segment claim {@code claim} is for; 0 for none. */
    static int segment(final long claim)
    {
        return (int)(claim & SEGMENT_MASK);
    }

    /** A new claim for segment {@code segment} that replaces {@code claim}: the next ticket, no progress. */
    static long next(final long claim, final int segment)
    {
        final long ticket = ((claim >>> TICKET_SHIFT) + 1) & TICKET_MASK;
        return ticket << TICKET_SHIFT | segment;
    }

    /** {@code claim} one step further. */
    static long advanced(final long claim)
    {
        return claim + PROGRESS_UNIT;
    }

    /** {@code claim} given back: same ticket, no segment, so that the next grower claims at once. */
    static long released(final long claim)
    {
        return claim & (TICKET_MASK << TICKET_SHIFT);
    }
}
