/*
 * memory_limits: what the host's memory system allows, for docs/benchmarks.md beside shmav's figures
 * (scripts/bench-compare builds and runs it). Needs no libfabric.
 *
 *   memory_limits lookup N SLOT_BYTES [--passes P]
 *       The physical limit of shmav's lookup: N slots of SLOT_BYTES (64: shmav's layout for 16-byte
 *       addresses; 32: a compact layout) in a file mapped from /dev/shm (MAP_SHARED, the tmpfs pages
 *       shmav's named AVs get), read in fi_addr order as the lookup benchmarks do, one seqlock read per
 *       lookup: load the state word (acquire), check VALID, read addrLen, copy 16 address bytes into
 *       a destination buffer, acquire fence, load the state word again and compare. P passes over all
 *       N slots (default 10), each timed as a whole; prints the median pass per lookup.
 *       --handle: the same read behind what one shmav lookup call also does, as the JIT compiles it (every
 *       field loaded again after the fences): the fi_addr loaded from an array; the handle's chain to its
 *       lookup view (handle, lookups, regions, view: three dependent loads); the fi_addr decode (mask and
 *       map base loaded, FI_ADDR_NOTAVAIL and sign checks); the view's bound, slot 0's address, slot and
 *       address lengths; the destination buffer's fields (position, limit, read-only, address: checked);
 *       the state word's predicate (VALID with references; PUBLISHING tested second). Says what those
 *       loads and branches cost in C, beside the Java loop's figure; prints result lookup_64_handle.
 *   memory_limits bandwidth MB [--passes P]
 *       Streaming read of MB megabytes of anonymous memory by one core, P passes (default 5); prints
 *       the median pass in GB/s (10^9 bytes per second).
 *   memory_limits latency MB [--loads L]
 *       Dependent random reads in a file of MB megabytes mapped from /dev/shm: a pointer chase over its
 *       64-byte lines in one random cycle (every line once), L loads per pass (default 4,000,000), 3
 *       passes; prints the median pass per load. The insert's duplicate probe is one such read in the
 *       hash (16 MB at 1M entries).
 *   memory_limits insert MB [--work W] [--passes P]
 *       What one insert's memory traffic costs without shmav's code: for each of 1M inserts, CAS one
 *       8-byte bucket at a random place in a hash area of MB megabytes of /dev/shm (MB 0: no hash), CAS
 *       the state word of the next 64-byte slot from FREE to CLAIMED, write 16 address bytes, store
 *       map_addr[i] (release), CAS the state to VALID; plus W dependency-free ALU operations per insert
 *       (default 0), standing in for the rest of an insert's instructions, which fill the processor's
 *       window. The bucket's place comes from a generator, not from loaded values, as a hash comes from
 *       the address bytes: a core may overlap one insert's miss with the next one's when they are close
 *       enough. P passes (default 5) over fresh slots; prints the median pass per insert. Comparing MB
 *       sizes at one W says what the random bucket costs while the inserts stream through the slots.
 *
 *   memory_limits insert-shmav MB [--inserts N] [--work W] [--passes P] [--fresh] [--exclusive]
 *       The insert model with shmav's own atomics and lines (docs/performance.md, Where an insert's time
 *       goes): per insert, the handle lock's CAS (a private word) and its release store; loads of the
 *       header's segmentCount, freeHint, free-group mark and indexState words and of the writer's
 *       attacher line (token, journal, published); the duplicate probe's load of one random bucket in a
 *       hash of MB megabytes; map_addr[i] and the state word loaded, then the claim CAS FREE -> CLAIMED;
 *       the fill (addrLen, 16 address bytes, auth key, user id); the bucket CAS; map_addr[i] (release);
 *       journal (release), the commit CAS CLAIMED -> PUBLISHING, journal (release); the publish CAS
 *       PUBLISHING -> VALID; published (release); and, per free group (64 slots up to 1M), the hint CAS
 *       and the group's settle (fetch-and on the mark, a load of the group's state words); plus W
 *       operations of other work, as insert's --work (default 0). N inserts (default
 *       1M) into N fresh slots, P passes (default 5); prints the median pass per insert, in elapsed
 *       time and (_cpu) in the thread's CPU time, which a loaded machine disturbs less. MB past the
 *       last-level cache gives the out-of-cache row. The slot and hash pages are present before the
 *       timing, unless --fresh: then every pass writes new files whole with zeros and maps them, and
 *       writes only map_addr (all ones) through the mapping, as creating an AV does, so the inserts
 *       take the first-touch page faults of a new AV. --exclusive: a private AV, whose writes are all
 *       made under its handle's lock, so every CAS but the lock's is an acquire load, a compare and a
 *       release store (shmav's Memory.exclusive), no locked instruction.
 *   memory_limits insert-grow N [--first C] [--work W] [--passes P]
 *       The growth model: insert-shmav's atomics and lines for N inserts into an AV created with C slots
 *       (default N: the flat AV) that grows as a named AV does (shm-layout.md, GROWTH): when full, a new
 *       segment doubles the capacity (a file written with zeros, read once a page, map_addr set to all
 *       ones), and the index moves into the new segment's area, entry by entry in bucket order: the
 *       entry's slot read (loaded 64 entries ahead, as shmav's migration does), its new bucket CASed.
 *       Prints the median pass per insert (elapsed and _cpu) and the moved entries' and new segments'
 *       share. C = 1 against C = N says what growth costs at the memory system's pace; org.shmav.bench
 *       .GrowthCpu measures shmav the same way.
 *   memory_limits insert-writers P [--inserts N] [--run R | --spread] [--work W] [--passes K]
 *       Writer scaling at the memory system's pace: P forked processes, N inserts each (default 1M) with
 *       insert-shmav's atomics and lines, all into one shared region or each into a region of its own,
 *       alternating, K rounds (default 5). Claims: one locked add on the shared hint per claim (R = 1,
 *       the default: two writers at one frontier, as shmav's lowest-free-index rule with one call per
 *       address), per run of R slots (a batch's runs: then also the handle lock once a run and the
 *       buckets of 16 keys loaded together, as a batch call does), or --spread, each writer in a part of the region
 *       of its own (shmav's lowestIndex(false)). Prints each round's two throughputs, their ratio and the
 *       CPU time per insert: the model of org.shmav.bench.MultiWriter's rows, which org.shmav.bench.Scaling
 *       runs in the same rounds as shmav's writers (--passes 1: the _one and _each results).
 *
 * Slot layouts (the state word is src/main/java/org/shmav/shm/SlotDescriptor.java's: state in bits
 * 3..0, VALID = 2, reference count in bits 35..4, generation in bits 63..36):
 *
 *   64-byte slot (SlotDescriptor)             32-byte slot (compact, for comparison)
 *    0 | state word (u64)                      0 | state word (u64)
 *    8 | user id (u64)                         8 | addrLen (u32) | reserved (u32)
 *   16 | auth-key handle (u64)                16 | address bytes (16)
 *   24 | addrLen (u32) | reserved (u32)
 *   32 | address bytes (16), padding to 64
 *
 * Every result line is "result <name> <value> <unit>", as fabric_av_bench.c prints them; the rest is
 * commentary. Files in /dev/shm are named shmav-bench-limits-PID and unlinked as soon as they are
 * mapped, so no run leaves one behind.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

#define STATE_VALID 2u
#define STATE_MASK 0xFu
#define ADDR_BYTES 16

/* Keeps a value or the memory behind a pointer alive: the compiler must assume it is read. */
#define KEEP(p) __asm__ __volatile__("" : : "r"(p) : "memory")

static volatile uint64_t sink;

/* A file of `bytes` in /dev/shm, mapped MAP_SHARED read-write and already unlinked. */
static unsigned char *map_shm(size_t bytes)
{
    char name[64];
    snprintf(name, sizeof name, "/dev/shm/shmav-bench-limits-%ld", (long)getpid());
    int fd = open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) { perror(name); exit(1); }
    if (ftruncate(fd, (off_t)bytes)) { perror("ftruncate"); unlink(name); exit(1); }
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    unlink(name);
    close(fd);
    if (p == MAP_FAILED) { perror("mmap"); exit(1); }
    return p;
}

/* As map_shm, but the file is first written whole with zeros, as shmav creates an AV file (its pages
 * exist before the mapping; the mapping still faults at each page's first touch). */
static unsigned char *map_shm_written(size_t bytes)
{
    char name[64];
    snprintf(name, sizeof name, "/dev/shm/shmav-bench-limits-%ld", (long)getpid());
    int fd = open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) { perror(name); exit(1); }
    static unsigned char zeros[1 << 20];
    for (size_t at = 0; at < bytes;) {
        const size_t step = bytes - at < sizeof zeros ? bytes - at : sizeof zeros;
        const ssize_t w = pwrite(fd, zeros, step, (off_t)at);
        if (w <= 0) { perror("pwrite"); unlink(name); exit(1); }
        at += (size_t)w;
    }
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    unlink(name);
    close(fd);
    if (p == MAP_FAILED) { perror("mmap"); exit(1); }
    return p;
}

/* The bytes of address i, as fabric_av_bench.c and org.shmav.bench.BenchAddresses build them. */
static void fill_address(unsigned char *a, long i)
{
    memset(a, 0, ADDR_BYTES);
    a[0] = 2; /* AF_INET, little-endian sa_family */
    const unsigned port = 1024u + (unsigned)(i % 50000);
    a[2] = (unsigned char)(port >> 8);
    a[3] = (unsigned char)port;
    const uint32_t ip = (10u << 24) + (1u << 16) + (uint32_t)(i / 50000) + 1;
    a[4] = (unsigned char)(ip >> 24);
    a[5] = (unsigned char)(ip >> 16);
    a[6] = (unsigned char)(ip >> 8);
    a[7] = (unsigned char)ip;
}

/* What a shmav lookup call reads besides the slot (--handle), as objects in memory the fences make it reload. */
struct view { uint64_t first_by_address, capacity, first_slot; int32_t slot_length, max_len; };
struct regions { struct view *lookup_view; };
struct codec { uint64_t mask, masked_base; };
struct lookups { struct regions *regions; struct codec *codec; };
struct handle { struct lookups *lookups; };
struct buffer { uint64_t address; int32_t position, limit; int32_t read_only; };
#define STATE_PUBLISHING 4

/* One lookup as shmav's fast path does it (see --handle); the length, or -1. */
static inline int lookup_handle(const struct handle *av, uint64_t fi_addr, const struct buffer *dst)
{
    const struct view *v = __atomic_load_n(&av->lookups->regions->lookup_view, __ATOMIC_ACQUIRE);
    const struct codec *c = av->lookups->codec;
    if (fi_addr == UINT64_MAX) return -1;
    const int64_t index = (int64_t)(((fi_addr & c->mask) - c->masked_base) & c->mask);
    if (index < 0 || (uint64_t)index >= v->first_by_address) return -1;
    const unsigned char *s = (const unsigned char *)(uintptr_t)(v->first_slot + (uint64_t)index * (uint64_t)v->slot_length);
    const int max_len = v->max_len;
    const int at = dst->position;
    const uint64_t to = max_len >= 16 && dst->limit - at >= 16 && !dst->read_only && dst->address ? dst->address + (uint64_t)at : 0;
    const uint64_t before = __atomic_load_n((const uint64_t *)s, __ATOMIC_ACQUIRE);
    if ((before & STATE_MASK) == STATE_VALID ? (before >> 4 & 0xFFFFFFFFu) == 0 : (before & STATE_MASK) != STATE_PUBLISHING)
        return -1;
    const uint32_t len = *(const uint32_t *)(s + 24);
    if (len != ADDR_BYTES || !to) return -1;
    uint64_t w[2];
    memcpy(w, s + 32, sizeof w);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n((const uint64_t *)s, __ATOMIC_RELAXED) != before) return -1;
    memcpy((void *)(uintptr_t)to, w, sizeof w);
    return (int)len;
}

static int lookup(long n, int slot_bytes, long passes, int handle)
{
    if (slot_bytes != 64 && slot_bytes != 32) { fprintf(stderr, "SLOT_BYTES must be 64 or 32\n"); return 2; }
    const size_t len_offset = slot_bytes == 64 ? 24 : 8;
    const size_t addr_offset = slot_bytes == 64 ? 32 : 16;
    unsigned char *slots = map_shm((size_t)n * (size_t)slot_bytes);
    for (long i = 0; i < n; i++) {
        unsigned char *s = slots + (size_t)i * (size_t)slot_bytes;
        *(uint32_t *)(s + len_offset) = ADDR_BYTES;
        fill_address(s + addr_offset, i);
        /* VALID, one reference, generation 0; published with a release store, as shmav does. */
        __atomic_store_n((uint64_t *)s, ((uint64_t)1 << 4) | STATE_VALID, __ATOMIC_RELEASE);
    }
    unsigned char dst[ADDR_BYTES];
    /* --handle: the handle's objects, and fi_addr values in an array as a Java caller has them */
    static struct view view;
    static struct regions regions = { &view };
    static struct codec codec = { UINT64_MAX, 0 };
    static struct lookups lookups = { &regions, &codec };
    static struct handle av = { &lookups };
    static struct buffer out;
    uint64_t *fi_addrs = handle ? malloc((size_t)n * sizeof *fi_addrs) : NULL;
    if (handle) {
        if (slot_bytes != 64) { fprintf(stderr, "--handle reads 64-byte slots\n"); return 2; }
        view = (struct view){ (uint64_t)n, (uint64_t)n, (uint64_t)(uintptr_t)slots, slot_bytes, ADDR_BYTES };
        out = (struct buffer){ (uint64_t)(uintptr_t)dst, 0, ADDR_BYTES, 0 };
        for (long i = 0; i < n; i++) fi_addrs[i] = (uint64_t)i;
    }
    /* The handle as the compiler cannot see through it (a Java loop gets it as a value too): its first hop
     * is a load, as the JIT's is, not folded into the static's address. */
    const struct handle *handle_of = &av;
    __asm__ __volatile__("" : "+r"(handle_of));
    const struct buffer *out_of = &out;
    __asm__ __volatile__("" : "+r"(out_of));
    double *per_pass = calloc((size_t)passes, sizeof *per_pass);
    double *cpu_per_pass = calloc((size_t)passes, sizeof *cpu_per_pass);
    uint64_t copied = 0, failed = 0;
    long next = 0;
    for (long p = 0; p < passes; p++) {
        const double t0 = now_ns(), c0 = thread_cpu_ns();
        for (long k = 0; k < n; k++) {
            const long i = next;
            next = i + 1 == n ? 0 : i + 1;
            if (handle) {
                const int got = lookup_handle(handle_of, fi_addrs[i], out_of);
                if (got < 0) { failed++; continue; }
                KEEP(dst);
                copied += (uint64_t)got;
                continue;
            }
            const unsigned char *s = slots + (size_t)i * (size_t)slot_bytes;
            const uint64_t before = __atomic_load_n((const uint64_t *)s, __ATOMIC_ACQUIRE);
            if ((before & STATE_MASK) != STATE_VALID || (before >> 4 & 0xFFFFFFFFu) == 0) { failed++; continue; }
            const uint32_t len = *(const uint32_t *)(s + len_offset);
            if (len > ADDR_BYTES) { failed++; continue; }
            memcpy(dst, s + addr_offset, ADDR_BYTES);
            __atomic_thread_fence(__ATOMIC_ACQUIRE);
            if (__atomic_load_n((const uint64_t *)s, __ATOMIC_RELAXED) != before) { failed++; continue; }
            KEEP(dst); /* the copy must really be made, lookup by lookup */
            copied += len;
        }
        per_pass[p] = (now_ns() - t0) / (double)n;
        cpu_per_pass[p] = (thread_cpu_ns() - c0) / (double)n;
    }
    sink = copied + dst[0];
    if (failed) { fprintf(stderr, "%lu reads failed their check\n", (unsigned long)failed); return 1; }
    printf("# %ld slots of %d bytes in /dev/shm, %ld passes in fi_addr order%s; %lu bytes copied\n", n, slot_bytes,
        passes, handle ? ", with a shmav lookup call's other loads and checks (--handle)" : "", (unsigned long)copied);
    printf("result lookup_%d%s %.2f ns/op\n", slot_bytes, handle ? "_handle" : "", median(per_pass, (size_t)passes));
    /* CPU time, for a shared host where elapsed time is mostly other processes' (not a result line: the
     * page's rows use elapsed time); LookupCpu prints shmav's in the same form. */
    double lowest = cpu_per_pass[0];
    for (long p = 1; p < passes; p++) lowest = cpu_per_pass[p] < lowest ? cpu_per_pass[p] : lowest;
    printf("# lookup_%d%s CPU time: lowest pass %.2f ns/op, median %.2f\n", slot_bytes, handle ? "_handle" : "", lowest,
        median(cpu_per_pass, (size_t)passes));
    free(cpu_per_pass);
    free(fi_addrs);
    munmap(slots, (size_t)n * (size_t)slot_bytes);
    return 0;
}

typedef uint64_t v4u64 __attribute__((vector_size(32)));

static int bandwidth(long megabytes, long passes)
{
    const size_t bytes = (size_t)megabytes << 20;
    v4u64 *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) { perror("mmap"); return 1; }
    memset(mem, 1, bytes); /* every page present before the timing */
    const size_t vectors = bytes / sizeof(v4u64);
    double *per_pass = calloc((size_t)passes, sizeof *per_pass);
    v4u64 total = {0, 0, 0, 0};
    for (long p = 0; p < passes; p++) {
        v4u64 a = {0, 0, 0, 0}, b = a, c = a, d = a;
        const double t0 = now_ns();
        for (size_t v = 0; v < vectors; v += 4) {
            a += mem[v];
            b += mem[v + 1];
            c += mem[v + 2];
            d += mem[v + 3];
        }
        per_pass[p] = (double)bytes / (now_ns() - t0);
        total += a + b + c + d;
    }
    sink = total[0] + total[1] + total[2] + total[3];
    printf("# streaming read of %ld MB by one core, %ld passes\n", megabytes, passes);
    printf("result stream_read %.2f GB/s\n", median(per_pass, (size_t)passes));
    munmap(mem, bytes);
    return 0;
}

static int latency(long megabytes, long loads)
{
    const size_t bytes = (size_t)megabytes << 20;
    const size_t lines = bytes / 64;
    unsigned char *mem = map_shm(bytes);
    size_t *order = malloc(lines * sizeof *order);
    for (size_t i = 0; i < lines; i++) order[i] = i;
    /* Sattolo's shuffle: one cycle through every line, so the chase visits them all before repeating. */
    uint64_t x = 88172645463325252ull;
    for (size_t i = lines - 1; i > 0; i--) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        const size_t j = (size_t)(x % i);
        const size_t t = order[i]; order[i] = order[j]; order[j] = t;
    }
    for (size_t i = 0; i < lines; i++) *(uint64_t *)(mem + order[i] * 64) = (uint64_t)(order[(i + 1) % lines] * 64);
    free(order);
    double per_pass[3];
    uint64_t at = 0;
    for (size_t i = 0; i < lines; i++) at = *(volatile uint64_t *)(mem + at); /* warm the pages and the TLB */
    for (int p = 0; p < 3; p++) {
        const double t0 = now_ns();
        for (long k = 0; k < loads; k++) at = *(const uint64_t *)(mem + at);
        per_pass[p] = (now_ns() - t0) / (double)loads;
    }
    sink = at;
    printf("# dependent random reads of 64-byte lines in %ld MB of /dev/shm, %ld loads per pass, 3 passes\n",
        megabytes, loads);
    printf("result random_read_%ldmb %.2f ns/load\n", megabytes, median(per_pass, 3));
    munmap(mem, bytes);
    return 0;
}

/* Dependency-free work: four independent chains of adds, one add each per step. */
#define WORK4(a, b, c, d) __asm__ __volatile__("add $1,%0\n\tadd $1,%1\n\tadd $1,%2\n\tadd $1,%3" \
    : "+r"(a), "+r"(b), "+r"(c), "+r"(d))

static int insert(long megabytes, long work, long passes)
{
    const long n = 1000000;
    const size_t buckets = ((size_t)megabytes << 20) / 8;
    uint64_t *hash = buckets ? (uint64_t *)map_shm(buckets * 8) : NULL;
    if (hash) memset(hash, 0, buckets * 8); /* pages present before the timing, as in an AV */
    unsigned char *slots = map_shm((size_t)n * 64);
    uint64_t *map = (uint64_t *)map_shm((size_t)n * 8);
    double *per_pass = calloc((size_t)passes, sizeof *per_pass);
    uint64_t x = 88172645463325252ull, w0 = 0, w1 = 0, w2 = 0, w3 = 0;
    unsigned char address[ADDR_BYTES];
    for (long p = 0; p < passes; p++) {
        memset(slots, 0, (size_t)n * 64);            /* every slot FREE(0) again */
        memset(map, 0xFF, (size_t)n * 8);            /* every map_addr all ones */
        const double t0 = now_ns();
        for (long i = 0; i < n; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            for (long k = 0; k < work / 4; k++) WORK4(w0, w1, w2, w3);
            if (buckets) {
                uint64_t *b = &hash[(uint64_t)(((unsigned __int128)x * buckets) >> 64)]; /* x scaled to [0, buckets) */
                uint64_t v = __atomic_load_n(b, __ATOMIC_SEQ_CST);
                __atomic_compare_exchange_n(b, &v, v + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            }
            uint64_t *state = (uint64_t *)(slots + (size_t)i * 64);
            uint64_t free_word = 0;
            __atomic_compare_exchange_n(state, &free_word, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            fill_address(address, i);
            memcpy(slots + (size_t)i * 64 + 32, address, ADDR_BYTES);
            __atomic_store_n(&map[i], (uint64_t)i, __ATOMIC_RELEASE);
            uint64_t claimed = 1;
            __atomic_compare_exchange_n(state, &claimed, ((uint64_t)1 << 4) | STATE_VALID, 0, __ATOMIC_SEQ_CST,
                __ATOMIC_SEQ_CST);
        }
        per_pass[p] = (now_ns() - t0) / (double)n;
    }
    sink = w0 + w1 + w2 + w3 + map[n - 1];
    printf("# 1M inserts: random bucket CAS in %ld MB, 64-byte slots and map_addr in order, %ld operations of other "
        "work each, %ld passes\n", buckets ? megabytes : 0, work, passes);
    printf("result insert_model_%ldmb_w%ld %.2f ns/op\n", buckets ? megabytes : 0, work, median(per_pass, (size_t)passes));
    if (hash) munmap(hash, buckets * 8);
    munmap(slots, (size_t)n * 64);
    munmap(map, (size_t)n * 8);
    return 0;
}

/* Lines of the model's header, as src/main/java/org/shmav/shm/AvFileDescriptor.java places the words. */
#define H_SEGMENT_COUNT 128
#define H_FREE_HINT 256
#define H_INDEX_STATE 384
#define H_FREE_GROUPS 1024
#define H_ATTACHER 4096 /* the writer's own attacher entry: token, journal, phase, published */

/*
 * A compare-and-set of the insert model: a locked CAS, or (exclusive: a private AV, whose every write is
 * made under its handle's lock) what shmav's exclusive memory does instead, an acquire load, a compare
 * and a release store.
 */
static inline void model_cas(uint64_t *p, uint64_t expected, uint64_t value, int exclusive)
{
    if (exclusive) {
        if (__atomic_load_n(p, __ATOMIC_ACQUIRE) == expected) __atomic_store_n(p, value, __ATOMIC_RELEASE);
    } else {
        __atomic_compare_exchange_n(p, &expected, value, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    }
}

static int insert_shmav(long megabytes, long n, long work, long passes, int fresh, int exclusive)
{
    const size_t buckets = ((size_t)megabytes << 20) / 8;
    if (!buckets) { fprintf(stderr, "insert-shmav needs a hash of at least 1 MB\n"); return 2; }
    uint64_t *hash = NULL, *map = NULL;
    unsigned char *header = NULL, *slots = NULL;
    uint64_t lock_word = 0; /* the handle lock: a word of the writer's own heap */
    int shift = 6; /* free groups of 2^shift slots, at most 16384 of them (AvFileDescriptor.freeGroupShift) */
    while ((uint64_t)(n - 1) >> shift >= 16384) shift++;
    const long group_slots = 1L << shift;
#define H64(off) ((uint64_t *)(header + (off)))
    double *per_pass = calloc((size_t)passes, sizeof *per_pass), *cpu_per_pass = calloc((size_t)passes, sizeof *per_pass);
    uint64_t x = 88172645463325252ull, checks = 0, w0 = 0, w1 = 0, w2 = 0, w3 = 0;
    unsigned char address[ADDR_BYTES];
    for (long p = 0; p < passes; p++) {
        if (p == 0 || fresh) {
            if (p > 0) {
                munmap(hash, buckets * 8); munmap(header, 8192); munmap(slots, (size_t)n * 64); munmap(map, (size_t)n * 8);
            }
            hash = (uint64_t *)map_shm_written(buckets * 8);
            header = map_shm_written(8192);
            slots = map_shm_written((size_t)n * 64);
            map = (uint64_t *)map_shm_written((size_t)n * 8);
        }
        if (!fresh) { /* every page present before the timing */
            memset(slots, 0, (size_t)n * 64);
            memset(hash, 0, buckets * 8);
        }
        memset(map, 0xFF, (size_t)n * 8);            /* as an AV's creation writes it */
        memset(header, 0, 8192);
        *H64(H_SEGMENT_COUNT) = 1;
        *H64(H_INDEX_STATE) = 1;
        for (int w = 0; w < 256; w++) *H64(H_FREE_GROUPS + 8 * w) = ~0ull;
        const double t0 = now_ns(), c0 = thread_cpu_ns();
        for (long i = 0; i < n; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            for (long k = 0; k < work / 4; k++) WORK4(w0, w1, w2, w3);
            uint64_t unlocked = 0;
            __atomic_compare_exchange_n(&lock_word, &unlocked, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            checks += __atomic_load_n(H64(H_ATTACHER), __ATOMIC_RELAXED);           /* token */
            checks += __atomic_load_n((uint32_t *)(header + H_SEGMENT_COUNT), __ATOMIC_ACQUIRE);
            *H64(H_ATTACHER + 40) = 1;                                                /* phase */
            const uint64_t state = __atomic_load_n(H64(H_INDEX_STATE), __ATOMIC_SEQ_CST);
            uint64_t *b = &hash[(uint64_t)(((unsigned __int128)x * buckets) >> 64)];
            const uint64_t seen = __atomic_load_n(b, __ATOMIC_SEQ_CST);            /* the probe: EMPTY */
            const uint64_t hint = __atomic_load_n(H64(H_FREE_HINT), __ATOMIC_SEQ_CST);
            const long group = i >> shift;
            checks += __atomic_load_n(H64(H_FREE_GROUPS + 8 * (group >> 6)), __ATOMIC_SEQ_CST) >> (group & 63) & 1;
            uint64_t *st = (uint64_t *)(slots + (size_t)i * 64);
            checks += __atomic_load_n(&map[i], __ATOMIC_RELAXED) == ~0ull;
            const uint64_t free_word = __atomic_load_n(st, __ATOMIC_SEQ_CST);
            model_cas(st, free_word, 1, exclusive);
            if (((i + 1) & (group_slots - 1)) == 0) {                                /* left the hint's group */
                model_cas(H64(H_FREE_HINT), hint, (uint64_t)(i + 1), exclusive);
                uint64_t *mark = H64(H_FREE_GROUPS + 8 * (group >> 6));
                if (exclusive) {
                    const uint64_t marks = __atomic_load_n(mark, __ATOMIC_ACQUIRE);
                    model_cas(mark, marks, marks & ~(1ull << (group & 63)), 1);
                } else {
                    __atomic_fetch_and(mark, ~(1ull << (group & 63)), __ATOMIC_SEQ_CST);
                }
                for (long k = i + 1 - group_slots; k <= i; k++)
                    checks += __atomic_load_n((uint64_t *)(slots + (size_t)k * 64), __ATOMIC_SEQ_CST) == 0;
            }
            *(uint32_t *)((unsigned char *)st + 24) = ADDR_BYTES;                    /* the fill, plain */
            fill_address(address, i);
            memcpy((unsigned char *)st + 32, address, ADDR_BYTES);
            *(uint64_t *)((unsigned char *)st + 16) = ~0ull;
            *(uint64_t *)((unsigned char *)st + 8) = ~0ull;
            const uint64_t empty = __atomic_load_n(b, __ATOMIC_SEQ_CST);            /* the placing walk */
            model_cas(b, empty, seen + (uint64_t)i + 1, exclusive);
            checks += __atomic_load_n(H64(H_INDEX_STATE), __ATOMIC_SEQ_CST) == state;
            __atomic_store_n(&map[i], (uint64_t)i, __ATOMIC_RELEASE);
            const uint64_t journal = __atomic_load_n(H64(H_ATTACHER + 8), __ATOMIC_RELAXED);
            __atomic_store_n(H64(H_ATTACHER + 8), journal | 1, __ATOMIC_RELEASE);
            model_cas(st, 1, 3, exclusive);                                         /* the commit */
            __atomic_store_n(H64(H_ATTACHER + 8), journal + 2, __ATOMIC_RELEASE);
            model_cas(st, 3, ((uint64_t)1 << 4) | STATE_VALID, exclusive);            /* the publish */
            __atomic_store_n(H64(H_ATTACHER + 48), *H64(H_ATTACHER + 48) + 1, __ATOMIC_RELEASE); /* published */
            *H64(H_ATTACHER + 40) = 0;
            __atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE);
        }
        per_pass[p] = (now_ns() - t0) / (double)n;
        cpu_per_pass[p] = (thread_cpu_ns() - c0) / (double)n;
    }
#undef H64
    sink = checks + map[n - 1] + w0 + w1 + w2 + w3;
    printf("# %ld inserts with shmav's atomics and lines%s: random bucket in %ld MB, %ld operations of other work each, "
        "%ld passes, %s\n", n, exclusive ? " (exclusive: a private AV's stores for its CASes)" : "", megabytes, work, passes,
        fresh ? "each into a fresh file (slot and hash pages first touched by the inserts, as in a new AV)"
              : "pages present before the timing");
    const char *kind = exclusive ? "_exclusive" : "";
    printf("result insert_shmav_model_%ldmb%s%s %.2f ns/op\n", megabytes, kind, fresh ? "_fresh" : "",
        median(per_pass, (size_t)passes));
    printf("result insert_shmav_model_%ldmb%s%s_cpu %.2f ns/op\n", megabytes, kind, fresh ? "_fresh" : "",
        median(cpu_per_pass, (size_t)passes));
    munmap(hash, buckets * 8);
    munmap(header, 8192);
    munmap(slots, (size_t)n * 64);
    munmap(map, (size_t)n * 8);
    return 0;
}

/*
 * An insert's steps after its bucket is placed, as insert-shmav makes them: map_addr[i] (release), the
 * journal's op (release), the commit CAS CLAIMED -> PUBLISHING, the journal's count, the publish CAS
 * PUBLISHING -> VALID(1), the writer's published counter, its phase hint cleared. `attacher` is the
 * writer's attacher line (journal at 8, phase at 40, published at 48).
 */
static inline void commit_publish(uint64_t *st, uint64_t *map_entry, uint64_t i, unsigned char *attacher)
{
    uint64_t *journal_word = (uint64_t *)(attacher + 8), *published = (uint64_t *)(attacher + 48);
    __atomic_store_n(map_entry, i, __ATOMIC_RELEASE);
    const uint64_t journal = __atomic_load_n(journal_word, __ATOMIC_RELAXED);
    __atomic_store_n(journal_word, journal | 1, __ATOMIC_RELEASE);
    uint64_t claimed = 1, committed = 3;
    __atomic_compare_exchange_n(st, &claimed, 3, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    __atomic_store_n(journal_word, journal + 2, __ATOMIC_RELEASE);
    __atomic_compare_exchange_n(st, &committed, ((uint64_t)1 << 4) | STATE_VALID, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    __atomic_store_n(published, *published + 1, __ATOMIC_RELEASE);
    *(uint64_t *)(attacher + 40) = 0;
}

/*
 * The growth model: insert-shmav's per-insert atomics and lines into an AV whose segment 0 holds `first`
 * slots and which grows as shmav's named AV does (shm-layout.md, GROWTH): when full, a new segment of as
 * many slots again is appended (a file written whole with zeros, read once a page, map_addr set to all
 * ones) and the index moves into the new segment's hash area (buckets: the smallest power of two >= 2 x
 * capacity, two areas a segment). The move walks the old area in order and, for every entry, reads its
 * slot (the key that gives its new bucket; loaded TOUCH_AHEAD entries ahead, as IndexMigration.touchSlots
 * does) and CASes the new bucket. first = n: the flat AV, the same loop with nothing to grow.
 */
#define TOUCH_AHEAD 64
#define MAX_SEGMENTS 40

struct segment {
    unsigned char *base;
    size_t bytes;
    long first, end;      /* slots [first, end) */
    uint64_t *map;        /* map_addr of those slots */
    uint64_t *hash;       /* area 0: the index while this segment is the last */
    uint64_t buckets;
};

static struct segment segments[MAX_SEGMENTS];
static int segment_count;

static size_t align4k(size_t v) { return (v + 4095) & ~(size_t)4095; }

static void add_segment(long first, long end)
{
    struct segment *s = &segments[segment_count++];
    uint64_t buckets = 1;
    while (buckets < 2 * (uint64_t)end) buckets <<= 1;
    const size_t n = (size_t)(end - first), map_at = align4k(n * 64), hash_at = map_at + align4k(n * 8);
    s->bytes = hash_at + 16 * buckets;
    s->base = map_shm_written(s->bytes);
    uint64_t kept = 0;
    for (size_t at = 0; at < s->bytes; at += 4096) kept ^= *(volatile uint64_t *)(s->base + at); /* touchPages */
    sink ^= kept;
    s->first = first;
    s->end = end;
    s->map = (uint64_t *)(s->base + map_at);
    s->hash = (uint64_t *)(s->base + hash_at);
    s->buckets = buckets;
    memset(s->map, 0xFF, n * 8);
}

/* The segment of slot i: one division and a leading-zero count, as AvLayout.segmentOf (segment 0's size a power of two, or all of n). */
static inline struct segment *segment_of(long i)
{
    return i < segments[0].end ? &segments[0] : &segments[64 - __builtin_clzll((uint64_t)(i / segments[0].end))];
}

static inline unsigned char *slot_of(long i)
{
    const struct segment *s = segment_of(i);
    return s->base + (size_t)(i - s->first) * 64;
}

/* CASes entry (slot + 1) into the first EMPTY bucket from its key's home in `hash`. */
static inline void place(uint64_t *hash, uint64_t buckets, uint64_t key, uint64_t entry)
{
    for (uint64_t b = (uint64_t)(((unsigned __int128)key * buckets) >> 64);; b = (b + 1) & (buckets - 1)) {
        uint64_t empty = 0;
        if (__atomic_load_n(&hash[b], __ATOMIC_SEQ_CST) == 0 &&
            __atomic_compare_exchange_n(&hash[b], &empty, entry, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return;
    }
}

/* Moves the index from the last segment but one to the last: returns the entries copied. */
static long migrate(void)
{
    const struct segment *from = &segments[segment_count - 2], *to = &segments[segment_count - 1];
    long copied = 0;
    uint64_t kept = 0;
    for (uint64_t b = 0; b < from->buckets; b++) {
        if ((b & (TOUCH_AHEAD - 1)) == 0) {
            for (uint64_t a = b; a < b + TOUCH_AHEAD && a < from->buckets; a++) {
                const uint64_t v = from->hash[a];
                if (v) kept ^= *(volatile uint64_t *)slot_of((long)v - 1);
            }
        }
        const uint64_t v = __atomic_load_n(&from->hash[b], __ATOMIC_SEQ_CST);
        if (!v) continue;
        const unsigned char *st = slot_of((long)v - 1);
        const uint64_t before = __atomic_load_n((const uint64_t *)st, __ATOMIC_ACQUIRE);
        const uint64_t key = *(const uint64_t *)(st + 8);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if ((before & STATE_MASK) != STATE_VALID || *(const volatile uint64_t *)st != before) continue;
        place(to->hash, to->buckets, key, v);
        copied++;
    }
    sink ^= kept;
    return copied;
}

static int insert_grow(long n, long first, long work, long passes)
{
    if (first < 1 || first > n) { fprintf(stderr, "insert-grow: --first must be in [1, N]\n"); return 2; }
    uint64_t lock_word = 0, checks = 0, w0 = 0, w1 = 0, w2 = 0, w3 = 0, x = 88172645463325252ull;
    unsigned char *header = map_shm_written(8192);
    unsigned char address[ADDR_BYTES];
    double *per_pass = calloc((size_t)passes, sizeof *per_pass), *cpu_per_pass = calloc((size_t)passes, sizeof *per_pass);
    double grow_ns = 0, migrate_ns = 0;
    long migrated = 0, growths = 0;
#define H64(off) ((uint64_t *)(header + (off)))
    for (long p = 0; p < passes; p++) {
        while (segment_count > 0) { segment_count--; munmap(segments[segment_count].base, segments[segment_count].bytes); }
        add_segment(0, first);
        memset(header, 0, 8192);
        for (int w = 0; w < 256; w++) *H64(H_FREE_GROUPS + 8 * w) = ~0ull;
        const double t0 = now_ns(), c0 = thread_cpu_ns();
        for (long i = 0; i < n; i++) {
            if (i == segments[segment_count - 1].end) { /* full: grow, then move the index */
                const double g0 = now_ns();
                add_segment(i, 2 * i);
                const double g1 = now_ns();
                migrated += migrate();
                migrate_ns += now_ns() - g1;
                grow_ns += g1 - g0;
                growths++;
                __atomic_fetch_add(H64(H_INDEX_STATE), 1, __ATOMIC_SEQ_CST);
            }
            const struct segment *last = &segments[segment_count - 1];
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            for (long k = 0; k < work / 4; k++) WORK4(w0, w1, w2, w3);
            uint64_t unlocked = 0;
            __atomic_compare_exchange_n(&lock_word, &unlocked, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            checks += __atomic_load_n(H64(H_ATTACHER), __ATOMIC_RELAXED);
            checks += __atomic_load_n((uint32_t *)(header + H_SEGMENT_COUNT), __ATOMIC_ACQUIRE);
            *H64(H_ATTACHER + 40) = 1;
            const uint64_t state = __atomic_load_n(H64(H_INDEX_STATE), __ATOMIC_SEQ_CST);
            uint64_t *b = &last->hash[(uint64_t)(((unsigned __int128)x * last->buckets) >> 64)];
            checks += __atomic_load_n(b, __ATOMIC_SEQ_CST);                          /* the probe */
            const uint64_t hint = __atomic_load_n(H64(H_FREE_HINT), __ATOMIC_SEQ_CST);
            checks += __atomic_load_n(H64(H_FREE_GROUPS + 8 * ((i >> 6) >> 6)), __ATOMIC_SEQ_CST);
            const struct segment *s = segment_of(i);
            uint64_t *st = (uint64_t *)(s->base + (size_t)(i - s->first) * 64);
            checks += __atomic_load_n(&s->map[i - s->first], __ATOMIC_RELAXED) == ~0ull;
            uint64_t free_word = __atomic_load_n(st, __ATOMIC_SEQ_CST);
            __atomic_compare_exchange_n(st, &free_word, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            if (((i + 1) & 63) == 0) {                                                /* left the hint's group */
                uint64_t h = hint;
                __atomic_compare_exchange_n(H64(H_FREE_HINT), &h, (uint64_t)(i + 1), 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
                __atomic_fetch_and(H64(H_FREE_GROUPS + 8 * ((i >> 6) >> 6)), ~(1ull << ((i >> 6) & 63)), __ATOMIC_SEQ_CST);
                for (long k = i - 63; k <= i; k++) checks += __atomic_load_n((uint64_t *)slot_of(k), __ATOMIC_SEQ_CST) == 0;
            }
            *(uint32_t *)((unsigned char *)st + 24) = ADDR_BYTES;                    /* the fill, plain */
            fill_address(address, i);
            memcpy((unsigned char *)st + 32, address, ADDR_BYTES);
            *(uint64_t *)((unsigned char *)st + 16) = ~0ull;
            st[1] = x;                                                                /* the key's hash, for a move */
            place(last->hash, last->buckets, x, (uint64_t)i + 1);
            checks += __atomic_load_n(H64(H_INDEX_STATE), __ATOMIC_SEQ_CST) == state;
            commit_publish(st, &s->map[i - s->first], (uint64_t)i, header + H_ATTACHER);
            __atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE);
        }
        per_pass[p] = (now_ns() - t0) / (double)n;
        cpu_per_pass[p] = (thread_cpu_ns() - c0) / (double)n;
    }
#undef H64
    sink ^= checks + w0 + w1 + w2 + w3;
    printf("# %ld inserts with shmav's atomics and lines into an AV created with %ld slots, %ld operations of other work "
        "each, %ld passes; %ld growths, %ld entries moved: %.1f ns a moved entry, segments %.1f ns a new slot\n",
        n, first, work, passes, growths, migrated, migrated ? migrate_ns / (double)migrated : 0,
        growths ? grow_ns / ((double)n * (double)passes - (double)first * (double)passes) : 0);
    printf("result insert_grow_first%ld %.2f ns/op\n", first, median(per_pass, (size_t)passes));
    printf("result insert_grow_first%ld_cpu %.2f ns/op\n", first, median(cpu_per_pass, (size_t)passes));
    while (segment_count > 0) { segment_count--; munmap(segments[segment_count].base, segments[segment_count].bytes); }
    munmap(header, 8192);
    return 0;
}

/*
 * Writer scaling at the memory system's pace: P processes each make N inserts with insert-shmav's
 * atomics and lines, claiming runs of R slots (one locked add on the shared hint a run, as a batch's
 * run reservation), either all into one region (one hash, one slot table, the runs of different
 * writers side by side) or each into a region of its own. Each writer touches its whole mapping before
 * the start, as an attach does. Prints per round the throughput of both and their ratio, and the CPU
 * time per insert, the figures org.shmav.bench.MultiWriter gives for shmav's writer JVMs.
 */
struct region {
    unsigned char *base;
    size_t bytes;
    uint64_t *hash, *map;
    unsigned char *header, *slots;
    uint64_t buckets;
};

static struct region new_region(long slots)
{
    struct region r;
    r.buckets = 1;
    while (r.buckets < 2 * (uint64_t)slots) r.buckets <<= 1;
    const size_t header = 8192, slot_at = header, map_at = slot_at + align4k((size_t)slots * 64),
        hash_at = map_at + align4k((size_t)slots * 8);
    r.bytes = hash_at + 8 * r.buckets;
    r.base = map_shm_written(r.bytes);
    r.header = r.base;
    r.slots = r.base + slot_at;
    r.map = (uint64_t *)(r.base + map_at);
    r.hash = (uint64_t *)(r.base + hash_at);
    memset(r.map, 0xFF, (size_t)slots * 8);
    return r;
}

/* One writer's N inserts into r, runs of `run` slots from the hint; returns CPU ns per insert. */
static double writer_inserts(const struct region *r, int writer, long n, long run, long work, int spread, double *t0,
    double *t1)
{
    unsigned char *header = r->header;
    uint64_t lock_word = 0, checks = 0, w0 = 0, w1 = 0, w2 = 0, w3 = 0;
    uint64_t x = 88172645463325252ull ^ ((uint64_t)(writer + 1) * 0x9E3779B97F4A7C15ull);
    unsigned char address[ADDR_BYTES];
    const size_t attacher = 4096 + 64 * (size_t)(writer + 1);
    long next = spread ? writer * n : 0, end = spread ? (writer + 1) * n : 0; /* spread: a run of its own, far from the others' */
#define H64(off) ((uint64_t *)(header + (off)))
    *t0 = now_ns();
    const double c0 = thread_cpu_ns();
    uint64_t ahead[16];
    for (long k = 0; k < n; k++) {
        if (run > 1 && (k & 15) == 0) { /* a batch: the next 16 keys hashed and their buckets loaded together */
            for (int a = 0; a < 16; a++) {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                ahead[a] = x;
                checks += r->hash[(uint64_t)(((unsigned __int128)x * r->buckets) >> 64)];
            }
        }
        if (run > 1) x = ahead[k & 15];
        else { x ^= x << 13; x ^= x >> 7; x ^= x << 17; }
        for (long q = 0; q < work / 4; q++) WORK4(w0, w1, w2, w3);
        uint64_t unlocked = 0;
        if (run == 1 || next == end) /* a batch takes the handle lock once a call (a run here) */
            __atomic_compare_exchange_n(&lock_word, &unlocked, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        checks += __atomic_load_n(H64(attacher), __ATOMIC_RELAXED);
        checks += __atomic_load_n((uint32_t *)(header + H_SEGMENT_COUNT), __ATOMIC_ACQUIRE);
        *H64(attacher + 40) = 1;
        const uint64_t state = __atomic_load_n(H64(H_INDEX_STATE), __ATOMIC_SEQ_CST);
        uint64_t *b = &r->hash[(uint64_t)(((unsigned __int128)x * r->buckets) >> 64)];
        const uint64_t seen = __atomic_load_n(b, __ATOMIC_SEQ_CST);
        if (next == end) { /* a new run: the hint moved past it */
            next = (long)__atomic_fetch_add(H64(H_FREE_HINT), (uint64_t)run, __ATOMIC_SEQ_CST);
            end = next + run;
        }
        const long i = next++;
        uint64_t *st = (uint64_t *)(r->slots + (size_t)i * 64);
        checks += __atomic_load_n(&r->map[i], __ATOMIC_RELAXED) == ~0ull;
        uint64_t free_word = __atomic_load_n(st, __ATOMIC_SEQ_CST);
        __atomic_compare_exchange_n(st, &free_word, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        *(uint32_t *)((unsigned char *)st + 24) = ADDR_BYTES;
        fill_address(address, i);
        memcpy((unsigned char *)st + 32, address, ADDR_BYTES);
        *(uint64_t *)((unsigned char *)st + 16) = ~0ull;
        *(uint64_t *)((unsigned char *)st + 8) = ~0ull;
        uint64_t empty = __atomic_load_n(b, __ATOMIC_SEQ_CST);
        __atomic_compare_exchange_n(b, &empty, seen + (uint64_t)i + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        checks += __atomic_load_n(H64(H_INDEX_STATE), __ATOMIC_SEQ_CST) == state;
        commit_publish(st, &r->map[i], (uint64_t)i, header + attacher);
        if (run == 1 || next == end) __atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE);
    }
#undef H64
    *t1 = now_ns();
    sink ^= checks + w0 + w1 + w2 + w3;
    return (thread_cpu_ns() - c0) / (double)n;
}

struct writers_result { volatile int ready; volatile int go; double t0[8], t1[8], cpu[8]; };

/* P forked writers of n inserts each into `shared` regions (one for all, or one each); throughput, and mean CPU ns per insert. */
static double run_writers(int p, long n, long run, long work, int spread, int one_region, double *cpu)
{
    struct writers_result *res = mmap(NULL, sizeof *res, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    memset(res, 0, sizeof *res);
    struct region regions[8];
    for (int w = 0; w < p; w++) {
        if (w == 0 || !one_region) regions[w] = new_region(one_region ? (long)p * n : n);
        else regions[w] = regions[0];
    }
    for (int w = 0; w < p; w++) {
        if (fork() == 0) {
            uint64_t kept = 0; /* touch the whole mapping, as an attach does */
            for (size_t at = 0; at < regions[w].bytes; at += 4096) kept ^= *(volatile uint64_t *)(regions[w].base + at);
            sink ^= kept;
            __atomic_fetch_add(&res->ready, 1, __ATOMIC_SEQ_CST);
            while (!__atomic_load_n(&res->go, __ATOMIC_ACQUIRE)) { struct timespec ts = {0, 100000}; nanosleep(&ts, NULL); }
            res->cpu[w] = writer_inserts(&regions[w], one_region ? w : 0, n, run, work, spread, &res->t0[w], &res->t1[w]);
            _exit(0);
        }
    }
    const double deadline = now_ns() + 60e9;
    while (__atomic_load_n(&res->ready, __ATOMIC_SEQ_CST) < p && now_ns() < deadline) {
        struct timespec ts = {0, 1000000}; nanosleep(&ts, NULL);
    }
    __atomic_store_n(&res->go, 1, __ATOMIC_RELEASE);
    for (int w = 0; w < p; w++) wait(NULL);
    double first = res->t0[0], last = res->t1[0], cpu_sum = 0;
    for (int w = 0; w < p; w++) {
        if (res->t0[w] < first) first = res->t0[w];
        if (res->t1[w] > last) last = res->t1[w];
        cpu_sum += res->cpu[w];
    }
    *cpu = cpu_sum / p;
    for (int w = 0; w < p; w++) if (w == 0 || !one_region) munmap(regions[w].base, regions[w].bytes);
    munmap(res, sizeof *res);
    return (double)p * (double)n / ((last - first) / 1e9);
}

static int insert_writers(int p, long n, long run, long work, long rounds, int spread)
{
    if (p < 1 || p > 8 || run < 1) { fprintf(stderr, "insert-writers: 1 to 8 writers, --run at least 1\n"); return 2; }
    printf("# %d writer processes, %ld inserts each with insert-shmav's atomics and lines, %s, "
        "%ld operations of other work an insert: one shared region against one region each, alternating\n", p, n,
        spread ? "each claiming in a part of its own (spread claims)" : run > 1 ? "runs of the --run slots from the shared hint"
        : "each claim a locked add on the shared hint (one frontier)", work);
    for (long k = 0; k < rounds; k++) {
        double cpu_one, cpu_own;
        const double one = k % 2 ? 0 : run_writers(p, n, run, work, spread, 1, &cpu_one);
        const double own = run_writers(p, n, run, work, spread, 0, &cpu_own);
        const double one2 = k % 2 ? run_writers(p, n, run, work, spread, 1, &cpu_one) : one;
        printf("round %ld: one region %.0f inserts/s (CPU %.1f ns an insert), a region each %.0f (CPU %.1f): %.2fx\n",
            k + 1, one2, cpu_one, own, cpu_own, one2 / own);
        printf("result insert_writers_p%d_%s%ld_round%ld %.3f ratio\n", p, spread ? "spread" : "run", spread ? 0 : run,
            k + 1, one2 / own);
        /* the round's two throughputs, by name without the round: a caller running one round takes the ratio itself */
        printf("result insert_writers_p%d_%s%ld_one %.0f inserts/s\n", p, spread ? "spread" : "run", spread ? 0 : run, one2);
        printf("result insert_writers_p%d_%s%ld_each %.0f inserts/s\n", p, spread ? "spread" : "run", spread ? 0 : run, own);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s lookup N SLOT_BYTES [--passes P] [--handle] | bandwidth MB [--passes P] | latency MB [--loads L] | "
            "insert MB [--work W] [--passes P] | insert-shmav MB [--inserts N] [--work W] [--passes P] [--fresh] [--exclusive] | "
            "insert-grow N [--first C] [--work W] [--passes P] | "
            "insert-writers P [--inserts N] [--run R | --spread] [--work W] [--passes K]\n",
            argv[0]);
        return 2;
    }
    const char *mode = argv[1];
    const long size = atol(argv[2]);
    const int first_option = strcmp(mode, "lookup") ? 3 : 4;
    const long least = strcmp(mode, "insert") ? 1 : 0; /* insert 0: no hash at all */
    if (size < least || argc < first_option) { fprintf(stderr, "missing or bad size\n"); return 2; }
    long passes = strcmp(mode, "lookup") ? 5 : 10, loads = 4000000, work = 0, inserts = 1000000, first = -1, run = 1;
    int fresh = 0, exclusive = 0, handle = 0, spread = 0;
    for (int a = first_option; a < argc; a++) {
        if (!strcmp(argv[a], "--passes") && a + 1 < argc) passes = atol(argv[++a]);
        else if (!strcmp(argv[a], "--loads") && a + 1 < argc) loads = atol(argv[++a]);
        else if (!strcmp(argv[a], "--work") && a + 1 < argc) work = atol(argv[++a]);
        else if (!strcmp(argv[a], "--inserts") && a + 1 < argc) inserts = atol(argv[++a]);
        else if (!strcmp(argv[a], "--first") && a + 1 < argc) first = atol(argv[++a]);
        else if (!strcmp(argv[a], "--run") && a + 1 < argc) run = atol(argv[++a]);
        else if (!strcmp(argv[a], "--spread")) spread = 1;
        else if (!strcmp(argv[a], "--fresh")) fresh = 1;
        else if (!strcmp(argv[a], "--exclusive")) exclusive = 1;
        else if (!strcmp(argv[a], "--handle") && !strcmp(mode, "lookup")) handle = 1;
        else { fprintf(stderr, "unknown option %s\n", argv[a]); return 2; }
    }
    if (passes <= 0 || loads <= 0 || work < 0 || inserts <= 0) {
        fprintf(stderr, "--passes, --loads and --inserts must be positive, --work at least 0\n");
        return 2;
    }
    if (!strcmp(mode, "lookup")) return lookup(size, atoi(argv[3]), passes, handle);
    if (!strcmp(mode, "bandwidth")) return bandwidth(size, passes);
    if (!strcmp(mode, "latency")) return latency(size, loads);
    if (!strcmp(mode, "insert")) return insert(size, work, passes);
    if (!strcmp(mode, "insert-shmav")) return insert_shmav(size, inserts, work, passes, fresh, exclusive);
    if (!strcmp(mode, "insert-writers")) return insert_writers((int)size, inserts, run, work, passes, spread);
    if (!strcmp(mode, "insert-grow")) return insert_grow(size, first < 0 ? size : first, work, passes);
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
}
