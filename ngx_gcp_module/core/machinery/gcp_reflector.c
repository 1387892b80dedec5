
/*
 * The reflector: a list, then a watch, of one store prefix (see
 * gcp_reflector.h).
 */

#include <stdlib.h>

#include "gcp_reflector.h"


#define GCP_REFLECTOR_RETRY_MS  1000


struct gcp_reflector_s {
    gcp_store_t                *store;
    gcp_loop_t                 *loop;
    char                       *prefix;     /* malloc'd */
    size_t                      prefix_len;
    gcp_reflector_ops_t         ops;
    void                       *arg;

    gcp_store_watch_t          *watch;
    gcp_loop_timer_t           *retry;
    gcp_arena_t                *load_arena; /* of the list in flight */
    int64_t                     revision;

    unsigned                    synced:1;
    unsigned                    loading:1;
    unsigned                    stopped:1;  /* free once the list ends */
};


static void gcp_reflector_list(gcp_reflector_t *r);


static gcp_str_t
gcp_reflector_prefix(gcp_reflector_t *r)
{
    gcp_str_t  p;

    p.data = r->prefix;
    p.len = r->prefix_len;

    return p;
}


static void
gcp_reflector_retry(void *arg)
{
    gcp_reflector_t  *r = arg;

    r->retry = NULL;
    gcp_reflector_list(r);
}


static void
gcp_reflector_later(gcp_reflector_t *r)
{
    if (r->retry == NULL) {
        r->retry = r->loop->timer_add(r->loop, GCP_REFLECTOR_RETRY_MS,
                                      gcp_reflector_retry, r);
    }
}


static int
gcp_reflector_event(void *arg, const gcp_store_event_t *ev)
{
    int               rc;
    gcp_str_t         none = gcp_null_string;
    gcp_reflector_t  *r = arg;

    switch (ev->type) {

    case GCP_STORE_EVENT_PUT:
    case GCP_STORE_EVENT_DELETE:
        rc = r->ops.apply(r->arg, ev->kv.key,
                          ev->type == GCP_STORE_EVENT_PUT ? ev->kv.value
                                                          : none,
                          ev->revision);
        r->revision = ev->revision;

        if (rc != GCP_OK) {
            /* the copy missed a change: start over from a new list */
            r->watch = NULL;
            gcp_reflector_later(r);
            return rc;
        }

        r->ops.synced(r->arg);
        return GCP_OK;

    case GCP_STORE_EVENT_PROGRESS:
        if (ev->revision > r->revision) {
            r->revision = ev->revision;
        }

        return GCP_OK;

    default:
        /* the watch is over (compacted, backend gone): list again */
        r->watch = NULL;
        gcp_reflector_later(r);
        return GCP_OK;
    }
}


static void
gcp_reflector_listed(void *arg, gcp_store_result_t *res)
{
    size_t            i;
    gcp_reflector_t  *r = arg;

    r->loading = 0;

    if (r->stopped) {
        gcp_arena_destroy(r->load_arena);
        free(r->prefix);
        free(r);
        return;
    }

    if (res->rc != GCP_OK) {
        gcp_arena_destroy(r->load_arena);
        r->load_arena = NULL;
        gcp_reflector_later(r);
        return;
    }

    r->ops.reset(r->arg);

    for (i = 0; i < res->nkvs; i++) {
        if (r->ops.apply(r->arg, res->kvs[i].key, res->kvs[i].value,
                         res->kvs[i].mod_revision)
            != GCP_OK)
        {
            r->ops.reset(r->arg);
            gcp_arena_destroy(r->load_arena);
            r->load_arena = NULL;
            gcp_reflector_later(r);
            return;
        }
    }

    r->revision = res->revision;
    r->synced = 1;

    r->watch = gcp_store_watch(r->store, gcp_reflector_prefix(r),
                               gcp_store_prefix_end(r->load_arena,
                                                    gcp_reflector_prefix(r)),
                               res->revision, gcp_reflector_event, r);

    gcp_arena_destroy(r->load_arena);
    r->load_arena = NULL;

    if (r->watch == NULL) {
        gcp_reflector_later(r);
    }

    r->ops.synced(r->arg);
}


static void
gcp_reflector_list(gcp_reflector_t *r)
{
    if (r->loading) {
        return;
    }

    if (r->watch) {
        gcp_store_watch_cancel(r->store, r->watch);
        r->watch = NULL;
    }

    r->load_arena = gcp_arena_create(0);
    if (r->load_arena == NULL) {
        gcp_reflector_later(r);
        return;
    }

    r->loading = 1;

    gcp_store_range(r->store, gcp_reflector_prefix(r),
                    gcp_store_prefix_end(r->load_arena,
                                         gcp_reflector_prefix(r)),
                    0, 0, 0, r->load_arena, gcp_reflector_listed, r);
}


gcp_reflector_t *
gcp_reflector_start(gcp_store_t *store, gcp_loop_t *loop, gcp_str_t prefix,
    const gcp_reflector_ops_t *ops, void *arg)
{
    gcp_reflector_t  *r;

    r = calloc(1, sizeof(gcp_reflector_t));
    if (r == NULL) {
        return NULL;
    }

    r->prefix = malloc(prefix.len + 1);
    if (r->prefix == NULL) {
        free(r);
        return NULL;
    }

    memcpy(r->prefix, prefix.data, prefix.len);
    r->prefix[prefix.len] = '\0';
    r->prefix_len = prefix.len;

    r->store = store;
    r->loop = loop;
    r->ops = *ops;
    r->arg = arg;

    gcp_reflector_list(r);

    return r;
}


void
gcp_reflector_stop(gcp_reflector_t *r)
{
    if (r == NULL) {
        return;
    }

    if (r->watch) {
        gcp_store_watch_cancel(r->store, r->watch);
    }

    if (r->retry) {
        r->loop->timer_del(r->loop, r->retry);
    }

    if (r->loading) {
        /* the list in flight still writes into load_arena */
        r->stopped = 1;
        return;
    }

    free(r->prefix);
    free(r);
}


int
gcp_reflector_synced(const gcp_reflector_t *r)
{
    return r->synced;
}


int64_t
gcp_reflector_revision(const gcp_reflector_t *r)
{
    return r->revision;
}
