
/*
 * The admission chain (see gcp_admission.h).
 */

#include <stdlib.h>

#include "gcp_admission.h"


typedef struct {
    gcp_admission_plugin_t  *plugins;
    size_t                   n;
} gcp_admission_chain_t;


int
gcp_admission_register(gcp_api_t *api, const gcp_admission_plugin_t *plugin)
{
    gcp_admission_plugin_t  *p;
    gcp_admission_chain_t   *c = api->admission;

    if (c == NULL) {
        c = calloc(1, sizeof(gcp_admission_chain_t));
        if (c == NULL) {
            return GCP_ENOMEM;
        }

        api->admission = c;
    }

    p = realloc(c->plugins, (c->n + 1) * sizeof(gcp_admission_plugin_t));
    if (p == NULL) {
        return GCP_ENOMEM;
    }

    p[c->n++] = *plugin;
    c->plugins = p;

    return GCP_OK;
}


void
gcp_admission_free(gcp_api_t *api)
{
    gcp_admission_chain_t  *c = api->admission;

    if (c) {
        free(c->plugins);
        free(c);
        api->admission = NULL;
    }
}


static void gcp_admission_step(gcp_admit_t *ad, int rc);


static void
gcp_admission_next(gcp_admit_t *ad)
{
    gcp_admission_plugin_t  *p;
    gcp_admission_chain_t   *c = ad->op->api->admission;

    while (c && ad->next < c->n) {
        p = &c->plugins[ad->next++];

        if (p->mutating == ad->mutating) {
            p->admit(p->data, ad, gcp_admission_step);
            return;
        }
    }

    ad->done(ad, GCP_OK);
}


static void
gcp_admission_step(gcp_admit_t *ad, int rc)
{
    if (rc != GCP_OK) {
        ad->done(ad, rc);
        return;
    }

    gcp_admission_next(ad);
}


void
gcp_admission_mutate(gcp_admit_t *ad, gcp_admit_done_pt done)
{
    ad->next = 0;
    ad->mutating = 1;
    ad->done = done;

    gcp_admission_next(ad);
}


void
gcp_admission_validate(gcp_admit_t *ad, gcp_admit_done_pt done)
{
    ad->next = 0;
    ad->mutating = 0;
    ad->done = done;

    gcp_admission_next(ad);
}
