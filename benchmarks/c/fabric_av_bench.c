/*
 * fabric_av_bench: times libfabric's own address vectors, for side-by-side numbers with shmav
 * (scripts/bench-compare builds and runs it; docs/benchmarks.md shows the results).
 *
 *   fabric_av_bench PROVIDER N [options]
 *     PROVIDER   sockets (named AV, the one libfabric provider with FI_SHARED_AV here) or tcp
 *                (tcp;ofi_rxm, an unnamed util AV)
 *     N          entries
 *     --named    open the AV with a name (sockets only)
 *     --passes P lookup passes over all N entries (default 10)
 *     --cycles R remove-then-reinsert cycles on the full AV (default 1000)
 *     --attach K FI_READ attaches to time (named AVs only; default 0)
 *
 * Addresses are sockaddr_in, address i = 10.(1 + i / 50000 / 65536).x.y : 1024 + i % 50000, the same
 * scheme as the Java benchmarks (org.shmav.bench.BenchAddresses). Every result line is
 * "result <name> <value> <unit>" so that the comparison driver can read it; the rest is commentary.
 * Lookup passes are timed as a whole (one clock read per pass); cycles and attaches one by one.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include "bench_util.h"

static void fill_address(struct sockaddr_in *sa, long i)
{
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)(1024 + i % 50000));
    sa->sin_addr.s_addr = htonl((uint32_t)((10u << 24) + (1u << 16) + (uint32_t)(i / 50000) + 1));
}

struct fabric
{
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
};

static int open_fabric(const char *provider, struct fabric *f)
{
    struct fi_info *hints = fi_allocinfo();
    hints->fabric_attr->prov_name = strdup(provider);
    hints->addr_format = FI_SOCKADDR_IN;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->av_type = FI_AV_TABLE;
    hints->caps = FI_MSG;
    int rc = fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", NULL, 0, hints, &f->info);
    fi_freeinfo(hints);
    if (rc) {
        fprintf(stderr, "fi_getinfo(%s): %s\n", provider, fi_strerror(-rc));
        return rc;
    }
    if ((rc = fi_fabric(f->info->fabric_attr, &f->fabric, NULL)) ||
        (rc = fi_domain(f->fabric, f->info, &f->domain, NULL))) {
        fprintf(stderr, "fi_fabric/fi_domain(%s): %s\n", provider, fi_strerror(-rc));
        return rc;
    }
    printf("# provider %s (%s), libfabric %u.%u\n", provider, f->info->fabric_attr->prov_name,
        FI_MAJOR(fi_version()), FI_MINOR(fi_version()));
    return 0;
}

static struct fid_av *open_av(struct fabric *f, long count, const char *name, uint64_t flags)
{
    struct fi_av_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.type = FI_AV_TABLE;
    attr.count = (size_t)count;
    attr.name = name;
    attr.flags = flags;
    struct fid_av *av = NULL;
    int rc = fi_av_open(f->domain, &attr, &av, NULL);
    if (rc) {
        fprintf(stderr, "fi_av_open(count=%ld name=%s flags=%#lx): %s\n", count, name ? name : "-",
            (unsigned long)flags, fi_strerror(-rc));
        return NULL;
    }
    return av;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s sockets|tcp N [--named] [--passes P] [--cycles R] [--attach K]\n", argv[0]);
        return 2;
    }
    const char *provider = argv[1];
    const long n = atol(argv[2]);
    int named = 0;
    long passes = 10, cycles = 1000, attaches = 0;
    for (int a = 3; a < argc; a++) {
        if (!strcmp(argv[a], "--named")) named = 1;
        else if (!strcmp(argv[a], "--passes") && a + 1 < argc) passes = atol(argv[++a]);
        else if (!strcmp(argv[a], "--cycles") && a + 1 < argc) cycles = atol(argv[++a]);
        else if (!strcmp(argv[a], "--attach") && a + 1 < argc) attaches = atol(argv[++a]);
        else { fprintf(stderr, "unknown option %s\n", argv[a]); return 2; }
    }
    struct fabric f;
    if (open_fabric(provider, &f)) return 1;

    char name[64];
    snprintf(name, sizeof name, "shmav-bench-%s-%ld", provider, (long)getpid());
    struct sockaddr_in *addrs = calloc((size_t)n, sizeof *addrs);
    fi_addr_t *fa = calloc((size_t)n, sizeof *fa);
    for (long i = 0; i < n; i++) fill_address(&addrs[i], i);

    /* 1. One batch insert of N addresses. */
    struct fid_av *av = open_av(&f, n, named ? name : NULL, 0);
    if (!av) return 1;
    double t0 = now_ns();
    int rc = fi_av_insert(av, addrs, (size_t)n, fa, 0, NULL);
    double t1 = now_ns();
    if (rc != n) { fprintf(stderr, "batch insert returned %d of %ld\n", rc, n); return 1; }
    printf("result batch_insert %.1f ns/addr\n", (t1 - t0) / n);

    /* 2. Lookup of every entry, P passes; the median pass. */
    double *per_pass = calloc((size_t)passes, sizeof *per_pass);
    long hits = 0;
    for (long p = 0; p < passes; p++) {
        struct sockaddr_in out;
        t0 = now_ns();
        for (long i = 0; i < n; i++) {
            size_t len = sizeof out;
            if (!fi_av_lookup(av, fa[i], &out, &len)) hits++;
        }
        per_pass[p] = (now_ns() - t0) / n;
    }
    if (hits != passes * n) { fprintf(stderr, "lookup hits %ld of %ld\n", hits, passes * n); return 1; }
    printf("result lookup %.2f ns/op\n", median(per_pass, (size_t)passes));

    /* 3. Remove one entry of the full AV, insert the same address again; R cycles, spread over the
     *    AV with a stride (7919 is prime, so k visits every index before repeating). */
    double *per_cycle = calloc((size_t)cycles, sizeof *per_cycle);
    double removing = 0, reinserting = 0;
    long k = 0;
    for (long c = 0; c < cycles; c++) {
        k = (k + 7919) % n;
        fi_addr_t one = fa[k];
        t0 = now_ns();
        rc = fi_av_remove(av, &one, 1, 0);
        t1 = now_ns();
        int ins = fi_av_insert(av, &addrs[k], 1, &one, 0, NULL);
        double t2 = now_ns();
        if (rc || ins != 1) { fprintf(stderr, "cycle %ld: remove %d insert %d\n", c, rc, ins); return 1; }
        fa[k] = one;
        per_cycle[c] = t2 - t0;
        removing += t1 - t0;
        reinserting += t2 - t1;
    }
    printf("result remove_reinsert %.1f ns/cycle\n", median(per_cycle, (size_t)cycles));
    printf("result remove_one %.1f ns/op\n", removing / cycles);
    printf("result reinsert_one %.1f ns/op\n", reinserting / cycles);

    /* 4. FI_READ attach while the writer keeps the AV open: K opens, none closed before the end
     *    (the sockets provider unlinks the name on every close). */
    if (named && attaches > 0) {
        struct fid_av **readers = calloc((size_t)attaches, sizeof *readers);
        double *per_attach = calloc((size_t)attaches, sizeof *per_attach);
        for (long a = 0; a < attaches; a++) {
            t0 = now_ns();
            readers[a] = open_av(&f, n, name, FI_READ);
            per_attach[a] = now_ns() - t0;
            if (!readers[a]) return 1;
        }
        printf("result attach_read %.1f ns/op\n", median(per_attach, (size_t)attaches));
        for (long a = 0; a < attaches; a++) fi_close(&readers[a]->fid);
    }

    /* 5. Remove everything in one call. */
    t0 = now_ns();
    rc = fi_av_remove(av, fa, (size_t)n, 0);
    t1 = now_ns();
    printf("result remove_all %.1f ns/addr\n", (t1 - t0) / n);
    fi_close(&av->fid);

    /* 6. A fresh AV filled one fi_av_insert call per address. */
    snprintf(name, sizeof name, "shmav-bench-%s-%ld-single", provider, (long)getpid());
    av = open_av(&f, n, named ? name : NULL, 0);
    if (!av) return 1;
    t0 = now_ns();
    for (long i = 0; i < n; i++) {
        if (fi_av_insert(av, &addrs[i], 1, &fa[i], 0, NULL) != 1) {
            fprintf(stderr, "single insert %ld failed\n", i);
            return 1;
        }
    }
    t1 = now_ns();
    printf("result single_insert %.1f ns/op\n", (t1 - t0) / n);
    fi_close(&av->fid);

    fi_close(&f.domain->fid);
    fi_close(&f.fabric->fid);
    fi_freeinfo(f.info);
    return 0;
}
