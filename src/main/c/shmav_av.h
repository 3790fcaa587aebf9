/*
 * shmav_av.h: a header-only C11 reader of shmav named address vectors (layout 8.x: every format of shm-layout.md, Address formats).
 *
 * A named AV is one file (by default in /dev/shm) whose binary layout is documented in the
 * project's shm-layout.md and owned by org.shmav.shm.AvFileDescriptor, SlotDescriptor,
 * AttacherDescriptor and AvLayout. This header reads such a file the way a Java FI_READ opener
 * does: it maps it read-only, takes no attacher entry, never writes, and refuses the file unless
 * every check that org.shmav.shm.AvLayout.read (and SharedAvFile.attach, SegmentFile.current) makes
 * passes, so that no offset taken from the file can point outside the mapping.
 *
 * Growth (layout 3, last segment cut at maxCapacity since layout 4): a named AV grows past its
 * creation count by adding segments, and publishes each with a CAS of the header's segmentCount.
 * Segment k starts where its segment-table entry says: a layout 7 writer puts it at the end of
 * segment k - 1, and a reader accepts any start at or past that end (layout 6 left gaps where a
 * grower was taken over). A reader maps exactly the segments published when it looked (its view;
 * the file may be longer: the next segment's zeros, appended by a growth under way, which nobody
 * reads). Whenever it meets an index past its view, ends an iteration, or its
 * reverse lookup meets an index area or a slot past its view, it reads segmentCount again (acquire)
 * and, if the AV grew, checks the header again for the new count and maps the file again
 * (shmav_av_follow). Segments never move, so every slot keeps its offset.
 *
 * The dedup index (layout 5): each segment holds two hash areas; the header's indexState names the
 * one in use and, while writers migrate the index (a rebuild, or a move into a grown AV's new
 * segment), its target. Writers never wait for each other or for a reader: a reverse lookup trusts a
 * miss only if indexState did not change while it probed, and scans the slots after 3 failed tries.
 *
 * Layout 2 and later tell writers' liveness by record locks on their attacher entries; a reader
 * needs none of that. Like a Java FI_READ opener it holds a shared record lock on the readers' byte
 * (header byte 3072) until shmav_av_close, so that 'shmav rm' and 'shmav gc' see it: an open file
 * description lock (F_OFD_SETLK, define _GNU_SOURCE) where the C library has one, else a POSIX lock
 * (F_SETLK), which closing any other descriptor of the file would drop.
 *
 * Lock kinds, for a C writer (shm-layout.md, LIFECYCLE, Lock file): every writers' lock (attacher
 * liveness at attachersOffset + 64 * a, the auth-key byte 3088, the creator's byte 3080 while creating,
 * the name lock of a remover) is taken in the lock file SHMAV_LOCK_FILE_PREFIX<name> beside the AV,
 * never in the AV file. Java writers take open file description locks there (F_OFD_SETLK, through
 * JNA), or POSIX locks (F_SETLK) where native access is unavailable; Linux makes the two kinds conflict
 * with each other as with locks of another process, so a C writer using either interoperates with
 * both. Take F_OFD_SETLK (l_pid = 0, never F_OFD_SETLKW) on a descriptor of your own from
 * open(lock, O_RDWR | O_NOFOLLOW | O_CLOEXEC), checked with fstat against the header's
 * lockFileInode/lockFileDevice (SHMAV_H_LOCK_FILE_INODE, SHMAV_H_LOCK_FILE_DEVICE); test liveness with
 * F_OFD_GETLK and F_RDLCK; never dup it or let a child inherit it (a child would keep a dead writer's
 * locks alive), and never mix the kinds on one byte within a process. shmav_ofd_trylock below is
 * such a lock. Remove an AV only as shm-layout.md, WRITER'S CHECKLIST, Remove says: by identity,
 * under the exclusive lock of byte 3080 of its lock file.
 *
 *     shmav_av av;
 *     char err[256];
 *     if (shmav_av_open(&av, "/dev/shm/job7", err, sizeof err) != 0) { fprintf(stderr, "%s\n", err); ... }
 *     unsigned char addr[SHMAV_MAX_ADDR_LEN];
 *     size_t len = sizeof addr;
 *     if (shmav_av_lookup(&av, fi_addr, addr, &len) == 0) { ... }      like fi_av_lookup
 *     uint64_t found;
 *     if (shmav_av_reverse_lookup(&av, addr, len, &found) == 0 && found != SHMAV_FI_ADDR_NOTAVAIL) { ... }
 *     uint32_t n = shmav_av_count(&av);                                 entries now (committed or VALID)
 *     shmav_av_close(&av);
 *
 * Lookups are lock-free seqlock reads (shm-layout.md, CONCURRENCY, Lookup): acquire load of the
 * slot's state word (an entry: committed or VALID with references), copy, acquire fence, load the
 * state word again, retry unless it is still an entry of the same generation. Writers in other processes (Java) may insert, remove and grow concurrently.
 *
 * Thread-safety: one shmav_av is used by one thread at a time (give each thread its own, or a lock):
 * following a growth replaces the mapping, and the old one is unmapped at once, which is safe because
 * no call hands out a pointer into the mapping (addresses are copied out).
 *
 * Requirements: a little-endian host with lock-free 64-bit atomics (x86-64, aarch64 Linux), C11.
 * Every function is static inline; the header has no global state. Never truncate a mapped AV
 * file: touching a page past the new end raises SIGBUS (the Java side has the same rule).
 */
#ifndef SHMAV_AV_H
#define SHMAV_AV_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if !defined(O_NOFOLLOW) || !defined(O_CLOEXEC)
#error "compile with POSIX.1-2008: define _POSIX_C_SOURCE 200809L (or _GNU_SOURCE) before including any header"
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "shmav AV files are little-endian; this reader reads them in native order"
#endif
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "64-bit atomics must be lock-free to be shared between processes");

/* ---- constants: the values of org.shmav.shm.* (shm-layout.md, LAYOUT) -------------------- */

#define SHMAV_MAGIC               0x76612d76616d6873ULL /* "shmav-av" read as a little-endian u64 */
#define SHMAV_VERSION_MAJOR       8u
#define SHMAV_VERSION_MINOR       0u
#define SHMAV_HEADER_LENGTH       4096u
/* Header byte every reader holds a shared record lock on while it has the AV open (shm-layout.md). */
#define SHMAV_READERS_LOCK_OFFSET 3072
/* Bytes of the lock file (never of the AV file): creators hold 3080 shared until their AV is published,
   removers exclusive while they remove by identity (the name lock); auth-key inserters 3088 exclusive. */
#define SHMAV_CREATOR_LOCK_OFFSET  3080
#define SHMAV_AUTH_KEY_LOCK_OFFSET 3088
/* The lock file of AV <name> is <directory>/SHMAV_LOCK_FILE_PREFIX<name>. */
#define SHMAV_LOCK_FILE_PREFIX    ".shmav-lock."
#define SHMAV_SECTION_ALIGNMENT   4096u
#define SHMAV_MAX_CAPACITY        (1ULL << 28)
#define SHMAV_MAX_MAP_ADDR_BASE   ((1ULL << 62) - SHMAV_MAX_CAPACITY) /* base + index stays below bit 62 */
#define SHMAV_MAX_SEGMENTS        32u
#define SHMAV_MAX_ATTACHERS       (1u << 16)
#define SHMAV_MAX_AUTH_KEY_SIZE   4096u
#define SHMAV_MAX_AUTH_KEYS       (1u << 16)
#define SHMAV_MAX_FILE_LENGTH     ((uint64_t)INT32_MAX) /* SharedAvFile.map: Java maps at most 2^31-1 bytes */
#define SHMAV_READY_WAIT_MS       2000 /* SharedAvFile.READY_WAIT_NANOS: wait for version != 0 */

/* header field offsets (AvFileDescriptor) */
#define SHMAV_H_MAGIC               0
#define SHMAV_H_VERSION             8
#define SHMAV_H_HEADER_LENGTH      12
#define SHMAV_H_ADDR_FORMAT        16
#define SHMAV_H_ADDR_LEN           20
#define SHMAV_H_AV_TYPE            24
#define SHMAV_H_SLOT_LENGTH        28
#define SHMAV_H_CAPACITY           32 /* slots of segment 0: the count at creation */
#define SHMAV_H_MAP_ADDR_BASE      40
#define SHMAV_H_CREATOR_PID        48
#define SHMAV_H_CREATOR_START      56
#define SHMAV_H_FILE_LENGTH        64 /* length of the file with segment 0 alone */
#define SHMAV_H_AV_FLAGS           72
#define SHMAV_H_RX_CTX_BITS        80
#define SHMAV_H_AUTH_KEY_SIZE      84
#define SHMAV_H_ATTACHERS_CAPACITY 88
#define SHMAV_H_AUTH_KEYS_CAPACITY 92
#define SHMAV_H_ATTACHERS_OFFSET   96
#define SHMAV_H_AUTH_KEYS_OFFSET  104
#define SHMAV_H_HASH_OFFSET       112 /* segment 0's hash */
#define SHMAV_H_HASH_BUCKETS      120 /* segment 0's buckets */
#define SHMAV_H_SEGMENT_COUNT     128 /* u32, segments published: raised by a grower's 32-bit CAS, acquire here */
#define SHMAV_H_ADDR_LEN_VARYING  132 /* u32, layout 8: 1 when FI_FORMAT_UNSPEC addresses have lengths of their own */
#define SHMAV_H_CREATED_MILLIS    136
#define SHMAV_H_MAX_CAPACITY      144
#define SHMAV_H_LOCK_FILE_INODE   152 /* st_ino of the AV's lock file: a writer locks only that file */
#define SHMAV_H_LOCK_FILE_DEVICE  160 /* its st_dev */
#define SHMAV_H_GROWTH_CLAIM      192 /* u64 growthClaim: who is growing the AV (GROWTH); only growers write it */
#define SHMAV_H_ATTACHERS_HIGH_WATER 320
#define SHMAV_H_INDEX_STATE       384 /* u64 indexState (layout 5): which hash area is the index, under which
                                        stamp, and the migration running, if any; written only by CAS */
#define SHMAV_H_SEGMENTS          512
#define SHMAV_SEGMENT_ENTRY_LENGTH 16
/* segment-table entry fields */
#define SHMAV_SEG_SLOTS_OFFSET      0
#define SHMAV_SEG_HASH_OFFSET       8

/* attacher entries (AttacherDescriptor) */
#define SHMAV_ATTACHER_LENGTH      64
#define SHMAV_ATTACHER_JOURNAL      8
#define SHMAV_ATTACHER_PUBLISHED   48 /* u64: new entries published by the entry's owners (change counter) */
#define SHMAV_ATTACHER_REMOVED     56 /* u64: last references removed by them (change counter) */

/* slots (SlotDescriptor) */
#define SHMAV_SLOT_STATE            0
#define SHMAV_SLOT_USER_ID          8
#define SHMAV_SLOT_AUTH_KEY        16
#define SHMAV_SLOT_ADDR_LEN        24
#define SHMAV_SLOT_ADDR            32
#define SHMAV_SLOT_FREE             0
#define SHMAV_SLOT_CLAIMED          1
#define SHMAV_SLOT_VALID            2
#define SHMAV_SLOT_REMOVING         3
/* layout 7: a claim its owner committed (filled, indexed, counted): any writer publishes it; and a
 * claim another inserter of the same address cancelled before the commit: never published. Since
 * layout 8 a committed (PUBLISHING) slot is an entry to every reader, as a VALID one with references
 * is, and the count counts it (shm-layout.md, Count): a CANCELLED one is not. */
#define SHMAV_SLOT_PUBLISHING       4
#define SHMAV_SLOT_CANCELLED        5
#define SHMAV_SLOT_PAYLOAD_MASK     (0xffffffffULL << 4) /* references; the rest is state and generation */
#define SHMAV_SLOT_GENERATION_SHIFT 36
/* journal fields (AttacherDescriptor): delta (i32, bits 32..63), slot + 1 (bits 2..31), op (bits 0..1) */
#define SHMAV_JOURNAL_OP_PUBLISH    1u
#define SHMAV_JOURNAL_OP_REMOVE     2u

/* dedup index (DedupIndex, IndexWord; layout 5). Segment k's hash section holds SHMAV_HASH_AREAS
 * areas of hashBuckets(k) u64 buckets each, area 1 right after area 0. */
#define SHMAV_HASH_AREAS            2u
/* indexState: stamp a of the active area (bits 27..0; the target's is a + 1) | active segment (32..28)
 * | active area (33) | migrating (34) | target segment (39..35) | target area (40)
 * | migrator's attacher index + 1 (57..41, 0: none) */
#define SHMAV_STATE_SEGMENT_SHIFT   28
#define SHMAV_STATE_AREA_SHIFT      33
#define SHMAV_STATE_MIGRATING_SHIFT 34
#define SHMAV_STATE_TARGET_SHIFT    35
#define SHMAV_STATE_TARGET_AREA_SHIFT 40
#define SHMAV_STATE_MIGRATOR_SHIFT  41
#define SHMAV_STATE_MIGRATOR_MASK   0x1ffffULL
/* bucket: stamp (63..36) | tag = hash >> 54 (35..26) | slot + 1 (25..0) */
#define SHMAV_STAMP_MASK            ((1ULL << 28) - 1) /* stamps count modulo 2^28 */
#define SHMAV_BUCKET_STAMP_SHIFT    36
#define SHMAV_BUCKET_TAG_SHIFT      26
#define SHMAV_BUCKET_TAG_MASK       0x3ffULL
#define SHMAV_BUCKET_SLOT_MASK      0x3ffffffULL
#define SHMAV_BUCKET_EMPTY          0ULL               /* never written in this area: EMPTY to every stamp */
#define SHMAV_BUCKET_TOMBSTONE_SLOT SHMAV_BUCKET_SLOT_MASK /* the slot field of a TOMBSTONE */

/* libfabric values (enum fi_addr_format; layout 8 stores every fixed-length one, and opaque bytes) */
#define SHMAV_FI_FORMAT_UNSPEC      0
#define SHMAV_FI_SOCKADDR_IN        2
#define SHMAV_FI_SOCKADDR_IN6       3
#define SHMAV_FI_SOCKADDR_IB        4
#define SHMAV_FI_ADDR_PSMX          5
#define SHMAV_FI_ADDR_STR           9
#define SHMAV_FI_ADDR_PSMX2        10
#define SHMAV_FI_ADDR_IB_UD        11
#define SHMAV_FI_ADDR_EFA          12
#define SHMAV_FI_ADDR_PSMX3        13
#define SHMAV_FI_ADDR_OPX          14
#define SHMAV_FI_ADDR_CXI          15
#define SHMAV_FI_AV_MAP             1
#define SHMAV_FI_AV_TABLE           2
#define SHMAV_FI_ADDR_NOTAVAIL      UINT64_MAX
#define SHMAV_FI_ADDR_STR_MAX     128 /* FI_ADDR_STR maximum, NUL included */
#define SHMAV_MAX_OPAQUE_LEN     4096 /* AddrFormat.MAX_OPAQUE_LEN: the longest FI_FORMAT_UNSPEC address */
#define SHMAV_MAX_ADDR_LEN       4096 /* the largest addrLen of any format (opaque); a lookup buffer this long always fits */
#define SHMAV_AF_INET               2 /* Linux */
#define SHMAV_AF_INET6             10 /* Linux */

/* ---- the reader ------------------------------------------------------------------------------ */

/**
 * An open, validated AV file, as one view: the segments published when it last looked. Every field
 * was checked by shmav_av_open (or the last shmav_av_follow) against the header and the file size.
 */
typedef struct shmav_av
{
    const unsigned char *base; /* the read-only mapping of the published segments */
    int fd;                    /* the open file, mapped again when the AV grows; -1 when closed */
    int locked;                /* 1 while fd holds the readers' lock */
    size_t length;             /* bytes mapped: file_length */
    uint32_t version;          /* major << 16 | minor */
    uint32_t addr_format;      /* SHMAV_FI_SOCKADDR_IN, ... (shm-layout.md, Address formats) */
    uint32_t addr_len;         /* bytes of one address, or the largest: the format's, 128 for strings, 1..4096 opaque */
    uint32_t addr_len_varying; /* 1: FI_FORMAT_UNSPEC addresses of lengths of their own, up to addr_len */
    uint32_t av_type;          /* SHMAV_FI_AV_MAP or SHMAV_FI_AV_TABLE */
    uint32_t slot_length;
    uint32_t attachers_capacity;
    uint32_t auth_key_size;
    uint32_t auth_keys_capacity;
    uint32_t segments;         /* segments of this view, 1 .. SHMAV_MAX_SEGMENTS */
    uint32_t log2g;            /* log2 of G, the smallest power of two >= first_capacity */
    uint64_t first_capacity;   /* slots of segment 0 (the header's capacity, the count at creation) */
    uint64_t max_capacity;     /* the most slots growth may bring the AV to */
    uint64_t capacity;         /* slots of every segment of this view */
    uint64_t map_addr_base;
    uint64_t attachers_offset;
    uint64_t auth_keys_offset;
    uint64_t slots_offset;     /* segment 0's slots */
    uint64_t map_offset;       /* segment 0's map_addr array */
    uint64_t base_length;      /* the header's fileLength: the file with segment 0 alone */
    uint64_t hash_offset;      /* the last segment's hash section (its area 0); indexState names the area in use */
    uint64_t hash_buckets;     /* buckets of each of its areas */
    uint64_t file_length;      /* end of the last segment of this view */
    uint64_t seg_slots[SHMAV_MAX_SEGMENTS]; /* segment table: file offset of segment k's slots */
    uint64_t seg_hash[SHMAV_MAX_SEGMENTS];  /* and of its hash section (area 0; area 1 follows it) */
    uint64_t seg_buckets[SHMAV_MAX_SEGMENTS]; /* buckets of each of segment k's two hash areas */
    uint64_t slot_base[SHMAV_MAX_SEGMENTS]; /* seg_slots[k] - first(k) * slot_length, modulo 2^64 */
    uint64_t map_base[SHMAV_MAX_SEGMENTS];  /* segment k's map_addr offset - first(k) * 8, modulo 2^64 */
} shmav_av;

/* Plain (immutable once published) little-endian reads of the header. */
static inline uint32_t shmav__u32(const unsigned char *base, uint64_t off)
{
    uint32_t v;
    memcpy(&v, base + off, sizeof v);
    return v;
}

static inline uint64_t shmav__u64(const unsigned char *base, uint64_t off)
{
    uint64_t v;
    memcpy(&v, base + off, sizeof v);
    return v;
}

/* Atomic reads of the mutable words (8-byte aligned by the layout; 4-byte for the version and segment count). */
static inline uint64_t shmav__load64(const unsigned char *base, uint64_t off, memory_order order)
{
    return atomic_load_explicit((const _Atomic uint64_t *)(const void *)(base + off), order);
}

static inline uint32_t shmav__load32(const unsigned char *base, uint64_t off, memory_order order)
{
    return atomic_load_explicit((const _Atomic uint32_t *)(const void *)(base + off), order);
}

static inline uint64_t shmav__align(uint64_t value, uint64_t alignment)
{
    return (value + alignment - 1) & ~(alignment - 1);
}

/** Bits needed to write x: 64 - Long.numberOfLeadingZeros(x), so 0 for 0. */
static inline uint32_t shmav__bit_length(uint64_t x)
{
#if defined(__GNUC__)
    return x == 0 ? 0 : 64u - (uint32_t)__builtin_clzll(x);
#else
    uint32_t n = 0;
    while (x != 0)
    {
        n++;
        x >>= 1;
    }
    return n;
#endif
}

/** AvLayout.hashBucketsFor: the smallest power of two >= 2 * capacity (capacity <= 2^28 here). */
static inline uint64_t shmav__hash_buckets_for(uint64_t capacity)
{
    uint64_t b = 1;
    while (b < 2 * (capacity == 0 ? 1 : capacity))
    {
        b <<= 1;
    }
    return b;
}

/** AddrFormat.addrlen of a storable format (0 for FI_FORMAT_UNSPEC, whose length is the header's), -1 for any other. */
static inline int32_t shmav__format_addr_len(uint32_t format)
{
    switch (format)
    {
        case SHMAV_FI_FORMAT_UNSPEC: return 0;
        case SHMAV_FI_SOCKADDR_IN: return 16;
        case SHMAV_FI_SOCKADDR_IN6: return 28;
        case SHMAV_FI_SOCKADDR_IB: return 48;
        case SHMAV_FI_ADDR_PSMX: return 8;
        case SHMAV_FI_ADDR_STR: return SHMAV_FI_ADDR_STR_MAX;
        case SHMAV_FI_ADDR_PSMX2: return 16;
        case SHMAV_FI_ADDR_IB_UD: return 32;
        case SHMAV_FI_ADDR_EFA: return 32;
        case SHMAV_FI_ADDR_PSMX3: return 32;
        case SHMAV_FI_ADDR_OPX: return 8;
        case SHMAV_FI_ADDR_CXI: return 4;
        default: return -1;
    }
}

/**
 * AvLayout.segmentEnd: one past segment k's last slot, the capacity of an AV of k + 1 segments.
 * Segment 0 holds [0, c0), segment k >= 1 [end(k-1), end(k)) with end(k) = min(G 2^k, max): c0 is
 * the count at creation, G the smallest power of two >= c0 and max the header's maxCapacity, at
 * which the last segment ends exactly (layout 4; in layout 3 every segment doubled).
 */
static inline uint64_t shmav__segment_end(uint64_t first_capacity, uint32_t log2g, uint64_t max, uint32_t k)
{
    if (k == 0)
    {
        return first_capacity;
    }
    const uint64_t doubled = 1ULL << (log2g + k);
    return doubled < max ? doubled : max;
}

/** AvLayout.segmentFirst: index of segment k's first slot, where segment k - 1 ends. */
static inline uint64_t shmav__segment_first(uint64_t first_capacity, uint32_t log2g, uint64_t max, uint32_t k)
{
    return k == 0 ? 0 : shmav__segment_end(first_capacity, log2g, max, k - 1);
}

/** AvLayout.segmentOf: the segment of slot index >= first_capacity, one shift and one bit length. */
static inline uint32_t shmav__segment_of(const shmav_av *av, uint64_t index)
{
    const uint32_t k = shmav__bit_length(index >> av->log2g);
    return k < 1 ? 1 : k;
}

/** File offset of slot index (below av->capacity). */
static inline uint64_t shmav__slot(const shmav_av *av, uint64_t index)
{
    if (index < av->first_capacity)
    {
        return av->slots_offset + index * av->slot_length;
    }
    return av->slot_base[shmav__segment_of(av, index)] + index * av->slot_length;
}

/** File offset of map_addr entry index (below av->capacity). */
static inline uint64_t shmav__map(const shmav_av *av, uint64_t index)
{
    if (index < av->first_capacity)
    {
        return av->map_offset + index * 8;
    }
    return av->map_base[shmav__segment_of(av, index)] + index * 8;
}

static inline int shmav__fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
    if (err != NULL && errlen > 0)
    {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -code;
}

#define SHMAV__CHECK(ok, field, value)                                                              \
    do                                                                                              \
    {                                                                                               \
        if (!(ok))                                                                                  \
        {                                                                                           \
            return shmav__fail(err, errlen, EINVAL,                                                 \
                "corrupt header: %s=%lld is not valid for layout %u.%u", (field),                   \
                (long long)(value), SHMAV_VERSION_MAJOR, SHMAV_VERSION_MINOR);                      \
        }                                                                                           \
    } while (0)

/**
 * Checks the header mapped at {@code base} for an AV of {@code segments} published segments (read
 * by the caller with acquire) in a file of {@code length} bytes, exactly as AvLayout.read does, in
 * its order and with its messages, and fills {@code av} with that view's layout (base and length
 * not set). Only the header is read: {@code base} need map no more. The version word must already
 * be non-zero. The caller checks that length covers av->file_length (a longer file is fine: a
 * grower that died after reserving left its tail). Returns 0, or -EINVAL with the reason in err.
 */
static inline int shmav__check_header(shmav_av *av, const unsigned char *base, size_t length, uint32_t segments,
    char *err, size_t errlen)
{
    memset(av, 0, sizeof *av);
    av->fd = -1;
    if (length < SHMAV_HEADER_LENGTH)
    {
        return shmav__fail(err, errlen, EINVAL,
            "file is %zu bytes, shorter than the %u-byte header: not a shmav AV (or truncated)", length,
            SHMAV_HEADER_LENGTH);
    }
    const uint64_t magic = shmav__u64(base, SHMAV_H_MAGIC);
    if (magic != SHMAV_MAGIC)
    {
        return shmav__fail(err, errlen, EINVAL, "bad magic 0x%016llx (expected 0x%016llx): not a shmav AV file",
            (unsigned long long)magic, (unsigned long long)SHMAV_MAGIC);
    }
    const uint32_t version = shmav__load32(base, SHMAV_H_VERSION, memory_order_acquire);
    if (version >> 16 != SHMAV_VERSION_MAJOR) /* also refuses 0: not ready */
    {
        /* The same text as AvLayout.read. A 4.x file has one hash area per segment (5.x: two, so every
         * later offset differs) and an index that 4.x writers rebuild in place: refused, as Java does. */
        return shmav__fail(err, errlen, EINVAL, "layout version %u.%u is not supported: app=%u.%u file=%u.%u%s",
            version >> 16, version & 0xffffu, SHMAV_VERSION_MAJOR, SHMAV_VERSION_MINOR, version >> 16,
            version & 0xffffu,
            version >> 16 < SHMAV_VERSION_MAJOR
                ? " (written by an older shmav, which cannot follow this one's growth or liveness: stop its "
                  "processes, remove the AV with 'shmav rm' and create it again)"
                : " (written by a newer shmav: use that version in every process of the job)");
    }
    /* Any minor version of this major is accepted, as AvLayout.read does: minors only add fields in reserved space. */
    const uint32_t header_length = shmav__u32(base, SHMAV_H_HEADER_LENGTH);
    SHMAV__CHECK(header_length == SHMAV_HEADER_LENGTH, "headerLength", (int32_t)header_length);
    const uint32_t format = shmav__u32(base, SHMAV_H_ADDR_FORMAT);
    SHMAV__CHECK(shmav__format_addr_len(format) >= 0, "addrFormat", (int32_t)format);
    /* AddrShape.valid: a fixed format has its own length; FI_FORMAT_UNSPEC 1..4096, maybe varying. */
    const uint32_t varying = shmav__u32(base, SHMAV_H_ADDR_LEN_VARYING);
    SHMAV__CHECK(varying == 0 || (varying == 1 && format == SHMAV_FI_FORMAT_UNSPEC), "addrLenVarying", (int32_t)varying);
    const uint32_t header_addr_len = shmav__u32(base, SHMAV_H_ADDR_LEN);
    SHMAV__CHECK(format == SHMAV_FI_FORMAT_UNSPEC
        ? header_addr_len >= 1 && header_addr_len <= SHMAV_MAX_OPAQUE_LEN
        : header_addr_len == (uint32_t)shmav__format_addr_len(format), "addrLen", (int32_t)header_addr_len);
    const uint32_t type = shmav__u32(base, SHMAV_H_AV_TYPE);
    SHMAV__CHECK(type == SHMAV_FI_AV_MAP || type == SHMAV_FI_AV_TABLE, "avType", (int32_t)type);
    const uint64_t capacity = shmav__u64(base, SHMAV_H_CAPACITY);
    SHMAV__CHECK(capacity > 0 && capacity <= SHMAV_MAX_CAPACITY, "capacity", (int64_t)capacity);
    const uint64_t max = shmav__u64(base, SHMAV_H_MAX_CAPACITY);
    SHMAV__CHECK(max >= capacity && max <= SHMAV_MAX_CAPACITY, "maxCapacity", (int64_t)max);
    /* indexState with bits no writer sets (63..58; or 35.. while no migration runs): refused, as
     * IndexWord.malformed does. Its segments are checked against the view on every lookup. */
    const uint64_t index_state = shmav__load64(base, SHMAV_H_INDEX_STATE, memory_order_acquire);
    SHMAV__CHECK((index_state >> 58) == 0 &&
        (((index_state >> SHMAV_STATE_MIGRATING_SHIFT) & 1) != 0 || (index_state >> 35) == 0),
        "indexState", (int64_t)index_state);
    /* Java reads these u32 fields as int: values >= 2^31 are negative there and refused; so here. */
    const uint32_t attachers = shmav__u32(base, SHMAV_H_ATTACHERS_CAPACITY);
    SHMAV__CHECK(attachers > 0 && attachers <= SHMAV_MAX_ATTACHERS, "attachersCapacity", (int32_t)attachers);
    const uint32_t auth_key_size = shmav__u32(base, SHMAV_H_AUTH_KEY_SIZE);
    SHMAV__CHECK(auth_key_size <= SHMAV_MAX_AUTH_KEY_SIZE, "authKeySize", (int32_t)auth_key_size);
    const uint32_t auth_keys = shmav__u32(base, SHMAV_H_AUTH_KEYS_CAPACITY);
    SHMAV__CHECK(auth_keys <= SHMAV_MAX_AUTH_KEYS, "authKeysCapacity", (int32_t)auth_keys);
    /* exactly two buckets per slot of segment 0, rounded up to a power of two */
    const uint64_t first_buckets = shmav__u64(base, SHMAV_H_HASH_BUCKETS);
    SHMAV__CHECK(first_buckets == shmav__hash_buckets_for(capacity), "hashBuckets", (int64_t)first_buckets);
    SHMAV__CHECK(segments >= 1 && segments <= SHMAV_MAX_SEGMENTS, "segmentCount", (int32_t)segments);
    const uint32_t log2g = shmav__bit_length(capacity - 1);
    /* A segment exists only if the one before it ended below maxCapacity, where growth stops (checked
     * before any size is computed from the count: no overflow below). */
    SHMAV__CHECK(segments == 1 || shmav__segment_end(capacity, log2g, max, segments - 2) < max, "segmentCount",
        (int32_t)segments);

    /* Recompute the whole layout from the free parameters (AvLayout's constructor) and require the
     * file to agree field by field: every offset is then in bounds. No overflow: every factor is bounded. */
    const uint32_t addr_len = header_addr_len;
    const uint32_t slot_length = (uint32_t)shmav__align(SHMAV_SLOT_ADDR + shmav__align(addr_len, 8), 64);
    const uint64_t attachers_offset = SHMAV_HEADER_LENGTH;
    const uint64_t auth_keys_offset =
        shmav__align(attachers_offset + (uint64_t)attachers * SHMAV_ATTACHER_LENGTH, SHMAV_SECTION_ALIGNMENT);
    const uint64_t auth_entry = 16 + shmav__align(auth_key_size, 8);
    const uint64_t slots_offset =
        shmav__align(auth_keys_offset + (uint64_t)auth_keys * auth_entry, SHMAV_SECTION_ALIGNMENT);
    const uint64_t map_offset = shmav__align(slots_offset + capacity * slot_length, SHMAV_SECTION_ALIGNMENT);
    const uint64_t first_hash = shmav__align(map_offset + capacity * 8, SHMAV_SECTION_ALIGNMENT);
    /* Each hash section holds two areas (layout 5): the index, and the one a migration copies it to. */
    const uint64_t base_length =
        shmav__align(first_hash + SHMAV_HASH_AREAS * first_buckets * 8, SHMAV_SECTION_ALIGNMENT);
    av->seg_slots[0] = slots_offset;
    av->seg_hash[0] = first_hash;
    av->seg_buckets[0] = first_buckets;
    av->slot_base[0] = slots_offset;
    av->map_base[0] = map_offset;
    uint64_t end = base_length;
    uint64_t buckets = first_buckets;
    for (uint32_t k = 1; k < segments; k++)
    {
        /* Segment k starts at the end of segment k - 1 (layout 7 writers) or past it: aligned, within
         * one mapping. Checked before any offset is computed from it: no overflow below. */
        char field[40];
        const uint64_t start = shmav__u64(base, SHMAV_H_SEGMENTS + (uint64_t)k * SHMAV_SEGMENT_ENTRY_LENGTH +
            SHMAV_SEG_SLOTS_OFFSET);
        snprintf(field, sizeof field, "segment[%u].slotsOffset", k);
        SHMAV__CHECK(start >= end && start < SHMAV_MAX_FILE_LENGTH && start % SHMAV_SECTION_ALIGNMENT == 0, field,
            (int64_t)start);
        const uint64_t first = shmav__segment_first(capacity, log2g, max, k);
        const uint64_t n = shmav__segment_end(capacity, log2g, max, k) - first;
        const uint64_t map = shmav__align(start + n * slot_length, SHMAV_SECTION_ALIGNMENT);
        av->seg_slots[k] = start;
        av->seg_hash[k] = shmav__align(map + n * 8, SHMAV_SECTION_ALIGNMENT);
        buckets = shmav__hash_buckets_for(shmav__segment_end(capacity, log2g, max, k));
        av->seg_buckets[k] = buckets;
        end = shmav__align(av->seg_hash[k] + SHMAV_HASH_AREAS * buckets * 8, SHMAV_SECTION_ALIGNMENT);
        av->slot_base[k] = av->seg_slots[k] - first * slot_length;
        av->map_base[k] = map - first * 8;
    }
    /* Also keeps the capacity below 2^25 slots, well under the 2^26 - 1 a bucket's slot field can name. */
    SHMAV__CHECK(end <= SHMAV_MAX_FILE_LENGTH, "segmentCount", (int32_t)segments);

    const uint32_t stored_addr_len = shmav__u32(base, SHMAV_H_ADDR_LEN);
    SHMAV__CHECK(stored_addr_len == addr_len, "addrLen", (int32_t)stored_addr_len);
    const uint32_t stored_slot_length = shmav__u32(base, SHMAV_H_SLOT_LENGTH);
    SHMAV__CHECK(stored_slot_length == slot_length, "slotLength", (int32_t)stored_slot_length);
    const uint64_t stored_attachers_offset = shmav__u64(base, SHMAV_H_ATTACHERS_OFFSET);
    SHMAV__CHECK(stored_attachers_offset == attachers_offset, "attachersOffset", (int64_t)stored_attachers_offset);
    const uint64_t stored_auth_keys_offset = shmav__u64(base, SHMAV_H_AUTH_KEYS_OFFSET);
    SHMAV__CHECK(stored_auth_keys_offset == auth_keys_offset, "authKeysOffset", (int64_t)stored_auth_keys_offset);
    const uint64_t stored_hash_offset = shmav__u64(base, SHMAV_H_HASH_OFFSET);
    SHMAV__CHECK(stored_hash_offset == first_hash, "hashOffset", (int64_t)stored_hash_offset);
    /* Every published segment-table entry: written before the release store of segmentCount that the
     * caller's acquire load read, so these plain reads see them. Entries past the count are not read. */
    for (uint32_t k = 0; k < segments; k++)
    {
        char field[40];
        const uint64_t entry = SHMAV_H_SEGMENTS + (uint64_t)k * SHMAV_SEGMENT_ENTRY_LENGTH;
        const uint64_t stored_slots = shmav__u64(base, entry + SHMAV_SEG_SLOTS_OFFSET);
        snprintf(field, sizeof field, "segment[%u].slotsOffset", k);
        SHMAV__CHECK(stored_slots == av->seg_slots[k], field, (int64_t)stored_slots);
        const uint64_t stored_hash = shmav__u64(base, entry + SHMAV_SEG_HASH_OFFSET);
        snprintf(field, sizeof field, "segment[%u].hashOffset", k);
        SHMAV__CHECK(stored_hash == av->seg_hash[k], field, (int64_t)stored_hash);
    }
    const uint64_t stored_file_length = shmav__u64(base, SHMAV_H_FILE_LENGTH);
    SHMAV__CHECK(stored_file_length == base_length, "fileLength", (int64_t)stored_file_length);
    if ((uint64_t)length < base_length)
    {
        return shmav__fail(err, errlen, EINVAL,
            "file is %zu bytes but its header says %llu: truncated; remove it with 'shmav rm' and create it again",
            length, (unsigned long long)base_length);
    }
    const uint64_t map_addr_base = shmav__u64(base, SHMAV_H_MAP_ADDR_BASE);
    SHMAV__CHECK(map_addr_base != 0 && map_addr_base <= SHMAV_MAX_MAP_ADDR_BASE, "mapAddrBase", (int64_t)map_addr_base);

    av->version = version;
    av->addr_format = format;
    av->addr_len = addr_len;
    av->addr_len_varying = varying;
    av->av_type = type;
    av->slot_length = slot_length;
    av->attachers_capacity = attachers;
    av->auth_key_size = auth_key_size;
    av->auth_keys_capacity = auth_keys;
    av->segments = segments;
    av->log2g = log2g;
    av->first_capacity = capacity;
    av->max_capacity = max;
    av->capacity = shmav__segment_end(capacity, log2g, max, segments - 1);
    av->map_addr_base = map_addr_base;
    av->attachers_offset = attachers_offset;
    av->auth_keys_offset = auth_keys_offset;
    av->slots_offset = slots_offset;
    av->map_offset = map_offset;
    av->base_length = base_length;
    av->hash_offset = av->seg_hash[segments - 1];
    av->hash_buckets = buckets;
    av->file_length = end;
    return 0;
}

/** The refusal of a file shorter than its published segments (SegmentFile.published's text). */
static inline int shmav__check_length(const shmav_av *av, size_t length, char *err, size_t errlen)
{
    if ((uint64_t)length < av->file_length)
    {
        return shmav__fail(err, errlen, EINVAL,
            "file is %zu bytes but its %u segments need %llu: truncated; remove it with 'shmav rm' and create it "
            "again", length, av->segments, (unsigned long long)av->file_length);
    }
    return 0;
}

/**
 * Checks a mapped AV region of {@code length} bytes (the real file size, all of it mapped at base)
 * exactly as org.shmav.shm.AvLayout.read and SegmentFile.current do, for the segments it publishes
 * now, and fills {@code av} (with no file: av->fd is -1). The version word must already be non-zero.
 * Returns 0, or -EINVAL with the reason in err.
 */
static inline int shmav_av_check(shmav_av *av, const unsigned char *base, size_t length, char *err, size_t errlen)
{
    uint32_t segments = 0;
    if (length >= SHMAV_HEADER_LENGTH)
    {
        /* Acquire: every segment entry, and the space, a grower published with this count are seen. */
        segments = shmav__load32(base, SHMAV_H_SEGMENT_COUNT, memory_order_acquire);
    }
    int rc = shmav__check_header(av, base, length, segments, err, errlen);
    if (rc == 0)
    {
        rc = shmav__check_length(av, length, err, errlen);
    }
    if (rc != 0)
    {
        memset(av, 0, sizeof *av);
        av->fd = -1;
        return rc;
    }
    av->base = base;
    av->length = (size_t)av->file_length;
    return 0;
}

/**
 * The view of the AV open on {@code fd} as its header (mapped at {@code header}, at least the header
 * page) publishes it now: segmentCount read with acquire, THEN the file's size (a grower reserves the
 * space before it publishes, so that size covers every published segment), the header checked for
 * that count, and exactly the published length mapped read-only. Fills {@code view}; the caller owns
 * the new mapping. Returns 0, or a negative errno with the reason in err.
 */
static inline int shmav__map_view(shmav_av *view, int fd, const unsigned char *header, char *err, size_t errlen)
{
    const uint32_t segments = shmav__load32(header, SHMAV_H_SEGMENT_COUNT, memory_order_acquire);
    struct stat st;
    if (fstat(fd, &st) != 0)
    {
        const int e = errno;
        return shmav__fail(err, errlen, e, "cannot stat the AV file: %s", strerror(e));
    }
    const size_t length = (size_t)st.st_size;
    int rc = shmav__check_header(view, header, length, segments, err, errlen);
    if (rc == 0)
    {
        rc = shmav__check_length(view, length, err, errlen);
    }
    if (rc != 0)
    {
        return rc;
    }
    void *p = mmap(NULL, (size_t)view->file_length, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
    {
        const int e = errno;
        return shmav__fail(err, errlen, e, "cannot map %llu bytes of the AV file: %s",
            (unsigned long long)view->file_length, strerror(e));
    }
    view->base = (const unsigned char *)p;
    view->length = (size_t)view->file_length;
    return 0;
}

/**
 * Follows the AV's growth: reads segmentCount (acquire) and, when it is not this view's, checks the
 * header again for the new count and maps the published length anew, unmapping the old view (safe:
 * see Thread-safety above). Returns 1 when the view changed, 0 when the AV has not grown, or a
 * negative errno with the reason in err (err may be NULL); the old view then stays in use.
 */
static inline int shmav_av_follow(shmav_av *av, char *err, size_t errlen)
{
    if (av->base == NULL || av->fd < 0)
    {
        return av->base == NULL ? shmav__fail(err, errlen, EINVAL, "the AV is not open") : 0;
    }
    /* Acquire: pairs with the grower's CAS, so the new segment table entries and slots are seen. */
    if (shmav__load32(av->base, SHMAV_H_SEGMENT_COUNT, memory_order_acquire) == av->segments)
    {
        return 0;
    }
    shmav_av view;
    const int rc = shmav__map_view(&view, av->fd, av->base, err, errlen);
    if (rc != 0)
    {
        return rc;
    }
    munmap((void *)(uintptr_t)av->base, av->length);
    view.fd = av->fd;
    view.locked = av->locked;
    *av = view;
    return 1;
}

/**
 * For a C writer: takes (type F_RDLCK or F_WRLCK) or gives back (F_UNLCK) the lock of byte {@code at}
 * of the lock file open on {@code fd}, never blocking, as the kind Java writers take and see: an open
 * file description lock where the C library has F_OFD_SETLK, else a POSIX lock (which any close of
 * another descriptor of the file in this process drops). 0 when done, else -1 with errno (EAGAIN or
 * EACCES: held by another process or description).
 */
static inline int shmav_ofd_trylock(int fd, off_t at, short type)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl); /* l_pid = 0: required by the OFD commands */
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = at;
    fl.l_len = 1;
#ifdef F_OFD_SETLK
    const int cmd = F_OFD_SETLK;
#else
    const int cmd = F_SETLK;
#endif
    int rc;
    do
    {
        rc = fcntl(fd, cmd, &fl);
    }
    while (rc != 0 && errno == EINTR);
    return rc;
}

/**
 * Takes a shared record lock on the readers' byte of the file open on {@code fd}, never blocking: a
 * tool's test holds it exclusively for an instant, so it is tried for up to 100 ms. True when held.
 */
static inline int shmav__hold_readers_lock(int fd)
{
    const struct timespec pause = {0, 1000000};
    for (int attempt = 0; attempt < 100; attempt++)
    {
        if (shmav_ofd_trylock(fd, SHMAV_READERS_LOCK_OFFSET, F_RDLCK) == 0)
        {
            return 1;
        }
        if (errno != EAGAIN && errno != EACCES)
        {
            return 0;
        }
        nanosleep(&pause, NULL);
    }
    return 0;
}

/**
 * Opens the AV file at {@code path} read-only and checks it. Like a Java FI_READ opener: no symbolic
 * link (O_NOFOLLOW), a regular file only (checked with fstat; O_NONBLOCK keeps a FIFO from blocking
 * the open), its published segments at most 2^31-1 bytes (the file may be longer: zeros a grower appended
 * past them, shm-layout.md Refusals 3); a file whose magic is right but whose version word is still 0 is
 * waited for, at most SHMAV_READY_WAIT_MS. Then the segments the header publishes are checked
 * (shmav__check_header) and exactly their length is mapped PROT_READ / MAP_SHARED. The descriptor
 * stays open (it is mapped again when the AV grows) and holds the readers' lock.
 * Returns 0, or a negative errno (-ENOENT, -EACCES, -EINVAL, ...) with the reason in err.
 */
static inline int shmav_av_open(shmav_av *av, const char *path, char *err, size_t errlen)
{
    memset(av, 0, sizeof *av);
    av->fd = -1;
    const int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
    {
        const int e = errno;
        switch (e)
        {
            case ELOOP:
                return shmav__fail(err, errlen, EINVAL,
                    "'%s' is a symbolic link; named AVs are never opened through links", path);
            case ENOENT:
                return shmav__fail(err, errlen, ENOENT, "named AV '%s' does not exist", path);
            case EACCES:
                return shmav__fail(err, errlen, EACCES,
                    "no permission to open '%s': it belongs to another user or group", path);
            default:
                return shmav__fail(err, errlen, e, "cannot open '%s': %s", path, strerror(e));
        }
    }
    struct stat st;
    if (fstat(fd, &st) != 0)
    {
        const int e = errno;
        close(fd);
        return shmav__fail(err, errlen, e, "cannot stat '%s': %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode))
    {
        close(fd);
        return shmav__fail(err, errlen, EINVAL, "'%s' is not a regular file", path);
    }
    /* No upper bound: zeros that growers appended and never published may take the file past the largest
     * mapping; only the published length is mapped, and the header's checks bound it. */
    if (st.st_size < (off_t)SHMAV_HEADER_LENGTH)
    {
        close(fd);
        return shmav__fail(err, errlen, EINVAL, "'%s' is %lld bytes: not a shmav AV, or truncated", path,
            (long long)st.st_size);
    }
    /* The header page first: the published length is known only once the header is ready and read. */
    void *h = mmap(NULL, SHMAV_HEADER_LENGTH, PROT_READ, MAP_SHARED, fd, 0);
    if (h == MAP_FAILED)
    {
        const int e = errno;
        close(fd);
        return shmav__fail(err, errlen, e, "cannot map '%s': %s", path, strerror(e));
    }
    const unsigned char *header = (const unsigned char *)h;
    if (shmav__u64(header, SHMAV_H_MAGIC) == SHMAV_MAGIC &&
        shmav__load32(header, SHMAV_H_VERSION, memory_order_acquire) == 0)
    {
        /* Version 0: not ready (the creator writes it last, with a release store). Wait, bounded. */
        const struct timespec pause = {0, 1000000};
        int waited = 0;
        while (shmav__load32(header, SHMAV_H_VERSION, memory_order_acquire) == 0)
        {
            if (waited >= SHMAV_READY_WAIT_MS)
            {
                munmap(h, SHMAV_HEADER_LENGTH);
                close(fd);
                return shmav__fail(err, errlen, EINVAL,
                    "named AV '%s' never became ready (version word is 0): its creator died; remove it with "
                    "'shmav rm'", path);
            }
            nanosleep(&pause, NULL);
            waited++;
        }
    }
    const int rc = shmav__map_view(av, fd, header, err, errlen);
    munmap(h, SHMAV_HEADER_LENGTH);
    if (rc != 0)
    {
        close(fd);
        memset(av, 0, sizeof *av);
        av->fd = -1;
        return rc;
    }
    av->fd = fd;
    av->locked = shmav__hold_readers_lock(fd); /* without it, still a reader, one that tools cannot see */
    return 0;
}

/** Unmaps the file and closes it, giving back the readers' lock. The AV itself is untouched (a reader never writes). */
static inline void shmav_av_close(shmav_av *av)
{
    if (av->base != NULL)
    {
        munmap((void *)(uintptr_t)av->base, av->length);
    }
    if (av->fd >= 0)
    {
        close(av->fd); /* releases the lock */
    }
    memset(av, 0, sizeof *av);
    av->fd = -1;
}

/** The fi_addr of slot {@code index}: the index for FI_AV_TABLE, mapAddrBase + index for FI_AV_MAP. */
static inline uint64_t shmav_av_fi_addr(const shmav_av *av, uint64_t index)
{
    return av->av_type == SHMAV_FI_AV_MAP ? av->map_addr_base + index : index;
}

/**
 * Makes index part of the view if the AV grew to hold it: 0 when index < av->capacity (after
 * following a growth if needed), -EINVAL when the AV does not hold it, -EIO when it grew but the
 * new segments could not be followed (shmav_av_follow says why).
 */
static inline int shmav__reach(shmav_av *av, uint64_t index)
{
    if (index < av->capacity)
    {
        return 0;
    }
    if (index >= av->max_capacity)
    {
        return -EINVAL; /* no growth reaches it: no need to look */
    }
    if (shmav_av_follow(av, NULL, 0) < 0)
    {
        return -EIO;
    }
    return index < av->capacity ? 0 : -EINVAL;
}

/**
 * The slot index an fi_addr names (fi_addr - mapAddrBase for FI_AV_MAP, modulo 2^64), or
 * UINT64_MAX when it is FI_ADDR_NOTAVAIL or outside the AV (following its growth first). rx_ctx_bits
 * are not applied: this is the view of an opener with rx_ctx_bits 0.
 */
static inline uint64_t shmav_av_index(shmav_av *av, uint64_t fi_addr)
{
    if (fi_addr == SHMAV_FI_ADDR_NOTAVAIL)
    {
        return UINT64_MAX;
    }
    const uint64_t index = av->av_type == SHMAV_FI_AV_MAP ? fi_addr - av->map_addr_base : fi_addr;
    return shmav__reach(av, index) == 0 ? index : UINT64_MAX;
}

/**
 * SlotDescriptor.isEntry: the state word is an entry to readers, committed (PUBLISHING: its bytes are
 * complete, indexed and counted) or VALID with at least one reference.
 */
static inline int shmav__is_entry(uint64_t word)
{
    return (word & 0xf) == SHMAV_SLOT_PUBLISHING ||
        ((word & 0xf) == SHMAV_SLOT_VALID && (word & SHMAV_SLOT_PAYLOAD_MASK) != 0);
}

/** SlotDescriptor.sameEntry: after is still an entry of before's incarnation (PUBLISHING then VALID is one). */
static inline int shmav__same_entry(uint64_t before, uint64_t after)
{
    return shmav__is_entry(after) && (before >> SHMAV_SLOT_GENERATION_SHIFT) == (after >> SHMAV_SLOT_GENERATION_SHIFT);
}

/** map_addr[index] (acquire): the slot's fi_addr while VALID, else FI_ADDR_NOTAVAIL; a hint, not a lookup. */
static inline uint64_t shmav_av_map_entry(shmav_av *av, uint64_t index)
{
    return shmav__reach(av, index) == 0 ? shmav__load64(av->base, shmav__map(av, index), memory_order_acquire)
                                        : SHMAV_FI_ADDR_NOTAVAIL;
}

/**
 * shmav_av_lookup_index, also adding to *retries (if not NULL) the number of copies thrown away
 * because the slot changed while they were made.
 */
static inline int shmav_av_lookup_index_r(shmav_av *av, uint64_t index, void *addr, size_t *addrlen,
    unsigned long *retries)
{
    const int reach = shmav__reach(av, index);
    if (reach != 0)
    {
        return reach;
    }
    const uint64_t slot = shmav__slot(av, index);
    uint64_t words[SHMAV_MAX_ADDR_LEN / 8];
    for (;;)
    {
        /* Acquire: synchronises with the publishing CAS, so the bytes written before it are seen. */
        const uint64_t before = shmav__load64(av->base, slot + SHMAV_SLOT_STATE, memory_order_acquire);
        if (!shmav__is_entry(before))
        {
            return -EINVAL; /* neither committed nor VALID with a reference: not an entry */
        }
        const uint32_t len = shmav__load32(av->base, slot + SHMAV_SLOT_ADDR_LEN, memory_order_relaxed);
        /* Bound the copy by the header's addrLen: a corrupt slot never makes us read past it. */
        const uint32_t n = len <= av->addr_len ? len : av->addr_len;
        for (uint32_t i = 0; i < (n + 7) / 8; i++)
        {
            /* Relaxed atomic loads: the racing reads a seqlock needs, without a C11 data race. */
            words[i] = shmav__load64(av->base, slot + SHMAV_SLOT_ADDR + 8 * (uint64_t)i, memory_order_relaxed);
        }
        /* The copy above is complete before the state word is read again. */
        atomic_thread_fence(memory_order_acquire);
        const uint64_t after = shmav__load64(av->base, slot + SHMAV_SLOT_STATE, memory_order_relaxed);
        if (!shmav__same_entry(before, after))
        {
            /* Not an entry of the same generation any more (a reference count change, or the publish of
             * a committed slot, does not matter: the bytes stay): copy again. */
            if (retries != NULL)
            {
                (*retries)++;
            }
            continue;
        }
        if (len == 0 || len > av->addr_len)
        {
            return -EINVAL; /* a corrupt slot: the Java lookup refuses it too */
        }
        const size_t copy = *addrlen < len ? *addrlen : len;
        if (copy > 0)
        {
            memcpy(addr, words, copy);
        }
        *addrlen = len;
        return 0;
    }
}

/**
 * Copies the address of slot {@code index} into addr, at most *addrlen bytes, and sets *addrlen to
 * its real length (as fi_av_lookup does). An index past the view follows the AV's growth first.
 * Returns 0, -EINVAL when the index is out of range or the slot holds no entry, or -EIO when the AV
 * grew and its new segments could not be followed (shmav_av_follow says why).
 */
static inline int shmav_av_lookup_index(shmav_av *av, uint64_t index, void *addr, size_t *addrlen)
{
    return shmav_av_lookup_index_r(av, index, addr, addrlen, NULL);
}

/** fi_av_lookup: the address of {@code fi_addr}; 0, -EINVAL when it names no entry, -EIO as above. */
static inline int shmav_av_lookup(shmav_av *av, uint64_t fi_addr, void *addr, size_t *addrlen)
{
    if (fi_addr == SHMAV_FI_ADDR_NOTAVAIL)
    {
        return -EINVAL;
    }
    return shmav_av_lookup_index(av, av->av_type == SHMAV_FI_AV_MAP ? fi_addr - av->map_addr_base : fi_addr, addr,
        addrlen);
}

/**
 * Iteration over the entries valid now, in slot order: start with *cursor = 0; each call that
 * returns 1 sets *fi_addr, copies the address (at most *addrlen bytes, *addrlen set to its length)
 * and advances *cursor; 0 means no entry is left. At the end of the view it follows the AV's growth
 * and goes on into the new segments. Entries inserted or removed meanwhile may or may not be seen;
 * every address returned was an entry at some point during the call. A negative errno (-EIO) when
 * the AV grew and its new segments could not be followed.
 */
static inline int shmav_av_next(shmav_av *av, uint64_t *cursor, uint64_t *fi_addr, void *addr, size_t *addrlen)
{
    const size_t room = *addrlen;
    for (;;)
    {
        while (*cursor < av->capacity)
        {
            const uint64_t index = (*cursor)++;
            size_t len = room;
            if (shmav_av_lookup_index(av, index, addr, &len) == 0)
            {
                *fi_addr = shmav_av_fi_addr(av, index);
                *addrlen = len;
                return 1;
            }
        }
        const int grew = shmav_av_follow(av, NULL, 0);
        if (grew <= 0)
        {
            return grew < 0 ? -EIO : 0;
        }
    }
}

/* ---- reverse lookup: the dedup hash (org.shmav.slots.DedupIndex) ------------------------------ */

static inline uint64_t shmav__mix(uint64_t h, uint64_t v)
{
    const uint64_t x = (h ^ v) * 0x9e3779b97f4a7c15ULL;
    return x ^ (x >> 32);
}

/**
 * DedupIndex.hash (shm-layout.md, HASH): 8-byte little-endian chunks of the address (the last one
 * zero-padded) and then the auth-key handle, mixed by multiply and xor-shift. Bucket = hash mod
 * buckets, tag = high 10 bits (layout 5).
 */
static inline uint64_t shmav__hash(const unsigned char *a, uint32_t len, uint64_t auth_key)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)len;
    uint32_t i = 0;
    for (; i + 8 <= len; i += 8)
    {
        uint64_t chunk;
        memcpy(&chunk, a + i, 8); /* little-endian host */
        h = shmav__mix(h, chunk);
    }
    if (i < len)
    {
        uint64_t tail = 0;
        for (uint32_t k = 0; i + k < len; k++)
        {
            tail |= (uint64_t)a[i + k] << (8 * k);
        }
        h = shmav__mix(h, tail);
    }
    h = shmav__mix(h, auth_key);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 29);
}

/** SlotReader.isValidWithKey: slot index (in view) is an entry (committed, or VALID and referenced) holding exactly this key. */
static inline int shmav__valid_with_key(const shmav_av *av, uint64_t index, const unsigned char *a, uint32_t len,
    uint64_t auth_key)
{
    const uint64_t slot = shmav__slot(av, index);
    const uint64_t s = shmav__load64(av->base, slot + SHMAV_SLOT_STATE, memory_order_acquire);
    if (!shmav__is_entry(s) ||
        shmav__load32(av->base, slot + SHMAV_SLOT_ADDR_LEN, memory_order_relaxed) != len ||
        shmav__load64(av->base, slot + SHMAV_SLOT_AUTH_KEY, memory_order_relaxed) != auth_key)
    {
        return 0;
    }
    uint64_t words[SHMAV_MAX_ADDR_LEN / 8];
    for (uint32_t i = 0; i < (len + 7) / 8; i++)
    {
        words[i] = shmav__load64(av->base, slot + SHMAV_SLOT_ADDR + 8 * (uint64_t)i, memory_order_relaxed);
    }
    if (memcmp(words, a, len) != 0)
    {
        return 0;
    }
    /* The comparison above is complete before the state word is read again: the same incarnation. */
    atomic_thread_fence(memory_order_acquire);
    const uint64_t after = shmav__load64(av->base, slot + SHMAV_SLOT_STATE, memory_order_relaxed);
    return shmav__same_entry(s, after);
}

/* indexState fields (IndexWord). */
static inline uint32_t shmav__state_segment(uint64_t state)
{
    return (uint32_t)(state >> SHMAV_STATE_SEGMENT_SHIFT) & 0x1f;
}

static inline uint32_t shmav__state_area(uint64_t state)
{
    return (uint32_t)(state >> SHMAV_STATE_AREA_SHIFT) & 1;
}

static inline int shmav__state_migrating(uint64_t state)
{
    return (int)(state >> SHMAV_STATE_MIGRATING_SHIFT) & 1;
}

static inline uint32_t shmav__state_target(uint64_t state)
{
    return (uint32_t)(state >> SHMAV_STATE_TARGET_SHIFT) & 0x1f;
}

/** True when stamp x is older than stamp c: (c - x) mod 2^28 in [1, 2^27). */
static inline int shmav__stamp_older(uint64_t x, uint64_t c)
{
    const uint64_t d = (c - x) & SHMAV_STAMP_MASK;
    return d != 0 && d < (1ULL << 27);
}

/* What shmav__probe returns besides a slot (slots are below 2^26). */
#define SHMAV__MISS    UINT64_MAX       /* an EMPTY bucket first: the key is not indexed */
#define SHMAV__RESTATE (UINT64_MAX - 1) /* a stamp newer than ours: the area was reused, indexState moved on */
#define SHMAV__STALE   (UINT64_MAX - 2) /* an entry of the key's tag, or an area, past this view */
#define SHMAV__LOOKUP_TRIES 3           /* probes of a moving index before the slots are scanned instead */

/**
 * DedupIndex.probe: the active area of indexState {@code state} (whose segment is in this view), walked
 * with its stamp a from the key's first bucket. To stamp a a bucket is EMPTY when it is 0, when its
 * stamp is older (left from an earlier use of the area) or when it is a's with slot field 0. Returns
 * the slot holding the key, or SHMAV__MISS, SHMAV__RESTATE, SHMAV__STALE.
 */
static inline uint64_t shmav__probe(const shmav_av *av, uint64_t state, uint64_t hash, const unsigned char *a,
    uint32_t len, uint64_t auth_key)
{
    const uint32_t k = shmav__state_segment(state);
    const uint64_t mask = av->seg_buckets[k] - 1;
    const uint64_t area = av->seg_hash[k] + (uint64_t)shmav__state_area(state) * 8 * av->seg_buckets[k];
    const uint64_t stamp = state & SHMAV_STAMP_MASK;
    const uint64_t tag = hash >> 54;
    uint64_t bucket = hash & mask;
    for (uint64_t probes = 0; probes <= mask; probes++, bucket = (bucket + 1) & mask)
    {
        const uint64_t v = shmav__load64(av->base, area + 8 * bucket, memory_order_acquire);
        /* In shm-layout.md's order: a slot field of 0 is EMPTY whatever the stamp (only damage has one with a stamp). */
        const uint64_t field = v & SHMAV_BUCKET_SLOT_MASK;
        if (field == 0)
        {
            return SHMAV__MISS;
        }
        const uint64_t v_stamp = v >> SHMAV_BUCKET_STAMP_SHIFT;
        if (v_stamp != stamp)
        {
            /* Older: EMPTY to us. Newer (or exactly half the stamp range away, neither): our state is out of date. */
            return shmav__stamp_older(v_stamp, stamp) ? SHMAV__MISS : SHMAV__RESTATE;
        }
        if (field == SHMAV_BUCKET_TOMBSTONE_SLOT || ((v >> SHMAV_BUCKET_TAG_SHIFT) & SHMAV_BUCKET_TAG_MASK) != tag)
        {
            continue;
        }
        const uint64_t slot = field - 1;
        if (slot >= av->capacity)
        {
            /* The key may be this slot, which only a newer view maps: an AV grown since this view. */
            return SHMAV__STALE;
        }
        if (shmav__valid_with_key(av, slot, a, len, auth_key))
        {
            return slot;
        }
    }
    return SHMAV__MISS;
}

/**
 * Reverse lookup (shmav's AddressVector.reverseLookup, beyond libfabric): sets *fi_addr to the
 * fi_addr of the entry holding addr, or FI_ADDR_NOTAVAIL when none does. addr is the format's
 * sockaddr (addrlen at least its length; the rest is ignored) or, for FI_ADDR_STR, a string whose NUL
 * lies within addrlen bytes and the first 128. Lock-free, like DedupIndex.reverseLookup (shm-layout.md,
 * Readers): up to 3 times, indexState (acquire); an area it names past this view (or a slot past it
 * in the probe) follows the AV's growth and starts again on the new view; probe the active area; a
 * hit (checked like a lookup) is returned; a miss is trusted only if indexState, after an acquire
 * fence, is unchanged (no migration started, ended or reused an area meanwhile). After 3 tries every
 * slot of the view is scanned, and a scan that finds nothing while the AV grew follows it and starts
 * again. Returns 0, or -EIO when the AV grew and its new segments could not be followed
 * (shmav_av_follow says why).
 */
static inline int shmav_av_reverse_lookup(shmav_av *av, const void *addr, size_t addrlen, uint64_t *fi_addr)
{
    const unsigned char *a = (const unsigned char *)addr;
    *fi_addr = SHMAV_FI_ADDR_NOTAVAIL;
    uint32_t len = av->addr_len;
    if (av->addr_format == SHMAV_FI_ADDR_STR)
    {
        const size_t end = addrlen < SHMAV_FI_ADDR_STR_MAX ? addrlen : SHMAV_FI_ADDR_STR_MAX;
        const unsigned char *nul = (const unsigned char *)memchr(a, 0, end);
        if (nul == NULL)
        {
            return 0;
        }
        len = (uint32_t)(nul - a) + 1;
    }
    else if (av->addr_len_varying)
    {
        if (addrlen == 0 || addrlen > av->addr_len)
        {
            return 0; /* no entry has that length */
        }
        len = (uint32_t)addrlen; /* an opaque address of its own length: all of the caller's bytes */
    }
    else if (addrlen < len)
    {
        return 0;
    }
    const uint64_t no_auth_key = UINT64_MAX; /* -1: bound to no auth key */
    const uint64_t hash = shmav__hash(a, len, no_auth_key);
    for (;;)
    {
        for (int tries = 0; tries < SHMAV__LOOKUP_TRIES;)
        {
            /* Acquire: pairs with the CAS that set it, so a grower's segmentCount before it is seen below. */
            const uint64_t state = shmav__load64(av->base, SHMAV_H_INDEX_STATE, memory_order_acquire);
            uint64_t slot = SHMAV__STALE;
            if (shmav__state_segment(state) < av->segments &&
                (!shmav__state_migrating(state) || shmav__state_target(state) < av->segments))
            {
                slot = shmav__probe(av, state, hash, a, len, no_auth_key);
                if (slot < SHMAV__STALE)
                {
                    *fi_addr = shmav_av_fi_addr(av, slot);
                    return 0;
                }
            }
            if (slot == SHMAV__STALE)
            {
                const int grew = shmav_av_follow(av, NULL, 0);
                if (grew < 0)
                {
                    return -EIO;
                }
                /* A new view: start over on it. None: the index names what the AV never published (a
                 * damaged word): a failed try, never an area or slot outside the mapping. */
                tries = grew > 0 ? 0 : tries + 1;
                continue;
            }
            atomic_thread_fence(memory_order_acquire); /* the probe's reads before indexState's second read */
            if (slot == SHMAV__MISS && shmav__load64(av->base, SHMAV_H_INDEX_STATE, memory_order_relaxed) == state)
            {
                return 0; /* the area was the index, under stamp a, throughout the probe */
            }
            tries++; /* restamped or moved meanwhile: the probe may have missed a present key */
        }
        /* The index kept moving: scan every slot of the view. */
        for (uint64_t slot = 0; slot < av->capacity; slot++)
        {
            if (shmav__valid_with_key(av, slot, a, len, no_auth_key))
            {
                *fi_addr = shmav_av_fi_addr(av, slot);
                return 0;
            }
        }
        const int grew = shmav_av_follow(av, NULL, 0);
        if (grew <= 0)
        {
            return grew < 0 ? -EIO : 0; /* not in the AV, or its growth could not be followed */
        }
        /* It grew meanwhile: the key may be in a new segment. Look again on the new view. */
    }
}

/**
 * Attacher a's part of the count (EntryCount.share): its journal delta, and its operation in flight
 * once readers see it. A journal naming a publish counts its slot unless the slot is still the owner's
 * uncommitted claim (CLAIMED or CANCELLED by a); one naming a removal stops counting it once the slot
 * is REMOVING by a. The slot is taken only if the journal did not change while it was read (8 tries,
 * then the delta alone). A slot past the view follows the AV's growth first.
 */
static inline int32_t shmav__count_share(shmav_av *av, uint64_t a)
{
    const uint64_t at = av->attachers_offset + a * SHMAV_ATTACHER_LENGTH + SHMAV_ATTACHER_JOURNAL;
    uint64_t j = shmav__load64(av->base, at, memory_order_acquire);
    for (int tries = 0; tries < 8; tries++)
    {
        const uint32_t op = (uint32_t)(j & 3);
        const int32_t delta = (int32_t)(uint32_t)(j >> 32);
        if (op != SHMAV_JOURNAL_OP_PUBLISH && op != SHMAV_JOURNAL_OP_REMOVE)
        {
            return delta;
        }
        const uint64_t index = ((j & 0xffffffffULL) >> 2) - 1;
        if ((j & 0xffffffffULL) >> 2 == 0 || shmav__reach(av, index) != 0)
        {
            return delta; /* a damaged journal, or a growth that could not be followed */
        }
        const uint64_t s = shmav__load64(av->base, shmav__slot(av, index) + SHMAV_SLOT_STATE, memory_order_acquire);
        const uint64_t again = shmav__load64(av->base, at, memory_order_acquire);
        if (again == j)
        {
            const int owners = ((s & SHMAV_SLOT_PAYLOAD_MASK) >> 4) == a;
            const uint64_t st = s & 0xf;
            if (op == SHMAV_JOURNAL_OP_PUBLISH)
            {
                return (int32_t)((uint32_t)delta +
                    (owners && (st == SHMAV_SLOT_CLAIMED || st == SHMAV_SLOT_CANCELLED) ? 0u : 1u));
            }
            return (int32_t)((uint32_t)delta - (owners && st == SHMAV_SLOT_REMOVING ? 1u : 0u));
        }
        j = again;
    }
    return (int32_t)(uint32_t)(j >> 32);
}

/**
 * Entries now, by the readers' rule (shm-layout.md, Count): the number of slots that are committed or
 * VALID with references, exactly what shmav_av_lookup and shmav_av_reverse_lookup find, whatever
 * state a writer stopped in. The sum over attacher entries 0 .. attachersHighWater - 1 (the high water
 * clamped to attachersCapacity, as the Java count does) of each entry's journal delta, corrected for its
 * operation in flight (shmav__count_share). The deltas are signed 32-bit and summed modulo 2^32: one
 * attacher's delta may wrap while the AV's true count, below 2^31, is still exact. The sum, read as a
 * signed 32-bit number, is clamped at 0, as the Java count does. The sum is not atomic: while writers
 * insert and remove, it is the count of some interleaving of their operations; with no removals
 * running, a count of n means n entries can be looked up from then on. Never above INT32_MAX. May map
 * the AV again to follow its growth (a journal naming a slot of a new segment), as a lookup may.
 */
static inline uint32_t shmav_av_count(shmav_av *av)
{
    /* Java reads the high water as a signed long: a value with bit 63 set is negative and sums nothing. */
    const int64_t stored_high_water =
        (int64_t)shmav__load64(av->base, SHMAV_H_ATTACHERS_HIGH_WATER, memory_order_acquire);
    int64_t high_water = stored_high_water < 0 ? 0 : stored_high_water;
    if (high_water > (int64_t)av->attachers_capacity)
    {
        high_water = av->attachers_capacity;
    }
    uint32_t sum = 0;
    for (uint64_t a = 0; a < (uint64_t)high_water; a++)
    {
        sum += (uint32_t)shmav__count_share(av, a);
    }
    return sum > (uint32_t)INT32_MAX ? 0 : sum; /* negative as an i32: clamped at 0 */
}

/**
 * The change counter (what shmav watch polls): the sum of `published` + `removed` over the attacher
 * entries below attachersHighWater (clamped as in shmav_av_count). +1 for every publish of a new entry
 * and every removal of a last reference, by any process; not atomic while writers work.
 */
static inline uint64_t shmav_av_changes(const shmav_av *av)
{
    const int64_t stored_high_water =
        (int64_t)shmav__load64(av->base, SHMAV_H_ATTACHERS_HIGH_WATER, memory_order_acquire);
    int64_t high_water = stored_high_water < 0 ? 0 : stored_high_water;
    if (high_water > (int64_t)av->attachers_capacity)
    {
        high_water = av->attachers_capacity;
    }
    uint64_t sum = 0;
    for (uint64_t a = 0; a < (uint64_t)high_water; a++)
    {
        const uint64_t entry = av->attachers_offset + a * SHMAV_ATTACHER_LENGTH;
        sum += shmav__load64(av->base, entry + SHMAV_ATTACHER_PUBLISHED, memory_order_acquire) +
            shmav__load64(av->base, entry + SHMAV_ATTACHER_REMOVED, memory_order_acquire);
    }
    return sum;
}

/* Appends one IPv6 address (16 bytes, network order) as org.shmav.Addresses.ntop6 (= glibc inet_ntop) writes it. */
static inline int shmav__ntop6(const unsigned char *a, char *out, size_t room)
{
    unsigned words[8];
    for (int i = 0; i < 8; i++)
    {
        words[i] = (unsigned)a[2 * i] << 8 | a[2 * i + 1];
    }
    int best_base = -1;
    int best_len = 0;
    for (int i = 0; i < 8;)
    {
        if (words[i] != 0)
        {
            i++;
            continue;
        }
        int j = i;
        while (j < 8 && words[j] == 0)
        {
            j++;
        }
        if (j - i > best_len)
        {
            best_base = i;
            best_len = j - i;
        }
        i = j;
    }
    if (best_len < 2)
    {
        best_base = -1;
    }
    int n = 0;
    for (int i = 0; i < 8; i++)
    {
        if (best_base >= 0 && i >= best_base && i < best_base + best_len)
        {
            if (i == best_base)
            {
                n += snprintf(out + n, room - (size_t)n, ":");
            }
            continue;
        }
        if (i != 0)
        {
            n += snprintf(out + n, room - (size_t)n, ":");
        }
        /* IPv4-compatible (::a.b.c.d) and IPv4-mapped (::ffff:a.b.c.d) tails, as inet_ntop prints them. */
        if (i == 6 && best_base == 0 && (best_len == 6 || (best_len == 5 && words[5] == 0xffff)))
        {
            n += snprintf(out + n, room - (size_t)n, "%u.%u.%u.%u", words[6] >> 8, words[6] & 0xff,
                words[7] >> 8, words[7] & 0xff);
            return n;
        }
        n += snprintf(out + n, room - (size_t)n, "%x", words[i]);
    }
    if (best_base >= 0 && best_base + best_len == 8)
    {
        n += snprintf(out + n, room - (size_t)n, ":");
    }
    return n;
}

/* Host-order (little-endian) and network-order reads of an address's fields, for the straddr texts. */
static inline uint64_t shmav__le(const unsigned char *a, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
    {
        v = v << 8 | a[i];
    }
    return v;
}

static inline uint64_t shmav__be(const unsigned char *a, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
    {
        v = v << 8 | a[i];
    }
    return v;
}

/**
 * The text libfabric's ofi_straddr prints for the fixed-length provider formats (shm-layout.md,
 * Address formats; Java's Addresses.straddr): 0 and its length in *n, or -1 for FI_FORMAT_UNSPEC
 * (libfabric has none: print hex) or an address shorter than its format.
 */
static inline int shmav__provider_straddr(uint32_t format, const unsigned char *a, size_t addrlen, char *text,
    size_t room, size_t *n)
{
    const int32_t need = shmav__format_addr_len(format);
    if (need <= 0 || addrlen < (size_t)need)
    {
        return -1;
    }
    char gid[48];
    int k;
    switch (format)
    {
        case SHMAV_FI_SOCKADDR_IB:
            shmav__ntop6(a + 8, gid, sizeof gid);
            k = snprintf(text, room, "fi_sockaddr_ib://[%s]:0x%x:0x%x:0x%x", gid, (unsigned)shmav__be(a + 2, 2),
                (unsigned)((shmav__be(a + 24, 8) >> 16) & 0xfff), (unsigned)(shmav__be(a + 40, 8) & 0xff));
            break;
        case SHMAV_FI_ADDR_PSMX:
            k = snprintf(text, room, "fi_addr_psmx://%llx", (unsigned long long)shmav__le(a, 8));
            break;
        case SHMAV_FI_ADDR_PSMX2:
            k = snprintf(text, room, "fi_addr_psmx2://%llx:%llx", (unsigned long long)shmav__le(a, 8),
                (unsigned long long)shmav__le(a + 8, 8));
            break;
        case SHMAV_FI_ADDR_PSMX3:
            k = snprintf(text, room, "fi_addr_psmx3://%llx:%llx:%llx:%llx", (unsigned long long)shmav__le(a, 8),
                (unsigned long long)shmav__le(a + 8, 8), (unsigned long long)shmav__le(a + 16, 8),
                (unsigned long long)shmav__le(a + 24, 8));
            break;
        case SHMAV_FI_ADDR_OPX:
            k = snprintf(text, room, "fi_addr_opx://%016llx", (unsigned long long)shmav__le(a, 8));
            break;
        case SHMAV_FI_ADDR_EFA:
            shmav__ntop6(a, gid, sizeof gid);
            k = snprintf(text, room, "fi_addr_efa://[%s]:%u:%u", gid, (unsigned)shmav__le(a + 16, 2),
                (unsigned)shmav__le(a + 20, 4));
            break;
        case SHMAV_FI_ADDR_IB_UD:
            shmav__ntop6(a, gid, sizeof gid);
            k = snprintf(text, room, "fi_addr_ib_ud://%s:%x/%x/%x/%x", gid, (unsigned)shmav__le(a + 16, 4),
                (unsigned)shmav__le(a + 20, 2), (unsigned)shmav__le(a + 22, 2), (unsigned)a[26]);
            break;
        case SHMAV_FI_ADDR_CXI:
            k = snprintf(text, room, "fi_addr_cxi://0x%08x", (unsigned)shmav__le(a, 4));
            break;
        default:
            return -1;
    }
    *n = k < 0 ? 0 : (size_t)k < room ? (size_t)k : room - 1;
    return 0;
}

/**
 * fi_av_straddr, as org.shmav.Addresses.straddr writes it: fi_sockaddr_in://10.0.0.1:5000,
 * fi_sockaddr_in6://[::1]:5000 (the address as inet_ntop writes it), the string itself (up to its
 * NUL) for FI_ADDR_STR. Writes at most *len bytes into buf (NUL-terminated when *len > 0), sets *len
 * to the length the whole text needs with its NUL, and returns buf; NULL (and *len 0) when the
 * address is not of the AV's format (Java: null).
 */
static inline const char *shmav_av_straddr(const shmav_av *av, const void *addr, size_t addrlen, char *buf,
    size_t *len)
{
    const unsigned char *a = (const unsigned char *)addr;
    char text[SHMAV_FI_ADDR_STR_MAX + 64];
    size_t n = 0;
    if (av->addr_format == SHMAV_FI_ADDR_STR)
    {
        const size_t end = addrlen < SHMAV_FI_ADDR_STR_MAX ? addrlen : SHMAV_FI_ADDR_STR_MAX;
        const unsigned char *nul = (const unsigned char *)memchr(a, 0, end);
        n = nul != NULL ? (size_t)(nul - a) : (addrlen < sizeof text - 1 ? addrlen : sizeof text - 1);
        memcpy(text, a, n);
        text[n] = 0;
    }
    else if (av->addr_format != SHMAV_FI_SOCKADDR_IN && av->addr_format != SHMAV_FI_SOCKADDR_IN6)
    {
        if (shmav__provider_straddr(av->addr_format, a, addrlen, text, sizeof text, &n) != 0)
        {
            *len = 0;
            return NULL;
        }
    }
    else
    {
        const int family = addrlen >= 4 ? (int)(a[0] | (unsigned)a[1] << 8) : -1; /* sa_family, host (LE) order */
        const unsigned port = addrlen >= 4 ? (unsigned)a[2] << 8 | a[3] : 0;      /* network order */
        if (family == SHMAV_AF_INET && addrlen >= 16)
        {
            n = (size_t)snprintf(text, sizeof text, "fi_sockaddr_in://%u.%u.%u.%u:%u", a[4], a[5], a[6], a[7], port);
        }
        else if (family == SHMAV_AF_INET6 && addrlen >= 28)
        {
            int k = snprintf(text, sizeof text, "fi_sockaddr_in6://[");
            k += shmav__ntop6(a + 8, text + k, sizeof text - (size_t)k);
            k += snprintf(text + k, sizeof text - (size_t)k, "]:%u", port);
            n = (size_t)k;
        }
        else
        {
            *len = 0;
            return NULL;
        }
    }
    if (*len > 0)
    {
        const size_t copy = n + 1 <= *len ? n + 1 : *len;
        memcpy(buf, text, copy);
        buf[copy - 1] = 0;
    }
    *len = n + 1;
    return buf;
}

/** libfabric's name of the AV's format: "FI_SOCKADDR_IN", ..., "FI_FORMAT_UNSPEC" (opaque). */
static inline const char *shmav_av_format_name(const shmav_av *av)
{
    switch (av->addr_format)
    {
        case SHMAV_FI_FORMAT_UNSPEC: return "FI_FORMAT_UNSPEC";
        case SHMAV_FI_SOCKADDR_IN: return "FI_SOCKADDR_IN";
        case SHMAV_FI_SOCKADDR_IN6: return "FI_SOCKADDR_IN6";
        case SHMAV_FI_SOCKADDR_IB: return "FI_SOCKADDR_IB";
        case SHMAV_FI_ADDR_PSMX: return "FI_ADDR_PSMX";
        case SHMAV_FI_ADDR_PSMX2: return "FI_ADDR_PSMX2";
        case SHMAV_FI_ADDR_IB_UD: return "FI_ADDR_IB_UD";
        case SHMAV_FI_ADDR_EFA: return "FI_ADDR_EFA";
        case SHMAV_FI_ADDR_PSMX3: return "FI_ADDR_PSMX3";
        case SHMAV_FI_ADDR_OPX: return "FI_ADDR_OPX";
        case SHMAV_FI_ADDR_CXI: return "FI_ADDR_CXI";
        default: return "FI_ADDR_STR";
    }
}

#endif /* SHMAV_AV_H */
