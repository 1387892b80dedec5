
/*
 * Unit tests: the feeder of an instance's mirror (backends/etcd/
 * gcp_etcd_mirror.c) writing a real etcd's changes into an LMDB mirror
 * (backends/lmdb/gcp_lmdb_mirror.c): one feeding process at a time (the
 * flock), the others reading and watching the mirror; a feeder killed
 * with SIGKILL is replaced by another process, which resumes from the
 * mirror's revision without loading it again and without losing a
 * change; a mirror that etcd compacted past is loaded again, and its
 * watches from before end with 410.
 */

#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gcp_core.h"
#include "gcp_loop.h"
#include "etcd/gcp_store_etcd.h"
#include "lmdb/gcp_store_lmdb.h"
#include "store_conformance.h"
#include "support_etcd.h"


#define K(s)         gcp_sc_str(s)
#define MAP_SIZE     ((size_t) 64 << 20)
#define WAIT_MS      30000


static gcp_test_etcd_t  one;
static char             base_dir[64];
static int              seq;
static pid_t            feeder_pid;     /* a child feeder still running */


/* A mirror directory, its lock file and the etcd configuration. */
typedef struct {
    char                 dir[128];
    char                 lock[160];
    char                 prefix[64];
    gcp_lmdb_shared_t   *sh;
    gcp_etcd_conf_t      conf;
    gcp_etcd_claim_t     claim;         /* the master's, at prefork */
} mf_env_t;


/* One process's view: its loop, mirror store and feeder. */
typedef struct {
    gcp_loop_t          *loop;
    gcp_store_t         *m;
    gcp_etcd_feeder_t   *f;
} mf_proc_t;


static void mf_prefork(mf_env_t *e, int nslots);


static void
mf_env(mf_env_t *e, int nslots)
{
    memset(e, 0, sizeof(mf_env_t));
    snprintf(e->dir, sizeof(e->dir), "%s/m%d", base_dir, seq);
    snprintf(e->lock, sizeof(e->lock), "%s/m%d.feeder", base_dir, seq);
    snprintf(e->prefix, sizeof(e->prefix), "/gcp-mirror/%d", seq);
    seq++;

    e->conf.endpoints = one.endpoints;
    e->conf.prefix = e->prefix;
    e->conf.core_prefix = "/registry";
    e->conf.timeout_ms = 5000;

    mf_prefork(e, nslots);
}


/* Prefork of e's mirror, claimed by e's etcd and prefix as nginx's is. */
static void
mf_prefork(mf_env_t *e, int nslots)
{
    const char       *err = NULL;
    gcp_lmdb_conf_t   lc;

    memset(&lc, 0, sizeof(gcp_lmdb_conf_t));
    lc.path = e->dir;
    lc.map_size = MAP_SIZE;
    lc.nslots = nslots;
    lc.sync = 0;
    lc.claim = gcp_etcd_claim;
    lc.claim_arg = &e->claim;
    e->claim.conf = &e->conf;

    e->sh = gcp_lmdb_prefork(&lc, &err);
    if (e->sh == NULL) {
        fail_msg("prefork: %s", err ? err : "?");
    }
}


static void
mf_env_free(mf_env_t *e)
{
    char  path[256];

    gcp_lmdb_shared_free(e->sh);

    snprintf(path, sizeof(path), "%s/data.mdb", e->dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/lock.mdb", e->dir);
    unlink(path);
    rmdir(e->dir);
    unlink(e->lock);
}


/* Opens the mirror at slot and, when feed, a feeder; NULL on failure. */
static gcp_store_t *
mf_open(mf_env_t *e, mf_proc_t *p, int slot, int feed)
{
    const char  *err = NULL;

    memset(p, 0, sizeof(mf_proc_t));

    p->loop = gcp_loop_poll_create();
    if (p->loop == NULL) {
        return NULL;
    }

    p->m = gcp_lmdb_open(e->sh, slot, p->loop, &err);
    if (p->m == NULL) {
        fprintf(stderr, "lmdb open: %s\n", err ? err : "?");
        return NULL;
    }

    if (feed) {
        p->f = gcp_etcd_feeder_create(&e->conf, e->lock, p->m,
                                      &gcp_lmdb_mirror_ops, p->loop, &err);
        if (p->f == NULL) {
            fprintf(stderr, "feeder: %s\n", err ? err : "?");
            return NULL;
        }
    }

    return p->m;
}


static void
mf_close(mf_proc_t *p)
{
    gcp_etcd_feeder_destroy(p->f);
    p->f = NULL;

    if (p->m) {
        gcp_store_close(p->m);
        p->m = NULL;
    }

    if (p->loop) {
        gcp_loop_poll_destroy(p->loop);
        p->loop = NULL;
    }
}


static gcp_etcd_feeder_stats_t
mf_stats(mf_proc_t *p)
{
    gcp_etcd_feeder_stats_t  st;

    assert_int_equal(gcp_etcd_feeder_stats(p->f, &st), GCP_OK);

    return st;
}


/* Spins p's loop until its feeder feeds from a live stream. */
static int
mf_wait_live(mf_proc_t *p, int timeout_ms)
{
    int  i;

    for (i = 0; i < timeout_ms / 20; i++) {
        if (mf_stats(p).feeding && mf_stats(p).live) {
            return 1;
        }

        gcp_sc_spin(p->m, 20);
    }

    return 0;
}


/* Spins until the mirror reached rev; returns 1, or 0 on timeout. */
static int
mf_wait_rev(mf_proc_t *p, int64_t rev, int timeout_ms)
{
    int      i;
    int64_t  cur, loading;

    for (i = 0; i < timeout_ms / 20; i++) {
        assert_int_equal(gcp_lmdb_mirror_state(p->m, &cur, &loading), GCP_OK);

        if (loading == 0 && cur >= rev) {
            return 1;
        }

        gcp_sc_spin(p->m, 20);
    }

    return 0;
}


/* An etcd store (the backend of today) for writes, on p's loop. */
static gcp_store_t *
mf_etcd(mf_env_t *e, mf_proc_t *p)
{
    const char   *err = NULL;
    gcp_store_t  *s;

    s = gcp_etcd_open(&e->conf, p->loop, &err);
    if (s == NULL) {
        fail_msg("etcd open: %s", err ? err : "?");
    }

    return s;
}


static int64_t
mf_create(gcp_store_t *s, const char *fmt, int i)
{
    char                 key[64];
    gcp_arena_t         *a;
    int64_t              rev;
    gcp_store_result_t  *res;

    snprintf(key, sizeof(key), fmt, i);
    a = gcp_arena_create(0);
    res = gcp_sc_create(s, a, K(key), K("v"));
    assert_int_equal(res->rc, GCP_OK);
    rev = res->revision;
    gcp_arena_destroy(a);

    return rev;
}


/* The child feeder: feeds until killed; writes a byte once live. */
static int
child_feed(mf_env_t *e, int ready)
{
    char       b = '1';
    mf_proc_t  p;

    if (mf_open(e, &p, 1, 1) == NULL || !mf_wait_live(&p, WAIT_MS)) {
        return 1;
    }

    if (write(ready, &b, 1) != 1) {
        return 2;
    }

    for ( ;; ) {
        gcp_sc_spin(p.m, 1000);
    }

    return 0;
}


static void
mf_assert_events(gcp_sc_rec_t *rec, size_t from, size_t n, const char *fmt)
{
    char                key[64];
    size_t              i;
    int64_t             last;
    gcp_store_event_t  *ev;

    last = 0;

    for (i = from; i < from + n; i++) {
        ev = gcp_sc_rec_event(rec, i);
        assert_int_equal(ev->type, GCP_STORE_EVENT_PUT);
        assert_true(ev->revision > last);
        last = ev->revision;

        snprintf(key, sizeof(key), fmt, (int) (i - from));
        assert_int_equal(ev->kv.key.len, strlen(key));
        assert_memory_equal(ev->kv.key.data, key, strlen(key));
    }
}


/*
 * Two processes: the child feeds, the parent reads and watches the mirror
 * with a feeder of its own that waits for the lock.  The child is killed
 * with SIGKILL between two series of writes: the parent takes over,
 * resumes from the mirror's revision (no load, one stream) and its watch
 * gets every change of both series once, in order.
 */
static void
test_feeder_takeover(void **state)
{
    int                  i, pipefd[2];
    char                 b;
    pid_t                pid;
    int64_t              rev, start, loading;
    mf_env_t             e;
    mf_proc_t            p;
    gcp_arena_t         *a;
    gcp_store_t         *s;
    gcp_sc_rec_t         rec;
    struct pollfd        pfd;
    gcp_store_result_t  *res;
    gcp_etcd_feeder_stats_t  st;

    mf_env(&e, 2);
    assert_int_equal(pipe(pipefd), 0);

    pid = fork();
    assert_true(pid != -1);

    if (pid == 0) {
        close(pipefd[0]);
        _exit(child_feed(&e, pipefd[1]));
    }

    feeder_pid = pid;

    close(pipefd[1]);
    pfd.fd = pipefd[0];
    pfd.events = POLLIN;
    assert_int_equal(poll(&pfd, 1, WAIT_MS), 1);
    assert_int_equal(read(pipefd[0], &b, 1), 1);
    close(pipefd[0]);

    assert_non_null(mf_open(&e, &p, 0, 1));
    s = mf_etcd(&e, &p);
    a = gcp_arena_create(0);

    assert_int_equal(gcp_lmdb_mirror_state(p.m, &start, &loading), GCP_OK);
    assert_int_equal(loading, 0);
    assert_true(start >= 1);

    gcp_sc_rec_init(&rec, a);
    (void) gcp_sc_watch(p.m, &rec, K("/registry/"), K("/registry0"), start);

    for (i = 0; i < 10; i++) {
        rev = mf_create(s, "/registry/a%d", i);
    }

    assert_true(gcp_sc_rec_wait(p.m, &rec, 10, WAIT_MS));
    mf_assert_events(&rec, 0, 10, "/registry/a%d");

    /* one stream for the instance: the child's */
    st = mf_stats(&p);
    assert_false(st.feeding);
    assert_int_equal(st.streams, 0);
    assert_int_equal(st.takeovers, 0);

    assert_int_equal(kill(pid, SIGKILL), 0);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    feeder_pid = 0;

    for (i = 0; i < 10; i++) {
        rev = mf_create(s, "/registry/b%d", i);
    }

    assert_true(gcp_sc_rec_wait(p.m, &rec, 20, WAIT_MS));
    gcp_sc_spin(p.m, 50);
    assert_int_equal(rec.n, 20);
    mf_assert_events(&rec, 10, 10, "/registry/b%d");
    assert_true(gcp_sc_rec_event(&rec, 10)->revision
                > gcp_sc_rec_event(&rec, 9)->revision);

    st = mf_stats(&p);
    assert_true(st.feeding);
    assert_int_equal(st.takeovers, 1);
    assert_int_equal(st.loads, 0);
    assert_int_equal(st.streams, 1);
    assert_int_equal(st.changes, 10);

    assert_true(mf_wait_rev(&p, rev, WAIT_MS));
    res = gcp_sc_range(p.m, a, K("/registry/"), K("/registry0"), 0, 0, 1);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->count, 20);

    gcp_store_close(s);
    gcp_arena_destroy(a);
    mf_close(&p);
    mf_env_free(&e);
}


/*
 * A feeder that stops; meanwhile etcd changes and compacts past the
 * mirror's revision.  The next feeder loads the mirror again (exact: the
 * deleted key gone, the new one there), and a watch of the mirror from
 * before the load ends with an ERROR (GCP_ECOMPACTED: 410 for clients).
 */
static void
test_feeder_compacted(void **state)
{
    int64_t              rev, loading;
    const char          *err;
    mf_env_t             e;
    mf_proc_t            p;
    gcp_arena_t         *a;
    gcp_store_t         *s;
    gcp_sc_rec_t         rec;
    gcp_store_event_t   *ev;
    gcp_store_result_t  *res;

    mf_env(&e, 1);
    assert_non_null(mf_open(&e, &p, 0, 1));
    s = mf_etcd(&e, &p);
    a = gcp_arena_create(0);

    (void) mf_create(s, "/registry/c%d", 0);
    rev = mf_create(s, "/registry/c%d", 1);
    assert_true(mf_wait_rev(&p, rev, WAIT_MS));
    assert_true(mf_wait_live(&p, WAIT_MS));
    assert_int_equal(mf_stats(&p).loads, 1);

    gcp_sc_rec_init(&rec, a);
    (void) gcp_sc_watch(p.m, &rec, K("/registry/"), K("/registry0"), rev);

    gcp_etcd_feeder_destroy(p.f);
    p.f = NULL;

    res = gcp_sc_delete(s, a, K("/registry/c0"), 0);
    assert_int_equal(res->rc, GCP_OK);
    rev = mf_create(s, "/registry/c%d", 2);
    res = gcp_sc_compact(s, a, rev);
    assert_int_equal(res->rc, GCP_OK);

    p.f = gcp_etcd_feeder_create(&e.conf, e.lock, p.m, &gcp_lmdb_mirror_ops,
                                 p.loop, &err);
    assert_non_null(p.f);

    assert_true(mf_wait_rev(&p, rev, WAIT_MS));
    assert_int_equal(mf_stats(&p).loads, 1);
    assert_int_equal(gcp_lmdb_mirror_state(p.m, &rev, &loading), GCP_OK);

    res = gcp_sc_range(p.m, a, K("/registry/"), K("/registry0"), 0, 0, 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 2);
    assert_memory_equal(res->kvs[0].key.data, "/registry/c1", 12);
    assert_memory_equal(res->kvs[1].key.data, "/registry/c2", 12);

    assert_true(gcp_sc_rec_wait(p.m, &rec, 1, WAIT_MS));
    ev = gcp_sc_rec_event(&rec, 0);
    assert_int_equal(ev->type, GCP_STORE_EVENT_ERROR);
    assert_int_equal(ev->rc, GCP_ECOMPACTED);

    gcp_store_close(s);
    gcp_arena_destroy(a);
    mf_close(&p);
    mf_env_free(&e);
}


static void
mf_replaced(void *arg, const char *why)
{
    *(const char **) arg = why;
}


/*
 * A feeder whose etcd answers with another cluster id than the mirror's
 * source (etcd replaced under the instance): the mirror is emptied (not
 * loaded: reads refused), the feeder stops and says why, once.
 */
static void
test_feeder_replaced(void **state)
{
    int                  i;
    int64_t              rev, loading;
    const char          *err, *why;
    mf_env_t             e;
    mf_proc_t            p;
    gcp_arena_t         *a;
    gcp_store_t         *s;
    gcp_etcd_conf_t      conf;
    gcp_store_result_t  *res;

    mf_env(&e, 1);
    assert_non_null(mf_open(&e, &p, 0, 1));
    s = mf_etcd(&e, &p);
    a = gcp_arena_create(0);

    rev = mf_create(s, "/registry/r%d", 0);
    assert_true(mf_wait_rev(&p, rev, WAIT_MS));

    gcp_etcd_feeder_destroy(p.f);

    why = NULL;
    conf = e.conf;
    conf.mirror_source = "etcd cluster 12345 prefix /registry";
    conf.replaced = mf_replaced;
    conf.replaced_arg = &why;

    p.f = gcp_etcd_feeder_create(&conf, e.lock, p.m, &gcp_lmdb_mirror_ops,
                                 p.loop, &err);
    assert_non_null(p.f);

    for (i = 0; i < WAIT_MS / 20 && why == NULL; i++) {
        gcp_sc_spin(p.m, 20);
    }

    assert_non_null(why);
    assert_string_equal(why, "etcd answers with another cluster id");
    assert_false(mf_stats(&p).live);

    assert_int_equal(gcp_lmdb_mirror_state(p.m, &rev, &loading), GCP_OK);
    assert_int_not_equal(loading, 0);

    /* as the instance's stores read it: refused, nothing of the old copy */
    gcp_lmdb_mirror_ops.follow(p.m, NULL, NULL);
    res = gcp_sc_range(p.m, a, K("/registry/"), K("/registry0"), 0, 0, 0);
    assert_int_equal(res->rc, GCP_EUNAVAILABLE);
    assert_int_equal(res->nkvs, 0);

    /* stopped: nothing loads the mirror again behind the restart */
    gcp_sc_spin(p.m, 300);
    assert_int_equal(gcp_lmdb_mirror_state(p.m, &rev, &loading), GCP_OK);
    assert_int_not_equal(loading, 0);
    assert_int_equal(mf_stats(&p).loads, 0);

    gcp_store_close(s);
    gcp_arena_destroy(a);
    mf_close(&p);
    mf_env_free(&e);
}


/* ------------------------------------------------------------ the store */


/* A store of the instance reading from p's mirror, sharing *watermark. */
static gcp_store_t *
mf_mirrored(mf_env_t *e, mf_proc_t *p, int64_t *watermark, int quorum)
{
    const char       *err = NULL;
    gcp_store_t      *s;
    gcp_etcd_conf_t   conf;

    conf = e->conf;
    conf.mirror = p->m;
    conf.mirror_ops = &gcp_lmdb_mirror_ops;
    conf.watermark = watermark;
    conf.reads = quorum ? GCP_ETCD_READS_QUORUM : GCP_ETCD_READS_INSTANCE;

    s = gcp_etcd_open(&conf, p->loop, &err);
    if (s == NULL) {
        fail_msg("etcd open (mirror): %s", err ? err : "?");
    }

    return s;
}


static gcp_etcd_stats_t
mf_store_stats(gcp_store_t *s)
{
    gcp_etcd_stats_t  st;

    assert_int_equal(gcp_etcd_stats(s, &st), GCP_OK);

    return st;
}


/* The conformance suite on a store reading from a mirror fed in-process. */
typedef struct {
    mf_env_t      env;
    mf_proc_t     p;
    gcp_store_t  *s;
    int64_t       watermark;
} mf_conf_t;


static gcp_store_t *
mf_conf_open(void *ctx)
{
    mf_conf_t  *c = ctx;

    memset(c, 0, sizeof(mf_conf_t));
    mf_env(&c->env, 1);

    /* the suite's keys ("/r/a") as they are, under a prefix of their own */
    strcat(c->env.prefix, "/");
    c->env.conf.core_prefix = NULL;

    if (mf_open(&c->env, &c->p, 0, 1) == NULL) {
        return NULL;
    }

    c->s = mf_mirrored(&c->env, &c->p, &c->watermark, 0);

    return c->s;
}


static void
mf_conf_close(gcp_store_t *s, void *ctx)
{
    mf_conf_t  *c = ctx;

    gcp_store_close(c->s);
    mf_close(&c->p);
    mf_env_free(&c->env);
}


/*
 * A store reading from the mirror: no copy, no stream of its own; a
 * write of the store, and one of another store of the instance (sharing
 * the watermark), is seen by the next read at once; reads at old
 * revisions come from the mirror from its load on and from etcd below;
 * watches are the mirror's (every change once, in order, prev_kv); the
 * feeder's "live" flag is the store's; a key too long for the mirror is
 * refused when written through the store, skipped by the feeder when
 * another client writes it (reads of it go to etcd), and the feeder goes
 * on.
 */
static void
test_mirrored_store(void **state)
{
    int                  i;
    char                 longkey[700];
    int64_t              wm, rev, first, base, loading;
    uint64_t             pinned;
    mf_env_t             e;
    mf_proc_t            p;
    gcp_arena_t         *a, *b;
    gcp_lmdb_stats_t     ls;
    gcp_store_t         *s, *ms;
    gcp_sc_rec_t         rec;
    gcp_etcd_conf_t      oc;
    gcp_etcd_stats_t     st;
    gcp_store_event_t   *ev;
    gcp_store_result_t  *res;

    wm = 0;
    mf_env(&e, 1);
    a = gcp_arena_create(0);

    /* history before the mirror's load: read from etcd later */
    oc = e.conf;
    oc.watermark = &wm;
    assert_non_null(mf_open(&e, &p, 0, 0));
    s = gcp_etcd_open(&oc, p.loop, &(const char *) { NULL });
    assert_non_null(s);
    first = mf_create(s, "/registry/old%d", 0);
    res = gcp_sc_update(s, a, K("/registry/old0"), K("u"), first);
    assert_int_equal(res->rc, GCP_OK);
    gcp_store_close(s);         /* before the loop it uses */
    mf_close(&p);

    assert_non_null(mf_open(&e, &p, 0, 1));
    s = gcp_etcd_open(&oc, p.loop, &(const char *) { NULL });
    assert_non_null(s);
    ms = mf_mirrored(&e, &p, &wm, 0);

    assert_true(mf_wait_live(&p, WAIT_MS));
    assert_true(mf_store_stats(ms).live);
    assert_true(mf_store_stats(ms).mirrored);
    assert_int_equal(gcp_lmdb_mirror_state(p.m, &base, &loading), GCP_OK);
    assert_int_equal(loading, 0);

    gcp_sc_rec_init(&rec, a);
    (void) gcp_sc_watch(ms, &rec, K("/registry/"), K("/registry0"), 0);

    /* its own writes and the instance's, read at once */
    for (i = 0; i < 5; i++) {
        res = gcp_sc_create(i % 2 ? s : ms, a,
                            K(gcp_sprintf(a, "/registry/k%d", i)), K("v"));
        assert_int_equal(res->rc, GCP_OK);
        rev = res->revision;

        res = gcp_sc_get(ms, a, K(gcp_sprintf(a, "/registry/k%d", i)), 0);
        assert_int_equal(res->rc, GCP_OK);
        assert_int_equal(res->nkvs, 1);
        assert_int_equal(res->kvs[0].mod_revision, rev);
        assert_true(res->revision >= rev);
    }

    res = gcp_sc_update(ms, a, K("/registry/k0"), K("w"), 0);
    assert_int_equal(res->rc, GCP_OK);
    rev = res->revision;

    res = gcp_sc_range(ms, a, K("/registry/"), K("/registry0"), 0, 0, 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 6);        /* k0..k4 and old0 */
    assert_memory_equal(res->kvs[0].value.data, "w", 1);

    /* a GET's or a LIST's brief arena: the values point into the mirror */

    b = gcp_arena_create(0);
    assert_non_null(b);
    gcp_arena_set_brief(b);
    assert_int_equal(gcp_lmdb_stats(p.m, &ls), GCP_OK);
    res = gcp_sc_range(ms, b, K("/registry/"), K("/registry0"), 0, 0, 0);
    assert_int_equal(res->nkvs, 6);
    assert_memory_equal(res->kvs[0].value.data, "w", 1);
    assert_int_equal(res->kvs[0].value.len, 1);
    pinned = ls.pinned_reads;
    assert_int_equal(gcp_lmdb_stats(p.m, &ls), GCP_OK);
    assert_int_equal(ls.pinned_reads, pinned + 1);
    assert_int_equal(ls.snapshots, 1);
    gcp_arena_destroy(b);
    assert_int_equal(gcp_lmdb_stats(p.m, &ls), GCP_OK);
    assert_int_equal(ls.snapshots, 0);

    /* the watch: six changes once, in order, the update with prev_kv */
    assert_true(gcp_sc_rec_wait(ms, &rec, 6, WAIT_MS));
    gcp_sc_spin(ms, 50);
    assert_int_equal(rec.n, 6);
    assert_false(rec.out_of_order);
    ev = gcp_sc_rec_event(&rec, 5);
    assert_int_equal(ev->type, GCP_STORE_EVENT_PUT);
    assert_int_equal(ev->revision, rev);
    assert_true(ev->has_prev);
    assert_memory_equal(ev->prev_kv.value.data, "v", 1);

    /* old revisions: the mirror from its load on, etcd below */
    st = mf_store_stats(ms);
    res = gcp_sc_get(ms, a, K("/registry/k0"), rev - 1);
    assert_int_equal(res->rc, GCP_OK);
    assert_memory_equal(res->kvs[0].value.data, "v", 1);
    assert_int_equal(mf_store_stats(ms).remote_reads, st.remote_reads);

    res = gcp_sc_range(ms, a, K("/registry/"), K("/registry0"), first, 0, 0);
    assert_true(first < base);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 1);
    assert_int_equal(mf_store_stats(ms).remote_reads, st.remote_reads + 1);

    /* keys too long for the mirror */
    memset(longkey, 'x', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    memcpy(longkey, "/registry/", 10);

    res = gcp_sc_create(ms, a, K(longkey), K("v"));
    assert_int_equal(res->rc, GCP_EKEYTOOLONG);

    res = gcp_sc_create(s, a, K(longkey), K("l"));
    assert_int_equal(res->rc, GCP_OK);
    rev = mf_create(s, "/registry/after%d", 0);

    res = gcp_sc_get(ms, a, K("/registry/after0"), 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 1);
    assert_true(mf_wait_rev(&p, rev, WAIT_MS));

    res = gcp_sc_get(ms, a, K(longkey), 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 1);
    assert_memory_equal(res->kvs[0].value.data, "l", 1);

    /* no copy and no stream of its own: one stream, the feeder's */
    st = mf_store_stats(ms);
    assert_int_equal(st.keys, 0);
    assert_int_equal(st.loads, 0);
    assert_int_equal(st.streams, 0);
    assert_true(st.mirror_reads >= 8);
    assert_int_equal(mf_stats(&p).streams, 1);
    assert_int_equal(mf_stats(&p).loads, 1);

    /* the feeder gone: not live, for every store of the instance */
    gcp_etcd_feeder_destroy(p.f);
    p.f = NULL;
    assert_false(mf_store_stats(ms).live);

    gcp_store_close(ms);
    gcp_store_close(s);
    gcp_arena_destroy(a);
    mf_close(&p);
    mf_env_free(&e);
}


/*
 * quorum reads from the mirror: one probe per read, and a write of
 * another instance (not sharing the watermark) is seen by the next read.
 */
static void
test_mirrored_quorum(void **state)
{
    int64_t              wm, other, rev;
    uint64_t             probes;
    mf_env_t             e;
    mf_proc_t            p;
    gcp_arena_t         *a;
    gcp_store_t         *s, *ms;
    gcp_etcd_conf_t      oc;
    gcp_store_result_t  *res;

    wm = 0;
    other = 0;
    mf_env(&e, 1);
    assert_non_null(mf_open(&e, &p, 0, 1));

    oc = e.conf;
    oc.watermark = &other;
    s = gcp_etcd_open(&oc, p.loop, &(const char *) { NULL });
    assert_non_null(s);
    ms = mf_mirrored(&e, &p, &wm, 1);
    a = gcp_arena_create(0);

    assert_true(mf_wait_live(&p, WAIT_MS));
    probes = mf_store_stats(ms).probes;

    rev = mf_create(s, "/registry/q%d", 0);
    res = gcp_sc_get(ms, a, K("/registry/q0"), 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 1);
    assert_int_equal(res->kvs[0].mod_revision, rev);
    assert_int_equal(mf_store_stats(ms).probes, probes + 1);

    gcp_store_close(ms);
    gcp_store_close(s);
    gcp_arena_destroy(a);
    mf_close(&p);
    mf_env_free(&e);
}


/* ------------------------------------------------------------ identity */


/* The master stops and starts again: a new prefork of e's mirror. */
static void
mf_restart(mf_env_t *e, int64_t *rev, int64_t *loading)
{
    mf_proc_t  p;

    gcp_lmdb_shared_free(e->sh);
    mf_prefork(e, 1);

    assert_non_null(mf_open(e, &p, 0, 0));
    assert_int_equal(gcp_lmdb_mirror_state(p.m, rev, loading), GCP_OK);
    mf_close(&p);
}


/* Loads e's mirror with a feeder; returns the mirror's revision. */
static int64_t
mf_load(mf_env_t *e, const char *fmt, int n)
{
    int          i;
    int64_t      rev;
    mf_proc_t    p;
    gcp_store_t  *s;

    assert_non_null(mf_open(e, &p, 0, 1));
    s = mf_etcd(e, &p);
    rev = 0;

    for (i = 0; i < n; i++) {
        rev = mf_create(s, fmt, i);
    }

    assert_true(mf_wait_rev(&p, rev, WAIT_MS));
    assert_true(mf_wait_live(&p, WAIT_MS));
    assert_int_equal(mf_stats(&p).loads, 1);

    gcp_store_close(s);
    mf_close(&p);

    return rev;
}


/*
 * A mirror is kept across a restart of its master only when it copies the
 * same etcd cluster and prefix and etcd still holds its revision; another
 * prefix, another cluster, or a compaction past it empties it (never
 * served: not loaded), and the next feeder loads it from a fresh range.
 */
static void
test_mirror_identity(void **state)
{
    char                 other[64];
    int64_t              rev, cur, loading;
    mf_env_t             e;
    mf_proc_t            p;
    gcp_arena_t         *a;
    gcp_store_t         *s;
    gcp_test_etcd_t      two;
    gcp_store_result_t  *res;

    mf_env(&e, 1);
    assert_null(e.claim.why);
    assert_non_null(strstr(e.claim.id, e.prefix));

    rev = mf_load(&e, "/registry/i%d", 3);

    /* the same cluster and prefix: kept, served, resumed without a load */
    mf_restart(&e, &cur, &loading);
    assert_null(e.claim.why);
    assert_int_equal(loading, 0);
    assert_int_equal(cur, rev);

    assert_non_null(mf_open(&e, &p, 0, 1));
    a = gcp_arena_create(0);
    res = gcp_sc_range(p.m, a, K("/registry/"), K("/registry0"), 0, 0, 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 3);
    assert_true(mf_wait_live(&p, WAIT_MS));
    assert_int_equal(mf_stats(&p).loads, 0);
    mf_close(&p);

    /* another prefix: emptied, then loaded from the new prefix */
    memcpy(other, e.prefix, sizeof(other));
    strncat(e.prefix, "-other", sizeof(e.prefix) - strlen(e.prefix) - 1);

    mf_restart(&e, &cur, &loading);
    assert_string_equal(e.claim.why, "another etcd cluster or prefix");
    assert_int_equal(loading, -1);

    assert_non_null(mf_open(&e, &p, 0, 0));
    res = gcp_sc_range(p.m, a, K("/registry/"), K("/registry0"), 0, 0, 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 0);
    mf_close(&p);

    (void) mf_load(&e, "/registry/o%d", 1);
    memcpy(e.prefix, other, sizeof(other));

    mf_restart(&e, &cur, &loading);
    assert_non_null(e.claim.why);
    assert_int_equal(loading, -1);

    (void) mf_load(&e, "/registry/j%d", 1);

    /* etcd compacted past the mirror: the changes after it are lost */
    assert_non_null(mf_open(&e, &p, 0, 0));
    s = mf_etcd(&e, &p);
    rev = mf_create(s, "/registry/k%d", 0);
    res = gcp_sc_compact(s, a, rev);
    assert_int_equal(res->rc, GCP_OK);
    gcp_store_close(s);
    mf_close(&p);

    mf_restart(&e, &cur, &loading);
    assert_string_equal(e.claim.why, "the revision was compacted");
    assert_int_equal(loading, -1);
    assert_non_null(strstr(e.claim.id, e.prefix));

    (void) mf_load(&e, "/registry/m%d", 1);

    /* another etcd cluster (behind this mirror's revision) */
    assert_int_equal(gcp_test_etcd_start(&two, 1), 0);
    e.conf.endpoints = two.endpoints;

    mf_restart(&e, &cur, &loading);
    assert_non_null(e.claim.why);
    assert_int_equal(loading, -1);
    assert_non_null(strstr(e.claim.id, "etcd cluster "));

    gcp_test_etcd_stop(&two);
    e.conf.endpoints = one.endpoints;

    /* etcd unreachable: emptied, no identity recorded */
    (void) mf_load(&e, "/registry/n%d", 1);
    e.conf.endpoints = "http://127.0.0.1:1";
    e.conf.timeout_ms = 500;

    mf_restart(&e, &cur, &loading);
    assert_non_null(e.claim.why);
    assert_string_equal(e.claim.id, "");
    assert_int_equal(loading, -1);

    e.conf.endpoints = one.endpoints;
    e.conf.timeout_ms = 5000;
    gcp_arena_destroy(a);
    mf_env_free(&e);
}


/* A failed test must not leave its child feeding forever. */
static int
mf_teardown(void **state)
{
    if (feeder_pid > 0) {
        kill(feeder_pid, SIGKILL);
        waitpid(feeder_pid, NULL, 0);
        feeder_pid = 0;
    }

    return 0;
}


static const struct CMUnitTest  mirror_tests[] = {
    cmocka_unit_test_teardown(test_feeder_takeover, mf_teardown),
    cmocka_unit_test_teardown(test_feeder_compacted, mf_teardown),
    cmocka_unit_test_teardown(test_feeder_replaced, mf_teardown),
    cmocka_unit_test(test_mirrored_store),
    cmocka_unit_test(test_mirrored_quorum),
    cmocka_unit_test(test_mirror_identity),
};


int
main(void)
{
    int        failed;
    mf_conf_t  conf_store;

    snprintf(base_dir, sizeof(base_dir), "/tmp/gcp-mirror-XXXXXX");

    if (mkdtemp(base_dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }

    if (gcp_test_etcd_start(&one, 1) != 0) {
        fprintf(stderr, "cannot start etcd\n");
        return 1;
    }

    failed = cmocka_run_group_tests_name("etcd mirror feeder", mirror_tests,
                                         NULL, NULL);

    /* with zero-copy reads from the mirror, as the registry's GET and LIST */
    memset(&conf_store, 0, sizeof(mf_conf_t));
    gcp_sc_brief = 1;
    failed += gcp_store_conformance_run("store conformance: etcd on a "
                                        "mirror", mf_conf_open,
                                        mf_conf_close, &conf_store);
    gcp_sc_brief = 0;

    gcp_test_etcd_stop(&one);
    rmdir(base_dir);

    return failed;
}
