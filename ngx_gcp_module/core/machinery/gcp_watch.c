
/*
 * Watches: a chunked stream of {"type":...,"object":...} lines, fed by a
 * storage watch.  Handles the start points (resourceVersion unset, "0", a
 * revision, sendInitialEvents), selectors judged on the old and the new
 * object (leaving the selection is DELETED, entering it ADDED), bookmarks,
 * timeouts, Table and PartialObjectMetadata encodings, slow clients and
 * cancellation.
 */

#include <stdlib.h>

#include "gcp_reg.h"
#include "gcp_json.h"
#include "gcp_metrics.h"
#include "gcp_protobuf.h"
#include "gcp_table.h"
#include "gcp_validation.h"


#define GCP_WATCH_BOOKMARK_MS  60000

/*
 * Changes waiting behind a conversion, at most: a watch whose webhook
 * cannot keep up ends as a slow client's does (the client watches again).
 * The initial events are as many as the objects, as a list's.
 */
#define GCP_WATCH_QUEUE_MAX    4096


typedef struct gcp_watch_s  gcp_watch_t;


/*
 * Conversion webhooks: the events of a watch whose objects are converted
 * wait in order, in batches.  One batch is being converted (one
 * ConversionReview); the events that come meanwhile gather in the next;
 * bookmarks wait in line too.  Each batch has its own arena, freed from
 * the loop once its call ended (the call's state lives there).
 */

typedef struct {
    const char         *type;           /* NULL: a bookmark */
    size_t              obj;            /* index in objs */
    int64_t             rv;
    unsigned            initial_end:1;
} gcp_watch_ev_t;


typedef struct {
    gcp_arena_t        *a;
    gcp_loop_t         *loop;
    gcp_watch_t        *w;              /* NULL: the watch went */
    gcp_watch_ev_t     *evs;
    json_t            **objs;
    size_t              n;
    size_t              nobjs;
    size_t              cap;
    unsigned            calling:1;      /* its conversion is running */
} gcp_watch_batch_t;


struct gcp_watch_s {
    gcp_op_t           *op;
    gcp_list_opts_t     lo;

    /* the watches of a resource built at run time (its owner's list) */
    gcp_watch_t        *next;
    gcp_watch_t       **pprev;
    gcp_str_t           prefix;
    gcp_str_t           end;

    gcp_store_watch_t  *sw;
    gcp_loop_timer_t   *timeout;
    gcp_loop_timer_t   *bookmark;
    gcp_loop_timer_t   *last_bookmark;

    int64_t             rev;            /* everything up to here is sent */
    gcp_arena_t        *main_arena;

    gcp_watch_batch_t  *converting;     /* conversion webhooks */
    gcp_watch_batch_t  *queued;

    unsigned            columns_sent:1;
    unsigned            streaming:1;
    unsigned            ended:1;
    unsigned            filtered:1;
    unsigned            registered:1;   /* in apiserver_registered_watchers */
    unsigned            converts:1;     /* the strategy's convert */
    unsigned            ranging:1;      /* the initial range in flight: */
                                        /* an end waits for it */
    const char         *labels[4];      /* group, kind, version */
};


static void gcp_watch_end(gcp_watch_t *w);
static int gcp_watch_queue(gcp_watch_t *w, const char *type,
    const gcp_kv_t *kv, json_t *obj, int64_t rv, int initial_end);
static void gcp_watch_convert_next(gcp_watch_t *w);
static void gcp_watch_batch_free(gcp_watch_batch_t *b);


/* The watch's labels: group, kind, version (v: 4 entries). */

static const char **
gcp_watch_labels(gcp_watch_t *w, const char **v)
{
    const gcp_resource_t  *res = w->op->res;

    v[0] = res->group;
    v[1] = res->kind;
    v[2] = res->version;
    v[3] = NULL;

    return v;
}


/*
 * apiserver_registered_watchers, with labels copied once (a custom
 * resource's descriptor may go before its watch ends).
 */

static void
gcp_watch_register(gcp_watch_t *w, int64_t n)
{
    size_t  i;

    if (n > 0) {
        gcp_watch_labels(w, w->labels);

        for (i = 0; i < 3; i++) {
            w->labels[i] = gcp_strdup(w->main_arena, w->labels[i]);

            if (w->labels[i] == NULL) {
                return;
            }
        }
    }

    w->registered = n > 0;
    gcp_metric_add(GCP_M_REGISTERED_WATCHERS, w->labels, n);
}


static gcp_loop_t *
gcp_watch_loop(gcp_watch_t *w)
{
    return w->op->api->conf.loop;
}


/* Writes one event line; ends the watch when the client cannot keep up. */

/* A JSON event line as a protobuf watch frame, for protobuf clients. */

static int
gcp_watch_to_protobuf(gcp_watch_t *w, gcp_buf_t *b)
{
    int        rc;
    json_t    *ev;
    gcp_buf_t  pb;

    ev = json_loadb(b->data, b->len, JSON_ALLOW_NUL, NULL);
    if (ev == NULL) {
        return GCP_EINTERNAL;
    }

    gcp_buf_init(&pb, w->op->a);

    rc = gcp_protobuf_encode_watch_frame(&pb, w->op->api->schemas,
                              json_string_value(json_object_get(ev, "type")),
                              json_object_get(ev, "object"));
    json_decref(ev);

    if (rc == GCP_OK) {
        *b = pb;
    }

    return rc;
}


/*
 * Writes one event (a JSON line in b); ends the watch when the client
 * cannot keep up.
 */

static int
gcp_watch_write(gcp_watch_t *w, gcp_buf_t *b)
{
    int  rc;

    if (w->ended) {
        return GCP_EINTERNAL;
    }

    if (!gcp_buf_failed(b) && w->op->media.kind == GCP_MEDIA_PROTOBUF
        && gcp_watch_to_protobuf(w, b) != GCP_OK)
    {
        gcp_watch_end(w);
        return GCP_EINTERNAL;
    }

    if (gcp_buf_failed(b)) {
        gcp_watch_end(w);
        return GCP_ENOMEM;
    }

    rc = w->op->req->stream->write(w->op->req->ctx, b->data, b->len, 1);

    if (rc != GCP_OK) {
        gcp_watch_end(w);
        return rc;
    }

    if (gcp_metrics_on()) {
        const char  *v[4];

        gcp_metric_inc(GCP_M_WATCH_EVENTS, gcp_watch_labels(w, v));
        gcp_metric_observe(GCP_M_WATCH_EVENT_SIZES, v, (double) b->len);
    }

    return rc;
}


/* Appends the event's object in the negotiated encoding. */

static int
gcp_watch_object(gcp_watch_t *w, gcp_buf_t *b, const gcp_kv_t *kv,
    json_t *obj, int64_t rv)
{
    gcp_op_t  *op = w->op;

    if (op->media.kind != GCP_MEDIA_TABLE) {
        return gcp_output_event_object(op, b, kv, obj, rv);
    }

    if (obj == NULL) {
        obj = gcp_reg_decode_kv(op, kv);
        if (obj == NULL) {
            return GCP_EINTERNAL;
        }
    }

    /* the object may be shared (object cache): change a copy */

    obj = gcp_reg_own_meta(op, obj);
    if (obj == NULL) {
        return GCP_ENOMEM;
    }

    gcp_meta_set_str(obj, "resourceVersion",
                     gcp_sprintf(op->a, "%lld", (long long) rv));

    /* rows of what is stored at rv are the lists' rows (the cache's) */

    if (gcp_table_write(op, b,
                        (kv && kv->mod_revision == rv)
                        ? (gcp_kv_t *const *) &kv : NULL,
                        &obj, 1, rv, NULL, -1, !w->columns_sent)
        != GCP_OK)
    {
        return GCP_EINTERNAL;
    }

    w->columns_sent = 1;

    return GCP_OK;
}


static int
gcp_watch_send_now(gcp_watch_t *w, const char *type, const gcp_kv_t *kv,
    json_t *obj, int64_t rv)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, w->op->a);
    gcp_buf_printf(&b, "{\"type\":\"%s\",\"object\":", type);

    if (gcp_watch_object(w, &b, kv, obj, rv) != GCP_OK) {
        gcp_watch_end(w);
        return GCP_EINTERNAL;
    }

    gcp_buf_addstr(&b, "}\n");

    if (rv > w->rev) {
        w->rev = rv;
    }

    return gcp_watch_write(w, &b);
}


static int
gcp_watch_send(gcp_watch_t *w, const char *type, const gcp_kv_t *kv,
    json_t *obj, int64_t rv)
{
    if (w->converts) {
        return gcp_watch_queue(w, type, kv, obj, rv, 0);
    }

    return gcp_watch_send_now(w, type, kv, obj, rv);
}


static void
gcp_watch_write_bookmark(gcp_watch_t *w, int64_t rev, int initial_end)
{
    gcp_buf_t   b, blueprint;
    gcp_op_t   *op = w->op;

    gcp_buf_init(&b, op->a);

    if (op->media.kind == GCP_MEDIA_PARTIAL) {
        gcp_buf_printf(&b, "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":"
                       "\"PartialObjectMetadata\",\"apiVersion\":"
                       "\"meta.k8s.io/v1\",\"metadata\":{\"resourceVersion\":"
                       "\"%lld\",\"creationTimestamp\":null",
                       (long long) rev);

    } else {
        gcp_buf_printf(&b, "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"%s\","
                       "\"apiVersion\":\"%s\",\"metadata\":{"
                       "\"resourceVersion\":\"%lld\",\"creationTimestamp\":"
                       "null", op->res->kind, gcp_reg_api_version(op),
                       (long long) rev);
    }

    if (initial_end) {
        gcp_buf_init(&blueprint, op->a);
        gcp_buf_printf(&blueprint, "{\"kind\":\"%s\",\"apiVersion\":\"%s\","
                       "\"metadata\":{},\"items\":null}\n",
                       op->res->list_kind, gcp_reg_api_version(op));

        gcp_buf_addstr(&b, ",\"annotations\":{\"k8s.io/initial-events-end\":"
                           "\"true\",\"kubernetes.io/initial-events-list-"
                           "blueprint\":\"");
        gcp_base64_encode_buf(&b, blueprint.data, blueprint.len,
                              GCP_BASE64_STD);
        gcp_buf_addstr(&b, "\"}");
    }

    gcp_buf_addstr(&b, "}}}\n");

    gcp_watch_write(w, &b);
}


static void
gcp_watch_send_bookmark(gcp_watch_t *w, int initial_end)
{
    /* every change up to w->rev in the watched range has been judged */

    if (w->converting || w->queued) {
        /* behind the events still being converted */
        gcp_watch_queue(w, NULL, NULL, NULL, w->rev, initial_end);
        gcp_watch_convert_next(w);
        return;
    }

    gcp_watch_write_bookmark(w, w->rev, initial_end);
}


/* conversion webhooks */


static gcp_watch_batch_t *
gcp_watch_batch(gcp_watch_t *w)
{
    gcp_arena_t        *a;
    gcp_watch_batch_t  *b;

    if (w->queued) {
        return w->queued;
    }

    a = gcp_arena_create(0);
    if (a == NULL) {
        return NULL;
    }

    b = gcp_calloc(a, sizeof(gcp_watch_batch_t));
    if (b == NULL) {
        gcp_arena_destroy(a);
        return NULL;
    }

    b->a = a;
    b->loop = gcp_watch_loop(w);
    b->w = w;
    w->queued = b;

    return b;
}


/*
 * Queues an event (type NULL: a bookmark at rv) behind those being
 * converted; its object (obj, or decoded from kv) is held by the batch.
 */

static int
gcp_watch_queue(gcp_watch_t *w, const char *type, const gcp_kv_t *kv,
    json_t *obj, int64_t rv, int initial_end)
{
    size_t              cap;
    void               *evs, *objs;
    gcp_arena_t        *saved;
    gcp_watch_batch_t  *b;
    gcp_op_t           *op = w->op;

    b = gcp_watch_batch(w);
    if (b == NULL) {
        gcp_watch_end(w);
        return GCP_ENOMEM;
    }

    if (w->sw && b->n >= GCP_WATCH_QUEUE_MAX) {
        gcp_watch_end(w);
        return GCP_EINTERNAL;
    }

    if (b->n == b->cap) {
        cap = b->cap ? b->cap * 2 : 16;
        evs = gcp_alloc(b->a, cap * sizeof(gcp_watch_ev_t));
        objs = gcp_alloc(b->a, cap * sizeof(json_t *));

        if (evs == NULL || objs == NULL) {
            gcp_watch_end(w);
            return GCP_ENOMEM;
        }

        if (b->n) {
            memcpy(evs, b->evs, b->n * sizeof(gcp_watch_ev_t));
            memcpy(objs, b->objs, b->nobjs * sizeof(json_t *));
        }

        b->evs = evs;
        b->objs = objs;
        b->cap = cap;
    }

    if (type) {
        if (obj) {
            obj = gcp_json_arena(b->a, json_incref(obj));

        } else {
            saved = op->a;
            op->a = b->a;
            obj = gcp_reg_decode_kv(op, kv);
            op->a = saved;
        }

        if (obj == NULL) {
            gcp_watch_end(w);
            return GCP_EINTERNAL;
        }

        b->objs[b->nobjs] = obj;
        b->evs[b->n].obj = b->nobjs++;
    }

    b->evs[b->n].type = type;
    b->evs[b->n].rv = rv;
    b->evs[b->n].initial_end = initial_end;
    b->n++;

    return GCP_OK;
}


static void
gcp_watch_batch_destroy(void *arg)
{
    gcp_watch_batch_t  *b = arg;

    gcp_arena_destroy(b->a);
}


/*
 * Lets a batch go: freed from the loop once its conversion is no longer
 * running (the call's state is in its arena and may still be on the
 * stack), by its callback when it is.
 */

static void
gcp_watch_batch_free(gcp_watch_batch_t *b)
{
    b->w = NULL;

    if (b->calling) {
        return;
    }

    if (b->loop == NULL
        || b->loop->timer_add(b->loop, 0, gcp_watch_batch_destroy, b)
           == NULL)
    {
        /* no timer: kept (a little memory) rather than freed under */
        /* what may still use it */
        return;
    }
}


/* A failed conversion ends the watch: an ERROR event, as upstream's. */

static void
gcp_watch_convert_failed(gcp_watch_t *w, gcp_watch_batch_t *bt,
    const char *message)
{
    gcp_buf_t               b;
    gcp_status_cause_t      cause;
    gcp_status_details_t    d;

    message = message ? message : "out of memory";

    memset(&d, 0, sizeof(d));
    memset(&cause, 0, sizeof(cause));

    cause.message = message;
    d.cause = &cause;

    gcp_buf_init(&b, bt->a);
    gcp_buf_addstr(&b, "{\"type\":\"ERROR\",\"object\":");
    gcp_status_failure(&b, 500, "InternalError",
                       gcp_sprintf(bt->a, "Internal error occurred: %s",
                                   message), &d);
    gcp_buf_addstr(&b, "}\n");

    gcp_watch_write(w, &b);
    gcp_watch_end(w);
}


static void
gcp_watch_converted(void *arg, int rc, const char *message)
{
    size_t              i;
    gcp_watch_ev_t     *ev;
    gcp_watch_batch_t  *b = arg;
    gcp_watch_t        *w = b->w;

    b->calling = 0;

    if (w == NULL) {
        /* the watch ended meanwhile: gcp_watch_stop() let the batch go */
        gcp_watch_batch_free(b);
        return;
    }

    w->converting = NULL;
    w->op->a = b->a;

    if (rc != GCP_OK) {
        gcp_watch_convert_failed(w, b, message);

    } else {
        for (i = 0; i < b->n && !w->ended; i++) {
            ev = &b->evs[i];

            if (ev->type == NULL) {
                gcp_watch_write_bookmark(w, ev->rv, ev->initial_end);

            } else {
                gcp_watch_send_now(w, ev->type, NULL, b->objs[ev->obj],
                                   ev->rv);
            }
        }
    }

    w->op->a = w->main_arena;
    gcp_watch_batch_free(b);

    if (!w->ended) {
        gcp_watch_convert_next(w);
    }
}


/* Sends the queued batch for conversion when none is being converted. */

static void
gcp_watch_convert_next(gcp_watch_t *w)
{
    gcp_watch_batch_t  *b;

    if (w->converting || w->queued == NULL || w->ended) {
        return;
    }

    b = w->queued;
    w->queued = NULL;
    w->converting = b;
    b->calling = 1;

    w->op->res->strategy->convert(w->op, b->a, b->objs, b->nobjs, 0,
                                  gcp_watch_converted, b);
}


/* Runs fn with a scratch arena so a long watch does not accumulate. */

static gcp_arena_t *
gcp_watch_scratch_begin(gcp_watch_t *w)
{
    gcp_arena_t  *scratch;

    scratch = gcp_arena_create(0);
    if (scratch) {
        w->op->a = scratch;
    }

    return scratch;
}


static void
gcp_watch_scratch_end(gcp_watch_t *w, gcp_arena_t *scratch)
{
    if (scratch) {
        w->op->a = w->main_arena;
        gcp_arena_destroy(scratch);
    }
}


static int
gcp_watch_matches(gcp_watch_t *w, const gcp_kv_t *kv, json_t **obj)
{
    if (!w->filtered) {
        return 1;
    }

    *obj = gcp_reg_decode_kv(w->op, kv);

    return *obj && gcp_reg_matches(w->op, &w->lo, *obj);
}


static int
gcp_watch_event(void *arg, const gcp_store_event_t *ev)
{
    int           rc, now, before;
    json_t       *obj, *prev;
    gcp_kv_t      dkv;
    gcp_arena_t  *scratch;
    gcp_watch_t  *w = arg;

    if (w->ended) {
        return GCP_EINTERNAL;
    }

    if (ev->type == GCP_STORE_EVENT_ERROR) {
        w->sw = NULL;

        if (ev->rc == GCP_ECOMPACTED) {
            gcp_buf_t  b;

            /*
             * as the watch cache's "(oldest-1)": the oldest
             * resourceVersion a watch may start from, the compaction's
             * (a mirror's: its load's)
             */
            gcp_buf_init(&b, w->op->a);
            gcp_buf_addstr(&b, "{\"type\":\"ERROR\",\"object\":");
            gcp_status_failure(&b, 410, "Expired",
                               gcp_sprintf(w->op->a, "too old resource "
                                           "version: %lld (%lld)",
                                           (long long) w->lo.rv,
                                           (long long)
                                               ev->compact_revision),
                               NULL);
            gcp_buf_addstr(&b, "}\n");
            gcp_watch_write(w, &b);

        } else if (ev->message) {
            /* as the etcd watcher's parseError(): a 500 with the cause */

            gcp_buf_t  b;

            gcp_buf_init(&b, w->op->a);
            gcp_buf_addstr(&b, "{\"type\":\"ERROR\",\"object\":");
            gcp_status_failure(&b, 500, "InternalError", ev->message, NULL);
            gcp_buf_addstr(&b, "}\n");
            gcp_watch_write(w, &b);
        }

        gcp_watch_end(w);
        return GCP_EINTERNAL;
    }

    if (ev->type == GCP_STORE_EVENT_PROGRESS) {
        if (ev->revision > w->rev) {
            w->rev = ev->revision;
        }

        return GCP_OK;
    }

    scratch = gcp_watch_scratch_begin(w);
    obj = NULL;
    prev = NULL;
    rc = GCP_OK;

    if (ev->type == GCP_STORE_EVENT_DELETE) {
        if (ev->has_prev && gcp_watch_matches(w, &ev->prev_kv, &prev)) {
            dkv = ev->prev_kv;
            dkv.mod_revision = ev->revision;
            rc = gcp_watch_send(w, "DELETED", &dkv, prev, ev->revision);
        }

    } else {
        now = gcp_watch_matches(w, &ev->kv, &obj);
        before = ev->has_prev && gcp_watch_matches(w, &ev->prev_kv, &prev);

        if (now && before) {
            rc = gcp_watch_send(w, "MODIFIED", &ev->kv, obj, ev->revision);

        } else if (now) {
            rc = gcp_watch_send(w, "ADDED", &ev->kv, obj, ev->revision);

        } else if (before) {
            /*
             * left the selection: DELETED showing the previous state at
             * the event's revision, as kube-apiserver's watch cache does
             */
            dkv = ev->prev_kv;
            dkv.mod_revision = ev->revision;
            rc = gcp_watch_send(w, "DELETED", &dkv, prev, ev->revision);
        }
    }

    if (ev->revision > w->rev) {
        w->rev = ev->revision;
    }

    gcp_watch_scratch_end(w, scratch);

    gcp_watch_convert_next(w);

    return w->ended ? GCP_EINTERNAL : rc;
}


static void
gcp_watch_timeout(void *arg)
{
    gcp_watch_t  *w = arg;

    w->timeout = NULL;
    gcp_watch_end(w);
}


static void
gcp_watch_bookmark(void *arg)
{
    gcp_watch_t  *w = arg;

    w->bookmark = gcp_watch_loop(w)->timer_add(gcp_watch_loop(w),
                                               GCP_WATCH_BOOKMARK_MS,
                                               gcp_watch_bookmark, w);
    gcp_watch_send_bookmark(w, 0);
}


static void
gcp_watch_last_bookmark(void *arg)
{
    gcp_watch_t  *w = arg;

    w->last_bookmark = NULL;
    gcp_watch_send_bookmark(w, 0);
}


static void
gcp_watch_stop(gcp_watch_t *w)
{
    gcp_loop_t  *loop = gcp_watch_loop(w);

    if (w->pprev) {
        *w->pprev = w->next;

        if (w->next) {
            w->next->pprev = w->pprev;
        }

        w->pprev = NULL;
    }

    if (w->registered) {
        gcp_watch_register(w, -1);
    }

    if (w->sw) {
        gcp_store_watch_cancel(w->op->api->store, w->sw);
        w->sw = NULL;
    }

    if (w->timeout) {
        loop->timer_del(loop, w->timeout);
        w->timeout = NULL;
    }

    if (w->bookmark) {
        loop->timer_del(loop, w->bookmark);
        w->bookmark = NULL;
    }

    if (w->last_bookmark) {
        loop->timer_del(loop, w->last_bookmark);
        w->last_bookmark = NULL;
    }

    if (w->converting) {
        gcp_watch_batch_free(w->converting);
        w->converting = NULL;
    }

    if (w->queued) {
        gcp_watch_batch_free(w->queued);
        w->queued = NULL;
    }
}


static void
gcp_watch_end(gcp_watch_t *w)
{
    if (w->ended) {
        return;
    }

    w->ended = 1;
    gcp_watch_stop(w);

    if (!w->streaming) {
        return;
    }

    if (w->ranging) {
        /* the store holds the op's memory until its callback, which */
        /* ends the stream */
        return;
    }

    w->op->req->stream->end(w->op->req->ctx);
}


void
gcp_resource_end_watches(const gcp_resource_t *res)
{
    if (res->owner == NULL) {
        return;
    }

    while (res->owner->watches) {
        gcp_watch_end(res->owner->watches);
    }
}


/* Called by gcp_api_cancel(): the client went away. */

int
gcp_watch_cancel(void *state)
{
    gcp_watch_t  *w = state;

    if (w == NULL) {
        return 1;
    }

    if (!w->ended) {
        w->ended = 1;
        gcp_watch_stop(w);
    }

    if (w->ranging) {
        /* the store holds the op's memory until its callback, which */
        /* ends the stream */
        return 0;
    }

    return 1;
}


static void
gcp_watch_begin_stream(gcp_watch_t *w)
{
    int64_t      timeout_ms, min;
    gcp_op_t    *op = w->op;
    gcp_loop_t  *loop = gcp_watch_loop(w);

    op->state = w;
    w->streaming = 1;

    if (op->res->owner) {
        w->next = op->res->owner->watches;
        w->pprev = (gcp_watch_t **) &op->res->owner->watches;

        if (w->next) {
            w->next->pprev = &w->next;
        }

        op->res->owner->watches = w;
    }

    if (gcp_metrics_on()) {
        gcp_watch_register(w, 1);
    }

    op->resp.streaming = 1;
    gcp_op_respond(op, 200,
                   op->media.kind == GCP_MEDIA_PROTOBUF
                   ? "application/vnd.kubernetes.protobuf;stream=watch"
                   : "application/json",
                   (gcp_str_t) { "", 0 });

    if (w->lo.timeout > 0) {
        timeout_ms = gcp_min(w->lo.timeout, GCP_WATCH_TIMEOUT_MAX) * 1000;

    } else if (w->lo.timeout < 0) {
        /* upstream's timer of a negative duration fires at once */
        timeout_ms = 0;

    } else {
        min = op->api->conf.min_watch_timeout > 0
              ? op->api->conf.min_watch_timeout : 1800;
        timeout_ms = (min + (int64_t) (random() % min)) * 1000;
    }

    w->timeout = loop->timer_add(loop, (uint64_t) timeout_ms,
                                 gcp_watch_timeout, w);

    if (w->lo.bookmarks) {
        w->bookmark = loop->timer_add(loop, GCP_WATCH_BOOKMARK_MS,
                                      gcp_watch_bookmark, w);

        if (timeout_ms > 2000) {
            w->last_bookmark = loop->timer_add(loop,
                                               (uint64_t) timeout_ms - 1000,
                                               gcp_watch_last_bookmark, w);
        }
    }
}


static void
gcp_watch_subscribe(gcp_watch_t *w, int64_t from)
{
    gcp_op_t  *op = w->op;

    w->rev = from;

    w->sw = gcp_store_watch(op->api->store, w->prefix, w->end, from,
                            gcp_watch_event, w);

    if (w->sw == NULL) {
        gcp_watch_end(w);
    }
}


static void
gcp_watch_initial_done(void *arg, gcp_store_result_t *res)
{
    size_t        i;
    json_t       *obj;
    gcp_arena_t  *scratch;
    gcp_watch_t  *w = arg;

    w->ranging = 0;

    if (w->ended) {
        /* ended or cancelled meanwhile: its end waited for this */
        w->op->req->stream->end(w->op->req->ctx);
        return;
    }

    if (res->rc != GCP_OK) {
        gcp_watch_end(w);
        return;
    }

    for (i = 0; i < res->nkvs && !w->ended; i++) {
        scratch = gcp_watch_scratch_begin(w);
        obj = NULL;

        if (gcp_watch_matches(w, &res->kvs[i], &obj)) {
            gcp_watch_send(w, "ADDED", &res->kvs[i], obj,
                           res->kvs[i].mod_revision);
        }

        gcp_watch_scratch_end(w, scratch);
    }

    if (w->ended) {
        return;
    }

    w->rev = res->revision;

    if (w->lo.send_initial && w->lo.bookmarks) {
        gcp_watch_send_bookmark(w, 1);

        if (w->ended) {
            return;
        }
    }

    gcp_watch_subscribe(w, res->revision);
    gcp_watch_convert_next(w);
}


void
gcp_watch_start(gcp_op_t *op, gcp_list_opts_t *lo)
{
    int           initial;
    gcp_watch_t  *w;

    w = gcp_calloc(op->a, sizeof(gcp_watch_t));
    if (w == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    w->op = op;
    w->lo = *lo;
    w->main_arena = op->a;
    w->filtered = lo->labels || lo->fields || lo->name;
    w->converts = gcp_reg_converts(op) != 0;

    if (lo->name && (!op->res->namespaced || op->ri.ns[0])) {
        w->prefix = gcp_object_key(op->a, op->res, op->ri.ns, lo->name);
        w->end.data = NULL;
        w->end.len = 0;

    } else {
        w->prefix = gcp_object_prefix(op->a, op->res, op->ri.ns);
        w->end = gcp_store_prefix_end(op->a, w->prefix);
    }

    if (op->media.kind == GCP_MEDIA_PARTIAL_LIST) {
        op->media.kind = GCP_MEDIA_PARTIAL;
    }

    gcp_watch_begin_stream(w);

    if (w->ended) {
        return;
    }

    /*
     * resourceVersion unset or "0": the current state as ADDED events, then
     * changes; sendInitialEvents=true does the same from any revision; a
     * revision otherwise: changes after it.
     */

    initial = lo->send_initial_set ? lo->send_initial : lo->rv <= 0;

    if (initial) {
        w->ranging = 1;
        gcp_store_range(op->api->store, w->prefix, w->end, 0, 0, 0,
                        op->a, gcp_watch_initial_done, w);
        return;
    }

    gcp_watch_subscribe(w, lo->rv > 0 ? lo->rv : 0);
}
