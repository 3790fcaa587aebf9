/*
 * light_rank: a rank of a scale run that costs almost nothing. It hands its address to its node's local
 * rank 0 (a JVM) through its record in the node's job file /dev/shm/.shmav-job.<AV name> (shm-layout.md,
 * "Job file"), takes part in the launcher's exchange (every rank does), then waits for the job file's
 * state "AV filled" and checks that its node's AV (/dev/shm/<AV name>, filled by the node's local rank
 * 0) holds every rank of the job, reading it through the shipped header alone; prints "light RANK seen_ms EPOCH_MS" (when it saw every
 * rank) and finalizes.
 *
 * Two builds, one per launcher store:
 *   MPICH's mpiexec (PMI-1 on PMI_FD: init, get_my_kvsname, barrier; AV mpich-<kvsname>):
 *     gcc -std=c11 -O2 -Wall -Wextra -Werror -I src/main/c -o light_rank integration-tests/nodes/light_rank.c
 *   Open MPI's mpirun (PMIx: PMIx_Init, PMIx_Fence collecting data; AV ompi-<namespace>):
 *     gcc -std=c11 -O2 -Wall -Wextra -Werror -DLIGHT_PMIX -I src/main/c -I /usr/lib/x86_64-linux-gnu/pmix2/include \
 *         -o light_rank_pmix integration-tests/nodes/light_rank.c -L /usr/lib/x86_64-linux-gnu/pmix2/lib -lpmix \
 *         -Wl,-rpath,/usr/lib/x86_64-linux-gnu/pmix2/lib
 *
 * Exit status: 0 every rank seen, 1 not started by the launcher, 2 the store failed, 3 the AV was not
 * filled within 300 s, 4 the job file did not appear within 300 s or could not be written.
 */
#define _GNU_SOURCE

#include "shmav_av.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

/* What the launcher tells a rank: its place, and the AV's name (shmav's name for the job's AV). */
struct job
{
    int rank;
    int size;
    int local;
    int slots;
    char av[300];
};

#ifdef LIGHT_PMIX
#include <pmix.h>

static pmix_proc_t me;

static int env_int(const char *name)
{
    const char *v = getenv(name);
    return v == NULL ? -1 : atoi(v);
}

static int store_init(struct job *job)
{
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
    {
        return 2;
    }
    job->rank = env_int("OMPI_COMM_WORLD_RANK");
    job->size = env_int("OMPI_COMM_WORLD_SIZE");
    job->local = env_int("OMPI_COMM_WORLD_LOCAL_RANK");
    job->slots = env_int("OMPI_COMM_WORLD_LOCAL_SIZE");
    if (job->rank < 0 || job->size < 1 || job->local < 0 || job->slots < 1)
    {
        return 1;
    }
    /* Launcher's avName: "ompi-" and the namespace, every character outside [A-Za-z0-9_.-] as '_' */
    snprintf(job->av, sizeof job->av, "ompi-%s", me.nspace);
    for (char *c = job->av + 5; *c; c++)
    {
        if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '.' ||
            *c == '-'))
        {
            *c = '_';
        }
    }
    return 0;
}

static int store_exchange(void)
{
    pmix_info_t info;
    bool collect = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    return PMIx_Fence(&all, 1, &info, 1) == PMIX_SUCCESS ? 0 : -1;
}

static void store_finalize(void)
{
    PMIx_Finalize(NULL, 0);
}
#else
static int fd;

static int ask(const char *command, char *answer, size_t size)
{
    const size_t len = strlen(command);
    if (write(fd, command, len) != (ssize_t)len)
    {
        return -1;
    }
    size_t n = 0;
    for (;;)
    {
        char c;
        if (read(fd, &c, 1) != 1)
        {
            return -1;
        }
        if (c == '\n')
        {
            break;
        }
        if (n + 1 < size)
        {
            answer[n++] = c;
        }
    }
    answer[n] = '\0';
    return 0;
}

static int store_init(struct job *job)
{
    const char *pmi_fd = getenv("PMI_FD");
    const char *rank_s = getenv("PMI_RANK");
    const char *size_s = getenv("PMI_SIZE");
    const char *local_s = getenv("MPI_LOCALRANKID");
    const char *locals_s = getenv("MPI_LOCALNRANKS");
    if (pmi_fd == NULL || rank_s == NULL || size_s == NULL || local_s == NULL || locals_s == NULL)
    {
        fprintf(stderr, "light_rank: not started by mpiexec (PMI_FD, PMI_RANK, PMI_SIZE, MPI_LOCALRANKID)\n");
        return 1;
    }
    fd = atoi(pmi_fd);
    job->rank = atoi(rank_s);
    job->size = atoi(size_s);
    job->local = atoi(local_s);
    job->slots = atoi(locals_s);
    char answer[1024];
    if (ask("cmd=init pmi_version=1 pmi_subversion=1\n", answer, sizeof answer) < 0 ||
        ask("cmd=get_my_kvsname\n", answer, sizeof answer) < 0)
    {
        return 2;
    }
    const char *k = strstr(answer, "kvsname=");
    if (k == NULL)
    {
        return 2;
    }
    char kvs[256];
    snprintf(kvs, sizeof kvs, "%s", k + 8);
    kvs[strcspn(kvs, " ")] = '\0';
    snprintf(job->av, sizeof job->av, "mpich-%s", kvs);
    return 0;
}

static int store_exchange(void)
{
    char answer[1024];
    return ask("cmd=barrier_in\n", answer, sizeof answer);
}

static void store_finalize(void)
{
    char answer[1024];
    ask("cmd=finalize\n", answer, sizeof answer);
}
#endif

static long long now_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

int main(void)
{
    struct job job;
    const int started = store_init(&job);
    if (started != 0)
    {
        return started;
    }
    /* FI_SOCKADDR_IN as Java's Addresses writes it: family 2 in host order, port and address big-endian */
    const unsigned port = 20000 + (unsigned)job.rank;
    const unsigned char addr[16] = {2, 0, (unsigned char)(port >> 8), (unsigned char)port, 127, 0, 0, 1};
    char path[512];
    snprintf(path, sizeof path, "/dev/shm/.shmav-job.%s", job.av);
    int jf = -1;
    const long long job_deadline = now_ms() + 300000;
    /* a thousand ranks poll: back off to 1 s, or their wake-ups take the CPUs the JVMs need to start */
    long wait_ms = 10;
    while ((jf = open(path, O_RDWR)) < 0 && now_ms() < job_deadline)
    {
        struct timespec ts = {wait_ms / 1000, (wait_ms % 1000) * 1000 * 1000};
        nanosleep(&ts, NULL);
        wait_ms = wait_ms < 1000 ? wait_ms * 2 : 1000;
    }
    /* shm-layout.md, "Job file": record i at 512 + roundup(slots + 1, 64) + i * 4112; kind, rank, length,
       address, little-endian; the kind written last, by a write of its own */
    const off_t at = 512 + (off_t)(job.slots + 1 + 63) / 64 * 64 + (off_t)job.local * 4112;
    unsigned char record[8 + 16];
    const uint32_t fields[2] = {(uint32_t)job.rank, 16};
    memcpy(record, fields, sizeof fields);
    memcpy(record + 8, addr, sizeof addr);
    const uint32_t kind = 1;
    if (jf < 0 || pwrite(jf, record, sizeof record, at + 4) != (ssize_t)sizeof record ||
        pwrite(jf, &kind, sizeof kind, at) != (ssize_t)sizeof kind)
    {
        fprintf(stderr, "light_rank %d: cannot write its record into %s\n", job.rank, path);
        return 4;
    }
    if (store_exchange() < 0)
    {
        close(jf);
        return 2;
    }
    /* as a JVM rank does: wait for the job file's state 3 (the AV filled), one word a poll, then check every
       rank once; reading every rank of the AV at each poll would cost a thousand ranks O(N) each, O(N^2) a node */
    const long long deadline = now_ms() + 300000;
    uint32_t state = 0;
    wait_ms = 10; /* backing off to 1 s: thousands of ranks on a few CPUs must leave them to local rank 0 */
    while (now_ms() < deadline && (pread(jf, &state, sizeof state, 8) != (ssize_t)sizeof state || (state != 3 && state != 4)))
    {
        struct timespec ts = {wait_ms / 1000, (wait_ms % 1000) * 1000 * 1000};
        nanosleep(&ts, NULL);
        wait_ms = wait_ms < 1000 ? wait_ms * 2 : 1000;
    }
    close(jf);
    snprintf(path, sizeof path, "/dev/shm/%s", job.av);
    shmav_av av;
    char err[512];
    int opened = 0;
    while (state == 3 && now_ms() < deadline)
    {
        if (!opened)
        {
            opened = shmav_av_open(&av, path, err, sizeof err) == 0;
        }
        int seen = 0;
        for (int r = 0; opened && r < job.size; r++)
        {
            seen += shmav_av_map_entry(&av, (uint64_t)r) != SHMAV_FI_ADDR_NOTAVAIL;
        }
        if (opened && seen == job.size)
        {
            printf("light %d seen_ms %lld\n", job.rank, now_ms());
            fflush(stdout);
            shmav_av_close(&av);
            store_finalize();
            return 0;
        }
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    fprintf(stderr, "light_rank %d: %s %s\n", job.rank, path, state == 4 ? "could not be filled (the job file says so)" :
        "not filled within 300 s");
    return 3;
}
