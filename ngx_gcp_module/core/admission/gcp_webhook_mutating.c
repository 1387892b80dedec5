
/*
 * MutatingAdmissionWebhook (see gcp_webhook.h), as upstream's mutating
 * dispatcher: the webhooks that match are called one after the other, in
 * order, each with the object as the ones before left it; an allowed
 * answer's JSONPatch is applied to the object in the form the webhook got
 * (an equivalent resource's, converted back after), which must still
 * decode as its type.  A call that fails goes by the webhook's failure
 * policy: Ignore goes on (an audit annotation says so), Fail answers 500.
 * A denial answers the webhook's status.
 *
 * Reinvocation: when a webhook changes the object, the chain's mutating
 * steps run once more (gcp_admission.c); then only the webhooks with
 * reinvocationPolicy IfNeeded that were called before that change (or
 * before the object changed under other plugins) are called again.
 *
 * Audit annotations as upstream: mutation.webhook.admission.k8s.io/
 * round_R_index_I (whether the object changed), patch.webhook...
 * (the patch), failed-open.mutation.webhook... (an ignored failure).
 */

#include <stdio.h>

#include "gcp_json.h"
#include "gcp_patch.h"
#include "gcp_plugins.h"
#include "gcp_reg.h"
#include "gcp_time.h"
#include "gcp_webhook.h"


/* The plugin's state for one request. */
typedef struct {
    gcp_webhook_plugin_t       *p;
    gcp_admit_t                *ad;
    gcp_admit_done_pt           done;
    gcp_webhook_set_t          *set;
    size_t                      next;       /* the hook to look at */
    gcp_webhook_ns_t            ns;

    const char                **invoked;    /* IfNeeded ones called */
    size_t                      ninvoked;
    const char                **again;      /* to call in round 1 */
    size_t                      nagain;
    json_t                     *last;       /* the object as we left it */

    gcp_webhook_invocation_t    inv;
    gcp_webhook_review_t        rv;
    json_t                     *sent;       /* the object as sent */
    int64_t                     start_ns;   /* of the call (monotonic) */
    unsigned                    changed:1;
} gcp_whmut_t;


static void gcp_whmut_next(gcp_whmut_t *m);
static void gcp_whmut_after(gcp_whmut_t *m, const char *failure,
    int code);


static int
gcp_whmut_has(const char **set, size_t n, const char *id)
{
    size_t  i;

    for (i = 0; i < n; i++) {
        if (strcmp(set[i], id) == 0) {
            return 1;
        }
    }

    return 0;
}


/* RequireReinvokingPreviouslyInvokedPlugins */
static void
gcp_whmut_require_reinvoke(gcp_whmut_t *m)
{
    size_t  i;

    for (i = 0; i < m->ninvoked; i++) {
        if (!gcp_whmut_has(m->again, m->nagain, m->invoked[i])) {
            m->again[m->nagain++] = m->invoked[i];
        }
    }

    m->ninvoked = 0;
}


static void
gcp_whmut_annotate(gcp_whmut_t *m, const char *prefix, const char *value,
    int request_level)
{
    gcp_admit_t  *ad = m->ad;

    (void) gcp_admission_annotate(ad,
               gcp_sprintf(ad->op->a, "%sround_%d_index_%zu", prefix,
                           (int) ad->round, m->inv.index),
               value, request_level);
}


/* {"configuration":C,"webhook":W,...} */
static const char *
gcp_whmut_note(gcp_whmut_t *m, const char *rest)
{
    gcp_buf_t             b;
    const gcp_webhook_t  *h = m->inv.hook;

    gcp_buf_init(&b, m->ad->op->a);
    gcp_buf_addstr(&b, "{\"configuration\":");
    gcp_json_add_string(&b, h->config, strlen(h->config));
    gcp_buf_addstr(&b, ",\"webhook\":");
    gcp_json_add_string(&b, h->name, strlen(h->name));
    gcp_buf_addstr(&b, rest);
    gcp_buf_addc(&b, '}');

    return gcp_buf_failed(&b) ? "" : gcp_buf_cstr(&b);
}


/*
 * A call is over, however it ended: its mutation annotation (upstream
 * adds it whatever happens) and its metrics.
 */
static void
gcp_whmut_ended(gcp_whmut_t *m, gcp_admit_wh_result_t result, int code)
{
    gcp_whmut_annotate(m, "mutation.webhook.admission.k8s.io/",
                       gcp_whmut_note(m, m->changed ? ",\"mutated\":true"
                                                    : ",\"mutated\":false"),
                       0);

    gcp_admission_webhook_observe(m->ad, m->inv.hook->name, m->start_ns,
                                  result, code);
}


static void
gcp_whmut_finish(gcp_whmut_t *m, int rc)
{
    gcp_admit_t  *ad = m->ad;

    /*
     * What the object was, to tell whether other plugins change it, only
     * when a webhook of this round would be called again for that
     */

    m->last = NULL;

    if (rc == GCP_OK && m->ninvoked) {
        m->last = gcp_json_arena(ad->op->a, json_deep_copy(ad->obj));
    }

    m->done(ad, rc);
}


/*
 * Applies an allowed answer's patch to the object as sent.  Returns
 * GCP_OK (m->changed set), or the error after responding; *failure is set
 * instead when the patch cannot be decoded (a call failure).
 */
static int
gcp_whmut_patch(gcp_whmut_t *m, gcp_str_t patch, const char **failure)
{
    json_t        *ops, *out, *obj, *e;
    size_t         i;
    gcp_admit_t   *ad = m->ad;
    gcp_op_t      *op = ad->op;
    const char    *msg;
    gcp_buf_t      b;

    ops = gcp_json_parse(op->a, patch.data, patch.len, &msg);

    if (ops && json_is_array(ops)) {
        json_array_foreach(ops, i, e) {
            if (!json_is_object(e)) {
                msg = "json: cannot unmarshal into Go value of type "
                      "jsonpatch.Operation";
                ops = NULL;
                break;
            }
        }

    } else if (ops) {
        msg = gcp_sprintf(op->a, "json: cannot unmarshal %s into Go value "
                          "of type jsonpatch.Patch", gcp_json_go_kind(ops));
        ops = NULL;
    }

    if (ops == NULL) {
        *failure = gcp_sprintf(op->a, "received undecodable patch in "
                               "webhook response: %s", msg);
        return GCP_OK;
    }

    if (json_array_size(ops) == 0) {
        return GCP_OK;
    }

    if (m->sent == NULL) {
        gcp_op_error(op, GCP_EINTERNAL,
                     gcp_sprintf(op->a, "Internal error occurred: admission "
                                 "webhook %s attempted to modify the "
                                 "object, which is not supported for this "
                                 "operation",
                                 gcp_go_quote(op->a, m->inv.hook->name,
                                              strlen(m->inv.hook->name))),
                     NULL);
        return GCP_EINTERNAL;
    }

    out = NULL;

    if (gcp_patch_json_apply(op->a, m->sent, ops, &out, &msg) != GCP_OK
        || gcp_json_arena(op->a, out) == NULL
        || gcp_reg_decode_object(op, m->inv.res, out, &msg) != GCP_OK)
    {
        gcp_op_error(op, GCP_EINTERNAL,
                     gcp_sprintf(op->a, "Internal error occurred: %s",
                                 msg ? msg : "out of memory"), NULL);
        return GCP_EINTERNAL;
    }

    m->changed = !json_equal(m->sent, out);

    /* back to the request's own form */

    obj = gcp_json_arena(op->a, gcp_webhook_convert(op, m->inv.res, op->res,
                                                    out));
    if (obj == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    ad->obj = obj;

    gcp_buf_init(&b, op->a);
    gcp_buf_addstr(&b, ",\"patch\":");
    gcp_json_dump_buf(&b, ops, 0);
    gcp_buf_addstr(&b, ",\"patchType\":\"JSONPatch\"");

    gcp_whmut_annotate(m, "patch.webhook.admission.k8s.io/",
                       gcp_whmut_note(m, gcp_buf_cstr(&b)), 1);

    return GCP_OK;
}


static void
gcp_whmut_reply(void *arg, const gcp_webhook_reply_t *r)
{
    int                      rc;
    const char              *err, *failure;
    gcp_whmut_t             *m = arg;
    gcp_admit_t             *ad = m->ad;
    gcp_webhook_response_t   resp;

    if (r->rc != GCP_OK) {
        gcp_whmut_after(m, gcp_sprintf(ad->op->a, "failed to call webhook: "
                                       "%s", r->error),
                        gcp_webhook_failure_code(r, 1));
        return;
    }

    if (gcp_webhook_review_response(ad, m->inv.hook, &m->rv, r->json, &resp,
                                    &err)
        != GCP_OK)
    {
        gcp_whmut_after(m, err, 503);
        return;
    }

    if (!resp.allowed) {
        gcp_whmut_ended(m, GCP_ADMIT_WH_DENIED,
                        gcp_webhook_deny_code(resp.status));
        gcp_whmut_finish(m, gcp_webhook_deny(ad, m->inv.hook, resp.status));
        return;
    }

    failure = NULL;

    if (resp.patch.len) {
        rc = gcp_whmut_patch(m, resp.patch, &failure);

        if (rc != GCP_OK) {
            gcp_whmut_ended(m, GCP_ADMIT_WH_INTERNAL, 0);
            gcp_whmut_finish(m, rc);
            return;
        }
    }

    gcp_whmut_after(m, failure, 503);
}


/*
 * After a call allowed or failed (code: the failure's HTTP status as
 * upstream counts it): the mutation annotation and metrics, reinvocation
 * bookkeeping, then the failure, if any, by the webhook's policy.
 */
static void
gcp_whmut_after(gcp_whmut_t *m, const char *failure, int code)
{
    gcp_admit_t          *ad = m->ad;
    const gcp_webhook_t  *h = m->inv.hook;

    gcp_whmut_ended(m, failure == NULL ? GCP_ADMIT_WH_ALLOWED
                       : h->ignore ? GCP_ADMIT_WH_FAILED_OPEN
                       : GCP_ADMIT_WH_FAILED, code);

    if (m->changed) {
        gcp_whmut_require_reinvoke(m);
        ad->reinvoke = 1;
    }

    if (h->reinvoke && !gcp_whmut_has(m->invoked, m->ninvoked, h->id)) {
        m->invoked[m->ninvoked++] = h->id;
    }

    if (failure) {
        gcp_webhook_log_failure(m->p, h, failure);

        if (!h->ignore) {
            gcp_whmut_finish(m, gcp_webhook_fail(ad, h, failure));
            return;
        }

        gcp_whmut_annotate(m, "failed-open.mutation.webhook.admission.k8s.io/",
                           h->name, 0);
    }

    gcp_whmut_next(m);
}


static void
gcp_whmut_call(gcp_whmut_t *m)
{
    int          rc;
    const char  *why;

    m->changed = 0;
    m->start_ns = gcp_time_mono_ns();

    rc = gcp_webhook_call(m->p, m->ad, &m->inv, &m->rv, &m->sent, &why,
                          gcp_whmut_reply, m);

    /* before a call: upstream's "could not get REST client" (500) */

    if (rc == GCP_EUNAVAILABLE) {
        gcp_whmut_after(m, why, 500);

    } else if (rc != GCP_OK) {
        gcp_whmut_ended(m, GCP_ADMIT_WH_INTERNAL, 0);
        gcp_whmut_finish(m, rc);
    }
}


static void
gcp_whmut_ns_read(void *arg)
{
    gcp_whmut_next(arg);
}


/* Looks for the next webhook to call, from m->next. */
static void
gcp_whmut_next(gcp_whmut_t *m)
{
    int                   sel;
    gcp_admit_t          *ad = m->ad;
    const gcp_webhook_t  *h;

    while (m->next < m->set->n) {
        h = m->set->hooks[m->next];

        if (!gcp_webhook_rules_match(h, ad, &m->inv)) {
            m->next++;
            continue;
        }

        /* during reinvocation, only the ones asked for */

        if (ad->round && !gcp_whmut_has(m->again, m->nagain, h->id)) {
            m->next++;
            continue;
        }

        if (gcp_webhook_needs_namespace(h, ad, &m->ns)) {
            gcp_webhook_read_namespace(ad, &m->ns, gcp_whmut_ns_read, m);
            return;
        }

        sel = gcp_webhook_selectors_match(h, ad, &m->ns);

        if (sel < 0) {
            gcp_whmut_finish(m, gcp_webhook_namespace_missing(ad));
            return;
        }

        if (h->sel_error) {
            gcp_op_error(ad->op, GCP_EINTERNAL,
                         gcp_sprintf(ad->op->a, "Internal error occurred: "
                                     "%s", h->sel_error), NULL);
            gcp_whmut_finish(m, GCP_EINTERNAL);
            return;
        }

        m->inv.index = m->next++;

        if (sel) {
            gcp_whmut_call(m);
            return;
        }
    }

    gcp_whmut_finish(m, GCP_OK);
}


static void
gcp_whmut_admit(void *data, gcp_admit_t *ad, gcp_admit_done_pt done)
{
    void                  **slot;
    gcp_op_t               *op = ad->op;
    gcp_whmut_t            *m;
    gcp_webhook_plugin_t   *p = data;

    if (gcp_webhook_exempt(ad)) {
        done(ad, GCP_OK);
        return;
    }

    slot = gcp_admission_slot(ad);
    m = *slot;

    if (m == NULL) {
        m = gcp_calloc(op->a, sizeof(gcp_whmut_t));
        if (m == NULL) {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            done(ad, GCP_ENOMEM);
            return;
        }

        m->p = p;
        m->ad = ad;
        m->set = gcp_webhook_config_get(p, op->a);

        if (m->set) {
            m->invoked = gcp_calloc(op->a, (m->set->n + 1) * sizeof(char *));
            m->again = gcp_calloc(op->a, (m->set->n + 1) * sizeof(char *));
        }

        if (m->set == NULL || m->invoked == NULL || m->again == NULL) {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            done(ad, GCP_ENOMEM);
            return;
        }

        *slot = m;

    } else if (ad->round && m->last && !json_equal(m->last, ad->obj)) {
        /* other plugins changed the object since our last webhook */
        gcp_whmut_require_reinvoke(m);
    }

    m->done = done;
    m->next = 0;

    gcp_whmut_next(m);
}


int
gcp_webhook_mutating_plugin(gcp_api_t *api, const gcp_admission_args_t *args,
    gcp_admission_plugin_t *plugin, char *err, size_t errlen)
{
    if (gcp_admission_no_args(args, err, errlen) != GCP_OK) {
        return GCP_EBADREQUEST;
    }

    if (plugin == NULL) {
        return GCP_OK;
    }

    plugin->data = gcp_webhook_plugin_create(api, 1);
    if (plugin->data == NULL) {
        snprintf(err, errlen, "out of memory");
        return GCP_ENOMEM;
    }

    plugin->admit = gcp_whmut_admit;
    plugin->free = gcp_webhook_plugin_free;

    return GCP_OK;
}
