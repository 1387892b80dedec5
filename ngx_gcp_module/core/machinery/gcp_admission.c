
/*
 * The admission chain (see gcp_admission.h).
 */

#include <stdio.h>
#include <stdlib.h>

#include "gcp_admission.h"
#include "gcp_metrics.h"
#include "gcp_time.h"


typedef struct {
    gcp_admission_plugin_t   plugins[GCP_ADMISSION_MAX_PLUGINS];
    size_t                   n;
} gcp_admission_chain_t;


int
gcp_admission_register(gcp_api_t *api, const gcp_admission_plugin_t *plugin)
{
    gcp_admission_chain_t  *c = api->admission;

    if (c == NULL) {
        c = calloc(1, sizeof(gcp_admission_chain_t));
        if (c == NULL) {
            if (plugin->free) {
                plugin->free(plugin->data);
            }

            return GCP_ENOMEM;
        }

        api->admission = c;
    }

    if (c->n == GCP_ADMISSION_MAX_PLUGINS) {
        if (plugin->free) {
            plugin->free(plugin->data);
        }

        return GCP_ETOOMANY;
    }

    c->plugins[c->n++] = *plugin;

    return GCP_OK;
}


int
gcp_admission_index(gcp_api_t *api, const char *name)
{
    size_t                  i;
    gcp_admission_chain_t  *c = api->admission;

    for (i = 0; c && i < c->n; i++) {
        if (strcmp(c->plugins[i].name, name) == 0) {
            return (int) i;
        }
    }

    return -1;
}


int
gcp_admission_no_args(const gcp_admission_args_t *args, char *err,
    size_t errlen)
{
    if (args == NULL || args->nargs == 0) {
        return GCP_OK;
    }

    snprintf(err, errlen, "admission plugin \"%s\" takes no arguments",
             args->name);

    return GCP_EBADREQUEST;
}


void
gcp_admission_free(gcp_api_t *api)
{
    size_t                  i;
    gcp_admission_chain_t  *c = api->admission;

    if (c == NULL) {
        return;
    }

    for (i = 0; i < c->n; i++) {
        if (c->plugins[i].free) {
            c->plugins[i].free(c->plugins[i].data);
        }
    }

    free(c);
    api->admission = NULL;
}


void
gcp_admission_init(gcp_admit_t *ad, gcp_op_t *op, gcp_admit_op_t operation,
    json_t *obj, const json_t *old, const char *name, int dry_run)
{
    static const char * const  options[] = {
        "CreateOptions", "UpdateOptions", "DeleteOptions"
    };

    memset(ad, 0, sizeof(gcp_admit_t));

    ad->op = op;
    ad->operation = operation;
    ad->obj = obj;
    ad->old = old;
    ad->name = name ? name : "";
    ad->options = options[operation];
    ad->dry_run = dry_run ? 1 : 0;
}


static void gcp_admission_step(gcp_admit_t *ad, int rc);



/*
 * apiserver_admission_step_admission_duration_seconds (name NULL) or
 * _controller_ (a plugin's): operation, rejected, type ("admit" for the
 * mutating step, "validate").
 */

static void
gcp_admission_observe(gcp_admit_t *ad, const char *name, int64_t start,
    int rc)
{
    size_t       n;
    const char  *v[5];

    static const char * const  ops[] = { "CREATE", "UPDATE", "DELETE" };

    if (!gcp_metrics_on()) {
        return;
    }

    n = 0;

    if (name) {
        v[n++] = name;
    }

    v[n++] = ops[ad->operation];
    v[n++] = rc == GCP_OK ? "false" : "true";
    v[n++] = ad->mutating ? "admit" : "validate";
    v[n] = NULL;

    gcp_metric_observe(name ? GCP_M_ADMISSION_CONTROLLER
                            : GCP_M_ADMISSION_STEP, v,
                       (double) (gcp_time_mono_ns() - start) / 1e9);
}


static void
gcp_admission_end(gcp_admit_t *ad, int rc)
{
    gcp_admission_observe(ad, NULL, ad->step_ns, rc);

    ad->done(ad, rc);
}


static void
gcp_admission_next(gcp_admit_t *ad)
{
    gcp_admission_plugin_t  *p;
    gcp_admission_chain_t   *c = ad->op->api->admission;

    while (c && ad->next < c->n) {
        p = &c->plugins[ad->next++];

        if (ad->mutating ? p->admit == NULL : p->validate == NULL) {
            continue;
        }

        ad->plugin = p->name;
        ad->plugin_ns = gcp_time_mono_ns();

        if (ad->mutating) {
            p->admit(p->data, ad, gcp_admission_step);

        } else {
            p->validate(p->data, ad, gcp_admission_step);
        }

        return;
    }

    if (ad->mutating && ad->reinvoke && !ad->round) {
        /* upstream's reinvocation: every mutating step once more */
        ad->round = 1;
        ad->reinvoke = 0;
        ad->next = 0;

        gcp_admission_next(ad);
        return;
    }

    gcp_admission_end(ad, GCP_OK);
}


static void
gcp_admission_step(gcp_admit_t *ad, int rc)
{
    gcp_admission_observe(ad, ad->plugin, ad->plugin_ns, rc);

    if (rc != GCP_OK) {
        gcp_admission_end(ad, rc);
        return;
    }

    gcp_admission_next(ad);
}


void
gcp_admission_mutate(gcp_admit_t *ad, gcp_admit_done_pt done)
{
    ad->next = 0;
    ad->mutating = 1;
    ad->round = 0;
    ad->reinvoke = 0;
    ad->done = done;
    ad->step_ns = gcp_time_mono_ns();

    gcp_admission_next(ad);
}


void
gcp_admission_validate(gcp_admit_t *ad, gcp_admit_done_pt done)
{
    ad->next = 0;
    ad->mutating = 0;
    ad->done = done;
    ad->step_ns = gcp_time_mono_ns();

    gcp_admission_next(ad);
}


void **
gcp_admission_slot(gcp_admit_t *ad)
{
    return &ad->ctx[ad->next ? ad->next - 1 : 0];
}


int
gcp_admission_annotate(gcp_admit_t *ad, const char *key, const char *value)
{
    gcp_admit_note_t  *n;

    for (n = ad->notes; n; n = n->next) {
        if (strcmp(n->key, key) == 0) {
            return GCP_OK;
        }
    }

    n = gcp_alloc(ad->op->a, sizeof(gcp_admit_note_t));
    if (n == NULL) {
        return GCP_ENOMEM;
    }

    n->key = gcp_strdup(ad->op->a, key);
    n->value = gcp_strdup(ad->op->a, value);

    if (n->key == NULL || n->value == NULL) {
        return GCP_ENOMEM;
    }

    n->next = ad->notes;
    ad->notes = n;

    return GCP_OK;
}
