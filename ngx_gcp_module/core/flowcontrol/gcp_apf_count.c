
/*
 * The number of stored objects of each resource, for the work estimate of
 * lists (upstream's storage object count tracker): every minute, one
 * count-only range per storage prefix; a resource not counted yet is
 * unknown.
 */

#include <stdlib.h>

#include "gcp_apf.h"
#include "gcp_object.h"
#include "gcp_registry.h"


#define GCP_APF_COUNT_MS  60000


typedef struct {
    const char  *storage;           /* the descriptor's */
    int64_t      count;             /* -1: not counted yet */
} gcp_apf_count_t;


/* One round of counting. */
typedef struct {
    gcp_apf_counts_t  *counts;      /* NULL once the counts are freed */
    gcp_arena_t       *arena;
    size_t             pending;
} gcp_apf_round_t;


typedef struct {
    gcp_apf_round_t   *round;
    size_t             i;
} gcp_apf_ask_t;


struct gcp_apf_counts_s {
    gcp_api_t          *api;
    gcp_apf_count_t    *v;
    size_t              n;
    gcp_loop_timer_t   *timer;
    gcp_apf_round_t    *round;      /* in flight */
};


static void gcp_apf_counts_refresh(void *arg);


static void
gcp_apf_round_end(gcp_apf_round_t *round)
{
    if (--round->pending > 0) {
        return;
    }

    if (round->counts) {
        round->counts->round = NULL;
    }

    gcp_arena_destroy(round->arena);
    free(round);
}


static void
gcp_apf_counted(void *arg, gcp_store_result_t *res)
{
    gcp_apf_ask_t    *ask = arg;
    gcp_apf_round_t  *round = ask->round;

    if (round->counts && res->rc == GCP_OK) {
        round->counts->v[ask->i].count = res->count;
    }

    gcp_apf_round_end(round);
}


static void
gcp_apf_counts_refresh(void *arg)
{
    size_t              i;
    gcp_str_t           prefix;
    gcp_api_t          *api;
    gcp_apf_ask_t      *ask;
    gcp_apf_counts_t   *c = arg;
    gcp_apf_round_t    *round;

    api = c->api;
    c->timer = api->conf.loop->timer_add(api->conf.loop, GCP_APF_COUNT_MS,
                                         gcp_apf_counts_refresh, c);

    if (c->round) {
        return;
    }

    round = calloc(1, sizeof(gcp_apf_round_t));
    if (round == NULL) {
        return;
    }

    round->arena = gcp_arena_create(0);
    if (round->arena == NULL) {
        free(round);
        return;
    }

    round->counts = c;
    round->pending = 1;
    c->round = round;

    for (i = 0; i < c->n; i++) {
        ask = gcp_alloc(round->arena, sizeof(gcp_apf_ask_t));
        prefix.data = gcp_sprintf(round->arena, "/registry/%s/",
                                  c->v[i].storage);

        if (ask == NULL || prefix.data == NULL) {
            break;
        }

        prefix.len = strlen(prefix.data);
        ask->round = round;
        ask->i = i;
        round->pending++;

        gcp_store_range(api->store, prefix,
                        gcp_store_prefix_end(round->arena, prefix), 0, 0, 1,
                        round->arena, gcp_apf_counted, ask);
    }

    gcp_apf_round_end(round);
}


gcp_apf_counts_t *
gcp_apf_counts_create(gcp_api_t *api)
{
    size_t                 i, k;
    gcp_apf_counts_t      *c;
    const gcp_resource_t  *res;

    c = calloc(1, sizeof(gcp_apf_counts_t));
    if (c == NULL) {
        return NULL;
    }

    c->api = api;
    c->v = calloc(api->registry->n + 1, sizeof(gcp_apf_count_t));

    if (c->v == NULL) {
        free(c);
        return NULL;
    }

    for (i = 0; i < api->registry->n; i++) {
        res = api->registry->resources[i];

        if (res->storage == NULL || !(res->verbs & GCP_VERB_LIST)) {
            continue;
        }

        for (k = 0; k < c->n; k++) {
            if (strcmp(c->v[k].storage, res->storage) == 0) {
                break;
            }
        }

        if (k == c->n) {
            c->v[c->n].storage = res->storage;
            c->v[c->n].count = -1;
            c->n++;
        }
    }

    gcp_apf_counts_refresh(c);

    return c;
}


void
gcp_apf_counts_free(gcp_apf_counts_t *c)
{
    if (c == NULL) {
        return;
    }

    if (c->timer) {
        c->api->conf.loop->timer_del(c->api->conf.loop, c->timer);
    }

    if (c->round) {
        /* the answers still in flight find no counts */
        c->round->counts = NULL;
    }

    free(c->v);
    free(c);
}


int64_t
gcp_apf_counts_get(gcp_apf_counts_t *c, const gcp_resource_t *res)
{
    size_t  i;

    for (i = 0; c && res && res->storage && i < c->n; i++) {
        if (strcmp(c->v[i].storage, res->storage) == 0) {
            return c->v[i].count;
        }
    }

    return -1;
}
