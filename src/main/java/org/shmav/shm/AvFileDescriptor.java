package org.shmav.shm;

/**
 * The binary layout of an AV region: the file of a named AV, and the in-memory region of a private
 * one. shm-layout.md carries the same diagrams and a field table that a unit test checks against these
 * constants. All fields are little-endian; every section starts on a 4096-byte boundary.
 *
 * <pre>
 *   +------------------------------+ 0
 *   | header (4096 bytes)          |  fields below, segment table at 512
 *   +------------------------------+ attachersOffset
 *   | attachers[attachersCapacity] |  64 bytes each, see {@link AttacherDescriptor}
 *   +------------------------------+ authKeysOffset
 *   | authKeys[authKeysCapacity]   |  authKeyEntryLength bytes each (none without auth keys)
 *   +------------------------------+ segment 0: slotsOffset
 *   | slots[capacity]              |  slotLength bytes each, see {@link SlotDescriptor}
 *   +------------------------------+ mapOffset
 *   | map_addr[capacity]           |  u64 fi_addr of slot i, or FI_ADDR_NOTAVAIL (all ones)
 *   +------------------------------+ hashOffset
 *   | hash[hashBuckets]            |  u64 buckets: address -> slot (dedup, reverse lookup)
 *   +------------------------------+ fileLength: the file of a new AV ends here
 *   | segment 1: slots, map_addr,  |  appended by a growth ({@link AvLayout}, shm-layout.md GROWTH):
 *   |   hash of the grown AV       |  segment k holds slots [first(k), end(k)), the last one ending at
 *   +------------------------------+  maxCapacity; its hash replaces the previous one, sized for end(k)
 *   | segment 2 ...                |
 *   +------------------------------+ the published length: AvLayout#fileLength of segmentCount segments
 *
 *   Header, one row per 8 bytes:
 *    0 |                         magic "shmav-av"                           |
 *    8 |        version (ready flag)        |          headerLength         |
 *   16 |            addrFormat              |            addrLen            |
 *   24 |              avType                |           slotLength          |
 *   32 |                            capacity                                |
 *   40 |                          mapAddrBase                               |
 *   48 |                          creatorPid                                |
 *   56 |                      creatorStartMillis                            |
 *   64 |                          fileLength                                |
 *   72 |                            avFlags                                 |
 *   80 |            rxCtxBits               |          authKeySize          |
 *   88 |        attachersCapacity           |        authKeysCapacity       |
 *   96 |                        attachersOffset                             |
 *  104 |                         authKeysOffset                             |
 *  112 |                          hashOffset                                |
 *  120 |                          hashBuckets                               |
 *  128 |           segmentCount             |  addrLenVarying (layout 8)    |
 *  136 |                        createdMillis                               |
 *  144 |                         maxCapacity                                |
 *  152 |                   lockFileInode (layout 4)                         |
 *  160 |                   lockFileDevice (layout 4)                        |
 *  192 | growthClaim (layout 6): progress | ticket | owner | segment (low 6)  |
 *  200 |      unused since layout 7 (6's fileTop; the creator writes it)    |
 *  256 |             freeHint: epoch (high 32) | index (low 32)             |
 *  320 |                   attachersHighWater                               |
 *  384 |   indexState (layout 5): active/target hash area, stamp, migrator  |
 *  448 |                       hashUsedBase                                 |
 *  512 | segment table: {@value #MAX_SEGMENTS} entries of {@value #SEGMENT_ENTRY_LENGTH} bytes |
 * 1024 | free-group marks: {@value #FREE_GROUPS} bits, u64[256]                       |
 * 3072 | lock byte of FI_READ readers (never read or written, only locked)               |
 * 3080 | lock byte of the creator of a file not yet published (never read or written)    |
 * 3088 | lock byte of auth-key inserts: locked in the lock file, never in this file       |
 * 3096 | unused since layout 6 (was the growth lock's byte)                               |
 *
 *   Writers' locks (attacher liveness, auth-key inserts) are taken at these offsets in the
 *   AV's lock file ({@link AvLockFile}), which only the AV's writers may open; only the readers' and
 *   the creator's bytes are locked in the AV file itself.
 * </pre>
 *
 * The creator fills every field and section, then writes {@code version} last with a release store:
 * a region whose version is 0 is not ready. Openers check magic, version and every size and offset
 * against the real file length before touching anything else ({@link AvLayout#read}).
 */
public final class AvFileDescriptor
{
    /** "shmav-av" in ASCII, read as a little-endian u64. */
    public static final long MAGIC = 0x76612d76616d6873L;
    /** Layout major version: a file of another major version is refused. */
    public static final int VERSION_MAJOR = 8;
    /** Layout minor version: additions that older readers may ignore. */
    public static final int VERSION_MINOR = 0;
    /** The version word: major in the high 16 bits, minor in the low 16. Never 0. */
    public static final int VERSION = (VERSION_MAJOR << 16) | VERSION_MINOR;

    /** Length of the header section. */
    public static final int HEADER_LENGTH = 4096;
    /** Every section starts on a multiple of this. */
    public static final int SECTION_ALIGNMENT = 4096;

    /** u64: {@link #MAGIC}. */
    public static final int MAGIC_OFFSET = 0;
    /** u32: {@link #VERSION}, written last; 0 while the region is being built. */
    public static final int VERSION_OFFSET = 8;
    /** u32: {@link #HEADER_LENGTH}. */
    public static final int HEADER_LENGTH_OFFSET = 12;
    /**
     * u32: libfabric address format: 2 FI_SOCKADDR_IN, 3 FI_SOCKADDR_IN6, 9 FI_ADDR_STR and, since layout 8,
     * 0 FI_FORMAT_UNSPEC (opaque), 4 FI_SOCKADDR_IB, 5 FI_ADDR_PSMX, 10 PSMX2, 11 IB_UD, 12 EFA, 13 PSMX3, 14 OPX, 15 CXI.
     */
    public static final int ADDR_FORMAT_OFFSET = 16;
    /** u32: bytes of one address (the maximum for FI_ADDR_STR and for varying FI_FORMAT_UNSPEC). */
    public static final int ADDR_LEN_OFFSET = 20;
    /** u32: libfabric AV type (1 FI_AV_MAP, 2 FI_AV_TABLE). */
    public static final int AV_TYPE_OFFSET = 24;
    /** u32: bytes per slot. */
    public static final int SLOT_LENGTH_OFFSET = 28;
    /** u64: slots of segment 0 (the count at creation); the AV's capacity is that of its published segments. */
    public static final int CAPACITY_OFFSET = 32;
    /** u64: base of FI_AV_MAP fi_addr values (fi_addr = base + index), from 1 to {@link #MAX_MAP_ADDR_BASE}. */
    public static final int MAP_ADDR_BASE_OFFSET = 40;
    /** u64: pid of the creating process. */
    public static final int CREATOR_PID_OFFSET = 48;
    /** u64: start time of the creating process, milliseconds since the epoch. */
    public static final int CREATOR_START_OFFSET = 56;
    /** u64: length of the file with segment 0 alone (the file of a new AV); growth appends segments past it. */
    public static final int FILE_LENGTH_OFFSET = 64;
    /** u64: the creator's AV flags that shape the AV (FI_AV_USER_ID, FI_SYMMETRIC). */
    public static final int AV_FLAGS_OFFSET = 72;
    /** u32: rx_ctx_bits given at creation. */
    public static final int RX_CTX_BITS_OFFSET = 80;
    /** u32: bytes per authorization key; 0 when the AV holds none. */
    public static final int AUTH_KEY_SIZE_OFFSET = 84;
    /** u32: entries in the attachers section. */
    public static final int ATTACHERS_CAPACITY_OFFSET = 88;
    /** u32: entries in the auth-key section. */
    public static final int AUTH_KEYS_CAPACITY_OFFSET = 92;
    /** u64: file offset of the attachers section. */
    public static final int ATTACHERS_OFFSET_OFFSET = 96;
    /** u64: file offset of the auth-key section. */
    public static final int AUTH_KEYS_OFFSET_OFFSET = 104;
    /** u64: file offset of segment 0's hash section (the current hash is the last segment's). */
    public static final int HASH_OFFSET_OFFSET = 112;
    /** u64: hash buckets of segment 0, a power of two (the current hash's: {@link AvLayout#hashBucketsFor} of the capacity). */
    public static final int HASH_BUCKETS_OFFSET = 120;
    /**
     * u32: segments published, 1 to {@link #MAX_SEGMENTS}. Raised from n to n + 1 only by CAS, by any
     * writer that finds segment n's table entry set (layout 6), after the segment was reserved and
     * prepared; read with acquire. A process whose view has fewer segments maps the file again before
     * it writes (shm-layout.md, GROWTH).
     */
    public static final int SEGMENT_COUNT_OFFSET = 128;
    /**
     * u32, layout 8: 1 when FI_FORMAT_UNSPEC addresses have lengths of their own up to {@code addrLen} (each
     * slot's {@code addrLen} is its address's), 0 otherwise. Was reserved (0) before layout 8.
     */
    public static final int ADDR_LEN_VARYING_OFFSET = 132;
    /** u64: creation time, milliseconds since the epoch. */
    public static final int CREATED_MILLIS_OFFSET = 136;
    /**
     * u64: the most slots the AV may grow to, set at creation; the last segment ends at it exactly
     * (layout 4.0). Also sizes the free groups ({@link #freeGroupShift}), which never change.
     */
    public static final int MAX_CAPACITY_OFFSET = 144;
    /**
     * u64, layout 4: inode of the AV's lock file ({@link AvLockFile}), written by the creator before it
     * publishes the AV; a writer locks only the lock file whose inode and device these name.
     */
    public static final int LOCK_FILE_INODE_OFFSET = 152;
    /** u64, layout 4: device of the AV's lock file (as {@code stat} gives it). */
    public static final int LOCK_FILE_DEVICE_OFFSET = 160;
    /**
     * u64, layout 6: the growth claim ({@link GrowthClaim}): the segment being grown (bits 0-5, 0 for
     * none), its owner's attacher entry (6-21), the claim's ticket (22-39) and the owner's progress
     * (40-63). Changed only by CAS; a claim for a segment already published is over.
     */
    public static final int GROWTH_CLAIM_OFFSET = 192;
    /**
     * u64, unused since layout 7 (layout 6's fileTop, the end of the ranges growers took): the creator
     * still writes {@code fileLength} there; nobody reads or changes it, since every grower of segment n
     * now works on the one range that starts where segment n - 1 ends (shm-layout.md, GROWTH).
     */
    public static final int FILE_TOP_OFFSET = 200;
    /** u64: lower bound of the lowest FREE slot (low 32 bits) and an epoch bumped by every freeing (high 32). */
    public static final int FREE_HINT_OFFSET = 256;
    /** u64: number of attacher entries ever taken; readers sum journals below it. */
    public static final int ATTACHERS_HIGH_WATER_OFFSET = 320;
    /**
     * u64, layout 5: which hash area holds the index, under which stamp, and the migration running, if
     * any ({@link IndexWord}). Changed only by CAS, after the creator's {@link IndexWord#INITIAL_STATE}.
     */
    public static final int INDEX_STATE_OFFSET = 384;
    /**
     * i64: {@code hashUsedBase} plus the attachers' {@code published} counters is about the buckets not
     * EMPTY: the writer whose CAS ends a migration sets it to the entries it copied less the counters'
     * sum then; a migration to the other area starts when the sum passes 3/4 of the buckets.
     */
    public static final int HASH_USED_BASE_OFFSET = 448;
    /** Start of the segment table. */
    public static final int SEGMENTS_OFFSET = 512;
    /**
     * u64[256], layout 1.1: free-group marks. Bit g (word g / 64, bit g % 64) is set while group g, the
     * slots [g << freeGroupShift, (g + 1) << freeGroupShift), may hold a FREE slot: set by whoever frees
     * a slot of the group, cleared by a claimer that then finds none (org.shmav.slots.FreeSlots).
     */
    public static final int FREE_GROUPS_OFFSET = 1024;
    /** Free-group marks in the header. */
    public static final int FREE_GROUPS = 16384;
    /**
     * The byte every FI_READ reader holds a shared record lock on while it has the AV open, so that
     * tools see readers ({@code shmav rm} and {@code gc} leave an AV alone while one is held).
     */
    public static final int READERS_LOCK_OFFSET = 3072;
    /**
     * The byte the creator of a new AV file holds an exclusive record lock on while it builds the file
     * under its temporary name: a temporary file whose byte is free belongs to a creator that died.
     */
    public static final int CREATOR_LOCK_OFFSET = 3080;
    /**
     * The byte an inserter of an auth key holds an exclusive record lock on while it looks the key up
     * and adds it, so that one insert of a new key wins across processes. In the lock file.
     */
    public static final int AUTH_KEY_LOCK_OFFSET = 3088;
    /** Entries in the segment table: enough to double from 1 slot to {@link #MAX_CAPACITY}. */
    public static final int MAX_SEGMENTS = 32;
    /** Bytes per segment-table entry. */
    public static final int SEGMENT_ENTRY_LENGTH = 16;

    /** Segment entry u64: file offset of the segment's slots (its map_addr array and hash follow). */
    public static final int SEGMENT_SLOTS_OFFSET = 0;
    /** Segment entry u64: file offset of the segment's hash, the AV's hash while it is the last segment. */
    public static final int SEGMENT_HASH_OFFSET = 8;

    /** Largest capacity: slot numbers must fit the attacher journal's 30-bit field. */
    public static final long MAX_CAPACITY = 1L << 28;
    /**
     * Largest {@code mapAddrBase}: base + index, for every index below {@link #MAX_CAPACITY}, then stays below
     * bit 62, clear of the auth-key handles (2^62 + k), of FI_ADDR_NOTAVAIL and of the 0 and all ones that
     * map_addr entries must never hold. Openers refuse a file with a larger one.
     */
    public static final long MAX_MAP_ADDR_BASE = (1L << 62) - MAX_CAPACITY;
    /** Largest published length: Java maps the file as one buffer, with 32-bit offsets. */
    public static final long MAX_FILE_LENGTH = Integer.MAX_VALUE;

    private AvFileDescriptor()
    {
    }

    /**
     * log2 of the slots per free group of an AV that may grow to {@code capacity} slots (its
     * {@code maxCapacity}): the smallest shift of at least 6 (64 slots) that needs at most
     * {@link #FREE_GROUPS} groups, so 6 up to 1,048,576 slots.
     */
    public static int freeGroupShift(final long capacity)
    {
        int shift = 6;
        while (((capacity - 1) >>> shift) >= FREE_GROUPS)
        {
            shift++;
        }
        return shift;
    }

    /** Offset of the mark word holding free group {@code group}'s bit, {@code 1L << group} (Java shifts mod 64). */
    public static int freeGroupWordOffset(final long group)
    {
        return FREE_GROUPS_OFFSET + (int)(group >>> 6) * Long.BYTES;
    }

    /** Offset of segment-table entry {@code segment}. */
    public static int segmentOffset(final int segment)
    {
        return SEGMENTS_OFFSET + segment * SEGMENT_ENTRY_LENGTH;
    }
}
