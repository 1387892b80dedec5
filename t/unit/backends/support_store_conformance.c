
/*
 * The storage conformance suite (see store_conformance.h).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "store_conformance.h"


#define K(s)  gcp_sc_str(s)


int                     gcp_sc_brief;
static gcp_sc_open_pt    sc_open;
static gcp_sc_close_pt   sc_close;
static void             *sc_ctx;


typedef struct {
    gcp_store_t   *s;
    gcp_arena_t   *a;
} sc_fixture_t;


/* ------------------------------------------------------------ helpers */


gcp_str_t
gcp_sc_str(const char *s)
{
    gcp_str_t  r;

    r.data = s;
    r.len = strlen(s);

    return r;
}


int
gcp_sc_wait(gcp_store_t *s, const int *flag, int timeout_ms)
{
    uint64_t     deadline, now;
    gcp_loop_t  *loop = s->loop;

    deadline = loop->now_ms(loop) + (uint64_t) timeout_ms;

    while (!*flag) {
        now = loop->now_ms(loop);
        if (now >= deadline) {
            return 0;
        }

        gcp_loop_poll_run(loop, (int) gcp_min(deadline - now, 50));
    }

    return 1;
}


void
gcp_sc_spin(gcp_store_t *s, int ms)
{
    int  never = 0;

    (void) gcp_sc_wait(s, &never, ms);
}


typedef struct {
    int                  done;
    gcp_store_result_t  *res;
} sc_call_t;


static void
sc_done(void *arg, gcp_store_result_t *res)
{
    sc_call_t  *c = arg;

    assert_int_equal(c->done, 0);
    c->done = 1;
    c->res = res;
}


static gcp_store_result_t *
sc_finish(gcp_store_t *s, sc_call_t *c)
{
    if (!gcp_sc_wait(s, &c->done, GCP_SC_TIMEOUT)) {
        fail_msg("store callback did not run within %d ms", GCP_SC_TIMEOUT);
    }

    assert_non_null(c->res);

    return c->res;
}


gcp_store_result_t *
gcp_sc_get(gcp_store_t *s, gcp_arena_t *a, gcp_str_t key, int64_t revision)
{
    sc_call_t  c = { 0, NULL };

    gcp_store_get(s, key, revision, a, sc_done, &c);

    return sc_finish(s, &c);
}


gcp_store_result_t *
gcp_sc_range(gcp_store_t *s, gcp_arena_t *a, gcp_str_t key, gcp_str_t end,
    int64_t revision, int64_t limit, int count_only)
{
    sc_call_t  c = { 0, NULL };

    gcp_store_range(s, key, end, revision, limit, count_only, a, sc_done,
                    &c);

    return sc_finish(s, &c);
}


gcp_store_result_t *
gcp_sc_create(gcp_store_t *s, gcp_arena_t *a, gcp_str_t key,
    gcp_str_t value)
{
    sc_call_t  c = { 0, NULL };

    gcp_store_create(s, key, value, a, sc_done, &c);

    return sc_finish(s, &c);
}


gcp_store_result_t *
gcp_sc_update(gcp_store_t *s, gcp_arena_t *a, gcp_str_t key,
    gcp_str_t value, int64_t mod_revision)
{
    sc_call_t  c = { 0, NULL };

    gcp_store_update(s, key, value, mod_revision, a, sc_done, &c);

    return sc_finish(s, &c);
}


gcp_store_result_t *
gcp_sc_delete(gcp_store_t *s, gcp_arena_t *a, gcp_str_t key,
    int64_t mod_revision)
{
    sc_call_t  c = { 0, NULL };

    gcp_store_delete(s, key, mod_revision, a, sc_done, &c);

    return sc_finish(s, &c);
}


gcp_store_result_t *
gcp_sc_compact(gcp_store_t *s, gcp_arena_t *a, int64_t revision)
{
    sc_call_t  c = { 0, NULL };

    gcp_store_compact(s, revision, a, sc_done, &c);

    return sc_finish(s, &c);
}


int64_t
gcp_sc_revision(gcp_store_t *s)
{
    int64_t              rev;
    gcp_arena_t         *a;
    gcp_store_result_t  *res;

    a = gcp_arena_create(0);
    assert_non_null(a);

    res = gcp_sc_range(s, a, K("\x01"), K("\x02"), 0, 0, 1);
    assert_int_equal(res->rc, GCP_OK);
    rev = res->revision;

    gcp_arena_destroy(a);

    return rev;
}


void
gcp_sc_rec_init(gcp_sc_rec_t *rec, gcp_arena_t *a)
{
    memset(rec, 0, sizeof(gcp_sc_rec_t));
    rec->arena = a;
    gcp_buf_init(&rec->buf, a);
}


static void
sc_copy_kv(gcp_arena_t *a, gcp_kv_t *dst, const gcp_kv_t *src)
{
    *dst = *src;
    dst->key.data = gcp_strndup(a, src->key.data, src->key.len);
    dst->value.data = gcp_strndup(a, src->value.data, src->value.len);
    assert_non_null(dst->key.data);
    assert_non_null(dst->value.data);
}


int
gcp_sc_rec_handler(void *arg, const gcp_store_event_t *ev)
{
    gcp_sc_rec_t       *rec = arg;
    gcp_store_event_t   copy;

    if (rec->in_watch) {
        rec->early = 1;
    }

    if (ev->type == GCP_STORE_EVENT_PROGRESS) {
        rec->progress++;
        return GCP_OK;
    }

    if (ev->type != GCP_STORE_EVENT_ERROR
        && ev->revision <= rec->last_revision)
    {
        rec->out_of_order = 1;
    }

    rec->last_revision = ev->revision;

    copy = *ev;
    sc_copy_kv(rec->arena, &copy.kv, &ev->kv);

    if (ev->has_prev) {
        sc_copy_kv(rec->arena, &copy.prev_kv, &ev->prev_kv);
    }

    gcp_buf_add(&rec->buf, &copy, sizeof(gcp_store_event_t));
    assert_false(gcp_buf_failed(&rec->buf));
    rec->n++;

    if (rec->stop_after && rec->n >= rec->stop_after) {
        return GCP_ECONFLICT;
    }

    return GCP_OK;
}


gcp_store_event_t *
gcp_sc_rec_event(gcp_sc_rec_t *rec, size_t i)
{
    assert_true(i < rec->n);

    return &((gcp_store_event_t *) rec->buf.data)[i];
}


int
gcp_sc_rec_wait(gcp_store_t *s, gcp_sc_rec_t *rec, size_t n, int timeout_ms)
{
    uint64_t     deadline, now;
    gcp_loop_t  *loop = s->loop;

    deadline = loop->now_ms(loop) + (uint64_t) timeout_ms;

    while (rec->n < n) {
        now = loop->now_ms(loop);
        if (now >= deadline) {
            return 0;
        }

        gcp_loop_poll_run(loop, (int) gcp_min(deadline - now, 50));
    }

    return 1;
}


gcp_store_watch_t *
gcp_sc_watch(gcp_store_t *s, gcp_sc_rec_t *rec, gcp_str_t key, gcp_str_t end,
    int64_t start_revision)
{
    gcp_store_watch_t  *w;

    rec->in_watch = 1;
    w = gcp_store_watch(s, key, end, start_revision, gcp_sc_rec_handler,
                        rec);
    rec->in_watch = 0;

    assert_non_null(w);

    return w;
}


static void
sc_assert_str(gcp_str_t got, const char *data, size_t len)
{
    assert_int_equal(got.len, len);

    if (len) {
        assert_memory_equal(got.data, data, len);
    }
}


static void
sc_assert_kv(const gcp_kv_t *kv, const char *key, const char *value,
    int64_t create, int64_t mod, int64_t version)
{
    sc_assert_str(kv->key, key, strlen(key));

    if (value != NULL) {
        sc_assert_str(kv->value, value, strlen(value));
    }

    assert_int_equal(kv->create_revision, create);
    assert_int_equal(kv->mod_revision, mod);
    assert_int_equal(kv->version, version);
}


static void
sc_assert_event(gcp_store_event_t *ev, gcp_store_event_type_t type,
    const char *key, const char *value, int64_t revision,
    const char *prev_value, int64_t prev_mod)
{
    assert_int_equal(ev->type, type);
    assert_int_equal(ev->revision, revision);
    sc_assert_str(ev->kv.key, key, strlen(key));
    assert_int_equal(ev->kv.mod_revision, revision);

    if (type == GCP_STORE_EVENT_PUT) {
        sc_assert_str(ev->kv.value, value, strlen(value));
    }

    if (prev_value == NULL) {
        assert_false(ev->has_prev);
        return;
    }

    assert_true(ev->has_prev);
    sc_assert_str(ev->prev_kv.key, key, strlen(key));
    sc_assert_str(ev->prev_kv.value, prev_value, strlen(prev_value));
    assert_int_equal(ev->prev_kv.mod_revision, prev_mod);
}


/* Asserts that a range holds exactly the keys (NULL-terminated list). */
static void
sc_assert_keys(gcp_store_result_t *res, const char **keys)
{
    size_t  i;

    assert_int_equal(res->rc, GCP_OK);

    for (i = 0; keys[i]; i++) {
        assert_true(i < res->nkvs);
        sc_assert_str(res->kvs[i].key, keys[i], strlen(keys[i]));
    }

    assert_int_equal(res->nkvs, i);
}


/* ------------------------------------------------------------ tests */


static void
sc_test_crud(void **state)
{
    int64_t              r0;
    gcp_store_t         *s = ((sc_fixture_t *) *state)->s;
    gcp_arena_t         *a = ((sc_fixture_t *) *state)->a;
    gcp_store_result_t  *res;

    r0 = gcp_sc_revision(s);
    assert_true(r0 >= 1);

    res = gcp_sc_create(s, a, K("/c/a"), K("v1"));
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->revision, r0 + 1);
    assert_int_equal(res->nkvs, 1);
    sc_assert_kv(&res->kvs[0], "/c/a", "v1", r0 + 1, r0 + 1, 1);

    res = gcp_sc_get(s, a, K("/c/a"), 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->revision, r0 + 1);
    assert_int_equal(res->nkvs, 1);
    sc_assert_kv(&res->kvs[0], "/c/a", "v1", r0 + 1, r0 + 1, 1);

    /* create of an existing key: the current value, no new revision */
    res = gcp_sc_create(s, a, K("/c/a"), K("other"));
    assert_int_equal(res->rc, GCP_EEXISTS);
    assert_int_equal(res->nkvs, 1);
    sc_assert_kv(&res->kvs[0], "/c/a", "v1", r0 + 1, r0 + 1, 1);
    assert_int_equal(gcp_sc_revision(s), r0 + 1);

    /* update with a stale mod_revision */
    res = gcp_sc_update(s, a, K("/c/a"), K("x"), r0);
    assert_int_equal(res->rc, GCP_ECONFLICT);
    assert_int_equal(res->nkvs, 1);
    sc_assert_kv(&res->kvs[0], "/c/a", "v1", r0 + 1, r0 + 1, 1);

    /* unconditional update */
    res = gcp_sc_update(s, a, K("/c/a"), K("v2"), 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->revision, r0 + 2);
    sc_assert_kv(&res->kvs[0], "/c/a", "v2", r0 + 1, r0 + 2, 2);

    /* conditional update that wins */
    res = gcp_sc_update(s, a, K("/c/a"), K("v3"), r0 + 2);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->revision, r0 + 3);
    sc_assert_kv(&res->kvs[0], "/c/a", "v3", r0 + 1, r0 + 3, 3);

    res = gcp_sc_update(s, a, K("/c/a"), K("x"), r0 + 2);
    assert_int_equal(res->rc, GCP_ECONFLICT);
    sc_assert_kv(&res->kvs[0], "/c/a", "v3", r0 + 1, r0 + 3, 3);

    res = gcp_sc_update(s, a, K("/c/none"), K("x"), 0);
    assert_int_equal(res->rc, GCP_ENOTFOUND);
    res = gcp_sc_update(s, a, K("/c/none"), K("x"), r0 + 1);
    assert_int_equal(res->rc, GCP_ENOTFOUND);
    res = gcp_sc_delete(s, a, K("/c/none"), 0);
    assert_int_equal(res->rc, GCP_ENOTFOUND);

    res = gcp_sc_delete(s, a, K("/c/a"), r0 + 1);
    assert_int_equal(res->rc, GCP_ECONFLICT);
    assert_int_equal(res->nkvs, 1);
    sc_assert_kv(&res->kvs[0], "/c/a", "v3", r0 + 1, r0 + 3, 3);
    assert_int_equal(gcp_sc_revision(s), r0 + 3);

    /* delete: the value deleted, at the delete's revision */
    res = gcp_sc_delete(s, a, K("/c/a"), r0 + 3);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->revision, r0 + 4);
    assert_int_equal(res->nkvs, 1);
    sc_assert_kv(&res->kvs[0], "/c/a", "v3", r0 + 1, r0 + 4, 3);

    res = gcp_sc_get(s, a, K("/c/a"), 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 0);
    assert_int_equal(res->revision, r0 + 4);

    res = gcp_sc_update(s, a, K("/c/a"), K("x"), 0);
    assert_int_equal(res->rc, GCP_ENOTFOUND);
    res = gcp_sc_delete(s, a, K("/c/a"), 0);
    assert_int_equal(res->rc, GCP_ENOTFOUND);

    /* a new life: version and create_revision start again */
    res = gcp_sc_create(s, a, K("/c/a"), K("v4"));
    assert_int_equal(res->rc, GCP_OK);
    sc_assert_kv(&res->kvs[0], "/c/a", "v4", r0 + 5, r0 + 5, 1);

    res = gcp_sc_delete(s, a, K("/c/a"), 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->revision, r0 + 6);
    sc_assert_kv(&res->kvs[0], "/c/a", "v4", r0 + 5, r0 + 6, 1);

    /* empty value */
    res = gcp_sc_create(s, a, K("/c/empty"), K(""));
    assert_int_equal(res->rc, GCP_OK);
    res = gcp_sc_get(s, a, K("/c/empty"), 0);
    assert_int_equal(res->nkvs, 1);
    sc_assert_kv(&res->kvs[0], "/c/empty", "", r0 + 7, r0 + 7, 1);

    assert_int_equal(gcp_sc_revision(s), r0 + 7);
}


static void
sc_test_range(void **state)
{
    int64_t              rev;
    gcp_str_t            end;
    gcp_store_t         *s = ((sc_fixture_t *) *state)->s;
    gcp_arena_t         *a = ((sc_fixture_t *) *state)->a;
    gcp_store_result_t  *res;
    static const char   *all[] = { "/r/a", "/r/b", "/r/c", "/r/d", "/r/e",
                                   "/r/f", "/r/g", "/r/h", "/r/i", "/r/j",
                                   NULL };
    static const char   *first3[] = { "/r/a", "/r/b", "/r/c", NULL };
    static const char   *cde[] = { "/r/c", "/r/d", "/r/e", NULL };
    static const char   *tail[] = { "/r/h", "/r/i", "/r/j", "/r0", "/s",
                                    NULL };
    static const char   *outside[] = { "/s", "/q", "/r", "/r0" };
    size_t               i;

    /* created out of order: results are in key order */
    for (i = 10; i > 0; i--) {
        res = gcp_sc_create(s, a, K(all[i - 1]), K(all[i - 1]));
        assert_int_equal(res->rc, GCP_OK);
    }

    for (i = 0; i < gcp_nelems(outside); i++) {
        res = gcp_sc_create(s, a, K(outside[i]), K("out"));
        assert_int_equal(res->rc, GCP_OK);
    }

    rev = res->revision;
    end = gcp_store_prefix_end(a, K("/r/"));
    sc_assert_str(end, "/r0", 3);

    res = gcp_sc_range(s, a, K("/r/"), end, 0, 0, 0);
    sc_assert_keys(res, all);
    assert_int_equal(res->count, 10);
    assert_false(res->more);
    assert_int_equal(res->revision, rev);

    for (i = 0; i < 10; i++) {
        sc_assert_str(res->kvs[i].value, all[i], 4);
        assert_int_equal(res->kvs[i].version, 1);
        assert_int_equal(res->kvs[i].mod_revision,
                         res->kvs[i].create_revision);
    }

    res = gcp_sc_range(s, a, K("/r/"), end, 0, 3, 0);
    sc_assert_keys(res, first3);
    assert_int_equal(res->count, 10);
    assert_true(res->more);

    res = gcp_sc_range(s, a, K("/r/"), end, 0, 10, 0);
    assert_int_equal(res->nkvs, 10);
    assert_false(res->more);

    res = gcp_sc_range(s, a, K("/r/"), end, 0, 0, 1);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->count, 10);
    assert_int_equal(res->nkvs, 0);

    res = gcp_sc_range(s, a, K("/r/c"), K("/r/f"), 0, 0, 0);
    sc_assert_keys(res, cde);
    assert_int_equal(res->count, 3);

    /* continue after a page: start just after the last key */
    res = gcp_sc_range(s, a, K("/r/c\x01"), end, 0, 2, 0);
    assert_int_equal(res->nkvs, 2);
    sc_assert_str(res->kvs[0].key, "/r/d", 4);
    assert_int_equal(res->count, 7);
    assert_true(res->more);

    /* empty and inverted ranges */
    res = gcp_sc_range(s, a, K("/r/f"), K("/r/c"), 0, 0, 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 0);
    assert_int_equal(res->count, 0);
    res = gcp_sc_range(s, a, K("/zz/"), gcp_store_prefix_end(a, K("/zz/")),
                       0, 0, 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->count, 0);

    /* "\0": no upper bound */
    end.data = "";
    end.len = 1;
    res = gcp_sc_range(s, a, K("/r/h"), end, 0, 0, 0);
    sc_assert_keys(res, tail);

    /* range_end len 0: the single key */
    res = gcp_sc_range(s, a, K("/r/d"), K(""), 0, 0, 0);
    assert_int_equal(res->nkvs, 1);
    sc_assert_str(res->kvs[0].key, "/r/d", 4);
    res = gcp_sc_range(s, a, K("/r/dd"), K(""), 0, 0, 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 0);

    /* deleted keys leave the range and the count */
    res = gcp_sc_delete(s, a, K("/r/b"), 0);
    assert_int_equal(res->rc, GCP_OK);
    res = gcp_sc_range(s, a, K("/r/"), gcp_store_prefix_end(a, K("/r/")), 0,
                       0, 1);
    assert_int_equal(res->count, 9);

    /* a future revision */
    res = gcp_sc_range(s, a, K("/r/"), end, gcp_sc_revision(s) + 1, 0, 0);
    assert_int_equal(res->rc, GCP_EFUTURE);
    res = gcp_sc_get(s, a, K("/r/a"), gcp_sc_revision(s) + 100);
    assert_int_equal(res->rc, GCP_EFUTURE);
}


static void
sc_test_history(void **state)
{
    int64_t              r1, r2, r3, r4, r5;
    gcp_str_t            end;
    gcp_store_t         *s = ((sc_fixture_t *) *state)->s;
    gcp_arena_t         *a = ((sc_fixture_t *) *state)->a;
    gcp_store_result_t  *res;
    static const char   *k1[] = { "/h/k1", NULL };
    static const char   *k12[] = { "/h/k1", "/h/k2", NULL };
    static const char   *k2[] = { "/h/k2", NULL };

    end = gcp_store_prefix_end(a, K("/h/"));

    r1 = gcp_sc_create(s, a, K("/h/k1"), K("v1"))->revision;
    r2 = gcp_sc_update(s, a, K("/h/k1"), K("v2"), r1)->revision;
    r3 = gcp_sc_create(s, a, K("/h/k2"), K("w1"))->revision;
    r4 = gcp_sc_delete(s, a, K("/h/k1"), r2)->revision;
    r5 = gcp_sc_create(s, a, K("/h/k1"), K("v3"))->revision;

    assert_int_equal(r2, r1 + 1);
    assert_int_equal(r5, r1 + 4);

    res = gcp_sc_get(s, a, K("/h/k1"), r1 - 1);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 0);
    assert_int_equal(res->revision, r1 - 1);

    res = gcp_sc_get(s, a, K("/h/k1"), r1);
    assert_int_equal(res->revision, r1);
    assert_int_equal(res->nkvs, 1);
    sc_assert_kv(&res->kvs[0], "/h/k1", "v1", r1, r1, 1);

    res = gcp_sc_get(s, a, K("/h/k1"), r2);
    sc_assert_kv(&res->kvs[0], "/h/k1", "v2", r1, r2, 2);

    res = gcp_sc_range(s, a, K("/h/"), end, r1, 0, 0);
    sc_assert_keys(res, k1);
    assert_int_equal(res->count, 1);
    assert_int_equal(res->revision, r1);

    res = gcp_sc_range(s, a, K("/h/"), end, r3, 0, 0);
    sc_assert_keys(res, k12);
    sc_assert_kv(&res->kvs[0], "/h/k1", "v2", r1, r2, 2);
    assert_int_equal(res->count, 2);

    /* the deleted key is absent at r4 and reappears at r3 */
    res = gcp_sc_range(s, a, K("/h/"), end, r4, 0, 0);
    sc_assert_keys(res, k2);
    assert_int_equal(res->count, 1);
    res = gcp_sc_get(s, a, K("/h/k1"), r4);
    assert_int_equal(res->nkvs, 0);
    res = gcp_sc_range(s, a, K("/h/"), end, r4, 1, 0);
    assert_false(res->more);

    res = gcp_sc_range(s, a, K("/h/"), end, r5, 1, 0);
    assert_int_equal(res->nkvs, 1);
    sc_assert_kv(&res->kvs[0], "/h/k1", "v3", r5, r5, 1);
    assert_int_equal(res->count, 2);
    assert_true(res->more);

    res = gcp_sc_range(s, a, K("/h/"), end, r2, 0, 1);
    assert_int_equal(res->count, 1);
    assert_int_equal(res->revision, r2);

    res = gcp_sc_get(s, a, K("/h/k1"), r5 + 1);
    assert_int_equal(res->rc, GCP_EFUTURE);
}


static void
sc_test_compaction(void **state)
{
    int64_t              r1, r3, r4, r6, r7, rc, r8, r9, cur;
    gcp_str_t            end;
    gcp_sc_rec_t         bad, good;
    gcp_store_t         *s = ((sc_fixture_t *) *state)->s;
    gcp_arena_t         *a = ((sc_fixture_t *) *state)->a;
    gcp_store_result_t  *res;
    static const char   *at_rc[] = { "/p/k1", "/p/k3", NULL };
    static const char   *at_r8[] = { "/p/k1", "/p/k3", "/p/k4", NULL };
    static const char   *now[] = { "/p/k1", "/p/k4", NULL };

    end = gcp_store_prefix_end(a, K("/p/"));

    r1 = gcp_sc_create(s, a, K("/p/k1"), K("v1"))->revision;
    (void) gcp_sc_update(s, a, K("/p/k1"), K("v2"), 0);
    r3 = gcp_sc_update(s, a, K("/p/k1"), K("v3"), 0)->revision;
    r4 = gcp_sc_create(s, a, K("/p/k2"), K("w"))->revision;
    (void) gcp_sc_delete(s, a, K("/p/k2"), 0);
    r6 = gcp_sc_create(s, a, K("/p/k3"), K("u"))->revision;
    rc = r6;

    res = gcp_sc_compact(s, a, rc);
    assert_int_equal(res->rc, GCP_OK);

    r7 = gcp_sc_create(s, a, K("/p/k4"), K("z"))->revision;
    r8 = gcp_sc_update(s, a, K("/p/k1"), K("v4"), r3)->revision;
    r9 = gcp_sc_delete(s, a, K("/p/k3"), r6)->revision;
    assert_int_equal(r9, r7 + 2);

    /* below the compacted revision: gone */
    res = gcp_sc_get(s, a, K("/p/k1"), rc - 1);
    assert_int_equal(res->rc, GCP_ECOMPACTED);
    assert_int_equal(res->compact_revision, rc);
    res = gcp_sc_range(s, a, K("/p/"), end, r1, 0, 0);
    assert_int_equal(res->rc, GCP_ECOMPACTED);
    assert_int_equal(res->compact_revision, rc);

    /* at and after it: exact */
    res = gcp_sc_range(s, a, K("/p/"), end, rc, 0, 0);
    sc_assert_keys(res, at_rc);
    sc_assert_kv(&res->kvs[0], "/p/k1", "v3", r1, r3, 3);
    sc_assert_kv(&res->kvs[1], "/p/k3", "u", r6, r6, 1);
    assert_int_equal(res->count, 2);

    res = gcp_sc_get(s, a, K("/p/k2"), rc);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 0);

    res = gcp_sc_range(s, a, K("/p/"), end, r8, 0, 0);
    sc_assert_keys(res, at_r8);
    sc_assert_kv(&res->kvs[0], "/p/k1", "v4", r1, r8, 4);

    res = gcp_sc_range(s, a, K("/p/"), end, 0, 0, 0);
    sc_assert_keys(res, now);
    assert_int_equal(res->revision, r9);

    /* compacting again, or older, or in the future */
    res = gcp_sc_compact(s, a, rc);
    assert_int_equal(res->rc, GCP_ECOMPACTED);
    assert_int_equal(res->compact_revision, rc);
    res = gcp_sc_compact(s, a, r4);
    assert_int_equal(res->rc, GCP_ECOMPACTED);
    res = gcp_sc_compact(s, a, r9 + 1);
    assert_int_equal(res->rc, GCP_EFUTURE);

    /* a watch from before the compaction: one ERROR, from the loop */
    gcp_sc_rec_init(&bad, a);
    (void) gcp_sc_watch(s, &bad, K("/p/"), end, rc - 1);
    assert_int_equal(bad.n, 0);
    assert_true(gcp_sc_rec_wait(s, &bad, 1, GCP_SC_TIMEOUT));
    assert_false(bad.early);
    assert_int_equal(gcp_sc_rec_event(&bad, 0)->type, GCP_STORE_EVENT_ERROR);
    assert_int_equal(gcp_sc_rec_event(&bad, 0)->rc, GCP_ECOMPACTED);
    assert_int_equal(gcp_sc_rec_event(&bad, 0)->compact_revision, rc);

    /* from the compacted revision: the events after it, prev_kv too */
    gcp_sc_rec_init(&good, a);
    (void) gcp_sc_watch(s, &good, K("/p/"), end, rc);
    assert_true(gcp_sc_rec_wait(s, &good, 3, GCP_SC_TIMEOUT));
    sc_assert_event(gcp_sc_rec_event(&good, 0), GCP_STORE_EVENT_PUT,
                    "/p/k4", "z", r7, NULL, 0);
    sc_assert_event(gcp_sc_rec_event(&good, 1), GCP_STORE_EVENT_PUT,
                    "/p/k1", "v4", r8, "v3", r3);
    sc_assert_event(gcp_sc_rec_event(&good, 2), GCP_STORE_EVENT_DELETE,
                    "/p/k3", NULL, r9, "u", r6);

    /* a second, later compaction */
    cur = gcp_sc_revision(s);
    res = gcp_sc_compact(s, a, cur);
    assert_int_equal(res->rc, GCP_OK);
    res = gcp_sc_range(s, a, K("/p/"), end, cur, 0, 0);
    sc_assert_keys(res, now);
    sc_assert_kv(&res->kvs[0], "/p/k1", "v4", r1, r8, 4);
    res = gcp_sc_get(s, a, K("/p/k1"), r8);
    assert_int_equal(res->rc, GCP_ECOMPACTED);
    assert_int_equal(res->compact_revision, cur);

    gcp_sc_spin(s, 20);
    assert_int_equal(bad.n, 1);
    assert_int_equal(good.n, 3);
}


static void
sc_test_watch_now(void **state)
{
    int                  i;
    int64_t              r1, r2, r3;
    gcp_sc_rec_t         rec;
    gcp_store_t         *s = ((sc_fixture_t *) *state)->s;
    gcp_arena_t         *a = ((sc_fixture_t *) *state)->a;

    (void) gcp_sc_create(s, a, K("/w/old"), K("o"));

    gcp_sc_rec_init(&rec, a);
    (void) gcp_sc_watch(s, &rec, K("/w/"), gcp_store_prefix_end(a, K("/w/")),
                        0);

    r1 = gcp_sc_create(s, a, K("/w/a"), K("1"))->revision;
    (void) gcp_sc_create(s, a, K("/x/a"), K("outside"));
    r2 = gcp_sc_update(s, a, K("/w/a"), K("2"), r1)->revision;
    (void) gcp_sc_create(s, a, K("/w"), K("outside"));
    r3 = gcp_sc_delete(s, a, K("/w/a"), 0)->revision;

    assert_true(gcp_sc_rec_wait(s, &rec, 3, GCP_SC_TIMEOUT));
    gcp_sc_spin(s, 20);
    assert_int_equal(rec.n, 3);
    assert_false(rec.early);
    assert_false(rec.out_of_order);

    sc_assert_event(gcp_sc_rec_event(&rec, 0), GCP_STORE_EVENT_PUT,
                    "/w/a", "1", r1, NULL, 0);
    assert_int_equal(gcp_sc_rec_event(&rec, 0)->kv.create_revision, r1);
    assert_int_equal(gcp_sc_rec_event(&rec, 0)->kv.version, 1);
    sc_assert_event(gcp_sc_rec_event(&rec, 1), GCP_STORE_EVENT_PUT,
                    "/w/a", "2", r2, "1", r1);
    assert_int_equal(gcp_sc_rec_event(&rec, 1)->kv.create_revision, r1);
    assert_int_equal(gcp_sc_rec_event(&rec, 1)->kv.version, 2);
    assert_int_equal(gcp_sc_rec_event(&rec, 1)->prev_kv.version, 1);
    sc_assert_event(gcp_sc_rec_event(&rec, 2), GCP_STORE_EVENT_DELETE,
                    "/w/a", NULL, r3, "2", r2);

    /* the store's revision reaches the last write */
    for (i = 0; i < 1000 && gcp_store_revision(s) < r3; i++) {
        gcp_sc_spin(s, 5);
    }

    assert_true(gcp_store_revision(s) >= r3);
    assert_true(gcp_store_revision(s) <= gcp_sc_revision(s));
}


static void
sc_test_watch_catchup(void **state)
{
    int                  i;
    int64_t              r0, rev[20];
    char                 key[32], val[32];
    gcp_sc_rec_t         rec, one;
    gcp_store_t         *s = ((sc_fixture_t *) *state)->s;
    gcp_arena_t         *a = ((sc_fixture_t *) *state)->a;
    gcp_store_event_t   *ev;

    r0 = gcp_sc_revision(s);

    for (i = 0; i < 10; i++) {
        snprintf(key, sizeof(key), "/cu/%d", i % 3);
        snprintf(val, sizeof(val), "v%d", i);

        if (i < 3) {
            rev[i] = gcp_sc_create(s, a, K(key), K(val))->revision;
        } else {
            rev[i] = gcp_sc_update(s, a, K(key), K(val), 0)->revision;
        }
    }

    /* from r0: the whole history, then live events */
    gcp_sc_rec_init(&rec, a);
    (void) gcp_sc_watch(s, &rec, K("/cu/"),
                        gcp_store_prefix_end(a, K("/cu/")), r0);

    /* from the middle, one key */
    gcp_sc_rec_init(&one, a);
    (void) gcp_sc_watch(s, &one, K("/cu/1"), K(""), rev[4]);

    assert_int_equal(rec.n, 0);
    assert_true(gcp_sc_rec_wait(s, &rec, 10, GCP_SC_TIMEOUT));

    for (i = 10; i < 20; i++) {
        snprintf(key, sizeof(key), "/cu/%d", i % 3);
        snprintf(val, sizeof(val), "v%d", i);
        rev[i] = gcp_sc_update(s, a, K(key), K(val), 0)->revision;
    }

    assert_true(gcp_sc_rec_wait(s, &rec, 20, GCP_SC_TIMEOUT));
    gcp_sc_spin(s, 20);
    assert_int_equal(rec.n, 20);
    assert_false(rec.early);
    assert_false(rec.out_of_order);

    for (i = 0; i < 20; i++) {
        ev = gcp_sc_rec_event(&rec, i);
        snprintf(key, sizeof(key), "/cu/%d", i % 3);
        snprintf(val, sizeof(val), "v%d", i);
        assert_int_equal(ev->type, GCP_STORE_EVENT_PUT);
        assert_int_equal(ev->revision, rev[i]);
        sc_assert_str(ev->kv.key, key, strlen(key));
        sc_assert_str(ev->kv.value, val, strlen(val));
        assert_int_equal(ev->kv.version, i / 3 + 1);
        assert_int_equal(ev->has_prev, i >= 3);

        if (i >= 3) {
            snprintf(val, sizeof(val), "v%d", i - 3);
            sc_assert_str(ev->prev_kv.value, val, strlen(val));
            assert_int_equal(ev->prev_kv.mod_revision, rev[i - 3]);
        }
    }

    /* /cu/1 after rev[4]: i = 7, 10, 13, 16, 19 */
    assert_int_equal(one.n, 5);

    for (i = 0; i < 5; i++) {
        assert_int_equal(gcp_sc_rec_event(&one, i)->revision, rev[7 + 3 * i]);
    }
}


static void
sc_test_watch_filter(void **state)
{
    int64_t              r;
    gcp_str_t            unbounded;
    gcp_sc_rec_t         single, range, all;
    gcp_store_t         *s = ((sc_fixture_t *) *state)->s;
    gcp_arena_t         *a = ((sc_fixture_t *) *state)->a;

    unbounded.data = "";
    unbounded.len = 1;

    gcp_sc_rec_init(&single, a);
    gcp_sc_rec_init(&range, a);
    gcp_sc_rec_init(&all, a);

    (void) gcp_sc_watch(s, &single, K("/f/a"), K(""), 0);
    (void) gcp_sc_watch(s, &range, K("/f/b"), K("/f/d"), 0);
    (void) gcp_sc_watch(s, &all, K("/f/c"), unbounded, 0);

    (void) gcp_sc_create(s, a, K("/f/a"), K("1"));
    (void) gcp_sc_create(s, a, K("/f/ab"), K("2"));
    (void) gcp_sc_create(s, a, K("/f/b"), K("3"));
    (void) gcp_sc_create(s, a, K("/f/c"), K("4"));
    (void) gcp_sc_create(s, a, K("/f/cz"), K("5"));
    (void) gcp_sc_create(s, a, K("/f/d"), K("6"));
    r = gcp_sc_create(s, a, K("/zzz"), K("7"))->revision;

    assert_true(gcp_sc_rec_wait(s, &all, 4, GCP_SC_TIMEOUT));
    gcp_sc_spin(s, 20);

    assert_int_equal(single.n, 1);
    sc_assert_str(gcp_sc_rec_event(&single, 0)->kv.key, "/f/a", 4);

    assert_int_equal(range.n, 3);
    sc_assert_str(gcp_sc_rec_event(&range, 0)->kv.key, "/f/b", 4);
    sc_assert_str(gcp_sc_rec_event(&range, 1)->kv.key, "/f/c", 4);
    sc_assert_str(gcp_sc_rec_event(&range, 2)->kv.key, "/f/cz", 5);

    assert_int_equal(all.n, 4);
    sc_assert_str(gcp_sc_rec_event(&all, 0)->kv.key, "/f/c", 4);
    sc_assert_str(gcp_sc_rec_event(&all, 3)->kv.key, "/zzz", 4);
    assert_int_equal(gcp_sc_rec_event(&all, 3)->revision, r);
}


typedef struct {
    gcp_store_t         *s;
    gcp_store_watch_t   *victim;
    gcp_sc_rec_t        *late;
    gcp_store_watch_t   *late_w;
    size_t               n;
} sc_canceller_t;


static int
sc_canceller(void *arg, const gcp_store_event_t *ev)
{
    sc_canceller_t  *c = arg;

    if (ev->type == GCP_STORE_EVENT_PROGRESS) {
        return GCP_OK;
    }

    if (c->n++ == 0) {
        /* cancel another watch and start one, during delivery */
        gcp_store_watch_cancel(c->s, c->victim);
        c->late_w = gcp_store_watch(c->s, K("/k/"), K("/k0"), ev->revision,
                                    gcp_sc_rec_handler, c->late);
        assert_non_null(c->late_w);
    }

    return GCP_OK;
}


static void
sc_test_watch_cancel(void **state)
{
    int                  i;
    int64_t              rev[5];
    char                 key[16];
    gcp_sc_rec_t         stop2, victim, late, gone;
    sc_canceller_t       c;
    gcp_store_watch_t   *w;
    gcp_store_t         *s = ((sc_fixture_t *) *state)->s;
    gcp_arena_t         *a = ((sc_fixture_t *) *state)->a;

    gcp_sc_rec_init(&stop2, a);
    gcp_sc_rec_init(&victim, a);
    gcp_sc_rec_init(&late, a);
    gcp_sc_rec_init(&gone, a);
    stop2.stop_after = 2;

    memset(&c, 0, sizeof(sc_canceller_t));
    c.s = s;
    c.late = &late;

    (void) gcp_sc_watch(s, &stop2, K("/k/"), K("/k0"), 0);
    assert_non_null(gcp_store_watch(s, K("/k/"), K("/k0"), 0, sc_canceller,
                                    &c));
    c.victim = gcp_sc_watch(s, &victim, K("/k/"), K("/k0"), 0);
    w = gcp_sc_watch(s, &gone, K("/k/"), K("/k0"), 0);

    /* cancelled from outside a handler before anything happened */
    gcp_store_watch_cancel(s, w);

    for (i = 0; i < 5; i++) {
        snprintf(key, sizeof(key), "/k/%d", i);
        rev[i] = gcp_sc_create(s, a, K(key), K("v"))->revision;
    }

    assert_true(gcp_sc_rec_wait(s, &late, 4, GCP_SC_TIMEOUT));

    for (i = 0; i < 200 && c.n < 5; i++) {
        gcp_sc_spin(s, 20);
    }

    gcp_sc_spin(s, 20);

    assert_int_equal(c.n, 5);
    assert_int_equal(stop2.n, 2);
    assert_int_equal(gcp_sc_rec_event(&stop2, 1)->revision, rev[1]);
    assert_true(victim.n <= 1);
    assert_int_equal(gone.n, 0);

    assert_int_equal(late.n, 4);

    for (i = 0; i < 4; i++) {
        assert_int_equal(gcp_sc_rec_event(&late, i)->revision, rev[i + 1]);
    }

    /* the handler-ended watch stays silent */
    (void) gcp_sc_create(s, a, K("/k/9"), K("v"));
    assert_true(gcp_sc_rec_wait(s, &late, 5, GCP_SC_TIMEOUT));
    gcp_sc_spin(s, 20);
    assert_int_equal(stop2.n, 2);
    assert_true(victim.n <= 1);

    gcp_store_watch_cancel(s, c.late_w);
}


typedef struct {
    gcp_store_t         *s;
    gcp_arena_t         *a;
    int                  events;
    int                  writes;
    int                  reads;
} sc_reentrant_t;


static void
sc_reentrant_write_done(void *arg, gcp_store_result_t *res)
{
    sc_reentrant_t  *r = arg;

    assert_int_equal(res->rc, GCP_OK);
    sc_assert_str(res->kvs[0].key, "/rw/b", 5);
    r->writes++;
}


static void
sc_reentrant_read_done(void *arg, gcp_store_result_t *res)
{
    sc_reentrant_t  *r = arg;

    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 1);
    sc_assert_str(res->kvs[0].value, "first", 5);
    r->reads++;
}


/* Reads and writes the store from inside a watch handler. */
static int
sc_reentrant_handler(void *arg, const gcp_store_event_t *ev)
{
    char            *copy;
    gcp_str_t        v;
    sc_reentrant_t  *r = arg;

    if (ev->type != GCP_STORE_EVENT_PUT) {
        return GCP_OK;
    }

    r->events++;

    if (ev->kv.key.len == 5 && memcmp(ev->kv.key.data, "/rw/a", 5) == 0) {
        copy = gcp_strndup(r->a, ev->kv.value.data, ev->kv.value.len);
        assert_non_null(copy);
        v.data = copy;
        v.len = ev->kv.value.len;

        gcp_store_get(r->s, K("/rw/a"), 0, r->a, sc_reentrant_read_done, r);
        gcp_store_create(r->s, K("/rw/b"), v, r->a, sc_reentrant_write_done,
                         r);
    }

    return GCP_OK;
}


static void
sc_test_watch_reentrant(void **state)
{
    int                  i;
    sc_reentrant_t       r;
    gcp_store_t         *s = ((sc_fixture_t *) *state)->s;
    gcp_arena_t         *a = ((sc_fixture_t *) *state)->a;
    gcp_store_result_t  *res;

    memset(&r, 0, sizeof(sc_reentrant_t));
    r.s = s;
    r.a = a;

    assert_non_null(gcp_store_watch(s, K("/rw/"), K("/rw0"), 0,
                                    sc_reentrant_handler, &r));

    (void) gcp_sc_create(s, a, K("/rw/a"), K("first"));

    for (i = 0; i < 200 && (r.events < 2 || r.writes < 1 || r.reads < 1);
         i++)
    {
        gcp_sc_spin(s, 10);
    }

    assert_int_equal(r.events, 2);
    assert_int_equal(r.writes, 1);
    assert_int_equal(r.reads, 1);

    res = gcp_sc_get(s, a, K("/rw/b"), 0);
    assert_int_equal(res->nkvs, 1);
    sc_assert_str(res->kvs[0].value, "first", 5);
}


#define SC_MANY  1000


static void
sc_test_many_watchers(void **state)
{
    int                  i, j;
    char                 key[32];
    size_t               total;
    gcp_sc_rec_t        *recs, wide[10];
    gcp_store_t         *s = ((sc_fixture_t *) *state)->s;
    gcp_arena_t         *a = ((sc_fixture_t *) *state)->a;

    recs = gcp_calloc(a, sizeof(gcp_sc_rec_t) * SC_MANY);
    assert_non_null(recs);

    for (i = 0; i < SC_MANY; i++) {
        snprintf(key, sizeof(key), "/m/%04d/", i);
        gcp_sc_rec_init(&recs[i], a);
        (void) gcp_sc_watch(s, &recs[i], K(key), gcp_store_prefix_end(a,
                            K(key)), 0);
    }

    for (i = 0; i < 10; i++) {
        gcp_sc_rec_init(&wide[i], a);
        (void) gcp_sc_watch(s, &wide[i], K("/m/"), K("/m0"), 0);
    }

    /* 50 keys, one every 20 prefixes, plus one more for prefix 0 */
    for (j = 0; j < 50; j++) {
        snprintf(key, sizeof(key), "/m/%04d/x", j * 20);
        assert_int_equal(gcp_sc_create(s, a, K(key), K("v"))->rc, GCP_OK);
    }

    assert_int_equal(gcp_sc_create(s, a, K("/m/0000/y"), K("v"))->rc,
                     GCP_OK);

    for (i = 0; i < 10; i++) {
        assert_true(gcp_sc_rec_wait(s, &wide[i], 51, GCP_SC_TIMEOUT));
    }

    gcp_sc_spin(s, 20);

    total = 0;

    for (i = 0; i < SC_MANY; i++) {
        total += recs[i].n;
        assert_false(recs[i].out_of_order);

        if (i == 0) {
            assert_int_equal(recs[i].n, 2);
        } else if (i % 20 == 0 && i < 1000) {
            assert_int_equal(recs[i].n, 1);
            snprintf(key, sizeof(key), "/m/%04d/x", i);
            sc_assert_str(gcp_sc_rec_event(&recs[i], 0)->kv.key, key,
                          strlen(key));
        } else {
            assert_int_equal(recs[i].n, 0);
        }
    }

    assert_int_equal(total, 51);

    for (i = 0; i < 10; i++) {
        assert_int_equal(wide[i].n, 51);
        assert_false(wide[i].out_of_order);
    }
}


#define SC_BIG  (1024 * 1024)


static void
sc_test_large_values(void **state)
{
    int64_t              r1, r2;
    size_t               i;
    char                *v1, *v2;
    gcp_str_t            s1, s2;
    gcp_sc_rec_t         rec;
    gcp_store_t         *s = ((sc_fixture_t *) *state)->s;
    gcp_arena_t         *a = ((sc_fixture_t *) *state)->a;
    gcp_store_result_t  *res;
    gcp_store_event_t   *ev;

    v1 = gcp_alloc(a, SC_BIG);
    v2 = gcp_alloc(a, SC_BIG);
    assert_non_null(v1);
    assert_non_null(v2);

    for (i = 0; i < SC_BIG; i++) {
        v1[i] = (char) (i * 7 + i / 251);       /* NUL bytes included */
        v2[i] = (char) (i * 13 + 5);
    }

    s1.data = v1;
    s1.len = SC_BIG;
    s2.data = v2;
    s2.len = SC_BIG;

    gcp_sc_rec_init(&rec, a);
    (void) gcp_sc_watch(s, &rec, K("/big"), K(""), 0);

    res = gcp_sc_create(s, a, K("/big"), s1);
    assert_int_equal(res->rc, GCP_OK);
    r1 = res->revision;
    sc_assert_str(res->kvs[0].value, v1, SC_BIG);

    res = gcp_sc_get(s, a, K("/big"), 0);
    assert_int_equal(res->nkvs, 1);
    sc_assert_str(res->kvs[0].value, v1, SC_BIG);

    res = gcp_sc_update(s, a, K("/big"), s2, r1);
    assert_int_equal(res->rc, GCP_OK);
    r2 = res->revision;

    res = gcp_sc_get(s, a, K("/big"), r1);
    sc_assert_str(res->kvs[0].value, v1, SC_BIG);
    res = gcp_sc_get(s, a, K("/big"), r2);
    sc_assert_str(res->kvs[0].value, v2, SC_BIG);

    assert_true(gcp_sc_rec_wait(s, &rec, 2, GCP_SC_TIMEOUT));

    ev = gcp_sc_rec_event(&rec, 0);
    assert_int_equal(ev->revision, r1);
    sc_assert_str(ev->kv.value, v1, SC_BIG);
    assert_false(ev->has_prev);

    ev = gcp_sc_rec_event(&rec, 1);
    assert_int_equal(ev->revision, r2);
    sc_assert_str(ev->kv.value, v2, SC_BIG);
    assert_true(ev->has_prev);
    sc_assert_str(ev->prev_kv.value, v1, SC_BIG);
}


static void
sc_test_all_bytes(void **state)
{
    int                  c;
    char                 key[8], val[4];
    gcp_str_t            k, v;
    gcp_sc_rec_t         rec;
    gcp_store_t         *s = ((sc_fixture_t *) *state)->s;
    gcp_arena_t         *a = ((sc_fixture_t *) *state)->a;
    gcp_store_result_t  *res;

    gcp_sc_rec_init(&rec, a);
    (void) gcp_sc_watch(s, &rec, K("/b/"), gcp_store_prefix_end(a, K("/b/")),
                        0);

    /* created in a scrambled order */
    for (c = 0; c < 255; c++) {
        key[0] = '/';
        key[1] = 'b';
        key[2] = '/';
        key[3] = (char) ((c * 37) % 255 + 1);
        val[0] = key[3];

        k.data = key;
        k.len = 4;
        v.data = val;
        v.len = 1;

        assert_int_equal(gcp_sc_create(s, a, k, v)->rc, GCP_OK);
    }

    k.data = "/b/\xff\xff";
    k.len = 5;
    assert_int_equal(gcp_sc_create(s, a, k, K("ff"))->rc, GCP_OK);

    res = gcp_sc_range(s, a, K("/b/"), gcp_store_prefix_end(a, K("/b/")),
                       0, 0, 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 256);
    assert_int_equal(res->count, 256);

    for (c = 1; c < 256; c++) {
        key[3] = (char) c;
        sc_assert_str(res->kvs[c - 1].key, key, 4);
        sc_assert_str(res->kvs[c - 1].value, key + 3, 1);
    }

    sc_assert_str(res->kvs[255].key, "/b/\xff\xff", 5);

    for (c = 1; c < 256; c += 17) {
        key[3] = (char) c;
        k.data = key;
        k.len = 4;
        res = gcp_sc_get(s, a, k, 0);
        assert_int_equal(res->nkvs, 1);
        sc_assert_str(res->kvs[0].key, key, 4);
    }

    /* a prefix ending in 0xff */
    k.data = "/b/\xff";
    k.len = 4;
    res = gcp_sc_range(s, a, k, gcp_store_prefix_end(a, k), 0, 0, 0);
    assert_int_equal(res->nkvs, 2);
    sc_assert_str(res->kvs[1].key, "/b/\xff\xff", 5);

    assert_true(gcp_sc_rec_wait(s, &rec, 256, GCP_SC_TIMEOUT));
    assert_false(rec.out_of_order);
}


static void
sc_test_prefix_end(void **state)
{
    gcp_str_t     e;
    gcp_arena_t  *a = ((sc_fixture_t *) *state)->a;

    e = gcp_store_prefix_end(a, K("/a/"));
    sc_assert_str(e, "/a0", 3);

    e = gcp_store_prefix_end(a, K("/a\xff"));
    sc_assert_str(e, "/b", 2);

    e = gcp_store_prefix_end(a, K("/a\xfe\xff\xff"));
    sc_assert_str(e, "/a\xff", 3);

    e = gcp_store_prefix_end(a, K(""));
    sc_assert_str(e, "", 1);

    e = gcp_store_prefix_end(a, K("\xff\xff"));
    sc_assert_str(e, "", 1);
}


/* ------------------------------------------------------------ runner */


static int
sc_setup(void **state)
{
    sc_fixture_t  *f;

    f = calloc(1, sizeof(sc_fixture_t));
    if (f == NULL) {
        return -1;
    }

    f->s = sc_open(sc_ctx);
    f->a = gcp_arena_create(0);

    if (f->a && gcp_sc_brief) {
        gcp_arena_set_brief(f->a);
    }

    if (f->s == NULL || f->a == NULL) {
        if (f->s) {
            sc_close(f->s, sc_ctx);
        }

        gcp_arena_destroy(f->a);
        free(f);
        return -1;
    }

    *state = f;

    return 0;
}


static int
sc_teardown(void **state)
{
    sc_fixture_t  *f = *state;

    sc_close(f->s, sc_ctx);
    gcp_arena_destroy(f->a);
    free(f);

    return 0;
}


int
gcp_store_conformance_run(const char *backend_name, gcp_sc_open_pt open,
    gcp_sc_close_pt close, void *ctx)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test_setup_teardown(sc_test_crud, sc_setup, sc_teardown),
        cmocka_unit_test_setup_teardown(sc_test_range, sc_setup,
                                        sc_teardown),
        cmocka_unit_test_setup_teardown(sc_test_history, sc_setup,
                                        sc_teardown),
        cmocka_unit_test_setup_teardown(sc_test_compaction, sc_setup,
                                        sc_teardown),
        cmocka_unit_test_setup_teardown(sc_test_watch_now, sc_setup,
                                        sc_teardown),
        cmocka_unit_test_setup_teardown(sc_test_watch_catchup, sc_setup,
                                        sc_teardown),
        cmocka_unit_test_setup_teardown(sc_test_watch_filter, sc_setup,
                                        sc_teardown),
        cmocka_unit_test_setup_teardown(sc_test_watch_cancel, sc_setup,
                                        sc_teardown),
        cmocka_unit_test_setup_teardown(sc_test_watch_reentrant, sc_setup,
                                        sc_teardown),
        cmocka_unit_test_setup_teardown(sc_test_many_watchers, sc_setup,
                                        sc_teardown),
        cmocka_unit_test_setup_teardown(sc_test_large_values, sc_setup,
                                        sc_teardown),
        cmocka_unit_test_setup_teardown(sc_test_all_bytes, sc_setup,
                                        sc_teardown),
        cmocka_unit_test_setup_teardown(sc_test_prefix_end, sc_setup,
                                        sc_teardown),
    };

    sc_open = open;
    sc_close = close;
    sc_ctx = ctx;

    return _cmocka_run_group_tests(backend_name, tests, gcp_nelems(tests),
                                   NULL, NULL);
}
