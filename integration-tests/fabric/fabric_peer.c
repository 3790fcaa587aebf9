/*
 * fabric_peer: rank 0 of a two-rank job on libfabric's udp provider, finding its peer through a shmav
 * named AV (FabricEndToEndIT runs it beside a Java rank).
 *
 *   fabric_peer DIR NAME SHMAV-COMMAND...
 *
 * 1. Opens a datagram endpoint of the udp provider on 127.0.0.1 and posts a receive.
 * 2. Publishes its fi_getname address, as fi_av_straddr writes it, with the CLI:
 *    SHMAV-COMMAND... insert NAME <text> --dir DIR (the AV's first entry: fi_addr 0, rank 0).
 * 3. Waits (bounded) for rank 1's address at fi_addr 1 of the AV, read with shmav_av.h.
 * 4. Waits (bounded) for rank 1's message, inserts rank 1's address into its libfabric AV and
 *    sends a reply with fi_send.
 *
 * Prints ADDR, PUBLISHED, PEER, RECEIVED and REPLIED lines; exits 0 when all went through, 1 otherwise.
 */
#define _GNU_SOURCE
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shmav_av.h"

#define WAIT_MS 30000
#define CHECK(call)                                                                                      \
    do                                                                                                   \
    {                                                                                                    \
        int rc_ = (int)(call);                                                                           \
        if (rc_ != 0)                                                                                    \
        {                                                                                                \
            fprintf(stderr, "fabric_peer: %s failed: %d (%s)\n", #call, rc_, fi_strerror(-rc_));         \
            return 1;                                                                                    \
        }                                                                                                \
    } while (0)

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Polls the CQ for one completion until the deadline: 0, or -1 on an error or a timeout. */
static int wait_completion(struct fid_cq *cq, const char *what)
{
    const long long deadline = now_ms() + WAIT_MS;
    struct fi_cq_msg_entry entry;
    while (now_ms() < deadline)
    {
        const ssize_t n = fi_cq_read(cq, &entry, 1);
        if (n == 1)
        {
            return 0;
        }
        if (n == -FI_EAVAIL)
        {
            struct fi_cq_err_entry err;
            memset(&err, 0, sizeof err);
            fi_cq_readerr(cq, &err, 0);
            fprintf(stderr, "fabric_peer: %s completed with error %d (%s)\n", what, err.err, fi_strerror(err.err));
            return -1;
        }
        if (n != -FI_EAGAIN)
        {
            fprintf(stderr, "fabric_peer: fi_cq_read: %zd (%s)\n", n, fi_strerror((int)-n));
            return -1;
        }
        usleep(1000);
    }
    fprintf(stderr, "fabric_peer: no %s within %d ms\n", what, WAIT_MS);
    return -1;
}

/* Runs SHMAV-COMMAND... insert NAME text --dir DIR and waits for it: its exit code. */
static int publish(char **command, int words, const char *dir, const char *name, const char *text)
{
    char **argv = calloc((size_t)words + 6, sizeof *argv);
    if (argv == NULL)
    {
        return -1;
    }
    memcpy(argv, command, (size_t)words * sizeof *argv);
    argv[words] = "insert";
    argv[words + 1] = (char *)name;
    argv[words + 2] = (char *)text;
    argv[words + 3] = "--dir";
    argv[words + 4] = (char *)dir;
    fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0)
    {
        execvp(argv[0], argv);
        perror("fabric_peer: exec");
        _exit(127);
    }
    free(argv);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
    {
        return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int main(int argc, char **argv)
{
    if (argc < 4)
    {
        fprintf(stderr, "usage: fabric_peer DIR NAME SHMAV-COMMAND...\n");
        return 2;
    }
    const char *dir = argv[1];
    const char *name = argv[2];

    struct fi_info *hints = fi_allocinfo();
    struct fi_info *info = NULL;
    hints->ep_attr->type = FI_EP_DGRAM;
    hints->caps = FI_MSG;
    hints->addr_format = FI_SOCKADDR_IN;
    hints->fabric_attr->prov_name = strdup("udp");
    CHECK(fi_getinfo(FI_VERSION(1, 9), "127.0.0.1", NULL, FI_SOURCE, hints, &info));

    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_cq *cq;
    struct fid_av *fav;
    struct fid_ep *ep;
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_MSG, .size = 16};
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE, .count = 4};
    CHECK(fi_fabric(info->fabric_attr, &fabric, NULL));
    CHECK(fi_domain(fabric, info, &domain, NULL));
    CHECK(fi_cq_open(domain, &cq_attr, &cq, NULL));
    CHECK(fi_av_open(domain, &av_attr, &fav, NULL));
    CHECK(fi_endpoint(domain, info, &ep, NULL));
    CHECK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV));
    CHECK(fi_ep_bind(ep, &fav->fid, 0));
    CHECK(fi_enable(ep));

    char inbox[256];
    memset(inbox, 0, sizeof inbox);
    CHECK(fi_recv(ep, inbox, sizeof inbox - 1, NULL, FI_ADDR_UNSPEC, NULL));

    unsigned char self[128];
    size_t self_len = sizeof self;
    CHECK(fi_getname(&ep->fid, self, &self_len));
    char text[128];
    size_t text_len = sizeof text;
    if (fi_av_straddr(fav, self, text, &text_len) == NULL)
    {
        fprintf(stderr, "fabric_peer: fi_av_straddr gave no text\n");
        return 1;
    }
    printf("ADDR %s (%zu bytes, provider %s)\n", text, self_len, info->fabric_attr->prov_name);

    const int published = publish(argv + 3, argc - 3, dir, name, text);
    if (published != 0)
    {
        fprintf(stderr, "fabric_peer: publishing with the CLI exited %d\n", published);
        return 1;
    }
    printf("PUBLISHED\n");
    fflush(stdout);

    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    shmav_av av;
    char err[512];
    if (shmav_av_open(&av, path, err, sizeof err) != 0)
    {
        fprintf(stderr, "fabric_peer: shmav_av_open: %s\n", err);
        return 1;
    }
    unsigned char peer[SHMAV_MAX_ADDR_LEN];
    size_t peer_len = 0;
    const long long deadline = now_ms() + WAIT_MS;
    for (;;)
    {
        peer_len = sizeof peer;
        if (shmav_av_lookup(&av, 1, peer, &peer_len) == 0)
        {
            break;
        }
        if (now_ms() >= deadline)
        {
            fprintf(stderr, "fabric_peer: rank 1 did not publish its address within %d ms\n", WAIT_MS);
            return 1;
        }
        usleep(2000);
    }
    char peer_text[128];
    size_t peer_text_len = sizeof peer_text;
    printf("PEER %s (%s, %zu bytes)\n", shmav_av_straddr(&av, peer, peer_len, peer_text, &peer_text_len),
        shmav_av_format_name(&av), peer_len);
    shmav_av_close(&av);

    if (wait_completion(cq, "message from rank 1") != 0)
    {
        return 1;
    }
    printf("RECEIVED %s\n", inbox);

    fi_addr_t to = FI_ADDR_NOTAVAIL;
    if (fi_av_insert(fav, peer, 1, &to, 0, NULL) != 1)
    {
        fprintf(stderr, "fabric_peer: fi_av_insert of rank 1's address failed\n");
        return 1;
    }
    char reply[512];
    snprintf(reply, sizeof reply, "reply from rank 0 over libfabric %s: got '%s'", info->fabric_attr->prov_name, inbox);
    CHECK(fi_send(ep, reply, strlen(reply), NULL, to, NULL));
    if (wait_completion(cq, "send completion") != 0)
    {
        return 1;
    }
    printf("REPLIED\n");

    fi_close(&ep->fid);
    fi_close(&fav->fid);
    fi_close(&cq->fid);
    fi_close(&domain->fid);
    fi_close(&fabric->fid);
    fi_freeinfo(info);
    fi_freeinfo(hints);
    return 0;
}
