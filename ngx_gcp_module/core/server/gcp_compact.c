
/*
 * Scheduled compaction (see gcp_compact.h).
 */

#include <stdlib.h>

#include "gcp_compact.h"


struct gcp_compactor_s {
    gcp_store_t       *store;
    gcp_loop_t        *loop;
    gcp_loop_timer_t  *timer;
    uint64_t           interval;
    int64_t            prev;        /* the revision one interval ago */
    int64_t            last;        /* last compaction asked for */
    gcp_arena_t       *arena;       /* of the operation in flight */
    unsigned           busy:1;
    unsigned           stopped:1;
};


static void gcp_compactor_tick(void *arg);


static void
gcp_compactor_schedule(gcp_compactor_t *c)
{
    c->timer = c->loop->timer_add(c->loop, c->interval, gcp_compactor_tick,
                                  c);
}


static void
gcp_compactor_finish(gcp_compactor_t *c)
{
    gcp_arena_destroy(c->arena);
    c->arena = NULL;
    c->busy = 0;

    if (c->stopped) {
        free(c);
    }
}


static void
gcp_compactor_compacted(void *arg, gcp_store_result_t *res)
{
    gcp_compactor_finish(arg);
}


static void
gcp_compactor_revision(void *arg, gcp_store_result_t *res)
{
    int64_t           target;
    gcp_compactor_t  *c = arg;

    if (c->stopped || (res->rc != GCP_OK && res->rc != GCP_ENOTFOUND)) {
        gcp_compactor_finish(c);
        return;
    }

    target = c->prev;
    c->prev = res->revision;

    if (target <= 0 || target <= res->compact_revision) {
        /* first tick, or someone compacted further already */
        gcp_compactor_finish(c);
        return;
    }

    c->last = target;

    gcp_store_compact(c->store, target, c->arena, gcp_compactor_compacted,
                      c);
}


static void
gcp_compactor_tick(void *arg)
{
    gcp_compactor_t  *c = arg;

    c->timer = NULL;
    gcp_compactor_schedule(c);

    if (c->busy) {
        return;
    }

    c->arena = gcp_arena_create(0);
    if (c->arena == NULL) {
        return;
    }

    c->busy = 1;

    /* a read of any key tells the current and the compacted revisions */

    gcp_store_get(c->store, (gcp_str_t) gcp_string("/registry/compactor"),
                  0, c->arena, gcp_compactor_revision, c);
}


gcp_compactor_t *
gcp_compactor_start(gcp_store_t *store, gcp_loop_t *loop,
    uint64_t interval_ms)
{
    gcp_compactor_t  *c;

    c = calloc(1, sizeof(gcp_compactor_t));
    if (c == NULL) {
        return NULL;
    }

    c->store = store;
    c->loop = loop;
    c->interval = interval_ms;

    gcp_compactor_schedule(c);

    if (c->timer == NULL) {
        free(c);
        return NULL;
    }

    return c;
}


void
gcp_compactor_stop(gcp_compactor_t *c)
{
    if (c == NULL) {
        return;
    }

    if (c->timer) {
        c->loop->timer_del(c->loop, c->timer);
        c->timer = NULL;
    }

    c->stopped = 1;

    if (!c->busy) {
        free(c);
    }
}


int64_t
gcp_compactor_last(const gcp_compactor_t *c)
{
    return c->last;
}
