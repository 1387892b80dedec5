
/*
 * Unit tests: the etcd storage backend (backends/etcd/), against real etcd
 * members started on loopback (t/unit/support_etcd.c).  Runs the storage
 * conformance suite on it, then what is particular to etcd: the key
 * mapping, consistency with writes made elsewhere, shared probes, reads
 * without probes in an instance (stores sharing a write watermark), two
 * stores on one etcd, watches from old revisions, restarts of etcd,
 * failover in a three-member cluster, and fast failures without quorum.
 */

#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <pthread.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <poll.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "gcp_core.h"
#include "gcp_loop.h"
#include "etcd/gcp_store_etcd.h"
#include "store_conformance.h"
#include "support_etcd.h"


#define K(s)  gcp_sc_str(s)


static gcp_test_etcd_t  one;        /* a single member for most tests */
static int              prefix_seq;


/*
 * A store on a cluster, with its own poll loop.  reads, fresh_ms and
 * watermark (set before et_open(); 0 / NULL: the defaults) go to its
 * gcp_etcd_conf_t.
 */
typedef struct {
    gcp_loop_t          *loop;
    gcp_store_t         *s;
    char                 prefix[64];
    int                  reads;
    uint64_t             fresh_ms;
    int64_t             *watermark;
} et_store_t;


static gcp_store_t *
et_open(et_store_t *es, const char *endpoints, const char *prefix,
    const char *core, uint64_t timeout_ms, size_t history_events)
{
    const char       *err = NULL;
    gcp_etcd_conf_t   conf;

    if (es->loop == NULL) {
        es->loop = gcp_loop_poll_create();
        if (es->loop == NULL) {
            return NULL;
        }
    }

    if (prefix == NULL) {
        snprintf(es->prefix, sizeof(es->prefix), "/gcp-test/%d/",
                 prefix_seq++);
        prefix = es->prefix;
    }

    memset(&conf, 0, sizeof(gcp_etcd_conf_t));
    conf.endpoints = endpoints;
    conf.prefix = prefix;
    conf.core_prefix = core;
    conf.timeout_ms = timeout_ms;
    conf.history_events = history_events;
    conf.reads = es->reads;
    conf.fresh_ms = es->fresh_ms;
    conf.watermark = es->watermark;

    es->s = gcp_etcd_open(&conf, es->loop, &err);

    if (es->s == NULL) {
        fprintf(stderr, "gcp_etcd_open: %s\n", err ? err : "?");
    }

    return es->s;
}


static void
et_close(et_store_t *es)
{
    if (es->s) {
        gcp_store_close(es->s);
        es->s = NULL;
    }

    gcp_loop_poll_destroy(es->loop);
    es->loop = NULL;
}


static gcp_etcd_stats_t
et_stats(gcp_store_t *s)
{
    gcp_etcd_stats_t  st;

    assert_int_equal(gcp_etcd_stats(s, &st), GCP_OK);

    return st;
}


/* ------------------------------------------------------------ conformance */


static gcp_store_t *
conf_open(void *ctx)
{
    et_store_t  *es = ctx;

    memset(es, 0, sizeof(et_store_t));

    return et_open(es, one.endpoints, NULL, NULL, 5000, 0);
}


static void
conf_close(gcp_store_t *s, void *ctx)
{
    et_close(ctx);
}


/* ------------------------------------------------------------ helpers */


/* base64 of a C string, malloc'd (for raw etcd requests). */
static char *
et_b64(const char *s)
{
    int     n;
    char   *out;
    size_t  len;

    len = strlen(s);
    out = malloc(len / 3 * 4 + 8);
    assert_non_null(out);

    n = EVP_EncodeBlock((unsigned char *) out, (const unsigned char *) s,
                        (int) len);
    out[n] = '\0';

    return out;
}


/* A put straight to etcd (another client), blocking. */
static void
et_raw_put(gcp_test_etcd_t *t, int member, const char *key,
    const char *value)
{
    char   body[1024], *k, *v;

    k = et_b64(key);
    v = et_b64(value);
    snprintf(body, sizeof(body), "{\"key\":\"%s\",\"value\":\"%s\"}", k, v);
    free(k);
    free(v);

    assert_int_equal(gcp_test_etcd_post(t, member, "/v3/kv/put", body, NULL),
                     200);
}


/* The raw value of an etcd key (NULL when absent), malloc'd. */
static char *
et_raw_get(gcp_test_etcd_t *t, const char *key)
{
    char     body[512], *k, *out, *p, *q, *val;
    size_t   n;

    k = et_b64(key);
    snprintf(body, sizeof(body), "{\"key\":\"%s\"}", k);
    free(k);

    assert_int_equal(gcp_test_etcd_post(t, 0, "/v3/kv/range", body, &out),
                     200);

    p = strstr(out, "\"value\":\"");
    if (p == NULL) {
        free(out);
        return NULL;
    }

    p += 9;
    q = strchr(p, '"');
    assert_non_null(q);

    val = calloc(1, (size_t) (q - p) + 4);
    assert_non_null(val);

    n = (size_t) EVP_DecodeBlock((unsigned char *) val,
                                 (const unsigned char *) p, (int) (q - p));
    while (n && val[n - 1] == '\0') {
        n--;            /* EVP_DecodeBlock counts the padding */
    }

    val[n] = '\0';
    free(out);

    return val;
}


static uint64_t
et_now(gcp_store_t *s)
{
    return s->loop->now_ms(s->loop);
}


/* ------------------------------------------------------------ tests */


/* Keys: /registry/... of the core is PREFIX/... in etcd, bytes as given. */
static void
test_key_mapping(void **state)
{
    char                *raw;
    gcp_arena_t         *a;
    et_store_t           es, other;
    gcp_store_result_t  *res;

    memset(&es, 0, sizeof(es));
    memset(&other, 0, sizeof(other));

    /* quorum reads: the write straight into etcd below is seen at once */
    es.reads = GCP_ETCD_READS_QUORUM;
    assert_non_null(et_open(&es, one.endpoints, "/km1", "/registry", 5000,
                            0));
    assert_non_null(et_open(&other, one.endpoints, "/km2", "/registry",
                            5000, 0));
    a = gcp_arena_create(0);

    res = gcp_sc_create(es.s, a, K("/registry/configmaps/ns/a"),
                        K("{\"x\":1}"));
    assert_int_equal(res->rc, GCP_OK);
    assert_string_equal(res->kvs[0].key.data, "/registry/configmaps/ns/a");

    raw = et_raw_get(&one, "/km1/configmaps/ns/a");
    assert_non_null(raw);
    assert_string_equal(raw, "{\"x\":1}");
    free(raw);
    assert_null(et_raw_get(&one, "/registry/configmaps/ns/a"));

    /* the other prefix is another keyspace */
    res = gcp_sc_get(other.s, a, K("/registry/configmaps/ns/a"), 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 0);
    assert_int_equal(gcp_sc_create(other.s, a, K("/registry/configmaps/ns/b"),
                                   K("b"))->rc, GCP_OK);

    res = gcp_sc_range(es.s, a, K("/registry/"),
                       gcp_store_prefix_end(a, K("/registry/")), 0, 0, 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 1);
    assert_int_equal(res->count, 1);

    /* written in etcd by someone else: seen by the next read */
    et_raw_put(&one, 0, "/km1/configmaps/ns/c", "from etcdctl");
    res = gcp_sc_get(es.s, a, K("/registry/configmaps/ns/c"), 0);
    assert_int_equal(res->nkvs, 1);
    assert_int_equal(res->kvs[0].value.len, 12);
    assert_memory_equal(res->kvs[0].value.data, "from etcdctl", 12);

    /* keys outside the core prefix cannot be stored */
    assert_int_equal(gcp_sc_create(es.s, a, K("/elsewhere"), K("v"))->rc,
                     GCP_EBADREQUEST);
    assert_int_equal(gcp_sc_create(es.s, a, K(""), K("v"))->rc,
                     GCP_EBADREQUEST);
    res = gcp_sc_get(es.s, a, K("/elsewhere"), 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 0);

    gcp_arena_destroy(a);
    et_close(&other);
    et_close(&es);
}


static void
test_bad_input(void **state)
{
    gcp_str_t            k;
    gcp_sc_rec_t         rec;
    gcp_arena_t         *a;
    et_store_t           es;

    memset(&es, 0, sizeof(es));
    assert_non_null(et_open(&es, one.endpoints, NULL, NULL, 5000, 0));
    a = gcp_arena_create(0);

    k.data = "/a\0b";
    k.len = 4;
    assert_int_equal(gcp_sc_create(es.s, a, k, K("v"))->rc, GCP_EBADREQUEST);
    assert_int_equal(gcp_sc_update(es.s, a, k, K("v"), 0)->rc,
                     GCP_EBADREQUEST);
    assert_int_equal(gcp_sc_delete(es.s, a, k, 0)->rc, GCP_EBADREQUEST);
    assert_int_equal(gcp_sc_get(es.s, a, k, 0)->rc, GCP_EBADREQUEST);
    assert_int_equal(gcp_sc_get(es.s, a, K("/x"), -1)->rc, GCP_EBADREQUEST);
    assert_int_equal(gcp_sc_update(es.s, a, K("/x"), K("v"), -2)->rc,
                     GCP_EBADREQUEST);

    /* a watch on a bad key: one ERROR event, from the loop */
    gcp_sc_rec_init(&rec, a);
    (void) gcp_sc_watch(es.s, &rec, k, K(""), 0);
    assert_int_equal(rec.n, 0);
    assert_true(gcp_sc_rec_wait(es.s, &rec, 1, GCP_SC_TIMEOUT));
    assert_int_equal(gcp_sc_rec_event(&rec, 0)->type, GCP_STORE_EVENT_ERROR);
    assert_int_equal(gcp_sc_rec_event(&rec, 0)->rc, GCP_EBADREQUEST);

    gcp_arena_destroy(a);
    et_close(&es);
}


typedef struct {
    int                  done;
    int                  ok;
    int                  seen;      /* results holding the value */
} et_many_t;


static void
et_many_done(void *arg, gcp_store_result_t *res)
{
    et_many_t  *m = arg;

    m->done++;
    m->ok += res->rc == GCP_OK;
    m->seen += res->nkvs == 1 && res->kvs[0].value.len == 3
               && memcmp(res->kvs[0].value.data, "new", 3) == 0;
}


/*
 * Quorum reads see every write acknowledged before them, also writes made
 * by another client, each after a probe; reads arriving together share
 * one probe.
 */
static void
test_consistent_reads(void **state)
{
    int                  i;
    char                 key[32], ekey[128], val[16];
    et_many_t            m;
    gcp_arena_t         *a;
    et_store_t           es, other;
    gcp_etcd_stats_t     before, after;
    gcp_store_result_t  *res;

    memset(&es, 0, sizeof(es));
    memset(&other, 0, sizeof(other));
    es.reads = GCP_ETCD_READS_QUORUM;
    assert_non_null(et_open(&es, one.endpoints, NULL, NULL, 5000, 0));
    assert_non_null(et_open(&other, one.endpoints, es.prefix, NULL, 5000,
                            0));
    a = gcp_arena_create(0);
    before = et_stats(es.s);

    for (i = 0; i < 30; i++) {
        snprintf(key, sizeof(key), "/cr/%d", i % 3);
        snprintf(val, sizeof(val), "v%d", i);

        if (i % 2) {
            /* through the other store */
            res = gcp_sc_update(other.s, a, K(key), K(val), 0);
            if (res->rc == GCP_ENOTFOUND) {
                res = gcp_sc_create(other.s, a, K(key), K(val));
            }

            assert_int_equal(res->rc, GCP_OK);

        } else {
            /* straight into etcd */
            snprintf(ekey, sizeof(ekey), "%s%s", es.prefix, key);
            et_raw_put(&one, 0, ekey, val);
        }

        res = gcp_sc_get(es.s, a, K(key), 0);
        assert_int_equal(res->rc, GCP_OK);
        assert_int_equal(res->nkvs, 1);
        assert_int_equal(res->kvs[0].value.len, strlen(val));
        assert_memory_equal(res->kvs[0].value.data, val, strlen(val));
    }

    /* one probe per read, none answered without */
    after = et_stats(es.s);
    assert_int_equal(after.probes - before.probes, 30);
    assert_int_equal(after.unprobed_reads, 0);

    /* 200 reads at once: a handful of probes, answers from memory */
    assert_int_equal(gcp_sc_update(other.s, a, K("/cr/0"), K("new"), 0)->rc,
                     GCP_OK);

    before = et_stats(es.s);
    memset(&m, 0, sizeof(m));

    for (i = 0; i < 200; i++) {
        gcp_store_get(es.s, K("/cr/0"), 0, a, et_many_done, &m);
    }

    assert_int_equal(m.done, 0);
    assert_true(gcp_sc_wait(es.s, &m.done, GCP_SC_TIMEOUT) == 1);

    while (m.done < 200) {
        gcp_loop_poll_run(es.loop, 50);
    }

    after = et_stats(es.s);
    assert_int_equal(m.ok, 200);
    assert_int_equal(m.seen, 200);
    assert_true(after.probes - before.probes <= 2);
    assert_true(after.cached_reads - before.cached_reads >= 200);
    assert_int_equal(after.remote_reads, before.remote_reads);

    gcp_arena_destroy(a);
    et_close(&other);
    et_close(&es);
}


/* Waits until the store's watch stream is up (or down); returns 1 if so. */
static int
et_wait_live(gcp_store_t *s, int up, int timeout_ms)
{
    uint64_t  deadline;

    deadline = et_now(s) + (uint64_t) timeout_ms;

    while (et_stats(s).live != (unsigned) up) {
        if (et_now(s) >= deadline) {
            return 0;
        }

        gcp_sc_spin(s, 10);
    }

    return 1;
}


/*
 * Instance reads: two stores sharing a watermark (two workers of one
 * instance, each with its own loop).  A read through one right after a
 * write acknowledged by the other sees it, with no probe and no request to
 * etcd; a store of another instance (its own watermark) is not bound to.
 */
static void
test_instance_reads(void **state)
{
    int                  i;
    char                 val[16];
    int64_t              mark, rev;
    gcp_arena_t         *a;
    et_store_t           w1, w2, other;
    gcp_etcd_stats_t     before, after;
    gcp_store_result_t  *res;

    mark = 0;
    memset(&w1, 0, sizeof(w1));
    memset(&w2, 0, sizeof(w2));
    memset(&other, 0, sizeof(other));

    /* a long window: no background probe during the test */
    w1.watermark = &mark;
    w2.watermark = &mark;
    w2.fresh_ms = 60000;
    other.fresh_ms = 60000;

    assert_non_null(et_open(&w1, one.endpoints, NULL, NULL, 5000, 0));
    assert_non_null(et_open(&w2, one.endpoints, w1.prefix, NULL, 5000, 0));
    assert_non_null(et_open(&other, one.endpoints, w1.prefix, NULL, 5000,
                            0));
    a = gcp_arena_create(0);

    assert_int_equal(gcp_sc_create(w1.s, a, K("/ir/a"), K("v0"))->rc,
                     GCP_OK);

    /* the first reads wait for a probe, which confirms the copies */
    assert_int_equal(gcp_sc_get(w2.s, a, K("/ir/a"), 0)->nkvs, 1);
    assert_int_equal(gcp_sc_get(other.s, a, K("/ir/a"), 0)->nkvs, 1);
    assert_true(et_wait_live(w2.s, 1, GCP_SC_TIMEOUT));
    assert_true(et_wait_live(other.s, 1, GCP_SC_TIMEOUT));

    before = et_stats(w2.s);
    assert_true(before.probes >= 1);

    for (i = 1; i <= 50; i++) {
        snprintf(val, sizeof(val), "v%d", i);

        /* w2's loop does not run meanwhile: its copy is behind */
        res = gcp_sc_update(w1.s, a, K("/ir/a"), K(val), 0);
        assert_int_equal(res->rc, GCP_OK);
        rev = res->revision;
        assert_int_equal(__atomic_load_n(&mark, __ATOMIC_SEQ_CST), rev);
        assert_true(gcp_store_revision(w2.s) < rev);

        res = gcp_sc_get(w2.s, a, K("/ir/a"), 0);
        assert_int_equal(res->rc, GCP_OK);
        assert_int_equal(res->nkvs, 1);
        assert_int_equal(res->kvs[0].mod_revision, rev);
        assert_int_equal(res->kvs[0].value.len, strlen(val));
        assert_memory_equal(res->kvs[0].value.data, val, strlen(val));

        if (i % 10 == 0) {
            res = gcp_sc_range(w2.s, a, K("/ir/"), K("/ir0"), 0, 0, 0);
            assert_int_equal(res->nkvs, 1);
            assert_int_equal(res->kvs[0].mod_revision, rev);
        }
    }

    after = et_stats(w2.s);
    assert_int_equal(after.probes, before.probes);
    assert_int_equal(after.requests, before.requests);
    assert_int_equal(after.remote_reads, before.remote_reads);
    assert_int_equal(after.unprobed_reads - before.unprobed_reads, 55);
    assert_int_equal(after.watermark, rev);

    /*
     * Another instance: its copy is confirmed, it did not write, it
     * answers at once from a copy its loop has not moved (within the
     * window, as documented), without a probe.
     */
    before = et_stats(other.s);
    res = gcp_sc_get(other.s, a, K("/ir/a"), 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_true(res->kvs[0].mod_revision < rev);
    assert_int_equal(et_stats(other.s).probes, before.probes);

    /* ... and the stream brings the write soon after */
    while (gcp_store_revision(other.s) < rev) {
        gcp_sc_spin(other.s, 5);
    }

    res = gcp_sc_get(other.s, a, K("/ir/a"), 0);
    assert_int_equal(res->kvs[0].mod_revision, rev);

    gcp_arena_destroy(a);
    et_close(&other);
    et_close(&w2);
    et_close(&w1);
}


/*
 * Instance reads and writes made elsewhere: once the freshness window has
 * run out, a read waits for a probe and sees every write acknowledged
 * before it; within the window, reads probe in the background.
 */
static void
test_instance_window(void **state)
{
    int                  i;
    char                 ekey[128];
    gcp_arena_t         *a;
    et_store_t           es;
    gcp_etcd_stats_t     before, after;
    gcp_store_result_t  *res;

    memset(&es, 0, sizeof(es));
    es.fresh_ms = 200;
    assert_non_null(et_open(&es, one.endpoints, NULL, NULL, 5000, 0));
    a = gcp_arena_create(0);

    assert_int_equal(gcp_sc_get(es.s, a, K("/iw/a"), 0)->nkvs, 0);
    assert_true(et_wait_live(es.s, 1, GCP_SC_TIMEOUT));

    for (i = 0; i < 3; i++) {
        snprintf(ekey, sizeof(ekey), "%s/iw/a", es.prefix);
        et_raw_put(&one, 0, ekey, i % 2 ? "odd" : "even");

        /* the store's loop does not run: the window runs out */
        usleep(300 * 1000);

        before = et_stats(es.s);
        res = gcp_sc_get(es.s, a, K("/iw/a"), 0);
        after = et_stats(es.s);

        assert_int_equal(res->nkvs, 1);
        assert_memory_equal(res->kvs[0].value.data, i % 2 ? "odd" : "even",
                            i % 2 ? 3 : 4);
        assert_int_equal(after.probes - before.probes, 1);
        assert_int_equal(after.unprobed_reads, before.unprobed_reads);
    }

    /* reads all along: background probes keep the copy confirmed */
    before = et_stats(es.s);

    for (i = 0; i < 100; i++) {
        assert_int_equal(gcp_sc_get(es.s, a, K("/iw/a"), 0)->rc, GCP_OK);
        gcp_sc_spin(es.s, 5);
    }

    after = et_stats(es.s);
    assert_true(after.probes - before.probes >= 1);
    assert_true(after.unprobed_reads - before.unprobed_reads >= 95);

    gcp_arena_destroy(a);
    et_close(&es);
}


/*
 * A watch stream that went down makes the copy not current: the reads
 * after it wait for a probe (and fail within the timeout while etcd is
 * away), then service resumes without probes.
 */
static void
test_instance_stream_down(void **state)
{
    int                  i;
    gcp_arena_t         *a;
    et_store_t           es;
    gcp_test_etcd_t      t;
    gcp_etcd_stats_t     before, after;
    gcp_store_result_t  *res;

    assert_int_equal(gcp_test_etcd_start(&t, 1), 0);

    memset(&es, 0, sizeof(es));
    es.fresh_ms = 60000;
    assert_non_null(et_open(&es, t.endpoints, NULL, NULL, 1000, 0));
    a = gcp_arena_create(0);

    assert_int_equal(gcp_sc_create(es.s, a, K("/sd/a"), K("1"))->rc, GCP_OK);
    assert_int_equal(gcp_sc_get(es.s, a, K("/sd/a"), 0)->nkvs, 1);
    assert_true(et_wait_live(es.s, 1, GCP_SC_TIMEOUT));

    before = et_stats(es.s);
    assert_int_equal(gcp_sc_get(es.s, a, K("/sd/a"), 0)->nkvs, 1);
    assert_int_equal(et_stats(es.s).probes, before.probes);

    /* the member goes: the stream ends, reads probe and fail */
    assert_int_equal(gcp_test_etcd_kill(&t, 0), 0);
    assert_true(et_wait_live(es.s, 0, GCP_SC_TIMEOUT));

    before = et_stats(es.s);
    res = gcp_sc_get(es.s, a, K("/sd/a"), 0);
    assert_true(res->rc == GCP_EUNAVAILABLE || res->rc == GCP_ETIMEOUT);
    after = et_stats(es.s);
    assert_true(after.probes - before.probes >= 1);
    assert_int_equal(after.unprobed_reads, before.unprobed_reads);

    /* back: the first read probes again, the next ones need none */
    assert_int_equal(gcp_test_etcd_restart(&t, 0), 0);
    assert_int_equal(gcp_test_etcd_wait(&t, 0, 20000), 0);
    assert_true(et_wait_live(es.s, 1, 20000));

    before = et_stats(es.s);
    res = gcp_sc_get(es.s, a, K("/sd/a"), 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 1);
    assert_int_equal(et_stats(es.s).probes - before.probes, 1);

    before = et_stats(es.s);

    for (i = 0; i < 10; i++) {
        assert_int_equal(gcp_sc_get(es.s, a, K("/sd/a"), 0)->nkvs, 1);
    }

    after = et_stats(es.s);
    assert_int_equal(after.probes, before.probes);
    assert_int_equal(after.unprobed_reads - before.unprobed_reads, 10);

    gcp_arena_destroy(a);
    et_close(&es);
    gcp_test_etcd_stop(&t);
}


/* Read-modify-write increments through two stores: one winner per rev. */

typedef struct {
    gcp_store_t         *s;
    int                  left;
    int                  conflicts;
    int                  failed;
    gcp_arena_t         *a;
} et_counter_t;


static void et_counter_step(et_counter_t *c);


static void
et_counter_written(void *arg, gcp_store_result_t *res)
{
    et_counter_t  *c = arg;

    if (res->rc == GCP_ECONFLICT) {
        c->conflicts++;
    } else if (res->rc == GCP_OK) {
        c->left--;
    } else {
        c->failed++;
        return;
    }

    gcp_arena_destroy(c->a);
    c->a = NULL;

    if (c->left > 0) {
        et_counter_step(c);
    }
}


static void
et_counter_read(void *arg, gcp_store_result_t *res)
{
    int            n;
    char           buf[32];
    gcp_str_t      v;
    et_counter_t  *c = arg;

    if (res->rc != GCP_OK || res->nkvs != 1) {
        c->failed++;
        return;
    }

    n = atoi(res->kvs[0].value.data);
    snprintf(buf, sizeof(buf), "%d", n + 1);

    v.data = gcp_strdup(c->a, buf);
    v.len = strlen(buf);

    gcp_store_update(c->s, K("/cnt"), v, res->kvs[0].mod_revision, c->a,
                     et_counter_written, c);
}


static void
et_counter_step(et_counter_t *c)
{
    c->a = gcp_arena_create(0);
    assert_non_null(c->a);

    gcp_store_get(c->s, K("/cnt"), 0, c->a, et_counter_read, c);
}


static void
test_two_stores_counter(void **state)
{
    int                  i;
    char                 want[16];
    int64_t              start;
    uint64_t             deadline;
    gcp_arena_t         *a;
    et_store_t           s1, s2;
    int64_t              mark;
    et_counter_t         c[2];
    gcp_store_result_t  *res;

    /* two workers of one instance: the last read below sees the last write */
    mark = 0;
    memset(&s1, 0, sizeof(s1));
    memset(&s2, 0, sizeof(s2));
    s1.watermark = &mark;
    s2.watermark = &mark;
    assert_non_null(et_open(&s1, one.endpoints, NULL, NULL, 5000, 0));

    /* the second store shares the first one's loop and prefix */
    s2.loop = s1.loop;
    assert_non_null(et_open(&s2, one.endpoints, s1.prefix, NULL, 5000, 0));

    a = gcp_arena_create(0);
    start = gcp_sc_create(s1.s, a, K("/cnt"), K("0"))->revision;

    memset(c, 0, sizeof(c));
    c[0].s = s1.s;
    c[1].s = s2.s;

    for (i = 0; i < 2; i++) {
        c[i].left = 40;
        et_counter_step(&c[i]);
    }

    deadline = et_now(s1.s) + 30000;

    while ((c[0].left > 0 || c[1].left > 0) && !c[0].failed && !c[1].failed
           && et_now(s1.s) < deadline)
    {
        gcp_loop_poll_run(s1.loop, 50);
    }

    assert_int_equal(c[0].failed + c[1].failed, 0);
    assert_int_equal(c[0].left + c[1].left, 0);

    res = gcp_sc_get(s2.s, a, K("/cnt"), 0);
    assert_memory_equal(res->kvs[0].value.data, "80", 2);
    assert_int_equal(res->kvs[0].version, 81);

    /* one winner per revision: the value at each version is its count */
    for (i = 1; i <= 80; i++) {
        res = gcp_sc_get(s1.s, a, K("/cnt"), res->kvs[0].mod_revision - 1);

        if (i == 80) {
            assert_int_equal(res->kvs[0].mod_revision, start);
        }

        snprintf(want, sizeof(want), "%d", 80 - i);
        assert_int_equal(res->kvs[0].value.len, strlen(want));
        assert_memory_equal(res->kvs[0].value.data, want, strlen(want));
    }

    gcp_arena_destroy(a);
    s2.loop = NULL;
    et_close(&s2);
    et_close(&s1);
}


/* A watch from before what the history holds: replayed from etcd. */
static void
test_watch_replay(void **state)
{
    int                  i;
    char                 key[32], val[32];
    int64_t              r0, rev[30];
    gcp_arena_t         *a;
    et_store_t           es;
    gcp_sc_rec_t         rec;
    gcp_etcd_stats_t     st;
    gcp_store_event_t   *ev;

    memset(&es, 0, sizeof(es));
    assert_non_null(et_open(&es, one.endpoints, NULL, NULL, 5000, 4));
    a = gcp_arena_create(0);

    r0 = gcp_sc_revision(es.s);

    for (i = 0; i < 20; i++) {
        snprintf(key, sizeof(key), "/rp/%d", i % 4);
        snprintf(val, sizeof(val), "v%d", i);
        rev[i] = (i < 4 ? gcp_sc_create(es.s, a, K(key), K(val))
                        : gcp_sc_update(es.s, a, K(key), K(val), 0))
                 ->revision;
    }

    /* the copy has the last one: the history keeps only four */
    while (gcp_store_revision(es.s) < rev[19]) {
        gcp_sc_spin(es.s, 5);
    }

    st = et_stats(es.s);
    assert_int_equal(st.history, 4);
    assert_true(st.history_base >= rev[15]);

    gcp_sc_rec_init(&rec, a);
    (void) gcp_sc_watch(es.s, &rec, K("/rp/"), K("/rp0"), r0);

    assert_true(gcp_sc_rec_wait(es.s, &rec, 20, GCP_SC_TIMEOUT));

    for (i = 20; i < 30; i++) {
        snprintf(key, sizeof(key), "/rp/%d", i % 4);
        snprintf(val, sizeof(val), "v%d", i);
        rev[i] = gcp_sc_update(es.s, a, K(key), K(val), 0)->revision;
    }

    assert_true(gcp_sc_rec_wait(es.s, &rec, 30, GCP_SC_TIMEOUT));
    gcp_sc_spin(es.s, 50);
    assert_int_equal(rec.n, 30);
    assert_false(rec.out_of_order);
    assert_false(rec.early);

    for (i = 0; i < 30; i++) {
        ev = gcp_sc_rec_event(&rec, i);
        snprintf(val, sizeof(val), "v%d", i);
        assert_int_equal(ev->revision, rev[i]);
        assert_int_equal(ev->kv.value.len, strlen(val));
        assert_memory_equal(ev->kv.value.data, val, strlen(val));
        assert_int_equal(ev->has_prev, i >= 4);

        if (i >= 4) {
            snprintf(val, sizeof(val), "v%d", i - 4);
            assert_memory_equal(ev->prev_kv.value.data, val, strlen(val));
            assert_int_equal(ev->prev_kv.mod_revision, rev[i - 4]);
        }
    }

    st = et_stats(es.s);
    assert_int_equal(st.replays, 1);

    gcp_arena_destroy(a);
    et_close(&es);
}


/*
 * Compacted by another store: the revision is learned from etcd, even by
 * a store whose history still holds the compacted changes.
 */
static void
test_compacted_elsewhere(void **state)
{
    int64_t              r1, r2, r3;
    gcp_arena_t         *a;
    et_store_t           s1, s2, s3;
    gcp_sc_rec_t         rec;
    gcp_store_event_t   *ev;
    gcp_store_result_t  *res;

    memset(&s1, 0, sizeof(s1));
    memset(&s2, 0, sizeof(s2));
    memset(&s3, 0, sizeof(s3));
    assert_non_null(et_open(&s1, one.endpoints, NULL, NULL, 5000, 0));
    a = gcp_arena_create(0);

    /* a store that sees the writes below in its history */
    assert_non_null(et_open(&s3, one.endpoints, s1.prefix, NULL, 5000, 0));
    (void) gcp_sc_get(s3.s, a, K("/ce/a"), 0);

    r1 = gcp_sc_create(s1.s, a, K("/ce/a"), K("1"))->revision;
    r2 = gcp_sc_update(s1.s, a, K("/ce/a"), K("2"), 0)->revision;
    r3 = gcp_sc_update(s1.s, a, K("/ce/a"), K("3"), 0)->revision;

    while (gcp_store_revision(s3.s) < r3) {
        gcp_sc_spin(s3.s, 5);
    }

    assert_true(et_stats(s3.s).history_base < r1);

    /* a store that knows nothing of the compaction, opened before it */
    assert_non_null(et_open(&s2, one.endpoints, s1.prefix, NULL, 5000, 0));
    assert_int_equal(gcp_sc_get(s2.s, a, K("/ce/a"), 0)->nkvs, 1);

    res = gcp_sc_compact(s1.s, a, r2);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->compact_revision, r2);

    res = gcp_sc_get(s2.s, a, K("/ce/a"), r1);
    assert_int_equal(res->rc, GCP_ECOMPACTED);
    assert_int_equal(res->compact_revision, r2);

    res = gcp_sc_get(s2.s, a, K("/ce/a"), r2);
    assert_int_equal(res->rc, GCP_OK);
    assert_memory_equal(res->kvs[0].value.data, "2", 1);

    /* compacting there again: refused, with etcd's revision */
    res = gcp_sc_compact(s2.s, a, r1);
    assert_int_equal(res->rc, GCP_ECOMPACTED);
    assert_int_equal(res->compact_revision, r2);

    et_close(&s2);

    /* s3's history has r1's successors, but etcd refuses the start */
    gcp_sc_rec_init(&rec, a);
    (void) gcp_sc_watch(s3.s, &rec, K("/ce/"), K("/ce0"), r1);
    assert_true(gcp_sc_rec_wait(s3.s, &rec, 1, GCP_SC_TIMEOUT));
    gcp_sc_spin(s3.s, 50);
    assert_int_equal(rec.n, 1);
    assert_int_equal(gcp_sc_rec_event(&rec, 0)->type, GCP_STORE_EVENT_ERROR);
    assert_int_equal(gcp_sc_rec_event(&rec, 0)->rc, GCP_ECOMPACTED);
    assert_int_equal(gcp_sc_rec_event(&rec, 0)->compact_revision, r2);

    /* from the compacted revision itself: served */
    gcp_sc_rec_init(&rec, a);
    (void) gcp_sc_watch(s3.s, &rec, K("/ce/"), K("/ce0"), r2);
    assert_true(gcp_sc_rec_wait(s3.s, &rec, 1, GCP_SC_TIMEOUT));
    gcp_sc_spin(s3.s, 50);
    assert_int_equal(rec.n, 1);
    ev = gcp_sc_rec_event(&rec, 0);
    assert_int_equal(ev->type, GCP_STORE_EVENT_PUT);
    assert_int_equal(ev->revision, r3);
    assert_memory_equal(ev->kv.value.data, "3", 1);
    assert_int_equal(ev->prev_kv.mod_revision, r2);

    et_close(&s3);

    /* a fresh store: the watch from r1 goes to etcd, which refuses it */
    assert_non_null(et_open(&s2, one.endpoints, s1.prefix, NULL, 5000, 0));
    gcp_sc_rec_init(&rec, a);
    (void) gcp_sc_watch(s2.s, &rec, K("/ce/"), K("/ce0"), r1);
    assert_true(gcp_sc_rec_wait(s2.s, &rec, 1, GCP_SC_TIMEOUT));
    assert_int_equal(gcp_sc_rec_event(&rec, 0)->type, GCP_STORE_EVENT_ERROR);
    assert_int_equal(gcp_sc_rec_event(&rec, 0)->rc, GCP_ECOMPACTED);
    assert_int_equal(gcp_sc_rec_event(&rec, 0)->compact_revision, r2);

    gcp_arena_destroy(a);
    et_close(&s2);
    et_close(&s1);
}


/*
 * Runs an operation, checks it fails with a 503 or 504 code about when the
 * store's timeout (ms) ends: within twice the timeout and one second (the
 * slack of a machine busy with other tests; an operation that hangs takes
 * forever).
 */
static void
et_assert_fails_fast(gcp_store_t *s, gcp_store_result_t *(*op)(
    gcp_store_t *s, gcp_arena_t *a, const char *key), const char *key,
    uint64_t ms)
{
    uint64_t             t0;
    gcp_arena_t         *a;
    gcp_store_result_t  *res;

    a = gcp_arena_create(0);
    t0 = et_now(s);

    res = op(s, a, key);

    if (res->rc != GCP_EUNAVAILABLE && res->rc != GCP_ETIMEOUT
        && res->rc != GCP_EINDOUBT)
    {
        fail_msg("expected 503/504 codes, got %s (%s)",
                 gcp_error_info(res->rc)->name,
                 res->message ? res->message : "");
    }

    assert_non_null(res->message);
    assert_true(et_now(s) - t0 <= 2 * ms + 1000);

    gcp_arena_destroy(a);
}


static gcp_store_result_t *
et_op_create(gcp_store_t *s, gcp_arena_t *a, const char *key)
{
    return gcp_sc_create(s, a, K(key), K("lost?"));
}


static gcp_store_result_t *
et_op_get(gcp_store_t *s, gcp_arena_t *a, const char *key)
{
    return gcp_sc_get(s, a, K(key), 0);
}


/* Creates key, retrying for a while (etcd may be electing a leader). */
static gcp_store_result_t *
et_create_retry(gcp_store_t *s, gcp_arena_t *a, const char *key)
{
    int                  i, doubt;
    gcp_store_result_t  *res;

    doubt = 0;

    for (i = 0; i < 50; i++) {
        res = gcp_sc_create(s, a, K(key), K(key));

        if (res->rc == GCP_EEXISTS && doubt) {
            res->rc = GCP_OK;           /* the attempt in doubt was done */
        }

        if (res->rc == GCP_EINDOUBT || res->rc == GCP_ETIMEOUT) {
            doubt = 1;
        }

        if (res->rc != GCP_EUNAVAILABLE && res->rc != GCP_ETIMEOUT
            && res->rc != GCP_EINDOUBT)
        {
            return res;
        }

        gcp_sc_spin(s, 100);
    }

    return res;
}


/* The watch saw exactly the keys acknowledged, once each, in order. */
static void
et_assert_seen(gcp_sc_rec_t *rec, char acked[][32], int n)
{
    int                  i, j, found;
    gcp_store_event_t   *ev;

    assert_false(rec->out_of_order);

    for (i = 0; i < n; i++) {
        found = 0;

        for (j = 0; j < (int) rec->n; j++) {
            ev = gcp_sc_rec_event(rec, j);

            if (ev->kv.key.len == strlen(acked[i])
                && memcmp(ev->kv.key.data, acked[i], ev->kv.key.len) == 0)
            {
                found++;
            }
        }

        if (found != 1) {
            fail_msg("%s seen %d times by the watch", acked[i], found);
        }
    }
}


/* etcd goes away and comes back: fast failures, then the same store works
 * again and its watch resumes where it was. */
static void
test_etcd_restart(void **state)
{
    int                  i, n;
    char                 acked[8][32];
    gcp_arena_t         *a;
    et_store_t           es;
    gcp_sc_rec_t         rec;
    gcp_test_etcd_t      t;
    gcp_etcd_stats_t     st;
    gcp_store_result_t  *res;

    assert_int_equal(gcp_test_etcd_start(&t, 1), 0);

    memset(&es, 0, sizeof(es));
    assert_non_null(et_open(&es, t.endpoints, NULL, NULL, 1000, 0));
    a = gcp_arena_create(0);

    gcp_sc_rec_init(&rec, a);
    (void) gcp_sc_watch(es.s, &rec, K("/rs/"), K("/rs0"), 0);

    n = 0;
    for (i = 0; i < 3; i++) {
        snprintf(acked[n], sizeof(acked[n]), "/rs/before-%d", i);
        assert_int_equal(gcp_sc_create(es.s, a, K(acked[n]), K("v"))->rc,
                         GCP_OK);
        n++;
    }

    assert_true(gcp_sc_rec_wait(es.s, &rec, 3, GCP_SC_TIMEOUT));

    assert_int_equal(gcp_test_etcd_kill(&t, 0), 0);

    et_assert_fails_fast(es.s, et_op_create, "/rs/down", 1000);
    et_assert_fails_fast(es.s, et_op_get, "/rs/before-0", 1000);

    assert_int_equal(gcp_test_etcd_restart(&t, 0), 0);
    assert_int_equal(gcp_test_etcd_wait(&t, 0, 20000), 0);

    for (i = 0; i < 3; i++) {
        snprintf(acked[n], sizeof(acked[n]), "/rs/after-%d", i);
        res = et_create_retry(es.s, a, acked[n]);
        assert_int_equal(res->rc, GCP_OK);
        n++;
    }

    res = gcp_sc_get(es.s, a, K("/rs/after-2"), 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 1);

    assert_true(gcp_sc_rec_wait(es.s, &rec, 6, GCP_SC_TIMEOUT));
    gcp_sc_spin(es.s, 50);
    assert_int_equal(rec.n, 6);
    et_assert_seen(&rec, acked, n);

    st = et_stats(es.s);
    assert_true(st.streams >= 2);
    assert_int_equal(st.loads, 1);

    gcp_arena_destroy(a);
    et_close(&es);
    gcp_test_etcd_stop(&t);
}


/*
 * Three members: the one in use dies, the store goes on with the others;
 * a second dies, operations fail fast; both come back, the store works
 * again without being reopened, its watch having lost nothing.
 */
static void
test_cluster_failover(void **state)
{
    int                  i, n, dead1, dead2;
    char                 acked[40][32];
    gcp_arena_t         *a;
    et_store_t           es;
    gcp_sc_rec_t         rec;
    gcp_test_etcd_t      t;
    gcp_etcd_stats_t     st;
    gcp_store_result_t  *res;

    assert_int_equal(gcp_test_etcd_start(&t, 3), 0);

    memset(&es, 0, sizeof(es));
    assert_non_null(et_open(&es, t.endpoints, NULL, NULL, 1500, 0));
    a = gcp_arena_create(0);

    gcp_sc_rec_init(&rec, a);
    (void) gcp_sc_watch(es.s, &rec, K("/fo/"), K("/fo0"), 0);

    n = 0;
    for (i = 0; i < 10; i++, n++) {
        snprintf(acked[n], sizeof(acked[n]), "/fo/a-%02d", i);
        assert_int_equal(gcp_sc_create(es.s, a, K(acked[n]), K("v"))->rc,
                         GCP_OK);
    }

    /* the member the store talks to dies */
    dead1 = et_stats(es.s).endpoint;
    assert_int_equal(gcp_test_etcd_kill(&t, dead1), 0);

    for (i = 0; i < 10; i++, n++) {
        snprintf(acked[n], sizeof(acked[n]), "/fo/b-%02d", i);
        res = et_create_retry(es.s, a, acked[n]);
        assert_int_equal(res->rc, GCP_OK);

        res = gcp_sc_get(es.s, a, K(acked[n]), 0);
        assert_int_equal(res->rc, GCP_OK);
        assert_int_equal(res->nkvs, 1);
    }

    st = et_stats(es.s);
    assert_true(st.failovers >= 1);
    assert_true(st.endpoint != dead1);

    assert_true(gcp_sc_rec_wait(es.s, &rec, (size_t) n, GCP_SC_TIMEOUT));

    /*
     * No quorum: 503 or 504 codes within the timeout; reads once the
     * freshness window (1 s) has run out: the write's timeout (1.5 s)
     * lets it run out.
     */
    dead2 = (dead1 + 1) % 3;
    assert_int_equal(gcp_test_etcd_kill(&t, dead2), 0);

    et_assert_fails_fast(es.s, et_op_create, "/fo/noquorum", 1500);
    et_assert_fails_fast(es.s, et_op_get, "/fo/a-00", 1500);
    et_assert_fails_fast(es.s, et_op_get, "/fo/a-01", 1500);

    /* quorum again: the same store recovers by itself */
    assert_int_equal(gcp_test_etcd_restart(&t, dead1), 0);
    assert_int_equal(gcp_test_etcd_restart(&t, dead2), 0);

    for (i = 0; i < 3; i++) {
        assert_int_equal(gcp_test_etcd_wait(&t, i, 30000), 0);
    }

    for (i = 0; i < 10; i++, n++) {
        snprintf(acked[n], sizeof(acked[n]), "/fo/c-%02d", i);
        res = et_create_retry(es.s, a, acked[n]);
        assert_int_equal(res->rc, GCP_OK);
    }

    res = gcp_sc_range(es.s, a, K("/fo/"), K("/fo0"), 0, 0, 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_true(res->count >= n);

    for (i = 0; i < n; i++) {
        res = gcp_sc_get(es.s, a, K(acked[i]), 0);
        assert_int_equal(res->nkvs, 1);
    }

    /* every acknowledged create reached the watch, once, in order */
    assert_true(gcp_sc_rec_wait(es.s, &rec, (size_t) n, GCP_SC_TIMEOUT));
    gcp_sc_spin(es.s, 100);
    et_assert_seen(&rec, acked, n);

    gcp_arena_destroy(a);
    et_close(&es);
    gcp_test_etcd_stop(&t);
}


/*
 * The watch stream was down while others wrote and compacted: the changes
 * in between are gone, so the watches that followed the copy end with an
 * ERROR (GCP_ECOMPACTED), and the copy is loaded again.
 */
static void
test_feed_lost(void **state)
{
    int                  i;
    char                 key[64], body[128], *rev, *out;
    int64_t              cur;
    gcp_arena_t         *a;
    et_store_t           es;
    gcp_sc_rec_t         rec;
    gcp_test_etcd_t      t;
    gcp_etcd_stats_t     st;
    gcp_store_result_t  *res;

    assert_int_equal(gcp_test_etcd_start(&t, 1), 0);

    memset(&es, 0, sizeof(es));
    assert_non_null(et_open(&es, t.endpoints, "/fl", "", 1000, 0));
    a = gcp_arena_create(0);

    assert_int_equal(gcp_sc_create(es.s, a, K("/a"), K("1"))->rc, GCP_OK);

    gcp_sc_rec_init(&rec, a);
    (void) gcp_sc_watch(es.s, &rec, K("/"), K("0"), 0);
    gcp_sc_spin(es.s, 50);

    /* the store sees etcd go, and waits to reconnect */
    assert_int_equal(gcp_test_etcd_kill(&t, 0), 0);
    gcp_sc_spin(es.s, 300);
    assert_int_equal(gcp_test_etcd_restart(&t, 0), 0);
    assert_int_equal(gcp_test_etcd_wait(&t, 0, 20000), 0);

    /* meanwhile (the store's loop does not run): writes, a compaction */
    for (i = 0; i < 5; i++) {
        snprintf(key, sizeof(key), "/fl/b%d", i);
        et_raw_put(&t, 0, key, "2");
    }

    assert_int_equal(gcp_test_etcd_post(&t, 0, "/v3/kv/range",
                                        "{\"key\":\"AA==\"}", &out), 200);
    rev = strstr(out, "\"revision\":\"");
    assert_non_null(rev);
    cur = strtoll(rev + 12, NULL, 10);
    free(out);

    snprintf(body, sizeof(body), "{\"revision\":\"%lld\"}", (long long) cur);
    assert_int_equal(gcp_test_etcd_post(&t, 0, "/v3/kv/compaction", body,
                                        NULL), 200);

    /* the watch ends with the compacted revision, from the loop */
    assert_true(gcp_sc_rec_wait(es.s, &rec, 1, GCP_SC_TIMEOUT));
    assert_int_equal(gcp_sc_rec_event(&rec, 0)->type, GCP_STORE_EVENT_ERROR);
    assert_int_equal(gcp_sc_rec_event(&rec, 0)->rc, GCP_ECOMPACTED);
    assert_int_equal(gcp_sc_rec_event(&rec, 0)->compact_revision, cur);

    /* the copy was loaded again: it has what was written meanwhile */
    res = gcp_sc_range(es.s, a, K("/"), K("0"), 0, 0, 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->count, 6);
    assert_true(res->revision >= cur);

    st = et_stats(es.s);
    assert_int_equal(st.loads, 2);
    assert_int_equal(st.compact_revision, cur);

    /* and new watches work */
    gcp_sc_rec_init(&rec, a);
    (void) gcp_sc_watch(es.s, &rec, K("/"), K("0"), 0);
    assert_int_equal(gcp_sc_create(es.s, a, K("/c"), K("3"))->rc, GCP_OK);
    assert_true(gcp_sc_rec_wait(es.s, &rec, 1, GCP_SC_TIMEOUT));
    assert_int_equal(gcp_sc_rec_event(&rec, 0)->type, GCP_STORE_EVENT_PUT);

    gcp_arena_destroy(a);
    et_close(&es);
    gcp_test_etcd_stop(&t);
}


/* No etcd at all: operations fail fast, nothing hangs. */
static void
test_no_etcd(void **state)
{
    char          endpoint[64];
    gcp_arena_t  *a;
    et_store_t    es;
    gcp_sc_rec_t  rec;

    /* a port nobody listens on */
    snprintf(endpoint, sizeof(endpoint), "http://127.0.0.1:%d", 1);

    memset(&es, 0, sizeof(es));
    assert_non_null(et_open(&es, endpoint, NULL, NULL, 500, 0));
    a = gcp_arena_create(0);

    et_assert_fails_fast(es.s, et_op_get, "/ne/a", 500);
    et_assert_fails_fast(es.s, et_op_create, "/ne/a", 500);
    assert_false(et_stats(es.s).ready);

    /* a watch just waits; closing the store releases it */
    gcp_sc_rec_init(&rec, a);
    (void) gcp_sc_watch(es.s, &rec, K("/ne/"), K("/ne0"), 0);
    gcp_sc_spin(es.s, 100);
    assert_int_equal(rec.n, 0);

    gcp_arena_destroy(a);
    et_close(&es);
}


/*
 * A proxy before the etcd member that passes everything but the answers
 * to writes (/v3/kv/txn): it forwards the write, waits for etcd's answer
 * and breaks the connection instead, as a member killed mid-request.  The
 * write was applied, so its outcome is unknown to the store: GCP_EINDOUBT
 * (a 500), not a 503, which tells the client that nothing happened.
 */

typedef struct {
    int  listen_fd;
    int  etcd_port;
} et_proxy_t;


static void *
et_proxy_conn(void *arg)
{
    int                 c, u, swallow, i;
    char                buf[65536];
    ssize_t             n;
    struct pollfd       pfd[2];
    struct sockaddr_in  sin;

    c = (int) (intptr_t) arg & 0xffff;
    i = (int) ((intptr_t) arg >> 16);

    u = socket(AF_INET, SOCK_STREAM, 0);
    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sin.sin_port = htons((uint16_t) i);

    if (u < 0 || connect(u, (struct sockaddr *) &sin, sizeof(sin)) != 0) {
        goto done;
    }

    swallow = 0;

    for ( ;; ) {
        pfd[0].fd = c;
        pfd[0].events = POLLIN;
        pfd[1].fd = u;
        pfd[1].events = POLLIN;

        if (poll(pfd, 2, -1) < 0) {
            break;
        }

        if (pfd[0].revents) {
            n = read(c, buf, sizeof(buf));
            if (n <= 0 || write(u, buf, (size_t) n) != n) {
                break;
            }

            if (memmem(buf, (size_t) n, "/v3/kv/txn", 10) != NULL) {
                swallow = 1;
            }
        }

        if (pfd[1].revents) {
            n = read(u, buf, sizeof(buf));
            if (n <= 0 || swallow) {
                break;                  /* etcd answered: not passed on */
            }

            if (write(c, buf, (size_t) n) != n) {
                break;
            }
        }
    }

done:

    if (u >= 0) {
        close(u);
    }

    close(c);

    return NULL;
}


static void *
et_proxy(void *arg)
{
    int          c;
    pthread_t    th;
    et_proxy_t  *p = arg;

    while ((c = accept(p->listen_fd, NULL, NULL)) >= 0) {
        if (pthread_create(&th, NULL, et_proxy_conn,
                           (void *) ((intptr_t) c
                                     | ((intptr_t) p->etcd_port << 16)))
            != 0)
        {
            close(c);
            continue;
        }

        pthread_detach(th);
    }

    return NULL;
}


static void
test_write_in_doubt(void **state)
{
    int                  fd;
    char                 endpoint[64];
    pthread_t            th;
    socklen_t            len;
    et_proxy_t           p;
    gcp_arena_t         *a;
    et_store_t           es, direct;
    gcp_store_result_t  *res;
    struct sockaddr_in   sin;

    fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *) &sin, sizeof(sin)), 0);
    assert_int_equal(listen(fd, 64), 0);
    len = sizeof(sin);
    assert_int_equal(getsockname(fd, (struct sockaddr *) &sin, &len), 0);

    p.listen_fd = fd;
    p.etcd_port = one.client_port[0];
    assert_int_equal(pthread_create(&th, NULL, et_proxy, &p), 0);

    snprintf(endpoint, sizeof(endpoint), "http://127.0.0.1:%d",
             ntohs(sin.sin_port));

    memset(&es, 0, sizeof(es));
    assert_non_null(et_open(&es, endpoint, "/gcp-test/doubt/", NULL, 5000,
                            0));
    a = gcp_arena_create(0);

    res = gcp_sc_create(es.s, a, K("/doubt/a"), K("v"));
    if (res->rc != GCP_EINDOUBT) {
        fail_msg("got %s (%s)", gcp_error_info(res->rc)->name,
                 res->message ? res->message : "");
    }
    assert_int_equal(gcp_error_info(res->rc)->http_status, 500);

    /* etcd did store it */
    memset(&direct, 0, sizeof(direct));
    assert_non_null(et_open(&direct, one.endpoints, "/gcp-test/doubt/", NULL,
                            5000, 0));
    res = gcp_sc_get(direct.s, a, K("/doubt/a"), 0);
    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 1);
    et_close(&direct);

    gcp_arena_destroy(a);
    et_close(&es);

    shutdown(fd, SHUT_RDWR);
    close(fd);
    pthread_join(th, NULL);
}


/* ------------------------------------------------------------ main */


static const struct CMUnitTest  etcd_tests[] = {
    cmocka_unit_test(test_key_mapping),
    cmocka_unit_test(test_bad_input),
    cmocka_unit_test(test_consistent_reads),
    cmocka_unit_test(test_instance_reads),
    cmocka_unit_test(test_instance_window),
    cmocka_unit_test(test_instance_stream_down),
    cmocka_unit_test(test_two_stores_counter),
    cmocka_unit_test(test_watch_replay),
    cmocka_unit_test(test_compacted_elsewhere),
    cmocka_unit_test(test_no_etcd),
    cmocka_unit_test(test_write_in_doubt),
    cmocka_unit_test(test_etcd_restart),
    cmocka_unit_test(test_feed_lost),
    cmocka_unit_test(test_cluster_failover),
};



int
main(void)
{
    int         failed;
    et_store_t  conf_store;

    if (gcp_test_etcd_start(&one, 1) != 0) {
        fprintf(stderr, "cannot start etcd\n");
        return 1;
    }

    memset(&conf_store, 0, sizeof(et_store_t));

    failed = gcp_store_conformance_run("store conformance: etcd", conf_open,
                                       conf_close, &conf_store);

    failed += cmocka_run_group_tests_name("etcd backend", etcd_tests, NULL,
                                          NULL);

    gcp_test_etcd_stop(&one);

    return failed;
}
