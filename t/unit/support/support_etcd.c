
/*
 * Test support: etcd clusters on loopback (see support_etcd.h).
 */

#define _XOPEN_SOURCE 700

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>

#include "support_etcd.h"


static int
gcp_test_free_port(void)
{
    int                 fd, port;
    socklen_t           len;
    struct sockaddr_in  sin;

    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd == -1) {
        return -1;
    }

    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    len = sizeof(sin);

    if (bind(fd, (struct sockaddr *) &sin, sizeof(sin)) == -1
        || getsockname(fd, (struct sockaddr *) &sin, &len) == -1)
    {
        close(fd);
        return -1;
    }

    port = ntohs(sin.sin_port);
    close(fd);

    return port;
}


static void
gcp_test_sleep_ms(int ms)
{
    struct timespec  ts;

    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (long) (ms % 1000) * 1000000;

    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
        /* void */
    }
}


static uint64_t
gcp_test_now_ms(void)
{
    struct timespec  ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);

    return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}


int
gcp_test_etcd_restart(gcp_test_etcd_t *t, int i)
{
    int          j, fd;
    char         name[16], data[192], log[192], client[64], peer[64];
    char         cluster[GCP_TEST_ETCD_MAX * 64], token[64];
    const char  *bin;
    pid_t        pid;

    bin = getenv("ETCD") ? getenv("ETCD") : "/usr/bin/etcd";

    snprintf(name, sizeof(name), "m%d", i);
    snprintf(data, sizeof(data), "%s/%s", t->dir, name);
    snprintf(log, sizeof(log), "%s/%s.log", t->dir, name);
    snprintf(client, sizeof(client), "http://127.0.0.1:%d",
             t->client_port[i]);
    snprintf(peer, sizeof(peer), "http://127.0.0.1:%d", t->peer_port[i]);
    snprintf(token, sizeof(token), "gcp-test-%d", (int) getpid());

    cluster[0] = '\0';

    for (j = 0; j < t->n; j++) {
        snprintf(cluster + strlen(cluster), sizeof(cluster) - strlen(cluster),
                 "%sm%d=http://127.0.0.1:%d", j ? "," : "", j,
                 t->peer_port[j]);
    }

    pid = fork();
    if (pid == -1) {
        return -1;
    }

    if (pid == 0) {
        /* the member dies with the test */
        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);

        fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
        if (fd != -1) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }

        execl(bin, bin, "--name", name, "--data-dir", data,
              "--listen-client-urls", client,
              "--advertise-client-urls", client,
              "--listen-peer-urls", peer,
              "--initial-advertise-peer-urls", peer,
              "--initial-cluster", cluster,
              "--initial-cluster-token", token,
              "--initial-cluster-state", "new",
              "--heartbeat-interval", "50",
              "--election-timeout", "500",
              "--log-level", "warn",
              (char *) NULL);
        _exit(127);
    }

    t->pid[i] = pid;

    return 0;
}


long
gcp_test_etcd_post(gcp_test_etcd_t *t, int i, const char *path,
    const char *body, char **out)
{
    long                code;
    char                url[128];
    FILE               *f;
    char               *buf;
    size_t              len;
    CURL               *c;
    struct curl_slist  *h;

    c = curl_easy_init();
    if (c == NULL) {
        return 0;
    }

    buf = NULL;
    len = 0;
    f = open_memstream(&buf, &len);
    h = curl_slist_append(NULL, "Content-Type: application/json");

    snprintf(url, sizeof(url), "%s%s", t->endpoint[i], path);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 2000L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, f);

    code = 0;

    if (curl_easy_perform(c) == CURLE_OK) {
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    }

    curl_easy_cleanup(c);
    curl_slist_free_all(h);
    fclose(f);

    if (out) {
        *out = buf;
    } else {
        free(buf);
    }

    return code;
}


int
gcp_test_etcd_wait(gcp_test_etcd_t *t, int i, int timeout_ms)
{
    uint64_t  deadline;

    deadline = gcp_test_now_ms() + (uint64_t) timeout_ms;

    while (gcp_test_now_ms() < deadline) {
        if (gcp_test_etcd_post(t, i, "/v3/kv/range",
                               "{\"key\":\"AA==\",\"count_only\":true}", NULL)
            == 200)
        {
            return 0;
        }

        gcp_test_sleep_ms(50);
    }

    return -1;
}


int
gcp_test_etcd_start(gcp_test_etcd_t *t, int n)
{
    int          i;
    const char  *base;

    memset(t, 0, sizeof(gcp_test_etcd_t));

    if (n < 1 || n > GCP_TEST_ETCD_MAX) {
        return -1;
    }

    base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(t->dir, sizeof(t->dir), "%s/gcp-etcd-XXXXXX", base);

    if (mkdtemp(t->dir) == NULL) {
        perror("mkdtemp");
        return -1;
    }

    t->n = n;

    for (i = 0; i < n; i++) {
        t->client_port[i] = gcp_test_free_port();
        t->peer_port[i] = gcp_test_free_port();

        if (t->client_port[i] <= 0 || t->peer_port[i] <= 0) {
            gcp_test_etcd_stop(t);
            return -1;
        }

        snprintf(t->endpoint[i], sizeof(t->endpoint[i]),
                 "http://127.0.0.1:%d", t->client_port[i]);
        snprintf(t->endpoints + strlen(t->endpoints),
                 sizeof(t->endpoints) - strlen(t->endpoints), "%s%s",
                 i ? "," : "", t->endpoint[i]);
    }

    for (i = 0; i < n; i++) {
        if (gcp_test_etcd_restart(t, i) != 0) {
            gcp_test_etcd_stop(t);
            return -1;
        }
    }

    for (i = 0; i < n; i++) {
        if (gcp_test_etcd_wait(t, i, 20000) != 0) {
            fprintf(stderr, "etcd member %d did not start (logs in %s)\n", i,
                    t->dir);
            gcp_test_etcd_stop(t);
            return -1;
        }
    }

    return 0;
}


int
gcp_test_etcd_kill(gcp_test_etcd_t *t, int i)
{
    int  status;

    if (t->pid[i] <= 0) {
        return -1;
    }

    kill(t->pid[i], SIGKILL);

    while (waitpid(t->pid[i], &status, 0) == -1 && errno == EINTR) {
        /* void */
    }

    t->pid[i] = 0;

    return 0;
}


static int
gcp_test_rm(const char *path, const struct stat *st, int flag,
    struct FTW *ftw)
{
    (void) st;
    (void) ftw;

    return flag == FTW_DP ? rmdir(path) : unlink(path);
}


void
gcp_test_etcd_stop(gcp_test_etcd_t *t)
{
    int  i;

    for (i = 0; i < t->n; i++) {
        if (t->pid[i] > 0) {
            (void) gcp_test_etcd_kill(t, i);
        }
    }

    if (t->dir[0]) {
        (void) nftw(t->dir, gcp_test_rm, 16, FTW_DEPTH | FTW_PHYS);
        t->dir[0] = '\0';
    }
}
