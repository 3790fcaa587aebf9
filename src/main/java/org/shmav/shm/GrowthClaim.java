package org.shmav.shm;

/**
 * The header's {@code growthClaim} word (layout 6): who is growing the AV, and whether it is getting on.
 *
 * <pre>
 *   bits 63..40  progress: raised by the owner after every step of its growth (a chunk of zeros written,
 *                a stretch of map_addr entries prepared); wraps
 *   bits 39..22  ticket: raised by every new claim, so that a taken-over owner's next CAS fails
 *   bits 21..6   owner: the attacher entry of the writer that made the claim
 *   bits  5..0   segment: the segment the claim is for; 0 for none (the claim was given back)
 * </pre>
 *
 * A claim for a segment that is already published is over. A writer that needs segment n while
 * another's claim for n stands waits while the word changes, and takes the claim over once it has not
 * changed for {@link #STALL_NANOS} (its owner is frozen or stuck), or at once when the owner's attacher
 * lock is provably free (it died). The taker finishes the same segment: taking over is safe because
 * every write a grower makes may be made again, by any grower of the segment, at any time, without
 * changing a published byte (shm-layout.md, GROWTH; org.shmav.slots.SegmentGrowth).
 */
public final class GrowthClaim
{
    /** How long a claim may stand without progress before another writer takes it over. */
    public static final long STALL_NANOS = 200_000_000L;

    private static final long SEGMENT_MASK = 0x3FL;
    private static final int OWNER_SHIFT = 6;
    private static final long OWNER_MASK = 0xFFFFL;
    private static final int TICKET_SHIFT = 22;
    private static final long TICKET_MASK = 0x3FFFFL;
    private static final long PROGRESS_UNIT = 1L << 40;

    private GrowthClaim()
    {
    }

    /** The segment claim {@code claim} is for; 0 for none. */
    public static int segment(final long claim)
    {
        return (int)(claim & SEGMENT_MASK);
    }

    /** The attacher entry of the writer that made claim {@code claim}. */
    public static int owner(final long claim)
    {
        return (int)((claim >>> OWNER_SHIFT) & OWNER_MASK);
    }

    /** The progress count of claim {@code claim} (wraps). */
    public static long progress(final long claim)
    {
        return claim >>> 40;
    }

    /** The ticket of claim {@code claim}. */
    public static long ticket(final long claim)
    {
        return (claim >>> TICKET_SHIFT) & TICKET_MASK;
    }

    /** A new claim of writer {@code owner} for segment {@code segment} that replaces {@code claim}: the next ticket, no progress. */
    public static long next(final long claim, final int segment, final int owner)
    {
        final long ticket = ((claim >>> TICKET_SHIFT) + 1) & TICKET_MASK;
        return ticket << TICKET_SHIFT | (owner & OWNER_MASK) << OWNER_SHIFT | segment;
    }

    /** {@code claim} one step further. */
    public static long advanced(final long claim)
    {
        return claim + PROGRESS_UNIT;
    }

    /** {@code claim} given back: same ticket, no segment, owner or progress, so that the next grower claims at once. */
    public static long released(final long claim)
    {
        return claim & (TICKET_MASK << TICKET_SHIFT);
    }
}
