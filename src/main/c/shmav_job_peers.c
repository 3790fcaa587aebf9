/*
 * shmav_job_peers: a rank's view of its job from C, in the pattern MPICH's CH4 OFI netmod uses for a
 * shared AV: open the node's AV read-only and take rank r's fi_addr from map_addr[r] for every rank
 * of the job, inserting nothing. Built on the shipped reader header alone:
 *
 *   gcc -std=c11 -O2 -Wall -Wextra -Werror -o shmav_job_peers shmav_job_peers.c
 *
 *   shmav_job_peers FILE SIZE    prints "rank R fi_addr F IP:PORT" for R = 0 .. SIZE-1 (FI_SOCKADDR_IN),
 *                                then "found N of SIZE"
 *
 * FILE is the node's AV, e.g. /dev/shm/job7 (a job's AV under mpiexec is /dev/shm/mpich-<KVS name>).
 * Exit status: 0 every rank found, 1 usage, 2 the file is refused (the reason on stderr), 3 some rank
 * has no entry (the job's AV is not filled, or not yet).
 */
#define _GNU_SOURCE /* F_OFD_SETLK: the readers' lock belongs to this reader's descriptor */

#include "shmav_av.h"

#include <inttypes.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 3)
    {
        fprintf(stderr, "usage: shmav_job_peers FILE SIZE\n");
        return 1;
    }
    char *end;
    const unsigned long long size = strtoull(argv[2], &end, 10);
    if (*argv[2] == '\0' || *end != '\0' || size == 0)
    {
        fprintf(stderr, "shmav_job_peers: SIZE '%s' is not a positive number\n", argv[2]);
        return 1;
    }
    shmav_av av;
    char err[512];
    if (shmav_av_open(&av, argv[1], err, sizeof err) < 0)
    {
        fprintf(stderr, "shmav_job_peers: %s\n", err);
        return 2;
    }
    unsigned long long found = 0;
    for (uint64_t rank = 0; rank < size; rank++)
    {
        /* map_addr[rank]: rank r's fi_addr while its entry is valid, FI_ADDR_NOTAVAIL otherwise */
        const uint64_t fi_addr = shmav_av_map_entry(&av, rank);
        unsigned char addr[SHMAV_MAX_ADDR_LEN];
        size_t len = sizeof addr;
        if (fi_addr == SHMAV_FI_ADDR_NOTAVAIL || shmav_av_lookup(&av, fi_addr, addr, &len) != 0 || len < 8 ||
            addr[0] != SHMAV_AF_INET)
        {
            printf("rank %" PRIu64 " none\n", rank);
            continue;
        }
        printf("rank %" PRIu64 " fi_addr %" PRIu64 " %u.%u.%u.%u:%u\n", rank, fi_addr, addr[4], addr[5], addr[6],
            addr[7], (unsigned)addr[2] << 8 | addr[3]);
        found++;
    }
    printf("found %llu of %llu\n", found, size);
    shmav_av_close(&av);
    return found == size ? 0 : 3;
}
