package org.shmav.shm;

/**
 * The words of the dedup index (layout 5, shm-layout.md, Hash and CONCURRENCY): the header's
 * {@code indexState} and the hash buckets. Each segment's hash section holds two areas; the header
 * word names the area in use (the active one) and, while a migration runs, the area it is being
 * copied to. Every bucket carries the stamp of the use of its area it was written in, so that an area
 * is reused without being cleared and a late write of an earlier use is EMPTY to the current one.
 *
 * <pre>
 *   indexState:  bits 27..0 stamp a of the active area (the target's is a + 1) | 32..28 active segment
 *                | 33 active area | 34 migrating | 39..35 target segment | 40 target area
 *                | 57..41 migrator's attacher index + 1 (0: none)
 *   bucket:      bits 63..36 stamp | 35..26 tag (hash &gt;&gt;&gt; 54) | 25..0 slot + 1 (0x3FFFFFF: TOMBSTONE)
 * </pre>
 *
 * The 26-bit slot field holds any slot: a file of at most 2^31 - 1 bytes has fewer than 2^25.
 *
 * To a walker using stamp c a bucket is EMPTY when it is 0, its slot field is 0, or its stamp is older
 * than c; a stamp newer than c means the walker's {@code indexState} is out of date.
 */
public final class IndexWord
{
    /** The stamp field of a bucket, and the stamp arithmetic: modulo 2^28. */
    public static final long STAMP_MASK = (1L << 28) - 1;
    private static final long SLOT_MASK = (1L << 26) - 1;
    /** The slot field of a TOMBSTONE. */
    public static final long TOMBSTONE_SLOT = SLOT_MASK;
    /** The indexState a creator writes: stamp 1, segment 0, area 0, no migration. */
    public static final long INITIAL_STATE = 1;
    private static final int MIGRATING_BIT = 34;

    private IndexWord()
    {
    }

    // ---------------------------------------------------------------- indexState

    public static long stamp(final long state)
    {
        return state & STAMP_MASK;
    }

    public static int activeSegment(final long state)
    {
        return (int)(state >>> 28) & 0x1F;
    }

    public static int activeArea(final long state)
    {
        return (int)(state >>> 33) & 1;
    }

    public static boolean migrating(final long state)
    {
        return (state >>> MIGRATING_BIT & 1) != 0;
    }

    public static int targetSegment(final long state)
    {
        return (int)(state >>> 35) & 0x1F;
    }

    public static int targetArea(final long state)
    {
        return (int)(state >>> 40) & 1;
    }

    /** The migrator's attacher index, -1 for none. */
    public static int migrator(final long state)
    {
        return (int)((state >>> 41) & 0x1_FFFF) - 1;
    }

    /** No migration: {@code segment}'s area {@code area} in use under {@code stamp}. */
    public static long idle(final long stamp, final int segment, final int area)
    {
        return (stamp & STAMP_MASK) | (long)segment << 28 | (long)area << 33;
    }

    /** {@code idle}'s active area being copied to {@code segment}'s area {@code area} by attacher {@code migrator}. */
    public static long migrating(final long idle, final int segment, final int area, final int migrator)
    {
        return idle | 1L << MIGRATING_BIT | (long)segment << 35 | (long)area << 40 | (long)(migrator + 1) << 41;
    }

    /** The state once the migration {@code state} is done: its target in use under the next stamp. */
    public static long switched(final long state)
    {
        return idle(stamp(state) + 1, targetSegment(state), targetArea(state));
    }

    /** True when {@code state} has fields no writer writes (a damaged or foreign file). */
    public static boolean malformed(final long state)
    {
        return state >>> 58 != 0 || !migrating(state) && (state >>> 35) != 0;
    }

    // ---------------------------------------------------------------- buckets

    /** The entry of {@code slot}, whose key's hash is {@code hash}, under {@code stamp}. */
    public static long entry(final long stamp, final long hash, final long slot)
    {
        return (stamp & STAMP_MASK) << 36 | (hash >>> 54) << 26 | (slot + 1);
    }

    public static long tombstone(final long stamp)
    {
        return (stamp & STAMP_MASK) << 36 | TOMBSTONE_SLOT;
    }

    public static long bucketStamp(final long bucket)
    {
        return bucket >>> 36;
    }

    /** The slot field: slot + 1, 0 for EMPTY, {@link #TOMBSTONE_SLOT} for a TOMBSTONE. */
    public static long slotField(final long bucket)
    {
        return bucket & SLOT_MASK;
    }

    /** The tag field: the high 10 bits of the hash. */
    public static long tag(final long bucket)
    {
        return (bucket >>> 26) & 0x3FF;
    }

    public static long tagOfHash(final long hash)
    {
        return hash >>> 54;
    }

    /** True when stamp {@code x} is older than {@code c} (modulo 2^28, within half the range). */
    public static boolean older(final long x, final long c)
    {
        final long d = (c - x) & STAMP_MASK;
        return d != 0 && d < 1L << 27;
    }
}
