
/*
 * ValidatingAdmissionWebhook (see gcp_webhook.h), as upstream's
 * validating dispatcher: every webhook that matches is called at once, in
 * parallel; the request goes on when all have allowed it (or failed and
 * are ignored).  When several refuse, the first in the webhooks' order
 * answers (upstream takes whichever its goroutines report first).  A
 * failure that is ignored leaves the audit annotation
 * failed-open.validating.webhook.admission.k8s.io/round_0_index_I.
 */

#include <stdio.h>

#include "gcp_plugins.h"
#include "gcp_time.h"
#include "gcp_webhook.h"


typedef struct gcp_whval_s  gcp_whval_t;

/* One call in flight. */
typedef struct {
    gcp_whval_t                *v;
    gcp_webhook_invocation_t    inv;
    gcp_webhook_review_t        rv;
    const char                 *failure;    /* a call failure */
    int                         code;       /* its HTTP status, for the */
                                            /* metrics */
    int64_t                     start_ns;   /* of the call (monotonic) */
    const json_t               *denied;     /* the status of a denial */
    unsigned                    bad:1;      /* denied, or 400 for a dry */
                                            /* run: answer with it */
    unsigned                    done:1;
} gcp_whval_call_t;


struct gcp_whval_s {
    gcp_webhook_plugin_t       *p;
    gcp_admit_t                *ad;
    gcp_admit_done_pt           done;
    gcp_webhook_set_t          *set;
    gcp_webhook_ns_t            ns;
    gcp_whval_call_t           *calls;
    size_t                      ncalls;
    size_t                      pending;
    size_t                      next;       /* matching: the next hook */
    unsigned                    starting:1; /* calls are being started */
};


static void gcp_whval_match(gcp_whval_t *v);


/* Every call is over: the first refusal or failure answers. */
static void
gcp_whval_end(gcp_whval_t *v)
{
    int                   rc;
    size_t                i;
    gcp_whval_call_t     *c;
    gcp_admit_t          *ad = v->ad;
    const gcp_webhook_t  *h;

    for (i = 0; i < v->ncalls; i++) {
        c = &v->calls[i];
        h = c->inv.hook;

        if (c->bad) {
            rc = c->denied ? gcp_webhook_deny(ad, h, c->denied)
                           : GCP_EBADREQUEST;
            v->done(ad, rc);
            return;
        }

        if (c->failure && !h->ignore) {
            v->done(ad, gcp_webhook_fail(ad, h, c->failure));
            return;
        }
    }

    v->done(ad, GCP_OK);
}


static void
gcp_whval_finished(gcp_whval_call_t *c)
{
    gcp_whval_t          *v = c->v;
    gcp_admit_t          *ad = v->ad;
    const gcp_webhook_t  *h = c->inv.hook;

    c->done = 1;

    gcp_admission_webhook_observe(ad, h->name, c->start_ns,
                                  c->denied ? GCP_ADMIT_WH_DENIED
                                  : c->bad ? GCP_ADMIT_WH_INTERNAL
                                  : c->failure == NULL ? GCP_ADMIT_WH_ALLOWED
                                  : h->ignore ? GCP_ADMIT_WH_FAILED_OPEN
                                  : GCP_ADMIT_WH_FAILED,
                                  c->denied ? gcp_webhook_deny_code(c->denied)
                                            : c->code);

    if (c->failure) {
        gcp_webhook_log_failure(v->p, h, c->failure);
    }

    if (c->failure && h->ignore) {
        (void) gcp_admission_annotate(ad,
                   gcp_sprintf(ad->op->a, "failed-open.validating.webhook."
                               "admission.k8s.io/round_0_index_%zu",
                               c->inv.index),
                   h->name, 0);
    }

    if (--v->pending == 0 && !v->starting) {
        gcp_whval_end(v);
    }
}


static void
gcp_whval_reply(void *arg, const gcp_webhook_reply_t *r)
{
    const char              *err;
    gcp_whval_call_t        *c = arg;
    gcp_admit_t             *ad = c->v->ad;
    gcp_webhook_response_t   resp;

    if (r->rc != GCP_OK) {
        c->failure = gcp_sprintf(ad->op->a, "failed to call webhook: %s",
                                 r->error);
        c->code = gcp_webhook_failure_code(r, 0);

    } else if (gcp_webhook_review_response(ad, c->inv.hook, &c->rv, r->json,
                                           &resp, &err)
               != GCP_OK)
    {
        c->failure = err;
        c->code = 503;

    } else if (!resp.allowed) {
        c->bad = 1;
        c->denied = resp.status;
    }

    gcp_whval_finished(c);
}


static void
gcp_whval_call(gcp_whval_call_t *c)
{
    int          rc;
    json_t      *sent;
    const char  *why;

    c->start_ns = gcp_time_mono_ns();

    rc = gcp_webhook_call(c->v->p, c->v->ad, &c->inv, &c->rv, &sent, &why,
                          gcp_whval_reply, c);

    if (rc == GCP_OK) {
        return;
    }

    /* answered already (a dry run refused, no memory): that stands */

    c->bad = rc != GCP_EUNAVAILABLE;
    c->failure = why;
    c->code = 400;          /* upstream's "error getting REST client" */

    gcp_whval_finished(c);
}


/* Every matching webhook found: call them all. */
static void
gcp_whval_start(gcp_whval_t *v)
{
    size_t  i;

    if (v->ncalls == 0) {
        v->done(v->ad, GCP_OK);
        return;
    }

    v->pending = v->ncalls;
    v->starting = 1;

    for (i = 0; i < v->ncalls; i++) {
        gcp_whval_call(&v->calls[i]);
    }

    v->starting = 0;

    if (v->pending == 0) {
        gcp_whval_end(v);
    }
}


static void
gcp_whval_ns_read(void *arg)
{
    gcp_whval_match(arg);
}


/* Finds the webhooks to call (reading the namespace when needed). */
static void
gcp_whval_match(gcp_whval_t *v)
{
    int                        sel;
    gcp_admit_t               *ad = v->ad;
    gcp_op_t                  *op = ad->op;
    gcp_whval_call_t          *c;
    const gcp_webhook_t       *h;
    gcp_webhook_invocation_t   inv;

    while (v->next < v->set->n) {
        h = v->set->hooks[v->next];

        if (!gcp_webhook_rules_match(h, ad, &inv)) {
            v->next++;
            continue;
        }

        if (gcp_webhook_needs_namespace(h, ad, &v->ns)) {
            gcp_webhook_read_namespace(ad, &v->ns, gcp_whval_ns_read, v);
            return;
        }

        sel = gcp_webhook_selectors_match(h, ad, &v->ns);

        if (sel < 0) {
            v->done(ad, gcp_webhook_namespace_missing(ad));
            return;
        }

        if (h->sel_error) {
            gcp_op_error(op, GCP_EINTERNAL,
                         gcp_sprintf(op->a, "Internal error occurred: %s",
                                     h->sel_error), NULL);
            v->done(ad, GCP_EINTERNAL);
            return;
        }

        inv.index = v->next++;

        if (sel) {
            c = &v->calls[v->ncalls++];
            c->v = v;
            c->inv = inv;
        }
    }

    gcp_whval_start(v);
}


static void
gcp_whval_validate(void *data, gcp_admit_t *ad, gcp_admit_done_pt done)
{
    gcp_op_t              *op = ad->op;
    gcp_whval_t           *v;
    gcp_webhook_plugin_t  *p = data;

    if (gcp_webhook_exempt(ad)) {
        done(ad, GCP_OK);
        return;
    }

    v = gcp_calloc(op->a, sizeof(gcp_whval_t));
    if (v == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        done(ad, GCP_ENOMEM);
        return;
    }

    v->p = p;
    v->ad = ad;
    v->done = done;
    v->set = gcp_webhook_config_get(p, op->a);

    if (v->set) {
        v->calls = gcp_calloc(op->a,
                              (v->set->n + 1) * sizeof(gcp_whval_call_t));
    }

    if (v->set == NULL || v->calls == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        done(ad, GCP_ENOMEM);
        return;
    }

    gcp_whval_match(v);
}


int
gcp_webhook_validating_plugin(gcp_api_t *api,
    const gcp_admission_args_t *args, gcp_admission_plugin_t *plugin,
    char *err, size_t errlen)
{
    if (gcp_admission_no_args(args, err, errlen) != GCP_OK) {
        return GCP_EBADREQUEST;
    }

    if (plugin == NULL) {
        return GCP_OK;
    }

    plugin->data = gcp_webhook_plugin_create(api, 0);
    if (plugin->data == NULL) {
        snprintf(err, errlen, "out of memory");
        return GCP_ENOMEM;
    }

    plugin->validate = gcp_whval_validate;
    plugin->free = gcp_webhook_plugin_free;

    return GCP_OK;
}
