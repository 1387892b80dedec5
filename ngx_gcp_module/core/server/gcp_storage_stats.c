
/*
 * Sampling the storage (see gcp_storage_stats.h): one count-only range
 * per served resource after the other, then the database file's size.
 */

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "gcp_metrics.h"
#include "gcp_object.h"
#include "gcp_registry.h"
#include "gcp_storage_stats.h"


#define GCP_STORAGE_STATS_FIRST_MS  1000


struct gcp_storage_stats_s {
    gcp_api_t         *api;
    gcp_loop_timer_t  *timer;
    uint64_t           interval;
    size_t             next;        /* registry index being counted */
    const char        *label;       /* of the one being counted */
    gcp_arena_t       *arena;       /* of the sample in progress */
    unsigned           stopped:1;
};


static void gcp_storage_stats_tick(void *arg);
static void gcp_storage_stats_next(gcp_storage_stats_t *st);


/* upstream's label: "configmaps", "leases.coordination.k8s.io" */

static const char *
gcp_storage_stats_label(gcp_arena_t *a, const gcp_resource_t *res)
{
    return res->group[0] ? gcp_sprintf(a, "%s.%s", res->name, res->group)
                         : res->name;
}


static void
gcp_storage_stats_size(gcp_storage_stats_t *st)
{
    char         path[4096];
    const char  *v[2];
    const char  *dir = st->api->conf.data_dir;
    struct stat  sb;

    if (dir == NULL) {
        return;
    }

    snprintf(path, sizeof(path), "%s/data.mdb", dir);

    if (stat(path, &sb) != 0) {
        return;
    }

    v[0] = dir;
    v[1] = NULL;

    gcp_metric_set(GCP_M_STORAGE_DB_SIZE, v, (double) sb.st_size);
    gcp_metric_set(GCP_M_STORAGE_SIZE_BYTES, v, (double) sb.st_size);
}


static void
gcp_storage_stats_done(gcp_storage_stats_t *st)
{
    gcp_arena_destroy(st->arena);
    st->arena = NULL;

    if (st->stopped) {
        free(st);
        return;
    }

    gcp_storage_stats_size(st);

    st->timer = st->api->conf.loop->timer_add(st->api->conf.loop,
                                              st->interval,
                                              gcp_storage_stats_tick, st);
}


static void
gcp_storage_stats_counted(void *arg, gcp_store_result_t *res)
{
    const char           *v[2];
    gcp_storage_stats_t  *st = arg;

    if (st->stopped) {
        gcp_storage_stats_done(st);
        return;
    }

    /* the label was taken when asking: custom resources come and go */

    if (res->rc == GCP_OK && st->label) {
        v[0] = st->label;
        v[1] = NULL;

        gcp_metric_set(GCP_M_STORAGE_OBJECTS, v, (double) res->count);
    }

    gcp_storage_stats_next(st);
}


/* Has an earlier descriptor the same group and resource (a version)? */

static int
gcp_storage_stats_seen(gcp_registry_t *reg, size_t i)
{
    size_t                 k;
    const gcp_resource_t  *r = reg->resources[i];

    for (k = 0; k < i; k++) {
        if (strcmp(reg->resources[k]->group, r->group) == 0
            && strcmp(reg->resources[k]->name, r->name) == 0)
        {
            return 1;
        }
    }

    return 0;
}


static void
gcp_storage_stats_next(gcp_storage_stats_t *st)
{
    gcp_str_t        prefix, end;
    gcp_registry_t  *reg = st->api->registry;

    while (st->next < reg->n && gcp_storage_stats_seen(reg, st->next)) {
        st->next++;
    }

    if (st->next == reg->n) {
        gcp_storage_stats_done(st);
        return;
    }

    prefix = gcp_object_prefix(st->arena, reg->resources[st->next], "");
    end = gcp_store_prefix_end(st->arena, prefix);
    st->label = gcp_storage_stats_label(st->arena, reg->resources[st->next]);

    st->next++;

    if (prefix.data == NULL || end.len == 0) {
        gcp_storage_stats_next(st);
        return;
    }

    gcp_store_range(st->api->store, prefix, end, 0, 0, 1, st->arena,
                    gcp_storage_stats_counted, st);
}


static void
gcp_storage_stats_tick(void *arg)
{
    gcp_storage_stats_t  *st = arg;

    st->timer = NULL;

    st->arena = gcp_arena_create(0);
    if (st->arena == NULL) {
        gcp_storage_stats_done(st);
        return;
    }

    st->next = 0;

    gcp_storage_stats_next(st);
}


gcp_storage_stats_t *
gcp_storage_stats_start(gcp_api_t *api, uint64_t interval_ms)
{
    gcp_storage_stats_t  *st;

    st = calloc(1, sizeof(gcp_storage_stats_t));
    if (st == NULL) {
        return NULL;
    }

    st->api = api;
    st->interval = interval_ms;

    st->timer = api->conf.loop->timer_add(api->conf.loop,
                                          GCP_STORAGE_STATS_FIRST_MS,
                                          gcp_storage_stats_tick, st);
    if (st->timer == NULL) {
        free(st);
        return NULL;
    }

    return st;
}


void
gcp_storage_stats_stop(gcp_storage_stats_t *st)
{
    if (st == NULL) {
        return;
    }

    if (st->timer) {
        st->api->conf.loop->timer_del(st->api->conf.loop, st->timer);
        st->timer = NULL;
    }

    if (st->arena) {
        /* a count in flight frees it */
        st->stopped = 1;
        return;
    }

    free(st);
}
