/*
 * light_rank: a rank of a scale run that costs almost nothing: under MPICH's mpiexec it speaks PMI-1
 * on PMI_FD (init, get_my_kvsname, put of its address under shmav-addr-RANK, barrier), then waits until
 * its node's AV (/dev/shm/mpich-<kvsname>, filled by the node's local rank 0, a JVM) holds every rank
 * of the job, reading it through the shipped header alone; prints
 * "light RANK seen_ms EPOCH_MS" (when it saw every rank) and finalizes.
 *
 *   gcc -std=c11 -O2 -Wall -Wextra -Werror -I src/main/c -o light_rank integration-tests/nodes/light_rank.c
 *
 * Exit status: 0 every rank seen, 1 no PMI, 2 the store failed, 3 the AV was not filled within 300 s.
 */
#define _GNU_SOURCE

#include "shmav_av.h"

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
    char command[512];
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
    snprintf(command, sizeof command, "cmd=put kvsname=%s key=shmav-addr-%d value=0200%04x7f0000010000000000000000\n",
        kvs, rank, port);
    if (ask(command, answer, sizeof answer) < 0 || strstr(answer, "rc=0") == NULL ||
        ask("cmd=barrier_in\n", answer, sizeof answer) < 0)
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
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    fprintf(stderr, "light_rank %d: %s not filled within 300 s\n", rank, path);
    return 3;
}
