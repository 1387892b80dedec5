
/*
 * Objects created at first start, if absent (gcp_seed.h).
 */

#include <stdlib.h>

#include "gcp_seed.h"


typedef struct {
    gcp_store_t       *store;
    gcp_arena_t       *a;
    size_t             next;
    size_t             n;
    int                rc;
    gcp_seed_make_pt   make;
    void              *data;
    void             (*done)(void *arg, int rc);
    void              *arg;
} gcp_seed_t;


static void gcp_seed_next(gcp_seed_t *s);


static void
gcp_seed_created(void *arg, gcp_store_result_t *res)
{
    gcp_seed_t  *s = arg;

    if (res->rc != GCP_OK && res->rc != GCP_EEXISTS) {
        s->rc = res->rc;
    }

    gcp_seed_next(s);
}


static void
gcp_seed_next(gcp_seed_t *s)
{
    gcp_str_t  key, value;

    if (s->rc == GCP_OK && s->next < s->n) {
        s->rc = s->make(s->data, s->next++, s->a, &key, &value);

        if (s->rc == GCP_OK) {
            gcp_store_create(s->store, key, value, s->a, gcp_seed_created,
                             s);
            return;
        }
    }

    s->done(s->arg, s->rc);
    gcp_arena_destroy(s->a);
    free(s);
}


void
gcp_seed(gcp_store_t *store, size_t n, gcp_seed_make_pt make, void *data,
    void (*done)(void *arg, int rc), void *arg)
{
    gcp_seed_t  *s;

    s = calloc(1, sizeof(gcp_seed_t));
    if (s == NULL || (s->a = gcp_arena_create(0)) == NULL) {
        free(s);
        done(arg, GCP_ENOMEM);
        return;
    }

    s->store = store;
    s->n = n;
    s->make = make;
    s->data = data;
    s->done = done;
    s->arg = arg;

    gcp_seed_next(s);
}
