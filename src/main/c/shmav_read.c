/*
 * shmav_read: prints the entries of a shmav named AV from C, with the reader in shmav_av.h.
 *
 *   gcc -std=c11 -O2 -Wall -Wextra -Werror -o shmav_read shmav_read.c
 *
 *   shmav_read FILE                      one line per entry, "fi_addr<TAB>straddr" (fi_addr in
 *                                        decimal; hex for opaque addresses), in slot order, then "count N"
 *   shmav_read --watch-torn SECONDS FILE looks up every slot again and again for SECONDS while
 *                                        others write, and checks every address read against the
 *                                        seeded test addresses below, following the AV's
 *                                        growth after every pass; prints "segments0 N" (the view at
 *                                        open) at once, then at the end "lookups N", "valid N",
 *                                        "retries N", "torn N", "countmin N", "countmax N",
 *                                        "segments N", "capacity N" (the last view), "count N"
 *
 *   shmav_read --commands FILE           opens FILE, prints "ready segments S capacity C", then answers
 *                                        one command per line of stdin until "quit" or end of input,
 *                                        each answer flushed (fi_addr in decimal, address in hex):
 *       info              "segments S capacity C" of the view now (no following)
 *       follow            follows the AV's growth, then as info
 *       list              as "shmav_read FILE" prints, ending with "count N"
 *       lookup FI_ADDR    "FI_ADDR<TAB>straddr", or "FI_ADDR<TAB>none"
 *       reverse HEX       "reverse FI_ADDR", or "reverse none": the address (FI_ADDR_STR: with its NUL)
 *       check-reverse     reverse-looks-up the address of every entry it iterates over; prints
 *                         "checked N mismatched M" (M: found at another fi_addr, or not found)
 *       count             "count N"
 *
 * Exit status: 0 done, 1 usage, 2 the file is refused (the reason on stderr), 4 torn reads seen,
 * 5 a growth could not be followed (the reason on stderr).
 *
 * Seeded test addresses (the integration test CReaderIT writes only these in --watch-torn runs):
 * every byte of the address derives from one 32-bit seed s != 0 stored in the address, so a copy
 * that mixes two addresses (a torn read) does not match the address its seed yields.
 *   sm64(x)         splitmix64's output function of x (see below), on unsigned 64-bit x
 *   port            1024 + (sm64(s) >> 48) % 60000
 *   FI_SOCKADDR_IN  AF_INET, port, IPv4 address = s (big-endian), sin_zero 0
 *   FI_SOCKADDR_IN6 AF_INET6, port, flowinfo 0, address = s (big-endian, 4 bytes), sm64(s + 1)
 *                   (big-endian, 8 bytes), sm64(s + 2) >> 32 (big-endian, 4 bytes), scope id 0
 *   FI_ADDR_STR     "seed-%08x-" s, then the hex digits (%016llx) of sm64(s + 1), sm64(s + 2), ...
 *                   cut at 24 + sm64(s) % 100 characters, then the NUL
 */
#define _GNU_SOURCE /* F_OFD_SETLK: the readers' lock belongs to this reader's descriptor */

#include "shmav_av.h"

#include <inttypes.h>
#include <stdlib.h>

static uint64_t sm64(uint64_t x)
{
    uint64_t z = x + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void put_be(unsigned char *out, uint64_t value, int bytes)
{
    for (int i = 0; i < bytes; i++)
    {
        out[i] = (unsigned char)(value >> (8 * (bytes - 1 - i)));
    }
}

static uint32_t get_be32(const unsigned char *in)
{
    return (uint32_t)in[0] << 24 | (uint32_t)in[1] << 16 | (uint32_t)in[2] << 8 | in[3];
}

/** The seeded test address of seed s in the given format; its length. */
static size_t seeded_address(uint32_t format, uint32_t s, unsigned char *out)
{
    const unsigned port = 1024 + (unsigned)((sm64(s) >> 48) % 60000);
    switch (format)
    {
        case SHMAV_FI_SOCKADDR_IN:
            memset(out, 0, 16);
            out[0] = SHMAV_AF_INET;
            put_be(out + 2, port, 2);
            put_be(out + 4, s, 4);
            return 16;
        case SHMAV_FI_SOCKADDR_IN6:
            memset(out, 0, 28);
            out[0] = SHMAV_AF_INET6;
            put_be(out + 2, port, 2);
            put_be(out + 8, s, 4);
            put_be(out + 12, sm64((uint64_t)s + 1), 8);
            put_be(out + 20, sm64((uint64_t)s + 2) >> 32, 4);
            return 28;
        default:
        {
            const size_t length = 24 + (size_t)(sm64(s) % 100);
            char text[24 + 100 + 20];
            int n = snprintf(text, sizeof text, "seed-%08" PRIx32 "-", s);
            for (uint64_t k = 1; (size_t)n < length; k++)
            {
                n += snprintf(text + n, sizeof text - (size_t)n, "%016" PRIx64, sm64((uint64_t)s + k));
            }
            memcpy(out, text, length);
            out[length] = 0;
            return length + 1;
        }
    }
}

/** True when addr is exactly the seeded test address of the seed it carries. */
static int is_seeded(uint32_t format, const unsigned char *addr, size_t len)
{
    uint32_t s;
    if (format == SHMAV_FI_SOCKADDR_IN)
    {
        if (len < 8)
        {
            return 0;
        }
        s = get_be32(addr + 4);
    }
    else if (format == SHMAV_FI_SOCKADDR_IN6)
    {
        if (len < 12)
        {
            return 0;
        }
        s = get_be32(addr + 8);
    }
    else
    {
        char hex[9];
        if (len < 14 || memcmp(addr, "seed-", 5) != 0 || addr[13] != '-')
        {
            return 0;
        }
        memcpy(hex, addr + 5, 8);
        hex[8] = 0;
        char *end;
        s = (uint32_t)strtoul(hex, &end, 16);
        if (*end != 0)
        {
            return 0;
        }
    }
    unsigned char expected[SHMAV_MAX_ADDR_LEN + 8];
    const size_t n = seeded_address(format, s, expected);
    return s != 0 && n == len && memcmp(expected, addr, len) == 0;
}

static void print_hex(FILE *out, const unsigned char *addr, size_t len)
{
    for (size_t i = 0; i < len; i++)
    {
        fprintf(out, "%02x", addr[i]);
    }
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/**
 * Prints "fi_addr<TAB>straddr": for FI_FORMAT_UNSPEC the bytes in hex, as Java's text of an opaque
 * address (libfabric has no straddr for them); "?" and the hex for another address without text.
 */
static void print_entry(const shmav_av *av, uint64_t fi_addr, const unsigned char *addr, size_t len)
{
    char text[SHMAV_FI_ADDR_STR_MAX + 64];
    size_t text_len = sizeof text;
    if (av->addr_format == SHMAV_FI_FORMAT_UNSPEC)
    {
        printf("%" PRIu64 "	", fi_addr);
        print_hex(stdout, addr, len);
        printf("\n");
    }
    else if (shmav_av_straddr(av, addr, len, text, &text_len) == NULL)
    {
        printf("%" PRIu64 "\t?", fi_addr);
        print_hex(stdout, addr, len);
        printf("\n");
    }
    else
    {
        printf("%" PRIu64 "\t%s\n", fi_addr, text);
    }
}

/** Reports a growth the reader could not follow; 5. */
static int follow_failed(shmav_av *av)
{
    char err[512] = "";
    shmav_av_follow(av, err, sizeof err);
    fprintf(stderr, "shmav_read: cannot follow the AV's growth: %s\n", err);
    return 5;
}

static int list(shmav_av *av)
{
    uint64_t cursor = 0;
    uint64_t fi_addr;
    unsigned char addr[SHMAV_MAX_ADDR_LEN];
    size_t len = sizeof addr;
    int rc;
    while ((rc = shmav_av_next(av, &cursor, &fi_addr, addr, &len)) > 0)
    {
        print_entry(av, fi_addr, addr, len);
        len = sizeof addr;
    }
    printf("count %" PRIu32 "\n", shmav_av_count(av));
    return rc < 0 ? follow_failed(av) : 0;
}

static int watch_torn(shmav_av *av, double seconds)
{
    /* First, and flushed: a test starts its writers once the reader has the AV open. */
    printf("segments0 %" PRIu32 "\n", av->segments);
    fflush(stdout);
    unsigned long lookups = 0;
    unsigned long valid = 0;
    unsigned long retries = 0;
    unsigned long torn = 0;
    int32_t count_min = INT32_MAX;
    int32_t count_max = INT32_MIN;
    const double deadline = now_seconds() + seconds;
    do
    {
        for (uint64_t i = 0; i < av->capacity; i++)
        {
            unsigned char addr[SHMAV_MAX_ADDR_LEN];
            size_t len = sizeof addr;
            lookups++;
            if (shmav_av_lookup_index_r(av, i, addr, &len, &retries) != 0)
            {
                continue;
            }
            valid++;
            if (!is_seeded(av->addr_format, addr, len))
            {
                if (torn++ < 5)
                {
                    fprintf(stderr, "shmav_read: torn read at fi_addr %" PRIu64 ": ", shmav_av_fi_addr(av, i));
                    print_hex(stderr, addr, len);
                    fprintf(stderr, "\n");
                }
            }
        }
        if (shmav_av_follow(av, NULL, 0) < 0) /* the AV grew: read its new segments on the next pass */
        {
            return follow_failed(av);
        }
        const int32_t count = (int32_t)shmav_av_count(av);
        count_min = count < count_min ? count : count_min;
        count_max = count > count_max ? count : count_max;
    } while (now_seconds() < deadline);
    printf("lookups %lu\nvalid %lu\nretries %lu\ntorn %lu\ncountmin %" PRId32 "\ncountmax %" PRId32 "\n", lookups,
        valid, retries, torn, count_min, count_max);
    printf("segments %" PRIu32 "\ncapacity %" PRIu64 "\n", av->segments, av->capacity);
    printf("count %" PRIu32 "\n", shmav_av_count(av));
    return torn == 0 ? 0 : 4;
}

/** Parses hex digits into out (at most room bytes); the byte count, or -1. */
static long parse_hex(const char *hex, unsigned char *out, size_t room)
{
    const size_t digits = strlen(hex);
    if (digits % 2 != 0 || digits / 2 > room)
    {
        return -1;
    }
    for (size_t i = 0; i < digits / 2; i++)
    {
        char pair[3] = {hex[2 * i], hex[2 * i + 1], 0};
        char *end;
        const unsigned long v = strtoul(pair, &end, 16);
        if (*end != 0)
        {
            return -1;
        }
        out[i] = (unsigned char)v;
    }
    return (long)(digits / 2);
}

static int check_reverse(shmav_av *av)
{
    uint64_t cursor = 0;
    uint64_t fi_addr;
    unsigned char addr[SHMAV_MAX_ADDR_LEN];
    size_t len = sizeof addr;
    unsigned long checked = 0;
    unsigned long mismatched = 0;
    int rc;
    while ((rc = shmav_av_next(av, &cursor, &fi_addr, addr, &len)) > 0)
    {
        uint64_t found;
        if (shmav_av_reverse_lookup(av, addr, len, &found) != 0)
        {
            return follow_failed(av);
        }
        checked++;
        if (found != fi_addr)
        {
            if (mismatched++ < 5)
            {
                fprintf(stderr, "shmav_read: reverse lookup of fi_addr %" PRIu64 " gave %" PRIu64 "\n", fi_addr,
                    found);
            }
        }
        len = sizeof addr;
    }
    printf("checked %lu mismatched %lu\n", checked, mismatched);
    return rc < 0 ? follow_failed(av) : 0;
}

/** The --commands loop (see the top of this file). */
static int commands(shmav_av *av)
{
    printf("ready segments %" PRIu32 " capacity %" PRIu64 "\n", av->segments, av->capacity);
    fflush(stdout);
    char line[2 * SHMAV_MAX_ADDR_LEN + 64];
    while (fgets(line, sizeof line, stdin) != NULL)
    {
        line[strcspn(line, "\r\n")] = 0;
        int rc = 0;
        if (strcmp(line, "quit") == 0)
        {
            break;
        }
        else if (strcmp(line, "info") == 0 || strcmp(line, "follow") == 0)
        {
            if (line[0] == 'f' && shmav_av_follow(av, NULL, 0) < 0)
            {
                rc = follow_failed(av);
            }
            printf("segments %" PRIu32 " capacity %" PRIu64 "\n", av->segments, av->capacity);
        }
        else if (strcmp(line, "list") == 0)
        {
            rc = list(av);
        }
        else if (strcmp(line, "check-reverse") == 0)
        {
            rc = check_reverse(av);
        }
        else if (strcmp(line, "count") == 0)
        {
            printf("count %" PRIu32 "\n", shmav_av_count(av));
        }
        else if (strcmp(line, "changes") == 0)
        {
            printf("changes %" PRIu64 "\n", shmav_av_changes(av));
        }
        else if (strncmp(line, "lookup ", 7) == 0)
        {
            const uint64_t fi_addr = strtoull(line + 7, NULL, 10);
            unsigned char addr[SHMAV_MAX_ADDR_LEN];
            size_t len = sizeof addr;
            const int found = shmav_av_lookup(av, fi_addr, addr, &len);
            if (found == 0)
            {
                print_entry(av, fi_addr, addr, len);
            }
            else
            {
                rc = found == -EIO ? follow_failed(av) : 0;
                printf("%" PRIu64 "\tnone\n", fi_addr);
            }
        }
        else if (strncmp(line, "reverse ", 8) == 0)
        {
            unsigned char addr[SHMAV_MAX_ADDR_LEN];
            const long len = parse_hex(line + 8, addr, sizeof addr);
            uint64_t found = SHMAV_FI_ADDR_NOTAVAIL;
            if (len < 0)
            {
                fprintf(stderr, "shmav_read: not an address in hex: %s\n", line + 8);
                return 1;
            }
            if (shmav_av_reverse_lookup(av, addr, (size_t)len, &found) != 0)
            {
                rc = follow_failed(av);
            }
            if (found == SHMAV_FI_ADDR_NOTAVAIL)
            {
                printf("reverse none\n");
            }
            else
            {
                printf("reverse %" PRIu64 "\n", found);
            }
        }
        else
        {
            fprintf(stderr, "shmav_read: unknown command: %s\n", line);
            return 1;
        }
        if (fflush(stdout) != 0)
        {
            return 3;
        }
        if (rc != 0)
        {
            return rc;
        }
    }
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: shmav_read FILE\n       shmav_read --watch-torn SECONDS FILE\n"
        "       shmav_read --commands FILE\n");
    return 1;
}

int main(int argc, char **argv)
{
    double watch = -1;
    int interactive = 0;
    const char *file;
    if (argc == 2 && argv[1][0] != '-')
    {
        file = argv[1];
    }
    else if (argc == 3 && strcmp(argv[1], "--commands") == 0)
    {
        interactive = 1;
        file = argv[2];
    }
    else if (argc == 4 && strcmp(argv[1], "--watch-torn") == 0)
    {
        char *end;
        watch = strtod(argv[2], &end);
        if (*end != 0 || !(watch >= 0 && watch <= 86400))
        {
            return usage();
        }
        file = argv[3];
    }
    else
    {
        return usage();
    }
    shmav_av av;
    char err[512];
    if (shmav_av_open(&av, file, err, sizeof err) != 0)
    {
        fprintf(stderr, "shmav_read: %s\n", err);
        return 2;
    }
    const int rc = interactive ? commands(&av) : watch >= 0 ? watch_torn(&av, watch) : list(&av);
    shmav_av_close(&av);
    if (fflush(stdout) != 0)
    {
        return 3;
    }
    return rc;
}
