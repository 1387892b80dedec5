
/*
 * The etcd backend's operations that go to etcd every time:
 *
 * - writes, each one transaction: a create compares the key's
 *   create_revision with 0, an update or a delete its mod_revision with
 *   the one given (or its version with 0 when unconditional); the failure
 *   branch reads the key, so a refusal carries the current value;
 * - reads at a revision the in-memory copy is not at (old revisions:
 *   resourceVersionMatch=Exact, continue tokens);
 * - compaction, and finding out etcd's compacted revision, which etcd's
 *   errors do not tell: a watch from revision 1 is refused with it.
 */

#include <stdlib.h>

#include "gcp_etcd.h"


typedef enum {
    GCP_ETCD_CREATE = 0,
    GCP_ETCD_UPDATE,
    GCP_ETCD_DELETE
} gcp_etcd_op_t;


typedef struct {
    gcp_etcd_t          *e;
    gcp_etcd_op_t        op;
    gcp_str_t            key;
    gcp_str_t            value;
    gcp_str_t            body;
    gcp_arena_t         *a;
    gcp_store_done_pt    done;
    void                *arg;
} gcp_etcd_write_t;


typedef struct {
    gcp_etcd_t          *e;
    int64_t              revision;
    unsigned             empty:1;       /* no stored key can match */
    gcp_arena_t         *a;
    gcp_store_done_pt    done;
    void                *arg;
} gcp_etcd_rread_t;


struct gcp_etcd_learn_s {
    gcp_etcd_learn_t    *next;
    gcp_etcd_learn_t    *prev;
    gcp_etcd_t          *e;
    gcp_store_result_t  *res;
    gcp_store_done_pt    done;
    void                *arg;
    gcp_etcd_call_t     *call;
    gcp_loop_timer_t    *timer;
};


/* ------------------------------------------------------------ writes */


static void
gcp_etcd_write_done(void *arg, gcp_etcd_reply_t *reply)
{
    json_t              *resp, *prev, *cur;
    int64_t              rev;
    gcp_kv_t            *kv;
    gcp_etcd_write_t    *w = arg;
    gcp_etcd_t          *e = w->e;
    gcp_store_result_t  *res;

    if (reply->rc != GCP_OK) {
        gcp_etcd_fail(e, w->a, reply->rc, reply->message, w->done, w->arg);
        return;
    }

    rev = gcp_etcd_int(json_object_get(reply->json, "header"), "revision");
    resp = json_array_get(json_object_get(reply->json, "responses"), 0);

    /*
     * Before the answer: a read anywhere in the instance that the answer
     * may precede sees etcd at rev at least (a refusal too: it reports the
     * current value, which later reads must not predate).
     */
    gcp_etcd_watermark_raise(e, rev);

    res = gcp_etcd_result(e, w->a, GCP_OK, NULL);
    kv = gcp_calloc(w->a, sizeof(gcp_kv_t));

    if (res == NULL || kv == NULL) {
        gcp_etcd_fail(e, w->a, GCP_ENOMEM, NULL, w->done, w->arg);
        return;
    }

    res->revision = rev;

    if (!json_is_true(json_object_get(reply->json, "succeeded"))) {
        cur = json_array_get(json_object_get(json_object_get(resp,
                                                 "response_range"), "kvs"),
                             0);

        if (cur == NULL) {
            res->rc = GCP_ENOTFOUND;
            w->done(w->arg, res);
            return;
        }

        if (gcp_etcd_kv(e, cur, kv, w->a) != GCP_OK) {
            gcp_etcd_fail(e, w->a, GCP_EINTERNAL,
                          "etcd: malformed transaction answer", w->done,
                          w->arg);
            return;
        }

        res->rc = w->op == GCP_ETCD_CREATE ? GCP_EEXISTS : GCP_ECONFLICT;
        res->kvs = kv;
        res->nkvs = 1;
        w->done(w->arg, res);
        return;
    }

    kv->key = w->key;
    kv->value = w->value;
    kv->mod_revision = rev;
    kv->create_revision = rev;
    kv->version = 1;

    if (w->op == GCP_ETCD_UPDATE) {
        prev = json_object_get(json_object_get(resp, "response_put"),
                               "prev_kv");

        if (prev) {
            kv->create_revision = gcp_etcd_int(prev, "create_revision");
            kv->version = gcp_etcd_int(prev, "version") + 1;
        }

    } else if (w->op == GCP_ETCD_DELETE) {
        prev = json_array_get(json_object_get(json_object_get(resp,
                                  "response_delete_range"), "prev_kvs"), 0);

        kv->value = gcp_etcd_bytes(prev, "value", w->a);
        kv->create_revision = gcp_etcd_int(prev, "create_revision");
        kv->version = gcp_etcd_int(prev, "version");

        if (kv->value.data == NULL) {
            gcp_etcd_fail(e, w->a, GCP_EINTERNAL,
                          "etcd: malformed transaction answer", w->done,
                          w->arg);
            return;
        }
    }

    res->kvs = kv;
    res->nkvs = 1;

    w->done(w->arg, res);
}


static void
gcp_etcd_write_send(void *data)
{
    gcp_etcd_write_t  *w = data;

    if (gcp_etcd_http_unary(w->e->http, "/v3/kv/txn", w->body, 0,
                            gcp_etcd_write_done, w)
        == NULL)
    {
        gcp_etcd_fail(w->e, w->a, GCP_ENOMEM, NULL, w->done, w->arg);
    }
}


static void
gcp_etcd_write(gcp_etcd_t *e, gcp_etcd_op_t op, gcp_str_t key,
    gcp_str_t value, int64_t mod, gcp_arena_t *a, gcp_store_done_pt done,
    void *arg)
{
    gcp_buf_t          kb, b;
    const char        *k;
    gcp_etcd_write_t  *w;

    gcp_buf_init(&kb, a);

    if (mod < 0 || gcp_etcd_key_add(e, &kb, key) != GCP_OK) {
        gcp_etcd_fail(e, a, GCP_EBADREQUEST, "etcd: invalid key", done, arg);
        return;
    }

    if (e->mirror && gcp_etcd_mirrored_too_long(e, key)) {
        /* the LMDB backend's limit, as the mirror is LMDB */
        gcp_etcd_fail(e, a, GCP_EKEYTOOLONG, "storage key too long", done,
                      arg);
        return;
    }

    k = gcp_buf_cstr(&kb);
    w = gcp_calloc(a, sizeof(gcp_etcd_write_t));

    if (k == NULL || w == NULL) {
        gcp_etcd_fail(e, a, GCP_ENOMEM, NULL, done, arg);
        return;
    }

    w->e = e;
    w->op = op;
    w->a = a;
    w->done = done;
    w->arg = arg;
    w->key.data = gcp_strndup(a, key.data, key.len);
    w->key.len = key.len;
    w->value.data = gcp_strndup(a, value.data ? value.data : "", value.len);
    w->value.len = value.len;

    gcp_buf_init(&b, a);
    gcp_buf_addstr(&b, "{\"compare\":[{\"target\":");

    if (op == GCP_ETCD_CREATE) {
        gcp_buf_printf(&b, "\"CREATE\",\"key\":\"%s\","
                       "\"create_revision\":\"0\"}]", k);

    } else if (mod) {
        gcp_buf_printf(&b, "\"MOD\",\"key\":\"%s\",\"mod_revision\":"
                       "\"%lld\"}]", k, (long long) mod);

    } else {
        gcp_buf_printf(&b, "\"VERSION\",\"key\":\"%s\",\"result\":"
                       "\"GREATER\",\"version\":\"0\"}]", k);
    }

    if (op == GCP_ETCD_DELETE) {
        gcp_buf_printf(&b, ",\"success\":[{\"request_delete_range\":{"
                       "\"key\":\"%s\",\"prev_kv\":true}}]", k);

    } else {
        gcp_buf_printf(&b, ",\"success\":[{\"request_put\":{\"key\":\"%s\","
                       "\"value\":\"", k);
        gcp_base64_encode_buf(&b, value.data, value.len, GCP_BASE64_STD);
        gcp_buf_addstr(&b, op == GCP_ETCD_UPDATE ? "\",\"prev_kv\":true}}]"
                                                 : "\"}}]");
    }

    gcp_buf_printf(&b, ",\"failure\":[{\"request_range\":{\"key\":\"%s\"}}]}",
                   k);

    if (gcp_buf_failed(&b) || w->key.data == NULL || w->value.data == NULL) {
        gcp_etcd_fail(e, a, GCP_ENOMEM, NULL, done, arg);
        return;
    }

    w->body.data = b.data;
    w->body.len = b.len;

    /*
     * Before the first load, writes wait for it: a watch from "now" made
     * meanwhile starts at the loaded revision, before them.
     */
    gcp_etcd_when_ready(e, 0, a, gcp_etcd_write_send, w, done, arg);
}


void
gcp_etcd_create(gcp_store_t *s, gcp_str_t key, gcp_str_t value,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg)
{
    gcp_etcd_write((gcp_etcd_t *) s, GCP_ETCD_CREATE, key, value, 0, a, done,
                   arg);
}


void
gcp_etcd_update(gcp_store_t *s, gcp_str_t key, gcp_str_t value,
    int64_t mod_revision, gcp_arena_t *a, gcp_store_done_pt done, void *arg)
{
    gcp_etcd_write((gcp_etcd_t *) s, GCP_ETCD_UPDATE, key, value,
                   mod_revision, a, done, arg);
}


void
gcp_etcd_del(gcp_store_t *s, gcp_str_t key, int64_t mod_revision,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg)
{
    gcp_str_t  none = gcp_null_string;

    gcp_etcd_write((gcp_etcd_t *) s, GCP_ETCD_DELETE, key, none,
                   mod_revision, a, done, arg);
}


/* ------------------------------------------------------------ old reads */


static void
gcp_etcd_rread_done(void *arg, gcp_etcd_reply_t *reply)
{
    size_t               i, n;
    json_t              *kvs;
    gcp_etcd_rread_t    *r = arg;
    gcp_etcd_t          *e = r->e;
    gcp_store_result_t  *res;

    if (reply->rc != GCP_OK) {
        res = gcp_etcd_result(e, r->a, reply->rc, reply->message);

        if (res && reply->rc == GCP_ECOMPACTED) {
            res->revision = r->revision;
            gcp_etcd_compacted(e, res, r->revision + 1, r->done, r->arg);
            return;
        }

        if (res == NULL) {
            gcp_etcd_fail(e, r->a, GCP_ENOMEM, NULL, r->done, r->arg);
        } else {
            r->done(r->arg, res);
        }

        return;
    }

    res = gcp_etcd_result(e, r->a, GCP_OK, NULL);
    if (res == NULL) {
        gcp_etcd_fail(e, r->a, GCP_ENOMEM, NULL, r->done, r->arg);
        return;
    }

    res->revision = r->revision;

    if (r->empty) {
        r->done(r->arg, res);
        return;
    }

    res->count = gcp_etcd_int(reply->json, "count");
    res->more = json_is_true(json_object_get(reply->json, "more"));

    kvs = json_object_get(reply->json, "kvs");
    n = json_array_size(kvs);

    if (n) {
        res->kvs = gcp_alloc(r->a, n * sizeof(gcp_kv_t));
        if (res->kvs == NULL) {
            gcp_etcd_fail(e, r->a, GCP_ENOMEM, NULL, r->done, r->arg);
            return;
        }
    }

    for (i = 0; i < n; i++) {
        switch (gcp_etcd_kv(e, json_array_get(kvs, i),
                            &res->kvs[res->nkvs], r->a))
        {
        case GCP_OK:
            res->nkvs++;
            break;

        case GCP_ENOTFOUND:
            break;

        default:
            gcp_etcd_fail(e, r->a, GCP_EINTERNAL, "etcd: malformed range "
                          "answer", r->done, r->arg);
            return;
        }
    }

    r->done(r->arg, res);
}


void
gcp_etcd_remote_range(gcp_etcd_t *e, gcp_str_t key, gcp_str_t end,
    int64_t revision, int64_t limit, int count_only, int single,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg)
{
    gcp_buf_t          b;
    gcp_str_t          body, none = gcp_null_string;
    gcp_etcd_rread_t  *r;

    r = gcp_calloc(a, sizeof(gcp_etcd_rread_t));
    if (r == NULL) {
        gcp_etcd_fail(e, a, GCP_ENOMEM, NULL, done, arg);
        return;
    }

    r->e = e;
    r->revision = revision;
    r->a = a;
    r->done = done;
    r->arg = arg;

    gcp_buf_init(&b, a);
    gcp_buf_addc(&b, '{');

    if (gcp_etcd_range_add(e, &b, key, single ? none : end)) {
        /* still asked, for etcd's verdict on the revision */
        r->empty = 1;
        gcp_buf_addstr(&b, "\"key\":\"AA==\",\"count_only\":true,");
    }

    gcp_buf_printf(&b, "\"revision\":\"%lld\"", (long long) revision);

    if (limit > 0) {
        gcp_buf_printf(&b, ",\"limit\":\"%lld\"", (long long) limit);
    }

    if (count_only && !r->empty) {
        gcp_buf_addstr(&b, ",\"count_only\":true");
    }

    gcp_buf_addc(&b, '}');

    if (gcp_buf_failed(&b)) {
        gcp_etcd_fail(e, a, GCP_ENOMEM, NULL, done, arg);
        return;
    }

    body.data = b.data;
    body.len = b.len;

    e->st.remote_reads++;

    if (gcp_etcd_http_unary(e->http, "/v3/kv/range", body, GCP_ETCD_SAFE,
                            gcp_etcd_rread_done, r)
        == NULL)
    {
        gcp_etcd_fail(e, a, GCP_ENOMEM, NULL, done, arg);
    }
}


/* ------------------------------------------------------------ compaction */


typedef struct {
    gcp_etcd_t          *e;
    int64_t              revision;
    gcp_arena_t         *a;
    gcp_store_done_pt    done;
    void                *arg;
    gcp_store_result_t  *res;       /* etcd's, while the mirror compacts */
} gcp_etcd_compaction_t;


/* The mirror compacted too (or could not: its result is not the answer). */
static void
gcp_etcd_compact_mirrored(void *arg, gcp_store_result_t *mres)
{
    gcp_etcd_compaction_t  *c = arg;

    c->done(c->arg, c->res);
}


/* The mirror reached the compacted revision: compacted there too. */
static void
gcp_etcd_compact_mirror(void *data)
{
    gcp_etcd_compaction_t  *c = data;

    gcp_store_compact(c->e->mirror, c->revision, c->a,
                      gcp_etcd_compact_mirrored, c);
}


static void
gcp_etcd_compact_done(void *arg, gcp_etcd_reply_t *reply)
{
    gcp_etcd_compaction_t  *c = arg;
    gcp_etcd_t             *e = c->e;
    gcp_store_result_t     *res;

    if (reply->rc == GCP_OK && c->revision > e->compact) {
        e->compact = c->revision;
    }

    res = gcp_etcd_result(e, c->a, reply->rc, reply->message);
    if (res == NULL) {
        gcp_etcd_fail(e, c->a, GCP_ENOMEM, NULL, c->done, c->arg);
        return;
    }

    if (reply->rc == GCP_OK) {
        res->revision = gcp_etcd_int(json_object_get(reply->json, "header"),
                                     "revision");
    }

    if (reply->rc == GCP_ECOMPACTED) {
        gcp_etcd_compacted(e, res, c->revision, c->done, c->arg);
        return;
    }

    if (reply->rc == GCP_OK && e->mirror) {
        /*
         * The mirror's history goes too, at the same revision, once the
         * mirror has it: then watches from below it end as on etcd.
         */
        c->res = res;
        gcp_etcd_when_ready(e, c->revision, c->a, gcp_etcd_compact_mirror, c,
                            c->done, c->arg);
        return;
    }

    c->done(c->arg, res);
}


void
gcp_etcd_compact(gcp_store_t *s, int64_t revision, gcp_arena_t *a,
    gcp_store_done_pt done, void *arg)
{
    char                    body[64];
    gcp_str_t               b;
    gcp_etcd_t             *e = (gcp_etcd_t *) s;
    gcp_etcd_compaction_t  *c;

    if (revision <= e->compact || revision <= 1) {
        gcp_etcd_fail(e, a, GCP_ECOMPACTED, "etcd: required revision has "
                      "been compacted", done, arg);
        return;
    }

    c = gcp_calloc(a, sizeof(gcp_etcd_compaction_t));
    if (c == NULL) {
        gcp_etcd_fail(e, a, GCP_ENOMEM, NULL, done, arg);
        return;
    }

    c->e = e;
    c->revision = revision;
    c->a = a;
    c->done = done;
    c->arg = arg;

    b.data = body;
    b.len = (size_t) snprintf(body, sizeof(body), "{\"revision\":\"%lld\"}",
                              (long long) revision);

    if (gcp_etcd_http_unary(e->http, "/v3/kv/compaction", b, 0,
                            gcp_etcd_compact_done, c)
        == NULL)
    {
        gcp_etcd_fail(e, a, GCP_ENOMEM, NULL, done, arg);
    }
}


/* ------------------------------------------------------------ learning */


static void
gcp_etcd_learn_free(gcp_etcd_learn_t *l)
{
    gcp_etcd_t  *e = l->e;

    if (l->prev) {
        l->prev->next = l->next;
    } else {
        e->learners = l->next;
    }

    if (l->next) {
        l->next->prev = l->prev;
    }

    gcp_etcd_http_cancel(e->http, l->call);

    if (l->timer) {
        e->store.loop->timer_del(e->store.loop, l->timer);
    }

    free(l);
}


static void
gcp_etcd_learn_finish(gcp_etcd_learn_t *l)
{
    void                *arg;
    gcp_store_done_pt    done;
    gcp_store_result_t  *res;

    res = l->res;
    done = l->done;
    arg = l->arg;

    res->compact_revision = l->e->compact;

    gcp_etcd_learn_free(l);

    done(arg, res);
}


static int
gcp_etcd_learn_msg(void *arg, json_t *result)
{
    int64_t            c;
    gcp_etcd_learn_t  *l = arg;

    c = gcp_etcd_int(result, "compact_revision");

    if (c > l->e->compact) {
        l->e->compact = c;
    }

    if (c == 0 && json_object_get(result, "events") == NULL
        && !json_is_true(json_object_get(result, "canceled")))
    {
        /* "created": the answer follows */
        return GCP_OK;
    }

    l->call = NULL;
    gcp_etcd_learn_finish(l);

    return GCP_EGONE;
}


static void
gcp_etcd_learn_end(void *arg, int rc, const char *message)
{
    gcp_etcd_learn_t  *l = arg;

    l->call = NULL;
    gcp_etcd_learn_finish(l);
}


static void
gcp_etcd_learn_timeout(void *arg)
{
    gcp_etcd_learn_t  *l = arg;

    l->timer = NULL;
    gcp_etcd_learn_finish(l);
}


void
gcp_etcd_compacted(gcp_etcd_t *e, gcp_store_result_t *res, int64_t floor,
    gcp_store_done_pt done, void *arg)
{
    gcp_etcd_learn_t  *l;

    static const gcp_str_t  body = gcp_string("{\"create_request\":{"
                                              "\"key\":\"AA==\","
                                              "\"start_revision\":\"1\"}}");

    if (e->compact >= floor) {
        res->compact_revision = e->compact;
        done(arg, res);
        return;
    }

    l = calloc(1, sizeof(gcp_etcd_learn_t));
    if (l == NULL) {
        done(arg, res);
        return;
    }

    l->e = e;
    l->res = res;
    l->done = done;
    l->arg = arg;

    l->next = e->learners;
    if (e->learners) {
        e->learners->prev = l;
    }
    e->learners = l;

    l->call = gcp_etcd_http_stream(e->http, "/v3/watch", body, 0,
                                   gcp_etcd_learn_msg, gcp_etcd_learn_end,
                                   l);
    l->timer = e->store.loop->timer_add(e->store.loop, e->timeout,
                                        gcp_etcd_learn_timeout, l);

    if (l->call == NULL || l->timer == NULL) {
        gcp_etcd_learn_finish(l);
    }
}


void
gcp_etcd_learn_stop(gcp_etcd_t *e)
{
    while (e->learners) {
        gcp_etcd_learn_free(e->learners);
    }
}
