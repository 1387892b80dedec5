
/*
 * Unit tests: the LMDB storage backend (backends/lmdb/).  Runs the storage
 * conformance suite on it, then tests what is particular to LMDB: key
 * limits, reopening, group commit, batched compaction, and several worker
 * processes sharing one database (conditional updates, cross-process
 * watches, a writer killed with SIGKILL, a writer that never notifies).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gcp_core.h"
#include "gcp_loop.h"
#include "lmdb/gcp_store_lmdb.h"
#include "store_conformance.h"


#define K(s)         gcp_sc_str(s)
#define MAP_SIZE     ((size_t) 256 << 20)


static char  base_dir[64];
static int   dir_seq;
static int   fdatasync_fails;   /* set: fdatasync() fails with EIO */


/*
 * liblmdb's mdb_env_sync() calls fdatasync(): this definition in the test
 * program takes its place, so that a test can make the disk fail.
 */
int
fdatasync(int fd)
{
    if (__atomic_load_n(&fdatasync_fails, __ATOMIC_SEQ_CST)) {
        errno = EIO;
        return -1;
    }

    return (int) syscall(SYS_fdatasync, fd);
}


/* A database directory, the state prefork shares, a loop and a store. */
typedef struct {
    char                dir[128];
    gcp_lmdb_shared_t  *sh;
    gcp_loop_t         *loop;
    gcp_store_t        *s;
} lm_env_t;


static void
lm_rmdir(const char *dir)
{
    char  path[256];

    snprintf(path, sizeof(path), "%s/data.mdb", dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/lock.mdb", dir);
    unlink(path);
    rmdir(dir);
}


/* Prefork on a new directory (or dir, when not NULL). */
static gcp_lmdb_shared_t *
lm_prefork(lm_env_t *e, int nslots, int sync)
{
    const char       *err = NULL;
    gcp_lmdb_conf_t   conf;

    if (e->dir[0] == '\0') {
        snprintf(e->dir, sizeof(e->dir), "%s/db%d/sub", base_dir, dir_seq++);
    }

    memset(&conf, 0, sizeof(gcp_lmdb_conf_t));
    conf.path = e->dir;
    conf.map_size = MAP_SIZE;
    conf.nslots = nslots;
    conf.sync = sync;

    e->sh = gcp_lmdb_prefork(&conf, &err);

    if (e->sh == NULL) {
        fprintf(stderr, "prefork: %s\n", err ? err : "?");
    }

    return e->sh;
}


/* Opens slot on e->sh with a new poll loop; NULL on failure. */
static gcp_store_t *
lm_open_slot(lm_env_t *e, int slot)
{
    const char  *err = NULL;

    e->loop = gcp_loop_poll_create();
    if (e->loop == NULL) {
        return NULL;
    }

    e->s = gcp_lmdb_open(e->sh, slot, e->loop, &err);

    if (e->s == NULL) {
        fprintf(stderr, "open: %s\n", err ? err : "?");
        gcp_loop_poll_destroy(e->loop);
        e->loop = NULL;
    }

    return e->s;
}


static void
lm_close_slot(lm_env_t *e)
{
    if (e->s) {
        gcp_store_close(e->s);
        e->s = NULL;
    }

    gcp_loop_poll_destroy(e->loop);
    e->loop = NULL;
}


static void
lm_destroy(lm_env_t *e)
{
    char  *p;

    lm_close_slot(e);
    gcp_lmdb_shared_free(e->sh);
    e->sh = NULL;

    lm_rmdir(e->dir);

    p = strrchr(e->dir, '/');
    if (p) {
        *p = '\0';
        rmdir(e->dir);
    }
}


static gcp_lmdb_stats_t
lm_stats(gcp_store_t *s)
{
    gcp_lmdb_stats_t  st;

    assert_int_equal(gcp_lmdb_stats(s, &st), GCP_OK);

    return st;
}


/* ------------------------------------------------------------ conformance */


static gcp_store_t *
conf_open(void *ctx)
{
    lm_env_t  *e = ctx;

    memset(e, 0, sizeof(lm_env_t));

    if (lm_prefork(e, 1, 1) == NULL) {
        return NULL;
    }

    return lm_open_slot(e, 0);
}


static void
conf_close(gcp_store_t *s, void *ctx)
{
    lm_destroy(ctx);
}


/* ------------------------------------------------------------ fixtures */


static int
lm_setup(void **state)
{
    lm_env_t  *e;

    e = calloc(1, sizeof(lm_env_t));
    if (e == NULL) {
        return -1;
    }

    *state = e;

    return 0;
}


static int
lm_teardown(void **state)
{
    lm_env_t  *e = *state;

    lm_destroy(e);
    free(e);

    return 0;
}


/* Waits for a child; returns its exit status, or -1 if it did not exit. */
static int
lm_reap(pid_t pid)
{
    int  status;

    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
        return -1;
    }

    return WEXITSTATUS(status);
}


/* ------------------------------------------------------------ tests */


static void
test_key_limits(void **state)
{
    char                 key[600];
    size_t               max;
    gcp_str_t            k, all;
    gcp_sc_rec_t         rec;
    gcp_arena_t         *a;
    gcp_store_t         *s;
    lm_env_t            *e = *state;
    gcp_store_result_t  *res;

    assert_non_null(lm_prefork(e, 1, 0));
    s = lm_open_slot(e, 0);
    assert_non_null(s);
    a = gcp_arena_create(0);

    /* LMDB's default key limit is 511 bytes: 9 go to \0 + revision */
    max = 511 - 9;
    memset(key, 'k', sizeof(key));
    key[0] = '/';

    k.data = key;
    k.len = max;
    res = gcp_sc_create(s, a, k, K("v"));
    assert_int_equal(res->rc, GCP_OK);
    res = gcp_sc_get(s, a, k, 0);
    assert_int_equal(res->nkvs, 1);
    assert_int_equal(res->kvs[0].key.len, max);

    k.len = max + 1;
    assert_int_equal(gcp_sc_create(s, a, k, K("v"))->rc, GCP_EKEYTOOLONG);

    /* reading a key too long to be stored finds nothing, as etcd would */
    res = gcp_sc_get(s, a, k, 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 0);

    assert_int_equal(gcp_sc_create(s, a, K("/m"), K("v"))->rc, GCP_OK);

    res = gcp_sc_range(s, a, k, K("/n"), 0, 0, 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 1);             /* not the shorter "/kk.." */
    assert_int_equal(res->kvs[0].key.len, 2);

    k.len = max + 2;
    res = gcp_sc_range(s, a, k, K("/l"), 0, 0, 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 0);

    /* and a watch of it is no error */
    gcp_sc_rec_init(&rec, a);
    (void) gcp_sc_watch(s, &rec, k, K(""), 0);
    gcp_sc_spin(s, 50);
    assert_int_equal(rec.n, 0);

    k.data = "/a\0b";
    k.len = 4;
    assert_int_equal(gcp_sc_create(s, a, k, K("v"))->rc, GCP_EBADREQUEST);
    assert_int_equal(gcp_sc_update(s, a, k, K("v"), 0)->rc, GCP_EBADREQUEST);
    assert_int_equal(gcp_sc_delete(s, a, k, 0)->rc, GCP_EBADREQUEST);
    assert_int_equal(gcp_sc_get(s, a, k, 0)->rc, GCP_EBADREQUEST);

    assert_int_equal(gcp_sc_create(s, a, K(""), K("v"))->rc,
                     GCP_EBADREQUEST);

    /* a watch on a bad key: one ERROR event, from the loop */
    gcp_sc_rec_init(&rec, a);
    (void) gcp_sc_watch(s, &rec, k, K(""), 0);
    assert_int_equal(rec.n, 0);
    assert_true(gcp_sc_rec_wait(s, &rec, 1, GCP_SC_TIMEOUT));
    assert_int_equal(gcp_sc_rec_event(&rec, 0)->type, GCP_STORE_EVENT_ERROR);
    assert_int_equal(gcp_sc_rec_event(&rec, 0)->rc, GCP_EBADREQUEST);

    /* the empty key starts an unbounded range: every key */
    assert_int_equal(gcp_sc_create(s, a, K("\x01"), K("v"))->rc, GCP_OK);
    all.data = "";
    all.len = 1;
    res = gcp_sc_range(s, a, K(""), all, 0, 0, 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->count, 3);              /* with "/m" */
    assert_int_equal(res->kvs[0].key.len, 1);
    assert_int_equal(res->kvs[1].key.len, max);
    assert_int_equal(res->kvs[2].key.len, 2);

    /* negative revisions */
    assert_int_equal(gcp_sc_get(s, a, K("/x"), -1)->rc, GCP_EBADREQUEST);

    gcp_arena_destroy(a);
}


static void
test_reopen(void **state)
{
    int64_t              rev;
    gcp_arena_t         *a;
    gcp_store_t         *s;
    lm_env_t            *e = *state;
    gcp_store_result_t  *res;

    assert_non_null(lm_prefork(e, 1, 1));
    s = lm_open_slot(e, 0);
    assert_non_null(s);
    a = gcp_arena_create(0);

    assert_int_equal(gcp_sc_revision(s), 1);
    (void) gcp_sc_create(s, a, K("/o/a"), K("1"));
    (void) gcp_sc_create(s, a, K("/o/b"), K("2"));
    rev = gcp_sc_update(s, a, K("/o/a"), K("3"), 0)->revision;
    assert_int_equal(rev, 4);

    /* as after a restart of nginx: new master state, same files */
    lm_close_slot(e);
    gcp_lmdb_shared_free(e->sh);
    assert_non_null(lm_prefork(e, 2, 1));
    s = lm_open_slot(e, 1);
    assert_non_null(s);

    assert_int_equal(gcp_sc_revision(s), rev);
    assert_int_equal(gcp_store_revision(s), rev);
    assert_int_equal(lm_stats(s).durable, rev);

    res = gcp_sc_get(s, a, K("/o/a"), 0);
    assert_int_equal(res->nkvs, 1);
    assert_int_equal(res->kvs[0].version, 2);
    assert_int_equal(res->kvs[0].create_revision, 2);
    assert_memory_equal(res->kvs[0].value.data, "3", 1);

    res = gcp_sc_get(s, a, K("/o/a"), 2);
    assert_memory_equal(res->kvs[0].value.data, "1", 1);

    res = gcp_sc_create(s, a, K("/o/c"), K("4"));
    assert_int_equal(res->revision, rev + 1);

    gcp_arena_destroy(a);
}


typedef struct {
    int                  n;
    int                  ok;
    int                  behind;    /* acknowledged before dispatched */
    gcp_store_t         *store;     /* the store to check that on, or NULL */
    int64_t              revs[64];
} gc_state_t;


/* A brief arena: reads into it may be pinned snapshots of the map. */
static gcp_arena_t *
lm_brief(void)
{
    gcp_arena_t  *a;

    a = gcp_arena_create(0);
    assert_non_null(a);
    gcp_arena_set_brief(a);

    return a;
}


static void
test_pinned_reads(void **state)
{
    int                  i;
    int64_t              r2;
    gcp_arena_t         *w, *a1, *a2, *a3, *b[4];
    gcp_store_t         *s;
    lm_env_t            *e = *state;
    gcp_lmdb_stats_t     st;
    gcp_store_result_t  *l1, *g2, *res;

    assert_non_null(lm_prefork(e, 1, 1));
    s = lm_open_slot(e, 0);
    assert_non_null(s);
    w = gcp_arena_create(0);

    (void) gcp_sc_create(s, w, K("/p/a"), K("v1"));
    r2 = gcp_sc_create(s, w, K("/p/b"), K("w1"))->revision;

    /* a list and a get in brief arenas share one snapshot, not copied */

    a1 = lm_brief();
    l1 = gcp_sc_range(s, a1, K("/p/"), K("/p0"), 0, 0, 0);
    assert_int_equal(l1->rc, GCP_OK);
    assert_int_equal(l1->nkvs, 2);

    a2 = lm_brief();
    g2 = gcp_sc_get(s, a2, K("/p/a"), 0);
    assert_int_equal(g2->nkvs, 1);
    assert_ptr_equal(g2->kvs[0].value.data, l1->kvs[0].value.data);
    assert_ptr_equal(g2->kvs[0].key.data, l1->kvs[0].key.data);
    assert_int_equal(g2->kvs[0].key.data[g2->kvs[0].key.len], '\0');

    st = lm_stats(s);
    assert_int_equal(st.pinned_reads, 2);
    assert_int_equal(st.snapshots, 1);

    /* not brief, or a count: copied as before */

    res = gcp_sc_get(s, w, K("/p/a"), 0);
    assert_ptr_not_equal(res->kvs[0].value.data, l1->kvs[0].value.data);
    assert_memory_equal(res->kvs[0].value.data, "v1", 3);
    res = gcp_sc_range(s, a1, K("/p/"), K("/p0"), 0, 0, 1);
    assert_int_equal(res->count, 2);
    assert_int_equal(lm_stats(s).pinned_reads, 2);

    /*
     * Changes, a compaction freeing the old versions and more writes
     * reusing pages: the pinned results keep what they read
     */

    (void) gcp_sc_update(s, w, K("/p/a"), K("v2"), 0);
    (void) gcp_sc_delete(s, w, K("/p/b"), 0);
    assert_int_equal(gcp_sc_compact(s, w, gcp_sc_revision(s))->rc, GCP_OK);

    (void) gcp_sc_create(s, w, K("/p/c"), K("0"));

    for (i = 0; i < 200; i++) {
        (void) gcp_sc_update(s, w, K("/p/c"),
                             K("0123456789abcdef0123456789abcdef"), 0);
    }

    assert_int_equal(l1->revision, r2);
    assert_memory_equal(l1->kvs[0].key.data, "/p/a", 4);
    assert_memory_equal(l1->kvs[0].value.data, "v1", 2);
    assert_int_equal(l1->kvs[0].value.len, 2);
    assert_memory_equal(l1->kvs[1].key.data, "/p/b", 4);
    assert_memory_equal(l1->kvs[1].value.data, "w1", 2);

    /* a read after the writes: the newest state, a snapshot of its own */

    a3 = lm_brief();
    res = gcp_sc_get(s, a3, K("/p/a"), 0);
    assert_memory_equal(res->kvs[0].value.data, "v2", 2);
    assert_int_equal(gcp_sc_get(s, a3, K("/p/b"), 0)->nkvs, 0);
    st = lm_stats(s);
    assert_int_equal(st.pinned_reads, 4);
    assert_int_equal(st.snapshots, 2);

    /* at most GCP_LMDB_SNAPS (4) pinned: beyond, reads copy */

    (void) gcp_sc_create(s, w, K("/p/d"), K("x"));

    for (i = 0; i < 4; i++) {
        (void) gcp_sc_update(s, w, K("/p/d"), K("x"), 0);
        b[i] = lm_brief();
        res = gcp_sc_get(s, b[i], K("/p/d"), 0);
        assert_int_equal(res->kvs[0].version, i + 2);
    }

    st = lm_stats(s);
    assert_int_equal(st.snapshots, 4);
    assert_int_equal(st.pinned_reads, 6);

    /* the snapshot goes with the last arena pinning it */

    gcp_arena_destroy(a1);
    assert_int_equal(lm_stats(s).snapshots, 4);
    gcp_arena_destroy(a2);
    assert_int_equal(lm_stats(s).snapshots, 3);

    for (i = 0; i < 4; i++) {
        gcp_arena_destroy(b[i]);
    }

    assert_int_equal(lm_stats(s).snapshots, 1);

    /* the store closed before an arena pinning it: nothing left behind */

    lm_close_slot(e);
    gcp_arena_destroy(a3);
    gcp_arena_destroy(w);
}


typedef struct {
    gc_state_t          *st;
    int                  i;
} gc_call_t;


static void
gc_done(void *arg, gcp_store_result_t *res)
{
    gc_call_t  *c = arg;

    c->st->n++;
    c->st->ok += (res->rc == GCP_OK);
    c->st->revs[c->i] = res->revision;

    if (c->st->store && gcp_store_revision(c->st->store) < res->revision) {
        c->st->behind++;
    }
}


static void
test_group_commit(void **state)
{
    int                i;
    char               key[32];
    gc_state_t         gs;
    gc_call_t          calls[64];
    gcp_arena_t       *a;
    gcp_store_t       *s;
    gcp_lmdb_stats_t   before, after;
    lm_env_t          *e = *state;

    assert_non_null(lm_prefork(e, 1, 1));
    s = lm_open_slot(e, 0);
    assert_non_null(s);
    a = gcp_arena_create(0);

    memset(&gs, 0, sizeof(gc_state_t));
    gs.store = s;
    before = lm_stats(s);

    for (i = 0; i < 64; i++) {
        snprintf(key, sizeof(key), "/g/%02d", i);
        calls[i].st = &gs;
        calls[i].i = i;
        gcp_store_create(s, K(key), K("v"), a, gc_done, &calls[i]);
    }

    /* acknowledged only after the sync, from the loop */
    assert_int_equal(gs.n, 0);

    for (i = 0; i < 1000 && gs.n < 64; i++) {
        gcp_loop_poll_run(s->loop, 50);
    }

    assert_int_equal(gs.n, 64);
    assert_int_equal(gs.ok, 64);

    /* each acknowledged once this process's watches had it */
    assert_int_equal(gs.behind, 0);

    for (i = 0; i < 64; i++) {
        assert_int_equal(gs.revs[i], before.revision + 1 + i);
    }

    after = lm_stats(s);
    assert_int_equal(after.synced_writes - before.synced_writes, 64);
    assert_true(after.syncs - before.syncs >= 1);
    assert_true(after.syncs - before.syncs < 32);
    assert_true(gcp_store_revision(s) >= before.revision + 64);

    gcp_arena_destroy(a);
}


static void
test_sync_off(void **state)
{
    gc_state_t     gs;
    gc_call_t      call;
    gcp_arena_t   *a;
    gcp_store_t   *s;
    lm_env_t      *e = *state;

    assert_non_null(lm_prefork(e, 1, 0));
    s = lm_open_slot(e, 0);
    assert_non_null(s);
    a = gcp_arena_create(0);

    memset(&gs, 0, sizeof(gc_state_t));
    call.st = &gs;
    call.i = 0;

    gcp_store_create(s, K("/n/a"), K("v"), a, gc_done, &call);
    assert_int_equal(gs.n, 1);
    assert_int_equal(gs.ok, 1);
    assert_int_equal(lm_stats(s).syncs, 0);

    gcp_arena_destroy(a);
}


#define CB_KEYS  10000


typedef struct {
    int                  done;
    gcp_store_result_t  *res;
} lm_call_t;


static void
lm_done(void *arg, gcp_store_result_t *res)
{
    lm_call_t  *c = arg;

    c->done++;
    c->res = res;
}


/* Compacts at rev, checking that the work is left to the loop. */
static void
lm_compact(gcp_store_t *s, gcp_arena_t *a, int64_t rev)
{
    lm_call_t  call = { 0, NULL };

    gcp_store_compact(s, rev, a, lm_done, &call);
    assert_int_equal(call.done, 0);

    assert_true(gcp_sc_wait(s, &call.done, 30000));
    assert_int_equal(call.done, 1);
    assert_int_equal(call.res->rc, GCP_OK);
    assert_int_equal(call.res->compact_revision, rev);
}


/*
 * A failed fdatasync: the writes it was to make durable were committed
 * and are visible, so their outcome is unknown to their clients (500 in
 * doubt, never 503 "nothing happened"); later writes are refused before
 * they are made (503).
 */

static void
test_sync_failure(void **state)
{
    lm_call_t     call;
    gcp_arena_t  *a;
    gcp_store_t  *s;
    lm_env_t     *e = *state;

    assert_non_null(lm_prefork(e, 1, 1));
    s = lm_open_slot(e, 0);
    assert_non_null(s);
    a = gcp_arena_create(0);

    __atomic_store_n(&fdatasync_fails, 1, __ATOMIC_SEQ_CST);

    memset(&call, 0, sizeof(lm_call_t));
    gcp_store_create(s, K("/f/a"), K("v"), a, lm_done, &call);
    assert_true(gcp_sc_wait(s, &call.done, 30000));

    __atomic_store_n(&fdatasync_fails, 0, __ATOMIC_SEQ_CST);

    assert_int_equal(call.res->rc, GCP_EINDOUBT);

    /* it was committed: readers see it */
    memset(&call, 0, sizeof(lm_call_t));
    gcp_store_get(s, K("/f/a"), 0, a, lm_done, &call);
    assert_true(gcp_sc_wait(s, &call.done, 30000));
    assert_int_equal(call.res->rc, GCP_OK);
    assert_int_equal(call.res->nkvs, 1);

    /* the store is failed: a new write is refused, and not made */
    memset(&call, 0, sizeof(lm_call_t));
    gcp_store_create(s, K("/f/b"), K("v"), a, lm_done, &call);
    assert_true(gcp_sc_wait(s, &call.done, 30000));
    assert_int_equal(call.res->rc, GCP_EUNAVAILABLE);

    memset(&call, 0, sizeof(lm_call_t));
    gcp_store_get(s, K("/f/b"), 0, a, lm_done, &call);
    assert_true(gcp_sc_wait(s, &call.done, 30000));
    assert_int_equal(call.res->rc, GCP_OK);
    assert_int_equal(call.res->nkvs, 0);

    gcp_arena_destroy(a);
}


static void
test_compaction_batches(void **state)
{
    int                  i, deleted;
    char                 key[32];
    int64_t              mid, cur, nhist;
    uint64_t             batches;
    gcp_str_t            end;
    gcp_arena_t         *a, *tmp;
    gcp_store_t         *s;
    lm_env_t            *e = *state;
    gcp_lmdb_stats_t     st;
    gcp_store_result_t  *res;

    assert_non_null(lm_prefork(e, 1, 0));
    s = lm_open_slot(e, 0);
    assert_non_null(s);
    a = gcp_arena_create(0);
    end = gcp_store_prefix_end(a, K("/cb/"));

    tmp = gcp_arena_create(0);

    for (i = 0; i < CB_KEYS; i++) {
        snprintf(key, sizeof(key), "/cb/%05d", i);
        assert_int_equal(gcp_sc_create(s, tmp, K(key), K("v1"))->rc, GCP_OK);

        if (i % 2 == 0) {
            assert_int_equal(gcp_sc_update(s, tmp, K(key), K("v2"), 0)->rc,
                             GCP_OK);
        }

        if (i % 1000 == 999) {
            gcp_arena_destroy(tmp);
            tmp = gcp_arena_create(0);
        }
    }

    mid = gcp_sc_revision(s);

    deleted = 0;
    for (i = 0; i < CB_KEYS; i += 4) {
        snprintf(key, sizeof(key), "/cb/%05d", i);
        assert_int_equal(gcp_sc_delete(s, tmp, K(key), 0)->rc, GCP_OK);
        deleted++;
    }

    gcp_arena_destroy(tmp);
    cur = gcp_sc_revision(s);
    assert_int_equal(cur, 1 + CB_KEYS + CB_KEYS / 2 + deleted);

    nhist = CB_KEYS + CB_KEYS / 2 + deleted;
    st = lm_stats(s);
    assert_int_equal(st.hist_entries, nhist);
    assert_int_equal(st.log_entries, cur - 1);
    batches = st.compact_batches;

    lm_compact(s, a, mid);

    /* one version per key at mid, plus the deletes after it */
    st = lm_stats(s);
    assert_int_equal(st.hist_entries, CB_KEYS + deleted);
    assert_int_equal(st.log_entries, cur - mid);
    assert_int_equal(st.compact_revision, mid);
    assert_true(st.compact_batches - batches
                >= (uint64_t) (nhist / 1000 + (mid - 1) / 1000));

    res = gcp_sc_range(s, a, K("/cb/"), end, mid, 0, 1);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->count, CB_KEYS);
    res = gcp_sc_range(s, a, K("/cb/"), end, 0, 0, 1);
    assert_int_equal(res->count, CB_KEYS - deleted);
    res = gcp_sc_range(s, a, K("/cb/"), end, mid - 1, 0, 1);
    assert_int_equal(res->rc, GCP_ECOMPACTED);

    res = gcp_sc_get(s, a, K("/cb/00000"), mid);
    assert_int_equal(res->nkvs, 1);
    assert_int_equal(res->kvs[0].version, 2);
    assert_memory_equal(res->kvs[0].value.data, "v2", 2);
    res = gcp_sc_get(s, a, K("/cb/00000"), 0);
    assert_int_equal(res->nkvs, 0);
    res = gcp_sc_get(s, a, K("/cb/00001"), mid);
    assert_int_equal(res->kvs[0].version, 1);
    assert_int_equal(res->kvs[0].mod_revision, 4);

    /* everything: the tombstones go too */
    lm_compact(s, a, cur);
    st = lm_stats(s);
    assert_int_equal(st.hist_entries, CB_KEYS - deleted);
    assert_int_equal(st.log_entries, 0);

    res = gcp_sc_range(s, a, K("/cb/"), end, cur, 0, 0);
    assert_int_equal(res->nkvs, CB_KEYS - deleted);
    assert_memory_equal(res->kvs[0].key.data, "/cb/00001", 9);
    assert_memory_equal(res->kvs[1].value.data, "v2", 2);

    gcp_arena_destroy(a);
}


/* ------------------------------------------------------------ processes */


typedef struct {
    lm_env_t            *e;         /* the parent's: dir and shared state */
    gcp_lmdb_shared_t   *sh;
    int                  slot;
    int                  go_r;      /* start when this pipe reaches EOF */
    int                  go_w;
    int                  n;
    int                  out;       /* durability: acknowledged indexes */
} lm_child_t;


typedef int (*lm_child_pt)(lm_child_t *c);


/* Forks a child running fn(c), after its "go" (never returns in it). */
static pid_t
lm_spawn(lm_child_pt fn, lm_child_t *c)
{
    char   b;
    pid_t  pid;

    pid = fork();
    assert_true(pid != -1);

    if (pid == 0) {
        if (c->go_w != -1) {
            close(c->go_w);

            while (read(c->go_r, &b, 1) == -1 && errno == EINTR) {
                /* void */
            }
        }

        _exit(fn(c));
    }

    return pid;
}


/* Opens c's slot in the child; returns the store or NULL. */
static gcp_store_t *
lm_child_open(lm_child_t *c, lm_env_t *e)
{
    memset(e, 0, sizeof(lm_env_t));
    e->sh = c->sh;

    return lm_open_slot(e, c->slot);
}


/* Runs one operation's loop in a child; returns its result or NULL. */
static gcp_store_result_t *
lm_child_wait(gcp_store_t *s, lm_call_t *call)
{
    if (!gcp_sc_wait(s, &call->done, 10000)) {
        return NULL;
    }

    return call->res;
}


static int
child_counter(lm_child_t *c)
{
    int                  done;
    char                 val[32];
    long                 value;
    int64_t              mod;
    lm_env_t             e;
    lm_call_t            call;
    gcp_arena_t         *a;
    gcp_store_t         *s;
    gcp_store_result_t  *res;

    s = lm_child_open(c, &e);
    if (s == NULL) {
        return 10;
    }

    a = gcp_arena_create(0);
    memset(&call, 0, sizeof(lm_call_t));
    gcp_store_get(s, K("/cnt"), 0, a, lm_done, &call);
    res = lm_child_wait(s, &call);

    if (res == NULL || res->rc != GCP_OK || res->nkvs != 1) {
        return 11;
    }

    value = strtol(res->kvs[0].value.data, NULL, 10);
    mod = res->kvs[0].mod_revision;
    gcp_arena_destroy(a);

    for (done = 0; done < c->n; /* void */) {
        a = gcp_arena_create(0);
        snprintf(val, sizeof(val), "%ld", value + 1);

        memset(&call, 0, sizeof(lm_call_t));
        gcp_store_update(s, K("/cnt"), K(val), mod, a, lm_done, &call);
        res = lm_child_wait(s, &call);

        if (res == NULL || res->nkvs != 1) {
            return 12;
        }

        if (res->rc == GCP_OK) {
            value++;
            done++;

        } else if (res->rc == GCP_ECONFLICT) {
            value = strtol(res->kvs[0].value.data, NULL, 10);

        } else {
            return 13;
        }

        mod = res->kvs[0].mod_revision;
        gcp_arena_destroy(a);
    }

    lm_close_slot(&e);

    return 0;
}


static int
lm_pipe(int fd[2])
{
    return pipe(fd);
}


static void
test_mp_counter(void **state)
{
    int                  i, go[2];
    pid_t                pids[3];
    char                 want[32];
    int64_t              start;
    gcp_arena_t         *a;
    gcp_store_t         *s;
    lm_child_t           c[3];
    lm_env_t            *e = *state;
    gcp_store_result_t  *res;

    assert_non_null(lm_prefork(e, 4, 1));

    /* the parent holds no open store while forking */
    s = lm_open_slot(e, 0);
    assert_non_null(s);
    a = gcp_arena_create(0);
    start = gcp_sc_create(s, a, K("/cnt"), K("0"))->revision;
    lm_close_slot(e);

    assert_int_equal(lm_pipe(go), 0);

    for (i = 0; i < 3; i++) {
        memset(&c[i], 0, sizeof(lm_child_t));
        c[i].e = e;
        c[i].sh = e->sh;
        c[i].slot = i + 1;
        c[i].go_r = go[0];
        c[i].go_w = go[1];
        c[i].n = 40;
        c[i].out = -1;
        pids[i] = lm_spawn(child_counter, &c[i]);
    }

    close(go[0]);
    close(go[1]);

    for (i = 0; i < 3; i++) {
        assert_int_equal(lm_reap(pids[i]), 0);
    }

    s = lm_open_slot(e, 0);
    assert_non_null(s);

    res = gcp_sc_get(s, a, K("/cnt"), 0);
    assert_int_equal(res->nkvs, 1);
    assert_memory_equal(res->kvs[0].value.data, "120", 4);
    assert_int_equal(res->kvs[0].mod_revision, start + 120);
    assert_int_equal(res->kvs[0].version, 121);

    /* one winner per revision: the value at start + i is i */
    for (i = 0; i <= 120; i++) {
        res = gcp_sc_get(s, a, K("/cnt"), start + i);
        assert_int_equal(res->rc, GCP_OK);
        assert_int_equal(res->kvs[0].mod_revision, start + i);
        snprintf(want, sizeof(want), "%d", i);
        assert_int_equal(res->kvs[0].value.len, strlen(want));
        assert_memory_equal(res->kvs[0].value.data, want, strlen(want));
    }

    gcp_arena_destroy(a);
}


static int
child_creator(lm_child_t *c)
{
    int                  i;
    char                 key[32];
    lm_env_t             e;
    lm_call_t            call;
    gcp_arena_t         *a;
    gcp_store_t         *s;
    gcp_store_result_t  *res;

    s = lm_child_open(c, &e);
    if (s == NULL) {
        return 10;
    }

    for (i = 0; i < c->n; i++) {
        a = gcp_arena_create(0);
        snprintf(key, sizeof(key), "/mw/%d/%03d", c->slot, i);

        memset(&call, 0, sizeof(lm_call_t));
        gcp_store_create(s, K(key), K("v"), a, lm_done, &call);
        res = lm_child_wait(s, &call);

        if (res == NULL || res->rc != GCP_OK) {
            return 11;
        }

        gcp_arena_destroy(a);
    }

    lm_close_slot(&e);

    return 0;
}


static void
test_mp_watch(void **state)
{
    int                  i, go[2], next[3];
    pid_t                pids[2];
    char                 key[32];
    gcp_arena_t         *a;
    gcp_store_t         *s;
    lm_child_t           c[2];
    gcp_sc_rec_t         rec;
    lm_env_t            *e = *state;
    gcp_store_event_t   *ev;

    assert_non_null(lm_prefork(e, 3, 1));
    assert_int_equal(lm_pipe(go), 0);

    for (i = 0; i < 2; i++) {
        memset(&c[i], 0, sizeof(lm_child_t));
        c[i].e = e;
        c[i].sh = e->sh;
        c[i].slot = i + 1;
        c[i].go_r = go[0];
        c[i].go_w = go[1];
        c[i].n = 100;
        c[i].out = -1;
        pids[i] = lm_spawn(child_creator, &c[i]);
    }

    s = lm_open_slot(e, 0);
    assert_non_null(s);
    a = gcp_arena_create(0);

    gcp_sc_rec_init(&rec, a);
    (void) gcp_sc_watch(s, &rec, K("/mw/"), K("/mw0"), 0);

    close(go[0]);
    close(go[1]);

    /* every event exactly once, in revision order, in bounded time */
    assert_true(gcp_sc_rec_wait(s, &rec, 200, GCP_SC_TIMEOUT));

    for (i = 0; i < 2; i++) {
        assert_int_equal(lm_reap(pids[i]), 0);
    }

    gcp_sc_spin(s, 50);
    assert_int_equal(rec.n, 200);
    assert_false(rec.out_of_order);

    next[1] = 0;
    next[2] = 0;

    for (i = 0; i < 200; i++) {
        ev = gcp_sc_rec_event(&rec, i);
        assert_int_equal(ev->type, GCP_STORE_EVENT_PUT);
        assert_int_equal(ev->kv.key.len, 9);

        c[0].slot = ev->kv.key.data[4] - '0';
        assert_true(c[0].slot == 1 || c[0].slot == 2);

        snprintf(key, sizeof(key), "/mw/%d/%03d", c[0].slot,
                 next[c[0].slot]++);
        assert_memory_equal(ev->kv.key.data, key, 9);
    }

    assert_int_equal(next[1], 100);
    assert_int_equal(next[2], 100);

    /* the writers' wake-ups came through the eventfds */
    assert_true(lm_stats(s).notify_rounds > 0);

    gcp_arena_destroy(a);
}


/* The writer killed by the durability test. */
typedef struct {
    gcp_store_t         *s;
    int                  next;
    int                  out;
    int                  failed;
} dw_state_t;


typedef struct {
    dw_state_t          *st;
    int                  i;
    gcp_arena_t         *a;
} dw_call_t;


static void dw_issue(dw_state_t *st);


static void
dw_done(void *arg, gcp_store_result_t *res)
{
    ssize_t      n;
    dw_call_t   *c = arg;
    dw_state_t  *st = c->st;

    if (res->rc != GCP_OK) {
        st->failed = 1;
        return;
    }

    n = write(st->out, &c->i, sizeof(int));
    if (n != (ssize_t) sizeof(int)) {
        st->failed = 1;
    }

    gcp_arena_destroy(c->a);
    free(c);

    dw_issue(st);
}


static void
dw_issue(dw_state_t *st)
{
    char        key[32];
    dw_call_t  *c;

    c = malloc(sizeof(dw_call_t));
    if (c == NULL) {
        st->failed = 1;
        return;
    }

    c->st = st;
    c->i = st->next++;
    c->a = gcp_arena_create(0);

    snprintf(key, sizeof(key), "/d/%07d", c->i);
    gcp_store_create(st->s, K(key), K("durable"), c->a, dw_done, c);
}


static int
child_writer(lm_child_t *c)
{
    int          i;
    lm_env_t     e;
    dw_state_t   st;

    memset(&st, 0, sizeof(dw_state_t));
    st.out = c->out;
    st.s = lm_child_open(c, &e);

    if (st.s == NULL) {
        return 10;
    }

    for (i = 0; i < 16; i++) {
        dw_issue(&st);
    }

    while (!st.failed) {
        gcp_loop_poll_run(e.loop, 100);
    }

    return 11;
}


#define DW_MAX  (1 << 20)


static void
test_mp_durability(void **state)
{
    int                  i, fd[2], got, *acked;
    char                 key[32];
    pid_t                pid;
    ssize_t              n;
    gcp_arena_t         *a;
    gcp_store_t         *s;
    lm_child_t           c;
    lm_env_t            *e = *state;
    gcp_store_result_t  *res;

    assert_non_null(lm_prefork(e, 2, 1));
    assert_int_equal(lm_pipe(fd), 0);

    memset(&c, 0, sizeof(lm_child_t));
    c.e = e;
    c.sh = e->sh;
    c.slot = 1;
    c.go_w = -1;
    c.out = fd[1];
    pid = lm_spawn(child_writer, &c);

    close(fd[1]);

    acked = malloc(sizeof(int) * DW_MAX);
    assert_non_null(acked);

    /* kill -9 while writes are in flight */
    for (got = 0; got < 300; got++) {
        n = read(fd[0], &acked[got], sizeof(int));
        assert_int_equal(n, sizeof(int));
    }

    assert_int_equal(kill(pid, SIGKILL), 0);
    assert_int_equal(waitpid(pid, &i, 0), pid);
    assert_true(WIFSIGNALED(i));

    while (got < DW_MAX
           && read(fd[0], &acked[got], sizeof(int)) == sizeof(int))
    {
        got++;
    }

    close(fd[0]);

    /* restart: new master state, same files */
    gcp_lmdb_shared_free(e->sh);
    assert_non_null(lm_prefork(e, 2, 1));
    s = lm_open_slot(e, 0);
    assert_non_null(s);
    a = gcp_arena_create(0);

    for (i = 0; i < got; i++) {
        snprintf(key, sizeof(key), "/d/%07d", acked[i]);
        res = gcp_sc_get(s, a, K(key), 0);
        assert_int_equal(res->rc, GCP_OK);
        assert_int_equal(res->nkvs, 1);
        assert_memory_equal(res->kvs[0].value.data, "durable", 7);

        if (i % 1000 == 999) {
            gcp_arena_destroy(a);
            a = gcp_arena_create(0);
        }
    }

    /* the store still takes writes (the writer lock was recovered) */
    res = gcp_sc_create(s, a, K("/d/after"), K("v"));
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->revision, gcp_sc_revision(s));

    free(acked);
    gcp_arena_destroy(a);
}


static int
child_silent(lm_child_t *c)
{
    lm_env_t             e;
    lm_call_t            call;
    gcp_arena_t         *a;
    gcp_store_t         *s;
    gcp_store_result_t  *res;

    s = lm_child_open(c, &e);
    if (s == NULL) {
        return 10;
    }

    a = gcp_arena_create(0);
    memset(&call, 0, sizeof(lm_call_t));
    gcp_store_create(s, K("/orphan/x"), K("v"), a, lm_done, &call);
    res = lm_child_wait(s, &call);

    if (res == NULL || res->rc != GCP_OK) {
        return 11;
    }

    gcp_arena_destroy(a);
    lm_close_slot(&e);

    return 0;
}


/*
 * A writer whose wake-ups never reach this process (it has other shared
 * state, as old workers during a reload): the safety timer syncs and
 * delivers its write.
 */
static void
test_mp_unnotified(void **state)
{
    int                  go[2];
    pid_t                pid;
    gcp_arena_t         *a;
    gcp_store_t         *s;
    lm_child_t           c;
    lm_env_t            *e = *state, other;
    gcp_sc_rec_t         rec;
    gcp_store_event_t   *ev;

    assert_non_null(lm_prefork(e, 1, 1));

    memset(&other, 0, sizeof(lm_env_t));
    strcpy(other.dir, e->dir);
    assert_non_null(lm_prefork(&other, 1, 1));

    assert_int_equal(lm_pipe(go), 0);

    memset(&c, 0, sizeof(lm_child_t));
    c.e = &other;
    c.sh = other.sh;
    c.slot = 0;
    c.go_r = go[0];
    c.go_w = go[1];
    c.out = -1;
    pid = lm_spawn(child_silent, &c);

    s = lm_open_slot(e, 0);
    assert_non_null(s);
    a = gcp_arena_create(0);

    gcp_sc_rec_init(&rec, a);
    (void) gcp_sc_watch(s, &rec, K("/orphan/"), K("/orphan0"), 0);

    close(go[0]);
    close(go[1]);
    assert_int_equal(lm_reap(pid), 0);

    assert_true(gcp_sc_rec_wait(s, &rec, 1, GCP_SC_TIMEOUT));
    ev = gcp_sc_rec_event(&rec, 0);
    assert_int_equal(ev->type, GCP_STORE_EVENT_PUT);
    assert_int_equal(ev->revision, 2);
    assert_true(lm_stats(s).durable >= 2);

    gcp_lmdb_shared_free(other.sh);
    gcp_arena_destroy(a);
}


/* ------------------------------------------------------------ mirror */


static gcp_kv_t
mr_kv(const char *key, const char *value, int64_t create, int64_t mod,
    int64_t version)
{
    gcp_kv_t  kv;

    kv.key = K(key);
    kv.value = K(value ? value : "");
    kv.create_revision = create;
    kv.mod_revision = mod;
    kv.version = version;

    return kv;
}


static gcp_store_event_t
mr_change(int type, const char *key, const char *value, int64_t create,
    int64_t mod, int64_t version)
{
    gcp_store_event_t  ch;

    memset(&ch, 0, sizeof(gcp_store_event_t));
    ch.type = type;
    ch.kv = mr_kv(key, value, create, mod, version);

    return ch;
}


static void
mr_assert_kv(const gcp_kv_t *kv, const char *key, const char *value,
    int64_t create, int64_t mod, int64_t version)
{
    assert_int_equal(kv->key.len, strlen(key));
    assert_memory_equal(kv->key.data, key, kv->key.len);
    assert_int_equal(kv->value.len, strlen(value));
    assert_memory_equal(kv->value.data, value, kv->value.len);
    assert_int_equal(kv->create_revision, create);
    assert_int_equal(kv->mod_revision, mod);
    assert_int_equal(kv->version, version);
}


/*
 * A mirror loaded at revision 10, then fed another store's changes at
 * their revisions, two of them in one revision: reads at every revision
 * from the load's on, 410 below it, watches from now and from the past
 * with prev_kv, every change of a revision once and in order.
 */
static void
test_mirror_apply(void **state)
{
    int64_t              rev, loading;
    gcp_kv_t             kvs[2];
    const char          *msg;
    gcp_arena_t         *a;
    gcp_store_t         *s;
    gcp_sc_rec_t         now, past;
    lm_env_t            *e = *state;
    gcp_store_event_t   *ev;
    gcp_store_result_t  *res;
    gcp_store_event_t    ch[3];

    assert_non_null(lm_prefork(e, 1, 0));
    s = lm_open_slot(e, 0);
    assert_non_null(s);
    a = gcp_arena_create(0);

    assert_int_equal(gcp_lmdb_mirror_state(s, &rev, &loading), GCP_OK);
    assert_int_equal(loading, -1);

    /* a load of two pages */
    kvs[0] = mr_kv("/m/a", "a1", 3, 4, 2);
    assert_int_equal(gcp_lmdb_mirror_load(s, kvs, 1, 10, GCP_STORE_LOAD_FIRST,
                                          &msg), GCP_OK);
    assert_int_equal(gcp_lmdb_mirror_state(s, &rev, &loading), GCP_OK);
    assert_int_equal(loading, 10);

    /* no change while loading */
    ch[0] = mr_change(GCP_STORE_EVENT_PUT, "/m/z", "z", 11, 11, 1);
    assert_int_equal(gcp_lmdb_mirror_apply(s, ch, 1, 11, &msg),
                     GCP_EBADREQUEST);

    kvs[0] = mr_kv("/m/b", "b1", 9, 9, 1);
    assert_int_equal(gcp_lmdb_mirror_load(s, kvs, 1, 10, GCP_STORE_LOAD_LAST,
                                          &msg), GCP_OK);
    assert_int_equal(gcp_lmdb_mirror_state(s, &rev, &loading), GCP_OK);
    assert_int_equal(rev, 10);
    assert_int_equal(loading, 0);

    res = gcp_sc_get(s, a, K("/m/a"), 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->revision, 10);
    assert_int_equal(res->nkvs, 1);
    mr_assert_kv(&res->kvs[0], "/m/a", "a1", 3, 4, 2);

    /* the history before the load is unknown */
    res = gcp_sc_get(s, a, K("/m/a"), 9);
    assert_int_equal(res->rc, GCP_ECOMPACTED);

    gcp_sc_rec_init(&now, a);
    (void) gcp_sc_watch(s, &now, K("/m/"), K("/m0"), 0);

    /* revision 12 creates c; revision 14 updates a and deletes b */
    ch[0] = mr_change(GCP_STORE_EVENT_PUT, "/m/c", "c1", 12, 12, 1);
    ch[1] = mr_change(GCP_STORE_EVENT_PUT, "/m/a", "a2", 3, 14, 3);
    ch[2] = mr_change(GCP_STORE_EVENT_DELETE, "/m/b", NULL, 0, 14, 0);
    assert_int_equal(gcp_lmdb_mirror_apply(s, ch, 3, 15, &msg), GCP_OK);

    assert_true(gcp_sc_rec_wait(s, &now, 3, GCP_SC_TIMEOUT));
    gcp_sc_spin(s, 20);
    assert_int_equal(now.n, 3);

    ev = gcp_sc_rec_event(&now, 0);
    assert_int_equal(ev->type, GCP_STORE_EVENT_PUT);
    assert_int_equal(ev->revision, 12);
    mr_assert_kv(&ev->kv, "/m/c", "c1", 12, 12, 1);
    assert_false(ev->has_prev);

    ev = gcp_sc_rec_event(&now, 1);
    assert_int_equal(ev->type, GCP_STORE_EVENT_PUT);
    assert_int_equal(ev->revision, 14);
    mr_assert_kv(&ev->kv, "/m/a", "a2", 3, 14, 3);
    assert_true(ev->has_prev);
    mr_assert_kv(&ev->prev_kv, "/m/a", "a1", 3, 4, 2);

    ev = gcp_sc_rec_event(&now, 2);
    assert_int_equal(ev->type, GCP_STORE_EVENT_DELETE);
    assert_int_equal(ev->revision, 14);
    assert_int_equal(ev->kv.mod_revision, 14);
    assert_true(ev->has_prev);
    mr_assert_kv(&ev->prev_kv, "/m/b", "b1", 9, 9, 1);

    /* reads at each revision */
    res = gcp_sc_range(s, a, K("/m/"), K("/m0"), 0, 0, 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->revision, 15);
    assert_int_equal(res->count, 2);
    mr_assert_kv(&res->kvs[0], "/m/a", "a2", 3, 14, 3);
    mr_assert_kv(&res->kvs[1], "/m/c", "c1", 12, 12, 1);

    res = gcp_sc_range(s, a, K("/m/"), K("/m0"), 13, 0, 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->count, 3);
    mr_assert_kv(&res->kvs[0], "/m/a", "a1", 3, 4, 2);
    mr_assert_kv(&res->kvs[1], "/m/b", "b1", 9, 9, 1);

    res = gcp_sc_get(s, a, K("/m/b"), 14);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 0);

    res = gcp_sc_get(s, a, K("/m/a"), 16);
    assert_int_equal(res->rc, GCP_EFUTURE);

    /* a watch from the past: both changes of revision 14, once each */
    gcp_sc_rec_init(&past, a);
    (void) gcp_sc_watch(s, &past, K("/m/"), K("/m0"), 12);
    assert_true(gcp_sc_rec_wait(s, &past, 2, GCP_SC_TIMEOUT));
    gcp_sc_spin(s, 20);
    assert_int_equal(past.n, 2);
    assert_int_equal(gcp_sc_rec_event(&past, 0)->revision, 14);
    assert_int_equal(gcp_sc_rec_event(&past, 0)->type, GCP_STORE_EVENT_PUT);
    assert_int_equal(gcp_sc_rec_event(&past, 1)->revision, 14);
    assert_int_equal(gcp_sc_rec_event(&past, 1)->type,
                     GCP_STORE_EVENT_DELETE);

    /* out of order: refused, nothing applied */
    ch[0] = mr_change(GCP_STORE_EVENT_PUT, "/m/d", "d1", 15, 15, 1);
    assert_int_equal(gcp_lmdb_mirror_apply(s, ch, 1, 16, &msg),
                     GCP_EBADREQUEST);
    ch[0] = mr_change(GCP_STORE_EVENT_PUT, "/m/d", "d1", 17, 17, 1);
    ch[1] = mr_change(GCP_STORE_EVENT_PUT, "/m/e", "e1", 16, 16, 1);
    assert_int_equal(gcp_lmdb_mirror_apply(s, ch, 2, 17, &msg),
                     GCP_EBADREQUEST);
    assert_int_equal(gcp_lmdb_mirror_apply(s, ch, 0, 14, &msg),
                     GCP_EBADREQUEST);

    /* writes elsewhere only move the revision */
    assert_int_equal(gcp_lmdb_mirror_apply(s, NULL, 0, 20, &msg), GCP_OK);
    res = gcp_sc_get(s, a, K("/m/d"), 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 0);
    assert_int_equal(res->revision, 20);

    /* a load again (the copy lost changes): the old keys are gone */
    kvs[0] = mr_kv("/m/f", "f1", 30, 30, 1);
    assert_int_equal(gcp_lmdb_mirror_load(s, kvs, 1, 31,
                                          GCP_STORE_LOAD_FIRST
                                          | GCP_STORE_LOAD_LAST, &msg),
                     GCP_OK);
    res = gcp_sc_range(s, a, K("/m/"), K("/m0"), 0, 0, 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->revision, 31);
    assert_int_equal(res->count, 1);
    mr_assert_kv(&res->kvs[0], "/m/f", "f1", 30, 30, 1);

    gcp_arena_destroy(a);
}


/* The feeder of test_mirror_mp: a child writing 100 revisions. */
static int
child_feeder(lm_child_t *c)
{
    int                 i;
    char                k1[32], k2[32];
    lm_env_t            e;
    const char         *msg;
    gcp_store_t        *s;
    gcp_store_event_t   ch[2];

    s = lm_child_open(c, &e);
    if (s == NULL) {
        return 1;
    }

    for (i = 1; i <= c->n; i++) {
        snprintf(k1, sizeof(k1), "/mm/%03d/a", i);
        snprintf(k2, sizeof(k2), "/mm/%03d/b", i);
        ch[0] = mr_change(GCP_STORE_EVENT_PUT, k1, "v", 2 * i + 2,
                          2 * i + 2, 1);
        ch[1] = mr_change(GCP_STORE_EVENT_PUT, k2, "v", 2 * i + 2,
                          2 * i + 2, 1);

        /* every other revision is a write outside the mirrored keys */
        if (gcp_lmdb_mirror_apply(s, ch, 2, 2 * i + 3, &msg) != GCP_OK) {
            return 4;
        }
    }

    lm_close_slot(&e);

    return 0;
}


/*
 * One feeder process, another process watching and reading: the watcher
 * is woken by the feeder's commits (eventfd) and sees every change of
 * every revision once, in order.
 */
/*
 * A load of 300 values of 1,000 bytes in three pages, keys in order (as
 * etcd ranges them) but for one out of order: the pages are filled (three
 * such values per 4 KiB page, not two as when each split halves a page),
 * and every key reads back.
 */
static void
test_mirror_load_fill(void **state)
{
    int                  i, j;
    char                *keys, value[1001];
    int64_t              rev, loading;
    gcp_kv_t             kvs[100];
    const char          *msg;
    gcp_arena_t         *a;
    gcp_store_t         *s;
    lm_env_t            *e = *state;
    gcp_lmdb_stats_t     st;
    gcp_store_result_t  *res;

    assert_non_null(lm_prefork(e, 1, 0));
    s = lm_open_slot(e, 0);
    assert_non_null(s);
    a = gcp_arena_create(0);
    keys = gcp_alloc(a, 300 * 16);
    assert_non_null(keys);

    memset(value, 'v', 1000);
    value[1000] = '\0';

    for (i = 0; i < 3; i++) {
        for (j = 0; j < 100; j++) {
            /* the 150th sorts before the 149th: not appended */
            snprintf(keys + (i * 100 + j) * 16, 16,
                     (i * 100 + j == 150) ? "/f/k0000a" : "/f/k%04d",
                     i * 100 + j);
            kvs[j] = mr_kv(keys + (i * 100 + j) * 16, value, 5, 5, 1);
        }

        assert_int_equal(gcp_lmdb_mirror_load(s, kvs, 100, 10,
                                              (i == 0 ? GCP_STORE_LOAD_FIRST
                                               : 0)
                                              | (i == 2 ? GCP_STORE_LOAD_LAST
                                                 : 0), &msg), GCP_OK);
    }

    assert_int_equal(gcp_lmdb_mirror_state(s, &rev, &loading), GCP_OK);
    assert_int_equal(loading, 0);
    assert_int_equal(rev, 10);

    res = gcp_sc_range(s, a, K("/f/"), K("/f0"), 0, 0, 0);
    assert_int_equal(res->nkvs, 300);
    res = gcp_sc_get(s, a, K("/f/k0000a"), 0);
    assert_int_equal(res->nkvs, 1);
    assert_int_equal(res->kvs[0].value.len, 1000);

    /* 100 leaf pages and a few others; two per page would be 150 */
    st = lm_stats(s);
    assert_int_equal(st.hist_entries, 300);
    assert_true(st.map_used <= 120 * 4096);

    gcp_arena_destroy(a);
}


static void
test_mirror_mp(void **state)
{
    int                  i, go[2];
    char                 key[32];
    pid_t                pid;
    gcp_kv_t             kv;
    const char          *msg;
    gcp_arena_t         *a;
    gcp_store_t         *s;
    lm_child_t           c;
    gcp_sc_rec_t         rec;
    lm_env_t            *e = *state;
    gcp_store_event_t   *ev;
    gcp_store_result_t  *res;

    assert_non_null(lm_prefork(e, 2, 0));
    assert_int_equal(lm_pipe(go), 0);

    /* loaded at revision 2 (by this process, closed before the fork) */
    s = lm_open_slot(e, 0);
    assert_non_null(s);
    kv = mr_kv("/mm/000/a", "x", 2, 2, 1);
    assert_int_equal(gcp_lmdb_mirror_load(s, &kv, 1, 2,
                                          GCP_STORE_LOAD_FIRST
                                          | GCP_STORE_LOAD_LAST, &msg),
                     GCP_OK);
    lm_close_slot(e);

    memset(&c, 0, sizeof(lm_child_t));
    c.e = e;
    c.sh = e->sh;
    c.slot = 1;
    c.go_r = go[0];
    c.go_w = go[1];
    c.n = 100;
    c.out = -1;
    pid = lm_spawn(child_feeder, &c);

    s = lm_open_slot(e, 0);
    assert_non_null(s);
    a = gcp_arena_create(0);

    gcp_sc_rec_init(&rec, a);
    (void) gcp_sc_watch(s, &rec, K("/mm/"), K("/mm0"), 2);

    close(go[0]);
    close(go[1]);

    assert_true(gcp_sc_rec_wait(s, &rec, 200, GCP_SC_TIMEOUT));
    assert_int_equal(lm_reap(pid), 0);
    gcp_sc_spin(s, 50);
    assert_int_equal(rec.n, 200);

    for (i = 0; i < 200; i++) {
        ev = gcp_sc_rec_event(&rec, i);
        assert_int_equal(ev->type, GCP_STORE_EVENT_PUT);
        assert_int_equal(ev->revision, 2 * (i / 2 + 1) + 2);
        snprintf(key, sizeof(key), "/mm/%03d/%c", i / 2 + 1,
                 (i % 2) ? 'b' : 'a');
        assert_int_equal(ev->kv.key.len, strlen(key));
        assert_memory_equal(ev->kv.key.data, key, strlen(key));
    }

    res = gcp_sc_range(s, a, K("/mm/"), K("/mm0"), 0, 0, 1);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->revision, 203);
    assert_int_equal(res->count, 201);

    assert_true(lm_stats(s).notify_rounds > 0);

    gcp_arena_destroy(a);
}


static const struct CMUnitTest  lmdb_tests[] = {
    cmocka_unit_test_setup_teardown(test_key_limits, lm_setup, lm_teardown),
    cmocka_unit_test_setup_teardown(test_reopen, lm_setup, lm_teardown),
    cmocka_unit_test_setup_teardown(test_pinned_reads, lm_setup,
                                    lm_teardown),
    cmocka_unit_test_setup_teardown(test_group_commit, lm_setup,
                                    lm_teardown),
    cmocka_unit_test_setup_teardown(test_sync_failure, lm_setup,
                                    lm_teardown),
    cmocka_unit_test_setup_teardown(test_sync_off, lm_setup, lm_teardown),
    cmocka_unit_test_setup_teardown(test_compaction_batches, lm_setup,
                                    lm_teardown),
    cmocka_unit_test_setup_teardown(test_mp_counter, lm_setup, lm_teardown),
    cmocka_unit_test_setup_teardown(test_mp_watch, lm_setup, lm_teardown),
    cmocka_unit_test_setup_teardown(test_mp_durability, lm_setup,
                                    lm_teardown),
    cmocka_unit_test_setup_teardown(test_mp_unnotified, lm_setup,
                                    lm_teardown),
    cmocka_unit_test_setup_teardown(test_mirror_apply, lm_setup,
                                    lm_teardown),
    cmocka_unit_test_setup_teardown(test_mirror_load_fill, lm_setup,
                                    lm_teardown),
    cmocka_unit_test_setup_teardown(test_mirror_mp, lm_setup, lm_teardown),
};


int
main(void)
{
    int        failed;
    lm_env_t   conf_env;

    snprintf(base_dir, sizeof(base_dir), "/tmp/gcp-lmdb-XXXXXX");

    if (mkdtemp(base_dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }

    memset(&conf_env, 0, sizeof(lm_env_t));

    failed = gcp_store_conformance_run("store conformance: lmdb", conf_open,
                                       conf_close, &conf_env);

    /* the same with zero-copy reads (pinned snapshots) */
    gcp_sc_brief = 1;
    failed += gcp_store_conformance_run("store conformance: lmdb, "
                                        "zero-copy reads", conf_open,
                                        conf_close, &conf_env);
    gcp_sc_brief = 0;

    failed += cmocka_run_group_tests_name("lmdb backend", lmdb_tests, NULL,
                                          NULL);

    rmdir(base_dir);

    return failed;
}
