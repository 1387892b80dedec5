
/*
 * The etcd storage backend: opening, closing, the operations table and
 * statistics (see gcp_store_etcd.h, and gcp_etcd.h for the files doing
 * the work).
 */

#include <stdlib.h>

#include "gcp_etcd.h"


static int64_t gcp_etcd_revision(gcp_store_t *s);
static void gcp_etcd_close(gcp_store_t *s);


static const gcp_store_ops_t  gcp_etcd_ops = {
    "etcd",
    gcp_etcd_get,
    gcp_etcd_range,
    gcp_etcd_create,
    gcp_etcd_update,
    gcp_etcd_del,
    gcp_etcd_watch,
    gcp_etcd_watch_cancel,
    gcp_etcd_compact,
    gcp_etcd_revision,
    gcp_etcd_close,
    gcp_etcd_watch_revision
};


static int
gcp_etcd_dup(gcp_str_t *dst, const char *s, size_t n)
{
    char  *p;

    p = malloc(n + 1);
    if (p == NULL) {
        return GCP_ENOMEM;
    }

    if (n) {
        memcpy(p, s, n);
    }

    p[n] = '\0';
    dst->data = p;
    dst->len = n;

    return GCP_OK;
}


/* etcd's prefix range end: "\0" (no upper bound) for "" or all 0xff. */

static int
gcp_etcd_prefix_end(gcp_etcd_t *e)
{
    size_t  n;

    for (n = e->prefix.len; n > 0; n--) {
        if ((unsigned char) e->prefix.data[n - 1] != 0xff) {
            break;
        }
    }

    if (n == 0) {
        return gcp_etcd_dup(&e->prefix_end, "", 1);
    }

    if (gcp_etcd_dup(&e->prefix_end, e->prefix.data, n) != GCP_OK) {
        return GCP_ENOMEM;
    }

    ((char *) e->prefix_end.data)[n - 1]++;

    return GCP_OK;
}


int
gcp_etcd_keys_init(gcp_etcd_t *e, const gcp_etcd_conf_t *conf)
{
    const char  *prefix, *core;

    prefix = conf->prefix ? conf->prefix : "";
    core = conf->core_prefix ? conf->core_prefix : "";

    if (gcp_etcd_dup(&e->prefix, prefix, strlen(prefix)) != GCP_OK
        || gcp_etcd_dup(&e->core, core, strlen(core)) != GCP_OK
        || gcp_etcd_prefix_end(e) != GCP_OK)
    {
        return GCP_ENOMEM;
    }

    return GCP_OK;
}


void
gcp_etcd_keys_free(gcp_etcd_t *e)
{
    free((char *) e->prefix.data);
    free((char *) e->prefix_end.data);
    free((char *) e->core.data);

    e->prefix.data = NULL;
    e->prefix_end.data = NULL;
    e->core.data = NULL;
}


int
gcp_etcd_check_conf(const gcp_etcd_conf_t *conf, const char **err)
{
    if ((conf->mirror == NULL) != (conf->mirror_ops == NULL)) {
        *err = "a mirror needs its operations";
        return GCP_EBADREQUEST;
    }

    if (conf->reads != GCP_ETCD_READS_INSTANCE
        && conf->reads != GCP_ETCD_READS_QUORUM)
    {
        *err = "unknown consistent_reads mode";
        return GCP_EBADREQUEST;
    }

    return gcp_etcd_http_check(conf->endpoints, err) == GCP_OK
           ? GCP_OK : GCP_EBADREQUEST;
}


gcp_store_t *
gcp_etcd_open(const gcp_etcd_conf_t *conf, gcp_loop_t *loop,
    const char **err)
{
    gcp_etcd_t  *e;

    if (gcp_etcd_check_conf(conf, err) != GCP_OK) {
        return NULL;
    }

    e = calloc(1, sizeof(gcp_etcd_t));
    if (e == NULL) {
        *err = "out of memory";
        return NULL;
    }

    e->store.ops = &gcp_etcd_ops;
    e->store.loop = loop;
    e->timeout = conf->timeout_ms ? conf->timeout_ms : GCP_ETCD_TIMEOUT_MS;
    e->watermark = conf->watermark ? conf->watermark : &e->acked;
    e->quorum = conf->reads == GCP_ETCD_READS_QUORUM;
    e->fresh = conf->fresh_ms ? conf->fresh_ms : GCP_ETCD_FRESH_MS;

    gcp_etcd_hist_init(&e->hist,
                       conf->history_bytes ? conf->history_bytes
                                           : GCP_ETCD_HISTORY_BYTES,
                       conf->history_events ? conf->history_events
                                            : GCP_ETCD_HISTORY_EVENTS);

    if (gcp_etcd_keys_init(e, conf) != GCP_OK
        || (conf->mirror == NULL && gcp_etcd_map_init(&e->map) != GCP_OK))
    {
        *err = "out of memory";
        gcp_etcd_close(&e->store);
        return NULL;
    }

    e->http = gcp_etcd_http_create(conf, loop, err);
    if (e->http == NULL) {
        gcp_etcd_close(&e->store);
        return NULL;
    }

    if (conf->mirror) {
        /* one copy per instance: the mirror's, fed by some process */
        e->mirror = conf->mirror;
        e->mops = conf->mirror_ops;
        (void) gcp_etcd_mirrored_attach(e);
        return &e->store;
    }

    gcp_etcd_feed_start(e);

    return &e->store;
}


static void
gcp_etcd_close(gcp_store_t *s)
{
    gcp_etcd_t  *e = (gcp_etcd_t *) s;

    if (e->mirror) {
        gcp_etcd_mirrored_detach(e);
    }

    if (e->http) {
        gcp_etcd_feed_stop(e);
        gcp_etcd_reads_stop(e);
        gcp_etcd_watch_stop(e);
        gcp_etcd_learn_stop(e);
        gcp_etcd_http_destroy(e->http);
    }

    gcp_etcd_map_free(&e->map);
    gcp_etcd_map_free(&e->load_map);
    gcp_etcd_hist_reset(&e->hist, 0);

    gcp_etcd_keys_free(e);
    free(e);
}


static int64_t
gcp_etcd_revision(gcp_store_t *s)
{
    return ((gcp_etcd_t *) s)->rev;
}


int
gcp_etcd_stats(gcp_store_t *s, gcp_etcd_stats_t *st)
{
    gcp_etcd_t  *e = (gcp_etcd_t *) s;

    *st = e->st;

    st->revision = e->rev;
    st->compact_revision = e->compact;
    st->history_base = e->hist.base;
    st->keys = e->map.n;
    st->history = e->hist.n;
    st->requests = gcp_etcd_http_requests(e->http);
    st->failovers = gcp_etcd_http_failovers(e->http);
    st->endpoint = gcp_etcd_http_endpoint(e->http);
    st->watermark = gcp_etcd_watermark(e);
    st->ready = e->ready;
    st->live = e->mirror ? gcp_etcd_mirrored_live(e) : e->live;
    st->mirrored = e->mirror != NULL;

    return GCP_OK;
}
