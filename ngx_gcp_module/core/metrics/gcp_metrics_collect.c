
/*
 * Collected families (see gcp_metrics.h): the collectors of this process
 * and the series they give for one scrape.
 */

#include "gcp_metrics_int.h"


#define GCP_METRICS_COLLECTORS  4


typedef struct {
    gcp_metrics_collect_pt   fn;
    void                    *data;
    unsigned                 refs;      /* added more than once: once */
} gcp_metrics_collector_t;


static gcp_metrics_collector_t  gcp_metrics_collectors[GCP_METRICS_COLLECTORS];


int
gcp_metrics_collector_add(gcp_metrics_collect_pt fn, void *data)
{
    int                       i;
    gcp_metrics_collector_t  *c, *free;

    free = NULL;

    for (i = 0; i < GCP_METRICS_COLLECTORS; i++) {
        c = &gcp_metrics_collectors[i];

        if (c->fn == fn && c->data == data) {
            c->refs++;
            return GCP_OK;
        }

        if (c->fn == NULL && free == NULL) {
            free = c;
        }
    }

    if (free == NULL) {
        return GCP_ENOMEM;
    }

    free->fn = fn;
    free->data = data;
    free->refs = 1;

    return GCP_OK;
}


void
gcp_metrics_collector_del(gcp_metrics_collect_pt fn, void *data)
{
    int                       i;
    gcp_metrics_collector_t  *c;

    for (i = 0; i < GCP_METRICS_COLLECTORS; i++) {
        c = &gcp_metrics_collectors[i];

        if (c->fn == fn && c->data == data) {
            if (--c->refs == 0) {
                c->fn = NULL;
                c->data = NULL;
            }

            return;
        }
    }
}


gcp_metrics_scrape_t *
gcp_metrics_collect(gcp_arena_t *a)
{
    int                    i;
    gcp_metrics_scrape_t  *s;

    s = gcp_calloc(a, sizeof(gcp_metrics_scrape_t));
    if (s == NULL) {
        return NULL;
    }

    s->arena = a;

    for (i = 0; i < GCP_METRICS_COLLECTORS; i++) {
        if (gcp_metrics_collectors[i].fn) {
            gcp_metrics_collectors[i].fn(s, gcp_metrics_collectors[i].data);
        }
    }

    return s;
}


void
gcp_metrics_put(gcp_metrics_scrape_t *s, gcp_metric_id_t id,
    const char * const *labels, double v)
{
    char                     key[GCP_METRICS_KEY];
    size_t                   len;
    gcp_metric_slot_t       *slot;
    const gcp_metric_def_t  *d;

    d = gcp_metric_def(id);

    if (!d->collected) {
        return;
    }

    if (s->n[id] == d->max_series
        || gcp_metrics_key(d, labels, key, &len) != GCP_OK)
    {
        gcp_metric_inc(GCP_M_SERIES_OVERFLOW, &d->name);
        return;
    }

    if (s->slots[id] == NULL) {
        s->slots[id] = gcp_alloc(s->arena, d->max_series
                                           * sizeof(gcp_metric_slot_t *));
        if (s->slots[id] == NULL) {
            return;
        }
    }

    slot = gcp_calloc(s->arena, sizeof(gcp_metric_slot_t) + sizeof(double));
    if (slot == NULL) {
        return;
    }

    slot->state = GCP_METRICS_READY;
    slot->keylen = (uint32_t) len;
    memcpy(slot->key, key, len);
    memcpy(&slot->v[0], &v, sizeof(double));

    s->slots[id][s->n[id]++] = slot;
}


double
gcp_metrics_collected_value(const gcp_metric_slot_t *s)
{
    double  v;

    memcpy(&v, &s->v[0], sizeof(double));

    return v;
}
