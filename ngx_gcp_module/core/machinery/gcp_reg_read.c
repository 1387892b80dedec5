
/*
 * Reads: get one object, list a collection (selectors, limit/continue,
 * resourceVersion semantics).  Watches start here too, since a watch is a
 * list request with watch=true.
 */

#include <stdlib.h>

#include "gcp_reg.h"
#include "gcp_continue.h"
#include "gcp_reg_index.h"


#define GCP_LIST_MIN_PAGE  64


typedef struct {
    gcp_op_t         *op;
    gcp_list_opts_t   lo;

    gcp_str_t         prefix;
    gcp_str_t         end;
    gcp_str_t         start;
    int64_t           rev;          /* read revision, 0 until known */
    int64_t           limit;        /* 0: all */

    gcp_kv_t        **kvs;
    json_t          **objs;
    size_t            n;
    size_t            cap;

    gcp_str_t         last_key;     /* last key examined */
    int64_t           remaining;    /* -1: not reported */
    unsigned          more:1;

    int64_t           index_rev;    /* the revision the index answers at */
    uint64_t          index_until;  /* waiting for it: until then */
} gcp_list_t;


/* waiting for a resourceVersion */


#define GCP_FRESH_WAIT_MS  3000
#define GCP_FRESH_POLL_MS  20


typedef struct {
    gcp_op_t   *op;
    int64_t     rv;
    uint64_t    deadline;
    void      (*go)(void *data);
    void       *data;
} gcp_fresh_t;


static void
gcp_fresh_check(void *arg)
{
    int64_t                cur;
    gcp_fresh_t           *f = arg;
    gcp_op_t              *op = f->op;
    gcp_loop_t            *loop = op->api->conf.loop;
    gcp_status_details_t   d;
    gcp_status_cause_t     cause;

    cur = gcp_store_revision(op->api->store);

    if (cur >= f->rv) {
        f->go(f->data);
        return;
    }

    if (loop && loop->now_ms(loop) < f->deadline
        && loop->timer_add(loop, GCP_FRESH_POLL_MS, gcp_fresh_check, f))
    {
        return;
    }

    memset(&d, 0, sizeof(d));
    memset(&cause, 0, sizeof(cause));

    cause.reason = "ResourceVersionTooLarge";
    cause.message = "Too large resource version";

    d.cause = &cause;
    d.retry_after = 1;

    gcp_op_header(op, "Retry-After", "1");
    gcp_op_error(op, GCP_ETIMEOUT,
                 gcp_sprintf(op->a, "Timeout: Too large resource version: "
                             "%lld, current: %lld", (long long) f->rv,
                             (long long) cur), &d);
}


void
gcp_reg_when_fresh(gcp_op_t *op, int64_t rv, void (*go)(void *data),
    void *data)
{
    gcp_fresh_t  *f;
    gcp_loop_t   *loop = op->api->conf.loop;

    if (rv <= gcp_store_revision(op->api->store)) {
        go(data);
        return;
    }

    f = gcp_calloc(op->a, sizeof(gcp_fresh_t));
    if (f == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    f->op = op;
    f->rv = rv;
    f->go = go;
    f->data = data;
    f->deadline = loop ? loop->now_ms(loop) + GCP_FRESH_WAIT_MS : 0;

    gcp_fresh_check(f);
}


/* get */


typedef struct {
    json_t      *obj;               /* converted (convert) */
} gcp_get_t;


static void
gcp_reg_get_converted(gcp_op_t *op, void *arg)
{
    gcp_get_t  *g = arg;

    gcp_output_object(op, 200, NULL, g->obj);
}


static void
gcp_reg_get_done(void *arg, gcp_store_result_t *res)
{
    gcp_op_t  *op = arg;
    gcp_get_t  *g;

    if (res->rc == GCP_OK && res->nkvs == 0) {
        res->rc = GCP_ENOTFOUND;
    }

    if (res->rc != GCP_OK) {
        gcp_reg_store_error(op, res, op->ri.name);
        return;
    }

    if (gcp_reg_converts(op)) {
        g = gcp_calloc(op->a, sizeof(gcp_get_t));
        g->obj = g ? gcp_reg_decode_kv(op, &res->kvs[0]) : NULL;

        if (g == NULL || g->obj == NULL) {
            gcp_op_error(op, GCP_EINTERNAL, "stored object is corrupt",
                         NULL);
            return;
        }

        gcp_reg_convert(op, &g->obj, 1, 0, gcp_reg_get_converted, g);
        return;
    }

    gcp_output_object(op, 200, &res->kvs[0], NULL);
}


static void
gcp_reg_get_fetch(void *data)
{
    gcp_op_t  *op = data;

    gcp_store_get(op->api->store, gcp_reg_key(op), 0, op->a,
                  gcp_reg_get_done, op);
}


void
gcp_reg_get(gcp_op_t *op)
{
    int64_t  rv;

    if (op->sub && op->sub->type == GCP_SUB_FINALIZE) {
        gcp_status_details_t  d;

        memset(&d, 0, sizeof(d));
        gcp_op_error(op, GCP_EMETHOD, NULL, &d);
        return;
    }

    if (gcp_reg_query_rv(op, &rv) != GCP_OK) {
        return;
    }

    /* resourceVersion on a get means "not older than" */
    gcp_reg_when_fresh(op, rv, gcp_reg_get_fetch, op);
}


/* list */


static int
gcp_list_push(gcp_list_t *l, gcp_kv_t *kv, json_t *obj)
{
    size_t     cap;
    void      *p;

    if (l->n == l->cap) {
        cap = l->cap ? l->cap * 2 : 64;

        p = gcp_alloc(l->op->a, cap * sizeof(gcp_kv_t *));
        if (p == NULL) {
            return GCP_ENOMEM;
        }

        if (l->n) {
            memcpy(p, l->kvs, l->n * sizeof(gcp_kv_t *));
        }

        l->kvs = p;

        p = gcp_alloc(l->op->a, cap * sizeof(json_t *));
        if (p == NULL) {
            return GCP_ENOMEM;
        }

        if (l->n) {
            memcpy(p, l->objs, l->n * sizeof(json_t *));
        }

        l->objs = p;
        l->cap = cap;
    }

    l->kvs[l->n] = kv;
    l->objs[l->n] = obj;
    l->n++;

    return GCP_OK;
}


static int
gcp_list_filtered(gcp_list_t *l)
{
    return l->lo.labels || l->lo.fields || l->lo.name;
}


static void
gcp_list_converted(gcp_op_t *op, void *arg)
{
    const char  *cont;
    gcp_list_t  *l = arg;

    cont = NULL;

    if (l->more && l->limit) {
        cont = gcp_continue_encode(l->op->a, l->rev,
                                   gcp_strndup(l->op->a,
                                       l->last_key.data + l->prefix.len,
                                       l->last_key.len - l->prefix.len));
    }

    gcp_output_list(l->op, l->kvs, l->objs, l->n, l->rev, cont,
                    cont && !gcp_list_filtered(l) ? l->remaining : -1);
}


static void
gcp_list_respond(gcp_list_t *l)
{
    size_t     i;
    gcp_op_t  *op = l->op;

    if (!gcp_reg_converts(op) || l->n == 0) {
        gcp_list_converted(op, l);
        return;
    }

    /* every item decoded, then converted in one call */

    for (i = 0; i < l->n; i++) {
        if (l->objs[i] == NULL) {
            l->objs[i] = gcp_reg_decode_kv(op, l->kvs[i]);

            if (l->objs[i] == NULL) {
                gcp_op_error(op, GCP_EINTERNAL, "stored object is corrupt",
                             NULL);
                return;
            }
        }
    }

    gcp_reg_convert(op, l->objs, l->n, GCP_CONVERT_LIST, gcp_list_converted,
                    l);
}


static void gcp_list_fetch(gcp_list_t *l);
static void gcp_list_start(void *data);


static void
gcp_list_page_done(void *arg, gcp_store_result_t *res)
{
    size_t       i;
    json_t      *obj;
    gcp_kv_t    *kv;
    gcp_list_t  *l = arg;
    gcp_op_t    *op = l->op;

    if (res->rc != GCP_OK) {
        if (res->rc == GCP_ECOMPACTED && l->lo.cont) {
            gcp_continue_expired(op, l->start, l->prefix);
            return;
        }

        if (res->rc == GCP_EFUTURE) {
            /* Exact at a future revision: etcd's error, as a plain 500 */
            gcp_reg_error_plain(op, 500, "etcdserver: mvcc: required "
                                "revision is a future revision");
            return;
        }

        if (res->rc == GCP_ECOMPACTED) {
            /* 410 Expired with kube-apiserver's text, not the store's */
            gcp_op_error(op, GCP_ECOMPACTED, NULL, NULL);
            return;
        }

        gcp_reg_store_error(op, res, "");
        return;
    }

    if (l->rev == 0) {
        l->rev = res->revision;
    }

    for (i = 0; i < res->nkvs; i++) {
        kv = &res->kvs[i];

        if (l->limit && (int64_t) l->n >= l->limit) {
            l->more = 1;

            if (!gcp_list_filtered(l)) {
                l->remaining = res->count - (int64_t) i;
            }

            gcp_list_respond(l);
            return;
        }

        l->last_key = kv->key;

        obj = NULL;

        if (gcp_list_filtered(l)) {
            obj = gcp_reg_decode_kv(op, kv);

            if (obj == NULL) {
                gcp_op_error(op, GCP_EINTERNAL, "stored object is corrupt",
                             NULL);
                return;
            }

            if (!gcp_reg_matches(op, &l->lo, obj)) {
                continue;
            }
        }

        if (gcp_list_push(l, kv, obj) != GCP_OK) {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            return;
        }
    }

    if (res->more) {
        /* continue after the last key examined */

        l->start.data = gcp_alloc(op->a, l->last_key.len + 1);
        if (l->start.data == NULL) {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            return;
        }

        memcpy((char *) l->start.data, l->last_key.data, l->last_key.len);
        ((char *) l->start.data)[l->last_key.len] = GCP_CONTINUE_NEXT;
        l->start.len = l->last_key.len + 1;

        if (l->limit && !gcp_list_filtered(l) && (int64_t) l->n >= l->limit)
        {
            l->more = 1;
            l->remaining = res->count - (int64_t) res->nkvs;
            gcp_list_respond(l);
            return;
        }

        gcp_list_fetch(l);
        return;
    }

    l->more = 0;
    gcp_list_respond(l);
}


static void
gcp_list_fetch(gcp_list_t *l)
{
    int64_t  page;

    page = 0;

    if (l->limit) {
        page = l->limit - (int64_t) l->n + 1;

        if (gcp_list_filtered(l) && page < GCP_LIST_MIN_PAGE) {
            page = GCP_LIST_MIN_PAGE;
        }
    }

    gcp_store_range(l->op->api->store, l->start, l->end, l->rev, page, 0,
                    l->op->a, gcp_list_page_done, l);
}


static void
gcp_list_one_done(void *arg, gcp_store_result_t *res)
{
    json_t      *obj;
    gcp_list_t  *l = arg;

    if (res->rc != GCP_OK && res->rc != GCP_ENOTFOUND) {
        gcp_reg_store_error(l->op, res, "");
        return;
    }

    l->rev = res->revision;

    if (res->rc == GCP_OK && res->nkvs == 1) {
        obj = gcp_reg_decode_kv(l->op, &res->kvs[0]);

        if (obj && gcp_reg_matches(l->op, &l->lo, obj)
            && gcp_list_push(l, &res->kvs[0], obj) != GCP_OK)
        {
            gcp_op_error(l->op, GCP_ENOMEM, NULL, NULL);
            return;
        }
    }

    gcp_list_respond(l);
}


void
gcp_reg_list(gcp_op_t *op)
{
    int          rc;
    gcp_list_t  *l;

    l = gcp_calloc(op->a, sizeof(gcp_list_t));
    if (l == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    l->op = op;
    l->remaining = -1;

    if (gcp_reg_list_opts(op, &l->lo) != GCP_OK) {
        return;
    }

    if (op->media.kind == GCP_MEDIA_PARTIAL && !l->lo.watch) {
        gcp_op_error(op, GCP_ENOTACCEPTABLE,
                     gcp_sprintf(op->a, "you requested PartialObjectMetadata,"
                                 " but the requested object is a list "
                                 "(*%sList)", gcp_reg_internal_kind(op)),
                     NULL);
        return;
    }

    if (l->lo.watch && op->media.kind == GCP_MEDIA_YAML) {
        /* YAML has no stream encoding (upstream's */
        /* NegotiateOutputMediaTypeStream); the Status itself in YAML */
        gcp_op_error(op, GCP_ENOTACCEPTABLE,
                     "only the following media types are accepted: "
                     "application/json;stream=watch, "
                     "application/vnd.kubernetes.protobuf;stream=watch",
                     NULL);
        return;
    }

    if (l->lo.watch) {
        gcp_watch_start(op, &l->lo);
        return;
    }

    l->prefix = gcp_object_prefix(op->a, op->res, op->ri.ns);
    l->end = gcp_store_prefix_end(op->a, l->prefix);
    l->start = l->prefix;
    l->limit = l->lo.limit;

    if (l->lo.rv >= 0 && l->lo.rv_match == GCP_RV_MATCH_EXACT) {
        l->rev = l->lo.rv;
    }

    if (l->lo.rv == 0 && l->lo.rv_match == GCP_RV_MATCH_NONE) {
        /* served "from the cache": kube-apiserver ignores the limit */
        l->limit = 0;
    }

    if (l->lo.cont) {
        rc = gcp_continue_decode(op, l->lo.cont, l->prefix, &l->start,
                                 &l->rev);
        if (rc != GCP_OK) {
            return;
        }
    }

    if (l->lo.rv > 0 && l->lo.rv_match != GCP_RV_MATCH_EXACT
        && l->lo.cont == NULL)
    {
        /* not older than rv: the watch cache waits to be that fresh */
        gcp_reg_when_fresh(op, l->lo.rv, gcp_list_start, l);
        return;
    }

    gcp_list_start(l);
}


/* lists from the label index (gcp_reg_index.h) */


/*
 * How long a list waits for its index to reach the revision it read
 * (writes committed, not yet durable, or not yet dispatched in this
 * process: usually a group fsync), polling, before it scans instead.
 */
#define GCP_LIST_INDEX_WAIT_MS  500
#define GCP_LIST_INDEX_POLL_MS  1


static void
gcp_list_index_answer(void *arg)
{
    int                rc, more;
    size_t             i, n, nhits;
    uint64_t           now;
    gcp_kv_t          *kvs;
    gcp_list_t        *l = arg;
    gcp_op_t          *op = l->op;
    gcp_loop_t        *loop = op->api->conf.loop;
    gcp_lindex_hit_t  *hits;

    rc = gcp_reg_index_query(op, l->index_rev, l->lo.labels, l->lo.fields,
                             l->start, l->limit, &hits, &n, &more);

    if (rc == GCP_EFUTURE && loop) {
        now = loop->now_ms(loop);

        if (l->index_until == 0) {
            l->index_until = now + GCP_LIST_INDEX_WAIT_MS;
        }

        if (now < l->index_until
            && loop->timer_add(loop, GCP_LIST_INDEX_POLL_MS,
                               gcp_list_index_answer, l))
        {
            return;
        }
    }

    if (rc == GCP_EUNAVAILABLE || rc == GCP_EFUTURE) {
        gcp_list_fetch(l);
        return;
    }

    if (rc != GCP_OK) {
        gcp_op_error(op, rc, NULL, NULL);
        return;
    }

    /* the index is the store's state at the revision: its values too */

    l->rev = l->index_rev;
    l->more = more;
    nhits = (l->limit && (int64_t) n > l->limit) ? (size_t) l->limit : n;

    kvs = gcp_calloc(op->a, (nhits + 1) * sizeof(gcp_kv_t));
    if (kvs == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    for (i = 0; i < nhits; i++) {
        kvs[i].key = hits[i].key;
        kvs[i].value = hits[i].value;
        kvs[i].mod_revision = hits[i].mod_revision;

        if (gcp_list_push(l, &kvs[i], NULL) != GCP_OK) {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            return;
        }
    }

    if (l->more) {
        l->last_key = hits[nhits - 1].key;
    }

    gcp_list_respond(l);
}


static void
gcp_list_index_rev(void *arg, gcp_store_result_t *res)
{
    gcp_list_t  *l = arg;

    if (res->rc != GCP_OK) {
        /* the scan answers what the revision's error is */
        gcp_list_fetch(l);
        return;
    }

    l->index_rev = res->revision;
    l->index_until = 0;

    gcp_list_index_answer(l);
}


/* Returns 1 when the label index may answer the list (then it does). */
static int
gcp_list_by_index(gcp_list_t *l)
{
    gcp_op_t  *op = l->op;

    if (op->api->lindex == NULL || op->ri.name[0]
        || (gcp_label_selector_empty(l->lo.labels)
            && gcp_field_selector_empty(l->lo.fields)))
    {
        return 0;
    }

    /* the revision the list is at: the store's (and its errors) */
    gcp_store_get(op->api->store, l->prefix, l->rev, op->a,
                  gcp_list_index_rev, l);

    return 1;
}


static void
gcp_list_start(void *data)
{
    gcp_str_t    key;
    gcp_list_t  *l = data;
    gcp_op_t    *op = l->op;

    if (l->lo.name && l->lo.cont == NULL) {
        key = gcp_object_key(op->a, op->res, op->ri.ns, l->lo.name);

        if (op->res->namespaced && op->ri.ns[0] == '\0') {
            /* metadata.name across namespaces: the index, or a scan */
            if (!gcp_list_by_index(l)) {
                gcp_list_fetch(l);
            }

            return;
        }

        gcp_store_get(op->api->store, key, l->rev, op->a, gcp_list_one_done,
                      l);
        return;
    }

    if (gcp_list_by_index(l)) {
        return;
    }

    gcp_list_fetch(l);
}
