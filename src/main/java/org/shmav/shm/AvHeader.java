package org.shmav.shm;

import static org.agrona.BitUtil.align;
import static org.shmav.shm.AvFileDescriptor.*;

import org.shmav.AddrFormat;
import org.shmav.AvType;
import org.shmav.FiErrno;
import org.shmav.shm.AvLayout.LayoutException;

/**
 * The header's layout fields (shm-layout.md, Header and Segment table entry), as {@link AvLayout}'s
 * geometry fills them in: written by a creator (and a grower, its segment's entry), and read back by
 * every opener, which recomputes the whole geometry from the few free fields and refuses the file
 * unless every recorded offset and size agrees with it, so that no offset taken from a file can point
 * outside it. Stateless.
 */
final class AvHeader
{
    private AvHeader()
    {
    }

    /** Writes every layout field of the header (not the version: that is written last, by the creator). */
    static void write(final AvLayout l, final Memory m, final long mapAddrBase, final long avFlags, final int rxCtxBits)
    {
        m.putLong(MAGIC_OFFSET, MAGIC);
        m.putInt(HEADER_LENGTH_OFFSET, HEADER_LENGTH);
        m.putInt(ADDR_FORMAT_OFFSET, l.addrFormat().value());
        m.putInt(ADDR_LEN_OFFSET, l.addrLen());
        m.putInt(ADDR_LEN_VARYING_OFFSET, l.shape().varying() ? 1 : 0);
        m.putInt(AV_TYPE_OFFSET, l.avType().value());
        m.putInt(SLOT_LENGTH_OFFSET, l.slotLength());
        m.putLong(CAPACITY_OFFSET, l.firstCapacity());
        m.putLong(MAP_ADDR_BASE_OFFSET, mapAddrBase);
        m.putLong(CREATOR_PID_OFFSET, Processes.SELF_PID);
        m.putLong(CREATOR_START_OFFSET, Processes.SELF_START_MILLIS);
        m.putLong(FILE_LENGTH_OFFSET, l.baseLength());
        m.putLong(AV_FLAGS_OFFSET, avFlags);
        m.putInt(RX_CTX_BITS_OFFSET, rxCtxBits);
        m.putInt(AUTH_KEY_SIZE_OFFSET, l.authKeySize());
        m.putInt(ATTACHERS_CAPACITY_OFFSET, l.attachersCapacity());
        m.putInt(AUTH_KEYS_CAPACITY_OFFSET, l.authKeysCapacity());
        m.putLong(ATTACHERS_OFFSET_OFFSET, l.attachersOffset());
        m.putLong(AUTH_KEYS_OFFSET_OFFSET, l.authKeysOffset());
        m.putLong(HASH_OFFSET_OFFSET, l.segmentHashOffset(0));
        m.putLong(HASH_BUCKETS_OFFSET, AvLayout.hashBucketsFor(l.firstCapacity()));
        m.putInt(SEGMENT_COUNT_OFFSET, 1);
        m.putLong(INDEX_STATE_OFFSET, IndexWord.INITIAL_STATE);
        m.putLong(CREATED_MILLIS_OFFSET, System.currentTimeMillis());
        m.putLong(MAX_CAPACITY_OFFSET, l.maxCapacity());
        m.putLong(FILE_TOP_OFFSET, l.baseLength());
        m.putLong(GROWTH_CLAIM_OFFSET, 0);
        writeSegmentEntry(l, m, 0);
    }

    /** Writes segment {@code k}'s entry of the segment table (the creator's segment 0). */
    static void writeSegmentEntry(final AvLayout l, final Memory m, final int k)
    {
        m.putLong(segmentOffset(k) + SEGMENT_SLOTS_OFFSET, l.segmentSlotsOffset(k));
        writeSegmentHash(l, m, k);
    }

    /** Stores segment {@code k}'s hashOffset, derived from its slotsOffset: the same value whoever stores it. */
    static void writeSegmentHash(final AvLayout l, final Memory m, final int k)
    {
        m.putLong(segmentOffset(k) + SEGMENT_HASH_OFFSET, l.segmentHashOffset(k));
    }

    /** The command that removes an AV of an older layout; callers put the AV's name for NAME. */
    static final String OLDER_RM = "shmav rm NAME";

    /**
     * Reads and checks the layout of a ready region as {@code segments} segments, a value of
     * {@code segmentCount} the caller loaded (acquire) before it learnt the file's size
     * {@code realLength}: a grower extends the file before it publishes a segment, so a file shorter
     * than the segments read first is damaged, not growing. Only the header is read: {@code m} may map
     * no more. Every size and offset is checked, so that a corrupted or foreign file is refused here and
     * never read out of bounds later; the caller checks that the file is at least
     * {@link AvLayout#fileLength()} long (a longer file is fine: a growth in progress, or a dead grower's
     * reservation).
     *
     * @throws LayoutException with the errno to report and what is wrong
     */
    static AvLayout read(final Memory m, final int segments, final long realLength)
    {
        if (realLength < HEADER_LENGTH)
        {
            throw new LayoutException(FiErrno.EINVAL, "file is " + realLength + " bytes, shorter than the " +
                HEADER_LENGTH + "-byte header: not a shmav AV (or truncated)");
        }
        final long magic = m.getLong(MAGIC_OFFSET);
        if (magic != MAGIC)
        {
            throw new LayoutException(FiErrno.EINVAL, String.format(
                "bad magic 0x%016x (expected 0x%016x): not a shmav AV file", magic, MAGIC));
        }
        final int version = m.getIntAcquire(VERSION_OFFSET);
        if (version >>> 16 != VERSION_MAJOR)
        {
            throw new LayoutException(FiErrno.EINVAL, "layout version " + (version >>> 16) + "." + (version & 0xFFFF) +
                " is not supported: app=" + VERSION_MAJOR + "." + VERSION_MINOR + " file=" + (version >>> 16) + "." +
                (version & 0xFFFF) + (version >>> 16 < VERSION_MAJOR
                    ? " (written by an older shmav, which cannot follow this one's growth or liveness: stop its " +
                        "processes, remove the AV with '" + OLDER_RM + (version >>> 16 < OlderLayout.LIVENESS_SINCE_MAJOR
                        ? " --force' (whether that layout's processes are gone cannot be told)" : "'") +
                        " and create it again)"
                    : " (written by a newer shmav: use that version in every process of the job)"));
        }
        check(m.getInt(HEADER_LENGTH_OFFSET) == HEADER_LENGTH, "headerLength", m.getInt(HEADER_LENGTH_OFFSET));
        final AddrFormat format = AddrFormat.ofValue(m.getInt(ADDR_FORMAT_OFFSET));
        check(format != null && format.supported(), "addrFormat", m.getInt(ADDR_FORMAT_OFFSET));
        final int varying = m.getInt(ADDR_LEN_VARYING_OFFSET);
        check(varying == 0 || varying == 1 && format == AddrFormat.FORMAT_UNSPEC, "addrLenVarying", varying);
        final AddrShape shape = new AddrShape(format, m.getInt(ADDR_LEN_OFFSET), varying == 1);
        check(shape.valid(), "addrLen", m.getInt(ADDR_LEN_OFFSET));
        final AvType type = AvType.ofValue(m.getInt(AV_TYPE_OFFSET));
        check(type == AvType.MAP || type == AvType.TABLE, "avType", m.getInt(AV_TYPE_OFFSET));
        final long capacity = m.getLong(CAPACITY_OFFSET);
        check(capacity > 0 && capacity <= MAX_CAPACITY, "capacity", capacity);
        final long max = m.getLong(MAX_CAPACITY_OFFSET);
        check(max >= capacity && max <= MAX_CAPACITY, "maxCapacity", max);
        check(IndexWord.malformed(m.getLongVolatile(INDEX_STATE_OFFSET)) == false, "indexState",
            m.getLongVolatile(INDEX_STATE_OFFSET));
        final int attachersCapacity = m.getInt(ATTACHERS_CAPACITY_OFFSET);
        check(attachersCapacity > 0 && attachersCapacity <= 1 << 16, "attachersCapacity", attachersCapacity);
        final int authKeySize = m.getInt(AUTH_KEY_SIZE_OFFSET);
        check(authKeySize >= 0 && authKeySize <= 4096, "authKeySize", authKeySize);
        final int authKeysCapacity = m.getInt(AUTH_KEYS_CAPACITY_OFFSET);
        check(authKeysCapacity >= 0 && authKeysCapacity <= 1 << 16, "authKeysCapacity", authKeysCapacity);
        final long buckets = m.getLong(HASH_BUCKETS_OFFSET);
        check(buckets == AvLayout.hashBucketsFor(capacity), "hashBuckets", buckets);
        check(segments >= 1 && segments <= MAX_SEGMENTS, "segmentCount", segments);

        // Recompute the whole layout from the few free parameters and the segments' starts, and require
        // the file to agree field by field: every offset is then known to be in bounds.
        final AvLayout one = new AvLayout(shape, type, capacity, max, attachersCapacity, authKeySize, authKeysCapacity,
            buckets, 1, null);
        // A segment exists only if the one before it ended below maxCapacity (growth stops there).
        check(segments == 1 || one.segmentEnd(segments - 2) < max, "segmentCount", segments);
        // Segment k >= 1 starts where its grower's range began: aligned, within a mapping (checked
        // before any offset is computed from it), and past the end of segment k - 1 (checked below).
        final long[] starts = new long[segments];
        for (int k = 1; k < segments; k++)
        {
            starts[k] = m.getLong(segmentOffset(k) + SEGMENT_SLOTS_OFFSET);
            check(starts[k] > 0 && starts[k] < MAX_FILE_LENGTH && starts[k] == align(starts[k], SECTION_ALIGNMENT),
                "segment[" + k + "].slotsOffset", starts[k]);
        }
        final AvLayout expected = segments == 1 ? one : new AvLayout(shape, type, capacity, max, attachersCapacity,
            authKeySize, authKeysCapacity, buckets, segments, starts);
        check(expected.fileLength() <= MAX_FILE_LENGTH, "segmentCount", segments);
        check(m.getInt(ADDR_LEN_OFFSET) == expected.addrLen(), "addrLen", m.getInt(ADDR_LEN_OFFSET));
        check(m.getInt(SLOT_LENGTH_OFFSET) == expected.slotLength(), "slotLength", m.getInt(SLOT_LENGTH_OFFSET));
        check(m.getLong(ATTACHERS_OFFSET_OFFSET) == expected.attachersOffset(), "attachersOffset", m.getLong(ATTACHERS_OFFSET_OFFSET));
        check(m.getLong(AUTH_KEYS_OFFSET_OFFSET) == expected.authKeysOffset(), "authKeysOffset", m.getLong(AUTH_KEYS_OFFSET_OFFSET));
        check(m.getLong(HASH_OFFSET_OFFSET) == expected.segmentHashOffset(0), "hashOffset", m.getLong(HASH_OFFSET_OFFSET));
        for (int k = 0; k < segments; k++)
        {
            final int entry = segmentOffset(k);
            check(m.getLong(entry + SEGMENT_SLOTS_OFFSET) == expected.segmentSlotsOffset(k), "segment[" + k + "].slotsOffset",
                m.getLong(entry + SEGMENT_SLOTS_OFFSET));
            check(k == 0 || expected.segmentSlotsOffset(k) >= expected.segmentStop(k - 1), "segment[" + k + "].slotsOffset",
                m.getLong(entry + SEGMENT_SLOTS_OFFSET));
            check(m.getLong(entry + SEGMENT_HASH_OFFSET) == expected.segmentHashOffset(k), "segment[" + k + "].hashOffset",
                m.getLong(entry + SEGMENT_HASH_OFFSET));
        }
        final long baseLength = m.getLong(FILE_LENGTH_OFFSET);
        check(baseLength == expected.baseLength(), "fileLength", baseLength);
        if (realLength < expected.baseLength())
        {
            throw new LayoutException(FiErrno.EINVAL, "file is " + realLength + " bytes but its header says " +
                baseLength + ": truncated; remove it with 'shmav rm' and create it again");
        }
        final long mapAddrBase = m.getLong(MAP_ADDR_BASE_OFFSET);
        check(mapAddrBase >= 1 && mapAddrBase <= MAX_MAP_ADDR_BASE, "mapAddrBase", mapAddrBase);
        return expected;
    }

    private static void check(final boolean ok, final String field, final long value)
    {
        if (!ok)
        {
            throw new LayoutException(FiErrno.EINVAL, "corrupt header: " + field + "=" + value +
                " is not valid for layout " + VERSION_MAJOR + "." + VERSION_MINOR);
        }
    }
}
