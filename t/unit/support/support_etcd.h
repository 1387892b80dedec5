
/*
 * Test support: etcd clusters on loopback for the unit tests of the etcd
 * backend.  Members are Debian's etcd (/usr/bin/etcd, or ETCD in the
 * environment) on free 127.0.0.1 ports, with their data in a temporary
 * directory (under /dev/shm when there is one) removed by
 * gcp_test_etcd_stop().
 */

#ifndef _SUPPORT_ETCD_H_INCLUDED_
#define _SUPPORT_ETCD_H_INCLUDED_


#include <sys/types.h>


#define GCP_TEST_ETCD_MAX  5


typedef struct {
    int          n;                             /* members */
    char         dir[128];                      /* holds every member */
    char         endpoints[GCP_TEST_ETCD_MAX * 32];    /* all, comma */
    char         endpoint[GCP_TEST_ETCD_MAX][32];
    pid_t        pid[GCP_TEST_ETCD_MAX];        /* 0: not running */
    int          client_port[GCP_TEST_ETCD_MAX];
    int          peer_port[GCP_TEST_ETCD_MAX];
} gcp_test_etcd_t;


/*
 * Starts a cluster of n members (1..GCP_TEST_ETCD_MAX) and waits until it
 * answers linearizable reads.  Returns 0, or -1 (a message on stderr;
 * whatever started is stopped).
 */
int gcp_test_etcd_start(gcp_test_etcd_t *t, int n);

/* Kills member i (SIGKILL) and reaps it.  Returns 0 or -1. */
int gcp_test_etcd_kill(gcp_test_etcd_t *t, int i);

/* Starts member i again on its data and ports (does not wait). */
int gcp_test_etcd_restart(gcp_test_etcd_t *t, int i);

/*
 * Waits until member i answers a linearizable read (the cluster has a
 * leader and i follows it).  Returns 0, or -1 after timeout_ms.
 */
int gcp_test_etcd_wait(gcp_test_etcd_t *t, int i, int timeout_ms);

/*
 * A blocking HTTP POST of body to member i's path (tests only).  Returns
 * the HTTP status (0: no answer); the answer, NUL-terminated, goes to out
 * (malloc'd, the caller frees it) when out is not NULL.
 */
long gcp_test_etcd_post(gcp_test_etcd_t *t, int i, const char *path,
    const char *body, char **out);

/* Stops every member and removes the data. */
void gcp_test_etcd_stop(gcp_test_etcd_t *t);


#endif /* _SUPPORT_ETCD_H_INCLUDED_ */
