package org.shmav.shm;

import static org.agrona.BitUtil.align;
import static org.shmav.shm.AvFileDescriptor.*;

import org.shmav.AddrFormat;
import org.shmav.AvType;

/**
 * Where every section of one AV region lies, as one process sees it: computed from the creation
 * parameters ({@link #compute}) or read from an existing header and checked ({@link #read}), so that no
 * offset derived from a file can point outside it. Immutable: a growth ({@link #grown}) gives a new
 * layout with one segment more, and the processes that follow it map the file again.
 *
 * <p>Segments (shm-layout.md, GROWTH). Segment 0 holds slots [0, c0), c0 being the count at creation.
 * With G the smallest power of two not below c0 and M the maximum capacity, segment k &gt;= 1 holds
 * [end(k-1), end(k)) with end(k) = min(G 2^k, M): the capacity doubles with each growth until the last
 * segment, which stops at M exactly, and an index past c0 finds its segment with one shift and a
 * leading-zero count (the last segment is the doubling one cut short, so the rule holds for it too).
 * Each segment is its slots, its map_addr array and two hash areas sized for the capacity it brings the
 * AV to, appended at the end of the file. The header's {@code indexState} names the area in use
 * ({@link IndexWord}). This class is the sections' geometry; {@link AvHeader} writes and checks the
 * header fields that record it.
 */
public final class AvLayout
{
    /**
     * Hash areas per segment (layout 5): the index is in one of them, and a migration copies it to the
     * other, or to a grown AV's new segment, without stopping writers (org.shmav.slots.IndexMigration).
     */
    public static final int HASH_AREAS = 2;

    private final AddrShape shape;
    private final AddrFormat addrFormat;
    private final AvType avType;
    private final int addrLen;
    private final int slotLength;
    private final int attachersCapacity;
    private final int authKeySize;
    private final int authKeysCapacity;
    private final long attachersOffset;
    private final long authKeysOffset;
    private final long firstCapacity;
    private final long maxCapacity;
    private final int log2G;
    private final int segments;
    private final long capacity;
    private final long slotsOffset;
    private final long mapOffset;
    private final long baseLength;
    private final long hashBuckets;
    private final long fileLength;
    /**
     * Per segment: file offset of its slots, of its hash and of its end; slot and map_addr offsets less
     * first * size. Segment k >= 1 starts where its grower's range began (shm-layout.md, GROWTH): at or
     * past the end of segment k - 1, not necessarily at it.
     */
    private final long[] segmentSlots;
    private final long[] segmentStops;
    private final long[] segmentHashes;
    private final long[] segmentBuckets;
    private final long[] slotBase;
    private final long[] mapBase;

    AvLayout(final AddrShape shape, final AvType avType, final long firstCapacity, final long maxCapacity,
        final int attachersCapacity, final int authKeySize, final int authKeysCapacity, final long firstBuckets,
        final int segments, final long[] starts)
    {
        this.shape = shape;
        this.addrFormat = shape.format();
        this.avType = avType;
        this.addrLen = shape.addrLen();
        this.slotLength = SlotDescriptor.slotLength(addrLen);
        this.attachersCapacity = attachersCapacity;
        this.authKeySize = authKeySize;
        this.authKeysCapacity = authKeysCapacity;
        this.firstCapacity = firstCapacity;
        this.maxCapacity = maxCapacity;
        this.log2G = 64 - Long.numberOfLeadingZeros(Math.max(firstCapacity, 1) - 1);
        this.segments = segments;
        this.attachersOffset = HEADER_LENGTH;
        this.authKeysOffset = align(attachersOffset + (long)attachersCapacity * AttacherDescriptor.LENGTH, SECTION_ALIGNMENT);
        this.slotsOffset = align(authKeysOffset + (long)authKeysCapacity * authKeyEntryLength(authKeySize), SECTION_ALIGNMENT);
        this.mapOffset = align(slotsOffset + firstCapacity * slotLength, SECTION_ALIGNMENT);
        final long firstHash = align(mapOffset + firstCapacity * Long.BYTES, SECTION_ALIGNMENT);
        this.baseLength = align(firstHash + HASH_AREAS * firstBuckets * Long.BYTES, SECTION_ALIGNMENT);
        this.segmentSlots = new long[segments];
        this.segmentStops = new long[segments];
        this.segmentHashes = new long[segments];
        this.segmentBuckets = new long[segments];
        this.slotBase = new long[segments];
        this.mapBase = new long[segments];
        segmentSlots[0] = slotsOffset;
        segmentHashes[0] = firstHash;
        segmentBuckets[0] = firstBuckets;
        slotBase[0] = slotsOffset;
        mapBase[0] = mapOffset;
        segmentStops[0] = baseLength;
        long end = baseLength;
        long buckets = firstBuckets;
        for (int k = 1; k < segments; k++)
        {
            final long first = segmentFirst(k);
            final long n = segmentEnd(k) - first;
            segmentSlots[k] = starts == null ? end : starts[k];
            final long map = align(segmentSlots[k] + n * slotLength, SECTION_ALIGNMENT);
            segmentHashes[k] = align(map + n * Long.BYTES, SECTION_ALIGNMENT);
            buckets = hashBucketsFor(segmentEnd(k));
            segmentBuckets[k] = buckets;
            end = align(segmentHashes[k] + HASH_AREAS * buckets * Long.BYTES, SECTION_ALIGNMENT);
            segmentStops[k] = end;
            slotBase[k] = segmentSlots[k] - first * slotLength;
            mapBase[k] = map - first * Long.BYTES;
        }
        this.capacity = segmentEnd(segments - 1);
        this.hashBuckets = buckets;
        this.fileLength = end;
    }

    /** Bytes per auth-key entry: state word, user id, key bytes padded to 8. */
    public static int authKeyEntryLength(final int authKeySize)
    {
        return 16 + (int)align((long)authKeySize, 8);
    }

    /**
     * Hash buckets for {@code capacity} slots: a power of two of at least two per slot. A full AV's hash is
     * then at most about half used, and at 1,000,000 slots it is 16 MB: with four per slot (32 MB, as
     * layout 1.0 had) single inserts were about 25% slower, from cache and TLB misses (InsertBench).
     */
    public static long hashBucketsFor(final long capacity)
    {
        return Long.highestOneBit(Math.max(capacity, 1) * 2 - 1) << 1;
    }

    /** The layout of a new region of one segment of {@code capacity} slots, which never grows (private AVs). */
    public static AvLayout compute(
        final AddrFormat addrFormat,
        final AvType avType,
        final long capacity,
        final int attachersCapacity,
        final int authKeySize,
        final int authKeysCapacity)
    {
        return compute(AddrShape.of(addrFormat), avType, capacity, attachersCapacity, authKeySize, authKeysCapacity);
    }

    /** The same for addresses of {@code shape} (FORMAT_UNSPEC of the domain's length). */
    public static AvLayout compute(
        final AddrShape shape,
        final AvType avType,
        final long capacity,
        final int attachersCapacity,
        final int authKeySize,
        final int authKeysCapacity)
    {
        return new AvLayout(shape, avType, capacity, capacity, attachersCapacity, authKeySize, authKeysCapacity,
            hashBucketsFor(capacity), 1, null);
    }

    /** The same with {@code buckets} hash buckets in segment 0 (tests write files of other shapes with it). */
    public static AvLayout compute(
        final AddrFormat addrFormat,
        final AvType avType,
        final long capacity,
        final int attachersCapacity,
        final int authKeySize,
        final int authKeysCapacity,
        final long buckets)
    {
        return new AvLayout(AddrShape.of(addrFormat), avType, capacity, capacity, attachersCapacity, authKeySize,
            authKeysCapacity, buckets, 1, null);
    }

    /** This new region's layout, allowed to grow up to {@code max} slots (at least its capacity). */
    public AvLayout growingTo(final long max)
    {
        return new AvLayout(shape, avType, firstCapacity, Math.max(firstCapacity, Math.min(max, MAX_CAPACITY)),
            attachersCapacity, authKeySize, authKeysCapacity, hashBucketsFor(firstCapacity), segments, null);
    }

    /** True while the capacity is below {@code maxCapacity}: one more segment brings it closer, or to it. */
    public boolean canGrow()
    {
        return segments < MAX_SEGMENTS && capacity < maxCapacity;
    }

    /** The layout with one segment more, right after the last (a private AV's); see {@link #canGrow}. */
    public AvLayout grown()
    {
        return grownAt(fileLength);
    }

    /**
     * The layout with one segment more, whose slots start at file offset {@code start} (a multiple of
     * {@link AvFileDescriptor#SECTION_ALIGNMENT}, at least {@link #fileLength()}: the range a grower took).
     */
    public AvLayout grownAt(final long start)
    {
        if (!canGrow())
        {
            throw new IllegalStateException("cannot grow past " + capacity + " slots");
        }
        if (start < fileLength || start != align(start, SECTION_ALIGNMENT))
        {
            throw new IllegalArgumentException("segment " + segments + " cannot start at " + start);
        }
        final long[] starts = java.util.Arrays.copyOf(segmentSlots, segments + 1);
        starts[segments] = start;
        return new AvLayout(shape, avType, firstCapacity, maxCapacity, attachersCapacity, authKeySize,
            authKeysCapacity, hashBucketsFor(firstCapacity), segments + 1, starts);
    }

    /** Bytes of segment {@code k >= 1}: its slots, map_addr array and hash, each section aligned. */
    public long segmentLength(final int k)
    {
        return segmentStops[k] - segmentSlots[k];
    }

    /** This layout grown to {@code maxCapacity}: every segment the AV can ever have, and its file then. */
    public AvLayout full()
    {
        AvLayout l = this;
        while (l.canGrow())
        {
            l = l.grown();
        }
        return l;
    }

    /** Index of segment {@code k}'s first slot: where the previous segment ends. */
    public long segmentFirst(final int k)
    {
        return k == 0 ? 0 : segmentEnd(k - 1);
    }

    /**
     * One past segment {@code k}'s last slot: the AV's capacity once it has {@code k + 1} segments. A
     * doubling, G 2^k, except for the last segment, which ends at {@code maxCapacity} exactly.
     */
    public long segmentEnd(final int k)
    {
        return k == 0 ? firstCapacity : Math.min(1L << (log2G + k), maxCapacity);
    }

    /** The segment holding slot {@code index} (below {@link #capacity()}). */
    public int segment(final long index)
    {
        return index < firstCapacity ? 0 : segmentOf(index);
    }

    /** The segment holding slot {@code index}, at least {@link #firstCapacity()}: one shift, one leading-zero count. */
    private int segmentOf(final long index)
    {
        return Math.max(1, 64 - Long.numberOfLeadingZeros(index >>> log2G));
    }

    /** File offset of segment {@code k}'s slots. */
    public long segmentSlotsOffset(final int k)
    {
        return segmentSlots[k];
    }

    /** File offset of segment {@code k}'s hash. */
    public long segmentHashOffset(final int k)
    {
        return segmentHashes[k];
    }

    /** Writes every layout field of the header (not the version: that is written last, by the creator). */
    public void writeHeader(final Memory m, final long mapAddrBase, final long avFlags, final int rxCtxBits)
    {
        AvHeader.write(this, m, mapAddrBase, avFlags, rxCtxBits);
    }

    /** Writes segment {@code k}'s entry of the segment table (the creator's segment 0). */
    public void writeSegmentEntry(final Memory m, final int k)
    {
        AvHeader.writeSegmentEntry(this, m, k);
    }

    /** Stores segment {@code k}'s hashOffset, derived from its slotsOffset: the same value whoever stores it. */
    public void writeSegmentHash(final Memory m, final int k)
    {
        AvHeader.writeSegmentHash(this, m, k);
    }

    /**
     * Reads and checks the layout of a ready region of {@code realLength} bytes, with the segments its
     * header publishes now ({@link AvHeader#read}).
     *
     * @throws LayoutException with the errno to report and what is wrong
     */
    public static AvLayout read(final Memory m, final long realLength)
    {
        return AvHeader.read(m, realLength >= HEADER_LENGTH ? m.getIntAcquire(SEGMENT_COUNT_OFFSET) : 0, realLength);
    }

    /**
     * Reads and checks the layout of a ready region as {@code segments} segments, a value of
     * {@code segmentCount} the caller loaded (acquire) before it learnt the file's size
     * {@code realLength} ({@link AvHeader#read}).
     *
     * @throws LayoutException with the errno to report and what is wrong
     */
    public static AvLayout read(final Memory m, final int segments, final long realLength)
    {
        return AvHeader.read(m, segments, realLength);
    }

    /** File offset of the end of segment {@code k}: where the next one may start. */
    long segmentStop(final int k)
    {
        return segmentStops[k];
    }

    /** Offset of slot {@code index} (below {@link #capacity()}): segment 0's in one predictable branch. */
    public int slot(final long index)
    {
        if (index < firstCapacity)
        {
            return (int)(slotsOffset + index * slotLength);
        }
        return (int)(slotBase[segmentOf(index)] + index * slotLength);
    }

    /** Offset of map_addr entry {@code index} (below {@link #capacity()}). */
    public int map(final long index)
    {
        if (index < firstCapacity)
        {
            return (int)(mapOffset + index * Long.BYTES);
        }
        return (int)(mapBase[segmentOf(index)] + index * Long.BYTES);
    }

    /** File offset of hash area {@code area} (0 or 1) of segment {@code k}: its bucket b is 8 b further. */
    public long hashArea(final int k, final int area)
    {
        return segmentHashes[k] + area * segmentBuckets[k] * Long.BYTES;
    }

    /** Buckets of each hash area of segment {@code k}: a power of two. */
    public long hashBuckets(final int k)
    {
        return segmentBuckets[k];
    }

    /** Offset of attacher entry {@code index}. */
    public int attacher(final int index)
    {
        return (int)(attachersOffset + (long)index * AttacherDescriptor.LENGTH);
    }

    /** Offset of auth-key entry {@code index}. */
    public int authKey(final int index)
    {
        return (int)(authKeysOffset + (long)index * authKeyEntryLength(authKeySize));
    }

    public AddrFormat addrFormat()
    {
        return addrFormat;
    }

    /** Format, length and whether lengths vary: what the header records and openers compare. */
    public AddrShape shape()
    {
        return shape;
    }

    public AvType avType()
    {
        return avType;
    }

    public int addrLen()
    {
        return addrLen;
    }

    public int slotLength()
    {
        return slotLength;
    }

    /** Slots of every segment of this layout: the AV's capacity as this view sees it. */
    public long capacity()
    {
        return capacity;
    }

    /** Slots of segment 0: the count the AV was created with. */
    public long firstCapacity()
    {
        return firstCapacity;
    }

    /** The most slots growth may bring the AV to. */
    public long maxCapacity()
    {
        return maxCapacity;
    }

    /** Segments of this layout. */
    public int segments()
    {
        return segments;
    }

    public int attachersCapacity()
    {
        return attachersCapacity;
    }

    public int authKeySize()
    {
        return authKeySize;
    }

    public int authKeysCapacity()
    {
        return authKeysCapacity;
    }

    public long attachersOffset()
    {
        return attachersOffset;
    }

    public long authKeysOffset()
    {
        return authKeysOffset;
    }

    /** Segment 0's slots. */
    public long slotsOffset()
    {
        return slotsOffset;
    }

    /** Segment 0's map_addr array. */
    public long mapOffset()
    {
        return mapOffset;
    }

    /** Buckets of each of the last segment's hash areas. */
    public long hashBuckets()
    {
        return hashBuckets;
    }

    /** Bytes of the file up to the end of the last segment. */
    public long fileLength()
    {
        return fileLength;
    }

    /** Bytes of the file with segment 0 alone (the header's {@code fileLength}). */
    public long baseLength()
    {
        return baseLength;
    }

    /** log2 of the slots per free group: fixed for the life of the AV, by its {@link #maxCapacity()}. */
    public int freeGroupShift()
    {
        return AvFileDescriptor.freeGroupShift(maxCapacity);
    }

    /** Free groups covering this view's slots. */
    public long freeGroups()
    {
        return ((capacity - 1) >>> freeGroupShift()) + 1;
    }

    /** A problem with a region's layout, carrying the errno to report. */
    public static final class LayoutException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;
        private final int errno;

        public LayoutException(final int errno, final String message)
        {
            super(message);
            this.errno = errno;
        }

        public int errno()
        {
            return errno;
        }
    }
}
