
/*
 * The measured store (see gcp_store_metrics.h).
 */

#include <stdlib.h>

#include "gcp_log.h"
#include "gcp_metrics.h"
#include "gcp_store_metrics.h"
#include "gcp_time.h"


#define GCP_STORE_TYPE_MAX   160
#define GCP_STORE_LOG_NS     1000000000LL


typedef struct {
    gcp_store_t         base;
    gcp_store_t        *inner;

    /* storage failures not yet in the error log */
    int64_t             logged_ns;
    uint64_t            unlogged;
} gcp_store_metrics_t;


/* One operation in flight. */
typedef struct {
    gcp_store_metrics_t  *s;
    gcp_store_done_pt     done;
    void                 *arg;
    const char           *op;
    char                 *type;
    gcp_str_t             key;
    int64_t               start_ns;
} gcp_store_call_t;


static const gcp_store_ops_t  gcp_store_metrics_ops;



/*
 * The object type of a key as upstream labels it: "/registry/RESOURCE/..."
 * is RESOURCE, "/registry/GROUP/RESOURCE/..." is RESOURCE.GROUP (the
 * core's keys only, so the types are those of served resources); a range
 * over a whole group is the GROUP, over everything "".
 */

static char *
gcp_store_type(gcp_arena_t *a, gcp_str_t key)
{
    char       *t;
    gcp_str_t   g, r;

    if (!gcp_store_key_resource(key, &g, &r) && g.len) {
        /* the whole group ("/registry/GROUP/"): the group */
        return gcp_strndup(a, g.data, gcp_min(g.len, GCP_STORE_TYPE_MAX));
    }

    if (g.len == 0) {
        return gcp_strndup(a, r.data, gcp_min(r.len, GCP_STORE_TYPE_MAX));
    }

    if (g.len + r.len + 1 > GCP_STORE_TYPE_MAX) {
        return gcp_strdup(a, "");
    }

    t = gcp_alloc(a, g.len + r.len + 2);
    if (t == NULL) {
        return NULL;
    }

    memcpy(t, r.data, r.len);
    t[r.len] = '.';
    memcpy(t + r.len + 1, g.data, g.len);
    t[g.len + r.len + 1] = '\0';

    return t;
}


static int
gcp_store_failed(int rc)
{
    return rc != GCP_OK && rc != GCP_ENOTFOUND && rc != GCP_ECONFLICT
           && rc != GCP_EEXISTS;
}


static void
gcp_store_log(gcp_store_call_t *c, gcp_store_result_t *res)
{
    int64_t               now;
    gcp_store_metrics_t  *s = c->s;

    now = gcp_time_mono_ns();

    if (s->logged_ns && now - s->logged_ns < GCP_STORE_LOG_NS) {
        s->unlogged++;
        return;
    }

    gcp_log(GCP_LOG_ERR, "storage %s \"%.*s\" failed: %s%s%s (%llu more "
            "storage failures since the last message)", c->op,
            (int) gcp_min(c->key.len, 512), c->key.data,
            gcp_error_info(res->rc)->name, res->message ? ": " : "",
            res->message ? res->message : "",
            (unsigned long long) s->unlogged);

    s->logged_ns = now;
    s->unlogged = 0;
}


static void
gcp_store_done(void *arg, gcp_store_result_t *res)
{
    const char        *v[3];
    gcp_store_call_t  *c = arg;

    v[0] = c->op;
    v[1] = c->type;
    v[2] = NULL;

    gcp_metric_observe(GCP_M_STORAGE_DURATION, v,
                       (double) (gcp_time_mono_ns() - c->start_ns) / 1e9);
    gcp_metric_inc(GCP_M_STORAGE_REQUESTS, v);

    if (gcp_store_failed(res->rc)) {
        gcp_metric_inc(GCP_M_STORAGE_ERRORS, v);
        gcp_store_log(c, res);
    }

    c->done(c->arg, res);
}


/*
 * Returns the call that measures an operation, or NULL when out of memory
 * (then the operation goes through unmeasured).
 */

static gcp_store_call_t *
gcp_store_call(gcp_store_t *st, const char *op, gcp_str_t key,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg)
{
    gcp_store_call_t  *c;

    c = gcp_alloc(a, sizeof(gcp_store_call_t));
    if (c == NULL) {
        return NULL;
    }

    c->s = (gcp_store_metrics_t *) st;
    c->done = done;
    c->arg = arg;
    c->op = op;
    c->key = key;
    c->type = gcp_metrics_on() ? gcp_store_type(a, key) : "";
    c->start_ns = gcp_time_mono_ns();

    if (c->type == NULL) {
        return NULL;
    }

    return c;
}


#define gcp_store_inner(st)  (((gcp_store_metrics_t *) (st))->inner)

#define gcp_store_forward(st, op, key, a, done, arg, call)                   \
    do {                                                                     \
        gcp_store_call_t  *c_;                                               \
                                                                             \
        c_ = gcp_store_call(st, op, key, a, done, arg);                      \
                                                                             \
        if (c_) {                                                            \
            done = gcp_store_done;                                           \
            arg = c_;                                                        \
        }                                                                    \
                                                                             \
        call;                                                                \
    } while (0)


static void
gcp_store_m_get(gcp_store_t *st, gcp_str_t key, int64_t revision,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg)
{
    gcp_store_forward(st, "get", key, a, done, arg,
                      gcp_store_get(gcp_store_inner(st), key, revision, a,
                                    done, arg));
}


static void
gcp_store_m_range(gcp_store_t *st, gcp_str_t key, gcp_str_t range_end,
    int64_t revision, int64_t limit, int count_only, gcp_arena_t *a,
    gcp_store_done_pt done, void *arg)
{
    gcp_store_forward(st, count_only ? "listWithCount" : "list", key, a,
                      done, arg,
                      gcp_store_range(gcp_store_inner(st), key, range_end,
                                      revision, limit, count_only, a, done,
                                      arg));
}


static void
gcp_store_m_create(gcp_store_t *st, gcp_str_t key, gcp_str_t value,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg)
{
    gcp_store_forward(st, "create", key, a, done, arg,
                      gcp_store_create(gcp_store_inner(st), key, value, a,
                                       done, arg));
}


static void
gcp_store_m_update(gcp_store_t *st, gcp_str_t key, gcp_str_t value,
    int64_t mod_revision, gcp_arena_t *a, gcp_store_done_pt done, void *arg)
{
    gcp_store_forward(st, "update", key, a, done, arg,
                      gcp_store_update(gcp_store_inner(st), key, value,
                                       mod_revision, a, done, arg));
}


static void
gcp_store_m_del(gcp_store_t *st, gcp_str_t key, int64_t mod_revision,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg)
{
    gcp_store_forward(st, "delete", key, a, done, arg,
                      gcp_store_delete(gcp_store_inner(st), key,
                                       mod_revision, a, done, arg));
}


static gcp_store_watch_t *
gcp_store_m_watch(gcp_store_t *st, gcp_str_t key, gcp_str_t range_end,
    int64_t start_revision, gcp_store_event_pt handler, void *arg)
{
    return gcp_store_watch(gcp_store_inner(st), key, range_end,
                           start_revision, handler, arg);
}


static void
gcp_store_m_watch_cancel(gcp_store_t *st, gcp_store_watch_t *w)
{
    gcp_store_watch_cancel(gcp_store_inner(st), w);
}


static void
gcp_store_m_compact(gcp_store_t *st, int64_t revision, gcp_arena_t *a,
    gcp_store_done_pt done, void *arg)
{
    gcp_str_t  none = gcp_null_string;

    gcp_store_forward(st, "compact", none, a, done, arg,
                      gcp_store_compact(gcp_store_inner(st), revision, a,
                                        done, arg));
}


static int64_t
gcp_store_m_revision(gcp_store_t *st)
{
    return gcp_store_revision(gcp_store_inner(st));
}


static int64_t
gcp_store_m_watch_revision(gcp_store_t *st, gcp_store_watch_t *w)
{
    return gcp_store_watch_revision(gcp_store_inner(st), w);
}


static void
gcp_store_m_close(gcp_store_t *st)
{
    /* the inner store is its owner's to close */
    gcp_store_metrics_unwrap(st);
}


static const gcp_store_ops_t  gcp_store_metrics_ops = {
    "metrics",
    gcp_store_m_get,
    gcp_store_m_range,
    gcp_store_m_create,
    gcp_store_m_update,
    gcp_store_m_del,
    gcp_store_m_watch,
    gcp_store_m_watch_cancel,
    gcp_store_m_compact,
    gcp_store_m_revision,
    gcp_store_m_close,
    gcp_store_m_watch_revision,
};


gcp_store_t *
gcp_store_metrics_wrap(gcp_store_t *inner)
{
    gcp_store_metrics_t  *s;

    if (inner == NULL) {
        return NULL;
    }

    s = calloc(1, sizeof(gcp_store_metrics_t));
    if (s == NULL) {
        return inner;
    }

    s->base.ops = &gcp_store_metrics_ops;
    s->base.loop = inner->loop;
    s->inner = inner;

    return &s->base;
}


void
gcp_store_metrics_unwrap(gcp_store_t *s)
{
    if (s && s->ops == &gcp_store_metrics_ops) {
        free(s);
    }
}
