/*
 * light_rank: a rank of a scale run that costs almost nothing: under MPICH's mpiexec it hands its
 * address to its node's local rank 0 (a JVM) through its record in the node's job file
 * /dev/shm/.shmav-job.mpich-<kvsname> (the layout of org.shmav.job.NodeRecords), speaks PMI-1 on PMI_FD
 * (init, get_my_kvsname, barrier: every rank takes part in the exchange), then waits until
 * its node's AV (/dev/shm/mpich-<kvsname>, filled by the node's local rank 0, a JVM) holds every rank
 * of the job, reading it through the shipped header alone; prints
 * "light RANK seen_ms EPOCH_MS" (when it saw every rank) and finalizes.
 *
 *   gcc -std=c11 -O2 -Wall -Wextra -Werror -I src/main/c -o light_rank integration-tests/nodes/light_rank.c
 *
 * Exit status: 0 every rank seen, 1 no PMI, 2 the store failed, 3 the AV was not filled within 300 s,
 * 4 the job file did not appear within 300 s or could not be written.
 */
#define _GNU_SOURCE

#include "shmav_av.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

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

static long long now_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

int main(void)
{
    const char *pmi_fd = getenv("PMI_FD");
    const char *rank_s = getenv("PMI_RANK");
    const char *size_s = getenv("PMI_SIZE");
    if (pmi_fd == NULL || rank_s == NULL || size_s == NULL)
    {
        fprintf(stderr, "light_rank: not started by mpiexec (PMI_FD, PMI_RANK, PMI_SIZE)\n");
        return 1;
    }
    fd = atoi(pmi_fd);
    const int rank = atoi(rank_s);
    const int size = atoi(size_s);
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
    /* FI_SOCKADDR_IN as Java's Addresses writes it: family 2 in host order, port and address big-endian */
    const unsigned port = 20000 + (unsigned)rank;
    const unsigned char addr[16] = {2, 0, (unsigned char)(port >> 8), (unsigned char)port, 127, 0, 0, 1};
    const char *local_s = getenv("MPI_LOCALRANKID");
    const char *locals_s = getenv("MPI_LOCALNRANKS");
    if (local_s == NULL || locals_s == NULL)
    {
        return 1;
    }
    const int local = atoi(local_s);
    const int slots = atoi(locals_s);
    char job[512];
    snprintf(job, sizeof job, "/dev/shm/.shmav-job.mpich-%s", kvs);
    int jf = -1;
    const long long job_deadline = now_ms() + 300000;
    /* a thousand ranks poll: back off to 1 s, or their wake-ups take the CPUs the JVMs need to start */
    long wait_ms = 10;
    while ((jf = open(job, O_RDWR)) < 0 && now_ms() < job_deadline)
    {
        struct timespec ts = {wait_ms / 1000, (wait_ms % 1000) * 1000 * 1000};
        nanosleep(&ts, NULL);
        wait_ms = wait_ms < 1000 ? wait_ms * 2 : 1000;
    }
    /* the record: kind, rank, length, address, little-endian; the kind written last, by a write of its own */
    /* NodeRecords.SIZE: 12 bytes of fields and the longest address an AV stores (4096), in 16-byte steps */
    const off_t at = 512 + (off_t)(slots + 1 + 63) / 64 * 64 + (off_t)local * 4112;
    unsigned char record[8 + 16];
    const uint32_t fields[2] = {(uint32_t)rank, 16};
    memcpy(record, fields, sizeof fields);
    memcpy(record + 8, addr, sizeof addr);
    const uint32_t kind = 1;
    if (jf < 0 || pwrite(jf, record, sizeof record, at + 4) != (ssize_t)sizeof record ||
        pwrite(jf, &kind, sizeof kind, at) != (ssize_t)sizeof kind)
    {
        fprintf(stderr, "light_rank %d: cannot write its record into %s\n", rank, job);
        return 4;
    }
    close(jf);
    if (ask("cmd=barrier_in\n", answer, sizeof answer) < 0)
    {
        return 2;
    }
    char path[512];
    snprintf(path, sizeof path, "/dev/shm/mpich-%s", kvs);
    const long long deadline = now_ms() + 300000;
    shmav_av av;
    char err[512];
    int opened = 0;
    while (now_ms() < deadline)
    {
        if (!opened)
        {
            opened = shmav_av_open(&av, path, err, sizeof err) == 0;
        }
        int seen = 0;
        for (int r = 0; opened && r < size; r++)
        {
            seen += shmav_av_map_entry(&av, (uint64_t)r) != SHMAV_FI_ADDR_NOTAVAIL;
        }
        if (opened && seen == size)
        {
            printf("light %d seen_ms %lld\n", rank, now_ms());
            fflush(stdout);
            shmav_av_close(&av);
            ask("cmd=finalize\n", answer, sizeof answer);
            return 0;
        }
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    fprintf(stderr, "light_rank %d: %s not filled within 300 s\n", rank, path);
    return 3;
}
