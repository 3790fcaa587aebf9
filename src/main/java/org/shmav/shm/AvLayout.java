package org.shmav.shm;

import static org.shmav.shm.AvFileDescriptor.*;

import org.shmav.AddrFormat;
import org.shmav.AvType;
import org.shmav.FiErrno;

/**
 * Where every section of one AV region lies: computed from the creation parameters
 * ({@link #compute}) or read from an existing header and checked against the real length
 * ({@link #read}), so that no offset derived from a file can point outside it.
 */
public record AvLayout(
    AddrFormat addrFormat,
    AvType avType,
    int addrLen,
    int slotLength,
    long capacity,
    int attachersCapacity,
    int authKeySize,
    int authKeysCapacity,
    long attachersOffset,
    long authKeysOffset,
    long slotsOffset,
    long mapOffset,
    long hashOffset,
    long hashBuckets,
    long fileLength)
{
    /** Bytes per auth-key entry: state word, user id, key bytes padded to 8. */
    public static int authKeyEntryLength(final int authKeySize)
    {
        return 16 + (int)align(authKeySize, 8);
    }

    /**
     * Hash buckets of a new region: a power of two of at least two per slot. A full AV's hash is then
     * at most about half used, and at 1,000,000 slots it is 16 MB: with four per slot (32 MB, as
     * layout 1.0 had) single inserts were about 25% slower, from cache and TLB misses (InsertBench).
     */
    public static long hashBucketsFor(final long capacity)
    {
        return Long.highestOneBit(Math.max(capacity, 1) * 2 - 1) << 1;
    }

    /** The layout of a new region. */
    public static AvLayout compute(
        final AddrFormat addrFormat,
        final AvType avType,
        final long capacity,
        final int attachersCapacity,
        final int authKeySize,
        final int authKeysCapacity)
    {
        return compute(addrFormat, avType, capacity, attachersCapacity, authKeySize, authKeysCapacity,
            hashBucketsFor(capacity));
    }

    /** The layout of a region with {@code buckets} hash buckets (tests write files of other shapes with it). */
    public static AvLayout compute(
        final AddrFormat addrFormat,
        final AvType avType,
        final long capacity,
        final int attachersCapacity,
        final int authKeySize,
        final int authKeysCapacity,
        final long buckets)
    {
        final int addrLen = addrFormat.addrlen();
        final int slotLength = SlotDescriptor.slotLength(addrLen);
        final long attachersOffset = HEADER_LENGTH;
        final long authKeysOffset = align(attachersOffset + (long)attachersCapacity * AttacherDescriptor.LENGTH, SECTION_ALIGNMENT);
        final long slotsOffset = align(authKeysOffset + (long)authKeysCapacity * authKeyEntryLength(authKeySize), SECTION_ALIGNMENT);
        final long mapOffset = align(slotsOffset + capacity * slotLength, SECTION_ALIGNMENT);
        final long hashOffset = align(mapOffset + capacity * Long.BYTES, SECTION_ALIGNMENT);
        final long fileLength = align(hashOffset + buckets * Long.BYTES, SECTION_ALIGNMENT);
        return new AvLayout(addrFormat, avType, addrLen, slotLength, capacity, attachersCapacity, authKeySize,
            authKeysCapacity, attachersOffset, authKeysOffset, slotsOffset, mapOffset, hashOffset, buckets, fileLength);
    }

    /** Writes every layout field of the header (not the version: that is written last, by the creator). */
    public void writeHeader(final Memory m, final long mapAddrBase, final long avFlags, final int rxCtxBits)
    {
        m.putLong(MAGIC_OFFSET, MAGIC);
        m.putInt(HEADER_LENGTH_OFFSET, HEADER_LENGTH);
        m.putInt(ADDR_FORMAT_OFFSET, addrFormat.value());
        m.putInt(ADDR_LEN_OFFSET, addrLen);
        m.putInt(AV_TYPE_OFFSET, avType.value());
        m.putInt(SLOT_LENGTH_OFFSET, slotLength);
        m.putLong(CAPACITY_OFFSET, capacity);
        m.putLong(MAP_ADDR_BASE_OFFSET, mapAddrBase);
        m.putLong(CREATOR_PID_OFFSET, Processes.SELF_PID);
        m.putLong(CREATOR_START_OFFSET, Processes.SELF_START_MILLIS);
        m.putLong(FILE_LENGTH_OFFSET, fileLength);
        m.putLong(AV_FLAGS_OFFSET, avFlags);
        m.putInt(RX_CTX_BITS_OFFSET, rxCtxBits);
        m.putInt(AUTH_KEY_SIZE_OFFSET, authKeySize);
        m.putInt(ATTACHERS_CAPACITY_OFFSET, attachersCapacity);
        m.putInt(AUTH_KEYS_CAPACITY_OFFSET, authKeysCapacity);
        m.putLong(ATTACHERS_OFFSET_OFFSET, attachersOffset);
        m.putLong(AUTH_KEYS_OFFSET_OFFSET, authKeysOffset);
        m.putLong(HASH_OFFSET_OFFSET, hashOffset);
        m.putLong(HASH_BUCKETS_OFFSET, hashBuckets);
        m.putInt(SEGMENT_COUNT_OFFSET, 1);
        m.putLong(CREATED_MILLIS_OFFSET, System.currentTimeMillis());
        final int seg = segmentOffset(0);
        m.putLong(seg + SEGMENT_FIRST_INDEX, 0);
        m.putLong(seg + SEGMENT_SLOT_COUNT, capacity);
        m.putLong(seg + SEGMENT_SLOTS_OFFSET, slotsOffset);
        m.putLong(seg + SEGMENT_MAP_OFFSET, mapOffset);
        m.putInt(seg + SEGMENT_FILE_NUMBER, 0);
    }

    /**
     * Reads and checks the layout of a ready region of {@code realLength} bytes. Every size and offset
     * is checked against the real length, so that a corrupted, truncated or foreign file is refused
     * here and never read out of bounds later.
     *
     * @throws LayoutException with the errno to report and what is wrong
     */
    public static AvLayout read(final Memory m, final long realLength)
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
                    ? " (written by an older shmav, whose liveness test is unsafe next to this one: stop its " +
                        "processes, remove the AV with 'shmav rm' and create it again)"
                    : " (written by a newer shmav: use that version in every process of the job)"));
        }
        check(m.getInt(HEADER_LENGTH_OFFSET) == HEADER_LENGTH, "headerLength", m.getInt(HEADER_LENGTH_OFFSET));
        final AddrFormat format = AddrFormat.ofValue(m.getInt(ADDR_FORMAT_OFFSET));
        check(format != null && format.supported(), "addrFormat", m.getInt(ADDR_FORMAT_OFFSET));
        final AvType type = AvType.ofValue(m.getInt(AV_TYPE_OFFSET));
        check(type == AvType.MAP || type == AvType.TABLE, "avType", m.getInt(AV_TYPE_OFFSET));
        final long capacity = m.getLong(CAPACITY_OFFSET);
        check(capacity > 0 && capacity <= MAX_CAPACITY, "capacity", capacity);
        final int attachersCapacity = m.getInt(ATTACHERS_CAPACITY_OFFSET);
        check(attachersCapacity > 0 && attachersCapacity <= 1 << 16, "attachersCapacity", attachersCapacity);
        final int authKeySize = m.getInt(AUTH_KEY_SIZE_OFFSET);
        check(authKeySize >= 0 && authKeySize <= 4096, "authKeySize", authKeySize);
        final int authKeysCapacity = m.getInt(AUTH_KEYS_CAPACITY_OFFSET);
        check(authKeysCapacity >= 0 && authKeysCapacity <= 1 << 16, "authKeysCapacity", authKeysCapacity);
        check(m.getInt(SEGMENT_COUNT_OFFSET) == 1, "segmentCount", m.getInt(SEGMENT_COUNT_OFFSET));

        // Recompute the whole layout from the few free parameters and require the file to agree
        // field by field: every offset is then known to be in bounds.
        final long buckets = m.getLong(HASH_BUCKETS_OFFSET);
        check(buckets == hashBucketsFor(capacity), "hashBuckets", buckets);
        final AvLayout expected = compute(format, type, capacity, attachersCapacity, authKeySize, authKeysCapacity, buckets);
        check(m.getInt(ADDR_LEN_OFFSET) == expected.addrLen, "addrLen", m.getInt(ADDR_LEN_OFFSET));
        check(m.getInt(SLOT_LENGTH_OFFSET) == expected.slotLength, "slotLength", m.getInt(SLOT_LENGTH_OFFSET));
        check(m.getLong(ATTACHERS_OFFSET_OFFSET) == expected.attachersOffset, "attachersOffset", m.getLong(ATTACHERS_OFFSET_OFFSET));
        check(m.getLong(AUTH_KEYS_OFFSET_OFFSET) == expected.authKeysOffset, "authKeysOffset", m.getLong(AUTH_KEYS_OFFSET_OFFSET));
        check(m.getLong(HASH_OFFSET_OFFSET) == expected.hashOffset, "hashOffset", m.getLong(HASH_OFFSET_OFFSET));
        final int seg = segmentOffset(0);
        check(m.getLong(seg + SEGMENT_FIRST_INDEX) == 0, "segment[0].firstIndex", m.getLong(seg + SEGMENT_FIRST_INDEX));
        check(m.getLong(seg + SEGMENT_SLOT_COUNT) == capacity, "segment[0].slotCount", m.getLong(seg + SEGMENT_SLOT_COUNT));
        check(m.getLong(seg + SEGMENT_SLOTS_OFFSET) == expected.slotsOffset, "segment[0].slotsOffset", m.getLong(seg + SEGMENT_SLOTS_OFFSET));
        check(m.getLong(seg + SEGMENT_MAP_OFFSET) == expected.mapOffset, "segment[0].mapOffset", m.getLong(seg + SEGMENT_MAP_OFFSET));
        check(m.getInt(seg + SEGMENT_FILE_NUMBER) == 0, "segment[0].fileNumber", m.getInt(seg + SEGMENT_FILE_NUMBER));
        final long fileLength = m.getLong(FILE_LENGTH_OFFSET);
        check(fileLength == expected.fileLength, "fileLength", fileLength);
        if (realLength != fileLength)
        {
            throw new LayoutException(FiErrno.EINVAL, "file is " + realLength + " bytes but its header says " +
                fileLength + ": truncated or extended; remove it with 'shmav rm' and create it again");
        }
        check(m.getLong(MAP_ADDR_BASE_OFFSET) != 0, "mapAddrBase", 0);
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

    /** Offset of slot {@code index}. */
    public int slot(final long index)
    {
        return (int)(slotsOffset + index * slotLength);
    }

    /** Offset of map_addr entry {@code index}. */
    public int map(final long index)
    {
        return (int)(mapOffset + index * Long.BYTES);
    }

    /** Offset of hash bucket {@code bucket}. */
    public int bucket(final long bucket)
    {
        return (int)(hashOffset + bucket * Long.BYTES);
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
