
/*
 * The admission chain (see gcp_admission.h).
 */

#include <stdio.h>
#include <stdlib.h>

#include "gcp_admission.h"
#include "gcp_log.h"
#include "gcp_metrics.h"
#include "gcp_time.h"
#include "gcp_validation.h"


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


void
gcp_admission_webhook_observe(gcp_admit_t *ad, const char *name,
    int64_t start_ns, gcp_admit_wh_result_t result, int code)
{
    int           rejected;
    char          status[16];
    const char   *type, *operation, *error_type;
    const char   *v[6];

    static const char * const  ops[] = { "CREATE", "UPDATE", "DELETE" };

    if (!gcp_metrics_on()) {
        return;
    }

    /* upstream's words: "admit" for both steps of a mutating webhook */

    type = ad->mutating ? "admit" : "validating";
    operation = ops[ad->operation];
    rejected = result == GCP_ADMIT_WH_FAILED || result == GCP_ADMIT_WH_DENIED
               || result == GCP_ADMIT_WH_INTERNAL;

    if (result == GCP_ADMIT_WH_ALLOWED) {
        code = 200;

    } else if (result == GCP_ADMIT_WH_INTERNAL) {
        code = 0;
    }

    snprintf(status, sizeof(status), "%d", gcp_min(code, 600));

    /* name, operation, rejected, type */

    v[0] = name;
    v[1] = operation;
    v[2] = rejected ? "true" : "false";
    v[3] = type;
    v[4] = NULL;

    gcp_metric_observe(GCP_M_ADMISSION_WEBHOOK, v,
                       (double) (gcp_time_mono_ns() - start_ns) / 1e9);

    /* code, name, operation, rejected, type */

    v[0] = status;
    v[1] = name;
    v[2] = operation;
    v[3] = rejected ? "true" : "false";
    v[4] = type;
    v[5] = NULL;

    gcp_metric_inc(GCP_M_ADMISSION_WEBHOOK_REQUESTS, v);

    if (result == GCP_ADMIT_WH_FAILED_OPEN) {
        v[0] = name;
        v[1] = type;
        v[2] = NULL;

        gcp_metric_inc(GCP_M_ADMISSION_WEBHOOK_FAIL_OPEN, v);
        return;
    }

    if (!rejected) {
        return;
    }

    /* error_type, name, operation, rejection_code, type */

    error_type = result == GCP_ADMIT_WH_FAILED ? "calling_webhook_error"
                 : result == GCP_ADMIT_WH_DENIED ? "no_error"
                 : "apiserver_internal_error";

    v[0] = error_type;
    v[1] = name;
    v[2] = operation;
    v[3] = status;
    v[4] = type;
    v[5] = NULL;

    gcp_metric_inc(GCP_M_ADMISSION_WEBHOOK_REJECTIONS, v);
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


/* upstream's checkKeyFormat */
static const char *
gcp_admission_key_error(gcp_arena_t *a, const char *key)
{
    size_t       i;
    gcp_buf_t    b;
    const char  *slash;
    gcp_msgs_t   m;

    slash = strchr(key, '/');

    if (slash == NULL || strchr(slash + 1, '/')) {
        return "annotation key has invalid format, the right format is a "
               "DNS subdomain prefix and '/' and key name. (e.g. "
               "'podsecuritypolicy.admission.k8s.io/admit-policy')";
    }

    if (gcp_is_qualified_name(key, strlen(key), &m)) {
        gcp_buf_init(&b, a);

        for (i = 0; i < m.n; i++) {
            gcp_buf_addstr(&b, i ? "," : "");
            gcp_buf_addstr(&b, m.msg[i]);
        }

        return gcp_sprintf(a, "annotation key has invalid format %s. A "
                           "qualified name like 'podsecuritypolicy."
                           "admission.k8s.io/admit-policy' is required.",
                           gcp_buf_cstr(&b));
    }

    return NULL;
}


int
gcp_admission_annotate(gcp_admit_t *ad, const char *key, const char *value,
    int request_level)
{
    int          rc;
    const char  *err;

    err = gcp_admission_key_error(ad->op->a, key);

    if (err == NULL) {
        rc = gcp_op_annotate(ad->op, key, value, request_level);

        if (rc == GCP_EEXISTS) {
            err = "admission annotations are not allowed to be overwritten";
        }

    } else {
        rc = GCP_EINVALID;
    }

    if (err) {
        gcp_log(GCP_LOG_WARN, "failed to set admission audit annotation "
                "%s to %s: %s", key, value, err);
    }

    return rc;
}
