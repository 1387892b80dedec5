
/*
 * Micro benchmark of the LMDB backend's write path: creates with a number
 * of writes outstanding, fdatasync'ed by the group commit.
 *
 *   gcc -std=gnu99 -O2 -Ingx_gcp_module/core -Ibackends \
 *       bench/store_lmdb_bench.c ngx_gcp_module/core/gcp_arena.c \
 *       ngx_gcp_module/core/gcp_errors.c ngx_gcp_module/core/gcp_loop_poll.c \
 *       backends/gcp_store.c backends/lmdb/gcp_*.c -llmdb -lpthread \
 *       -o /tmp/store_lmdb_bench
 *   /tmp/store_lmdb_bench [DIR [WRITES [OUTSTANDING [SYNC]]]]
 */

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gcp_core.h"
#include "gcp_loop.h"
#include "lmdb/gcp_store_lmdb.h"


typedef struct {
    gcp_store_t  *s;
    long          next;
    long          total;
    long          done;
    long          failed;
} bench_t;


typedef struct {
    bench_t      *b;
    gcp_arena_t  *a;
} bench_call_t;


static void bench_issue(bench_t *b);


static void
bench_done(void *arg, gcp_store_result_t *res)
{
    bench_call_t  *c = arg;
    bench_t       *b = c->b;

    b->done++;
    b->failed += (res->rc != GCP_OK);

    gcp_arena_destroy(c->a);
    free(c);

    bench_issue(b);
}


static void
bench_issue(bench_t *b)
{
    char           key[64];
    gcp_str_t      k, v;
    bench_call_t  *c;
    static char    value[512];

    if (b->next >= b->total) {
        return;
    }

    c = malloc(sizeof(bench_call_t));
    c->b = b;
    c->a = gcp_arena_create(0);

    k.len = (size_t) snprintf(key, sizeof(key),
                              "/registry/configmaps/bench/cm-%08ld", b->next++);
    k.data = key;
    memset(value, 'x', sizeof(value));
    v.data = value;
    v.len = sizeof(value);

    gcp_store_create(b->s, k, v, c->a, bench_done, c);
}


static double
bench_now(void)
{
    struct timespec  ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);

    return ts.tv_sec + ts.tv_nsec / 1e9;
}


int
main(int argc, char **argv)
{
    int                 i, outstanding;
    double              t0, t1;
    bench_t             b;
    const char         *err = NULL;
    gcp_loop_t         *loop;
    gcp_lmdb_conf_t     conf;
    gcp_lmdb_stats_t    st0, st1;
    gcp_lmdb_shared_t  *sh;

    memset(&conf, 0, sizeof(conf));
    conf.path = argc > 1 ? argv[1] : "/tmp/gcp-lmdb-bench";
    conf.nslots = 1;
    conf.sync = argc > 4 ? atoi(argv[4]) : 1;

    memset(&b, 0, sizeof(b));
    b.total = argc > 2 ? atol(argv[2]) : 20000;
    outstanding = argc > 3 ? atoi(argv[3]) : 16;

    sh = gcp_lmdb_prefork(&conf, &err);
    if (sh == NULL) {
        fprintf(stderr, "prefork: %s\n", err);
        return 1;
    }

    loop = gcp_loop_poll_create();
    b.s = gcp_lmdb_open(sh, 0, loop, &err);
    if (b.s == NULL) {
        fprintf(stderr, "open: %s\n", err);
        return 1;
    }

    gcp_lmdb_stats(b.s, &st0);
    b.next = 0;
    t0 = bench_now();

    for (i = 0; i < outstanding; i++) {
        bench_issue(&b);
    }

    while (b.done < b.total) {
        gcp_loop_poll_run(loop, 100);
    }

    t1 = bench_now();
    gcp_lmdb_stats(b.s, &st1);

    printf("%ld creates (%ld failed), %d outstanding, sync=%d: %.3f s, "
           "%.0f creates/s, %llu fdatasyncs (%.1f writes each)\n",
           b.total, b.failed, outstanding, conf.sync, t1 - t0,
           b.total / (t1 - t0),
           (unsigned long long) (st1.syncs - st0.syncs),
           st1.syncs > st0.syncs
           ? (double) b.total / (double) (st1.syncs - st0.syncs) : 0.0);

    gcp_store_close(b.s);
    gcp_loop_poll_destroy(loop);
    gcp_lmdb_shared_free(sh);

    return 0;
}
