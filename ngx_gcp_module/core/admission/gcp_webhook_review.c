
/*
 * AdmissionReview v1 and v1beta1 (see gcp_webhook.h): the request sent to
 * a webhook, as upstream's CreateV1AdmissionReview writes it (objects in
 * the invocation's form and Go's JSON, creationTimestamp null while unset;
 * the operation's options); VerifyAdmissionResponse's checks of the
 * answer, with its messages; denials as ToStatusErr makes them, failures
 * as InternalError.
 */

#include <stdlib.h>

#include "gcp_base64.h"
#include "gcp_json.h"
#include "gcp_log.h"
#include "gcp_object.h"
#include "gcp_rand.h"
#include "gcp_registry.h"
#include "gcp_time.h"
#include "gcp_webhook.h"


/* "KEY": (after a comma unless first); keys need no escaping */
static void
gcp_whr_key(gcp_buf_t *b, const char *key, int first)
{
    gcp_buf_addstr(b, first ? "\"" : ",\"");
    gcp_buf_addstr(b, key);
    gcp_buf_addstr(b, "\":");
}


static void
gcp_whr_str(gcp_buf_t *b, const char *key, const char *v, int first)
{
    gcp_whr_key(b, key, first);
    gcp_json_add_string(b, v, strlen(v));
}


/* {"group":...,"version":...,"kind"|"resource":...} */
static void
gcp_whr_gv(gcp_buf_t *b, const char *key, const char *group,
    const char *version, const char *what, const char *name)
{
    gcp_whr_key(b, key, 0);
    gcp_buf_addc(b, '{');
    gcp_whr_str(b, "group", group, 1);
    gcp_whr_str(b, "version", version, 0);
    gcp_whr_str(b, what, name, 0);
    gcp_buf_addc(b, '}');
}


/*
 * An object as kube-apiserver encodes it for a webhook (creationTimestamp
 * null while unset), or null; written straight from the object.
 */
static void
gcp_whr_object(gcp_buf_t *b, const gcp_resource_t *res, const json_t *obj)
{
    if (obj == NULL) {
        gcp_buf_addstr(b, "null");
        return;
    }

    gcp_object_dump_canonical(b, obj, res->strategy
                                      ? res->strategy->field_order : NULL,
                              GCP_OBJECT_NULL_CREATED);
}


static void
gcp_whr_user(gcp_buf_t *b, const gcp_user_t *u)
{
    size_t  i, j;

    gcp_buf_addstr(b, ",\"userInfo\":{");
    gcp_whr_str(b, "username", u && u->name ? u->name : "", 1);

    if (u && u->uid && u->uid[0]) {
        gcp_whr_str(b, "uid", u->uid, 0);
    }

    if (u && u->ngroups) {
        gcp_buf_addstr(b, ",\"groups\":[");

        for (i = 0; i < u->ngroups; i++) {
            gcp_buf_addstr(b, i ? "," : "");
            gcp_json_add_string(b, u->groups[i], strlen(u->groups[i]));
        }

        gcp_buf_addc(b, ']');
    }

    if (u && u->nextra) {
        gcp_buf_addstr(b, ",\"extra\":{");

        for (i = 0; i < u->nextra; i++) {
            gcp_buf_addstr(b, i ? "," : "");
            gcp_json_add_string(b, u->extra[i].key,
                                strlen(u->extra[i].key));
            gcp_buf_addstr(b, ":[");

            for (j = 0; j < u->extra[i].nvalues; j++) {
                gcp_buf_addstr(b, j ? "," : "");
                gcp_json_add_string(b, u->extra[i].values[j],
                                    strlen(u->extra[i].values[j]));
            }

            gcp_buf_addc(b, ']');
        }

        gcp_buf_addc(b, '}');
    }

    gcp_buf_addc(b, '}');
}


/* The operation's options (CreateOptions, UpdateOptions, DeleteOptions). */
static void
gcp_whr_options(gcp_buf_t *b, const gcp_admit_t *ad)
{
    size_t       i;
    json_t      *body, *v;
    gcp_op_t    *op = ad->op;
    const char  *s, *m;

    static const char * const  del[] = {
        "gracePeriodSeconds", "preconditions", "orphanDependents",
        "propagationPolicy", NULL
    };

    gcp_buf_addstr(b, ",\"options\":{");
    gcp_whr_str(b, "kind", ad->options, 1);
    gcp_whr_str(b, "apiVersion", "meta.k8s.io/v1", 0);

    if (ad->operation == GCP_ADMIT_DELETE) {
        body = NULL;

        if (op->req->body.len) {
            body = gcp_json_parse(op->a, op->req->body.data,
                                  op->req->body.len, &m);
        }

        for (i = 0; del[i]; i++) {
            s = gcp_query_get(&op->q, del[i]);
            v = json_object_get(body, del[i]);

            /* the query's values (checked as numbers before) win */

            if (s && s[0] && i == 0) {
                gcp_buf_printf(b, ",\"%s\":%lld", del[i], atoll(s));

            } else if (s && (strcmp(s, "true") == 0
                             || strcmp(s, "false") == 0) && i == 2)
            {
                gcp_buf_printf(b, ",\"%s\":%s", del[i], s);

            } else if (s && s[0] && i == 3) {
                gcp_whr_str(b, del[i], s, 0);

            } else if (v && !json_is_null(v)) {
                gcp_buf_printf(b, ",\"%s\":", del[i]);
                gcp_json_dump_buf(b, v, 0);
            }
        }
    }

    if (ad->dry_run) {
        gcp_buf_addstr(b, ",\"dryRun\":[\"All\"]");
    }

    if (ad->operation != GCP_ADMIT_DELETE) {
        s = gcp_query_get(&op->q, "fieldManager");

        if (s && s[0]) {
            gcp_whr_str(b, "fieldManager", s, 0);
        }

        s = gcp_query_get(&op->q, "fieldValidation");

        if (s && s[0]) {
            gcp_whr_str(b, "fieldValidation", s, 0);
        }
    }

    gcp_buf_addc(b, '}');
}


gcp_str_t
gcp_webhook_review_body(gcp_admit_t *ad, const gcp_webhook_invocation_t *inv,
    const json_t *object, gcp_webhook_review_t *rv)
{
    char                      uid[GCP_UUID_LEN + 1];
    gcp_buf_t                 b;
    gcp_op_t                 *op = ad->op;
    const char               *ns, *sub, *kind;
    const gcp_resource_t     *res = op->res;
    const gcp_subresource_t  *s = op->sub;

    static const char * const  operations[] = {
        "CREATE", "UPDATE", "DELETE"
    };

    gcp_uuid_v4(uid);

    rv->uid = gcp_strdup(op->a, uid);
    rv->version = inv->hook->review;
    rv->object = object;

    sub = s ? s->name : "";
    kind = s && s->kind ? s->kind : NULL;
    ns = gcp_webhook_namespace(ad);

    gcp_buf_init(&b, op->a);

    /* once: the object (and the old one of an update) about the size of */
    /* the request's body, the rest well under 1 KiB unless the user has */
    /* many groups */

    (void) gcp_buf_reserve(&b, 1024 + (ad->old ? 2 : 1) * op->req->body.len);

    gcp_buf_addstr(&b, "{\"kind\":\"AdmissionReview\",\"apiVersion\":"
                   "\"admission.k8s.io/");
    gcp_buf_addstr(&b, inv->hook->review);
    gcp_buf_addstr(&b, "\",\"request\":{");
    gcp_whr_str(&b, "uid", uid, 1);

    gcp_whr_gv(&b, "kind", s && s->group ? s->group : inv->res->group,
               s && s->version ? s->version : inv->res->version, "kind",
               kind ? kind : inv->res->kind);
    gcp_whr_gv(&b, "resource", inv->res->group, inv->res->version,
               "resource", inv->res->name);

    if (sub[0]) {
        gcp_whr_str(&b, "subResource", sub, 0);
    }

    gcp_whr_gv(&b, "requestKind", s && s->group ? s->group : res->group,
               s && s->version ? s->version : res->version, "kind",
               kind ? kind : res->kind);
    gcp_whr_gv(&b, "requestResource", res->group, res->version, "resource",
               res->name);

    if (sub[0]) {
        gcp_whr_str(&b, "requestSubResource", sub, 0);
    }

    if (ad->name[0]) {
        gcp_whr_str(&b, "name", ad->name, 0);
    }

    if (ns[0]) {
        gcp_whr_str(&b, "namespace", ns, 0);
    }

    gcp_whr_str(&b, "operation", operations[ad->operation], 0);
    gcp_whr_user(&b, op->req->user);

    gcp_buf_addstr(&b, ",\"object\":");
    gcp_whr_object(&b, inv->res, object);

    gcp_buf_addstr(&b, ",\"oldObject\":");
    gcp_whr_object(&b, res, ad->old);

    gcp_buf_addstr(&b, ad->dry_run ? ",\"dryRun\":true"
                                   : ",\"dryRun\":false");
    gcp_whr_options(&b, ad);
    gcp_buf_addstr(&b, "}}");

    if (gcp_buf_failed(&b) || rv->uid == NULL) {
        return (gcp_str_t) gcp_null_string;
    }

    return (gcp_str_t) { b.data, b.len };
}


static int
gcp_whr_invalid(gcp_admit_t *ad, const char **err, const char *msg)
{
    *err = gcp_sprintf(ad->op->a, "received invalid webhook response: %s",
                       msg);
    return GCP_EINVALID;
}


/* "GROUP/VERSION, Kind=KIND" of an apiVersion and kind, as Go prints. */
static const char *
gcp_whr_gvk(gcp_arena_t *a, const json_t *answer)
{
    const char  *av, *kind, *slash;

    av = json_string_value(json_object_get(answer, "apiVersion"));
    kind = json_string_value(json_object_get(answer, "kind"));
    av = av ? av : "";
    kind = kind ? kind : "";
    slash = strchr(av, '/');

    return slash ? gcp_sprintf(a, "%s, Kind=%s", av, kind)
                 : gcp_sprintf(a, "/%s, Kind=%s", av, kind);
}


static int
gcp_whr_warned(gcp_op_t *op, const char *text)
{
    size_t       i;
    gcp_buf_t    b;
    const char  *want;

    gcp_buf_init(&b, op->a);
    gcp_buf_addstr(&b, "299 - ");
    gcp_json_add_string(&b, text, strlen(text));
    want = gcp_buf_cstr(&b);

    for (i = 0; i < op->resp.nheaders; i++) {
        if (strcmp(op->headers[i].name, "Warning") == 0
            && strcmp(op->headers[i].value, want) == 0)
        {
            return 1;
        }
    }

    return 0;
}


int
gcp_webhook_review_response(gcp_admit_t *ad, const gcp_webhook_t *hook,
    const gcp_webhook_review_t *rv, const json_t *answer,
    gcp_webhook_response_t *resp, const char **err)
{
    size_t        i;
    json_t       *r, *v, *patch, *type;
    gcp_op_t     *op = ad->op;
    const char   *key, *msg, *uid;
    gcp_arena_t  *a = op->a;

    memset(resp, 0, sizeof(gcp_webhook_response_t));

    r = json_object_get(answer, "response");

    if (!json_is_object(r)) {
        return gcp_whr_invalid(ad, err, "webhook response was absent");
    }

    patch = json_object_get(r, "patch");
    type = json_object_get(r, "patchType");
    patch = json_is_null(patch) ? NULL : patch;
    type = json_is_null(type) ? NULL : type;

    if (patch && !json_is_string(patch)) {
        *err = gcp_sprintf(a, "json: cannot unmarshal %s into Go struct "
                           "field AdmissionResponse.response.patch of type "
                           "[]uint8", gcp_json_go_kind(patch));
        return GCP_EINVALID;
    }

    if (strcmp(rv->version, "v1") == 0) {
        uid = json_string_value(json_object_get(r, "uid"));
        uid = uid ? uid : "";

        if (strcmp(uid, rv->uid) != 0) {
            return gcp_whr_invalid(ad, err,
                       gcp_sprintf(a, "expected response.uid=%s, got %s",
                                   gcp_go_quote(a, rv->uid, strlen(rv->uid)),
                                   gcp_go_quote(a, uid, strlen(uid))));
        }

        key = gcp_whr_gvk(a, answer);

        if (strcmp(key, "admission.k8s.io/v1, Kind=AdmissionReview") != 0) {
            return gcp_whr_invalid(ad, err,
                       gcp_sprintf(a, "expected webhook response of "
                                   "admission.k8s.io/v1, Kind="
                                   "AdmissionReview, got %s", key));
        }

        if (hook->mutating && patch && json_string_length(patch)
            && type == NULL)
        {
            return gcp_whr_invalid(ad, err, "webhook returned "
                                   "response.patch but not "
                                   "response.patchType");
        }

        if (hook->mutating && type
            && (patch == NULL || json_string_length(patch) == 0))
        {
            return gcp_whr_invalid(ad, err, "webhook returned "
                                   "response.patchType but not "
                                   "response.patch");
        }

        if (hook->mutating && type
            && (!json_is_string(type) || json_string_length(type) == 0))
        {
            return gcp_whr_invalid(ad, err,
                       "webhook returned invalid response.patchType of "
                       "\"\"");
        }

        if (!hook->mutating && patch && json_string_length(patch)) {
            return gcp_whr_invalid(ad, err, "validating webhook may not "
                                   "return response.patch");
        }

        if (!hook->mutating && type) {
            return gcp_whr_invalid(ad, err, "validating webhook may not "
                                   "return response.patchType");
        }

        if (hook->mutating && type
            && strcmp(json_string_value(type), "JSONPatch") != 0)
        {
            *err = gcp_sprintf(a, "unsupported patch type %s",
                               gcp_go_quote(a, json_string_value(type),
                                            json_string_length(type)));
            return GCP_EINVALID;
        }
    }

    if (hook->mutating && patch && json_string_length(patch)) {
        if (gcp_base64_decode(a, json_string_value(patch),
                              json_string_length(patch), &resp->patch, &msg)
            != GCP_OK)
        {
            *err = msg;
            return GCP_EINVALID;
        }
    }

    resp->allowed = json_is_true(json_object_get(r, "allowed"));
    resp->status = json_is_object(json_object_get(r, "status"))
                   ? json_object_get(r, "status") : NULL;

    json_object_foreach(json_object_get(r, "auditAnnotations"), key, v) {
        if (json_is_string(v)) {
            (void) gcp_admission_annotate(ad,
                                          gcp_sprintf(a, "%s/%s", hook->name,
                                                      key),
                                          json_string_value(v), 0);
        }
    }

    json_array_foreach(json_object_get(r, "warnings"), i, v) {
        if (json_is_string(v) && json_string_length(v)
            && !gcp_whr_warned(op, json_string_value(v)))
        {
            gcp_op_warning(op, json_string_value(v));
        }
    }

    return GCP_OK;
}


/* StatusDetails in Go's order, from a webhook's (untrusted) JSON. */
static void
gcp_whr_details(gcp_buf_t *b, const json_t *d)
{
    int           first, cfirst;
    size_t        i, k;
    json_t       *c, *v;

    static const char * const  fields[] = { "name", "group", "kind", "uid" };
    static const char * const  cfields[] = { "reason", "message", "field" };

    gcp_buf_addstr(b, ",\"details\":{");
    first = 1;

    for (k = 0; k < gcp_nelems(fields); k++) {
        v = json_object_get(d, fields[k]);

        if (json_is_string(v) && json_string_length(v)) {
            gcp_whr_str(b, fields[k], json_string_value(v), first);
            first = 0;
        }
    }

    if (json_array_size(json_object_get(d, "causes"))) {
        gcp_buf_printf(b, "%s\"causes\":[", first ? "" : ",");
        first = 0;

        json_array_foreach(json_object_get(d, "causes"), i, c) {
            gcp_buf_addstr(b, i ? ",{" : "{");
            cfirst = 1;

            for (k = 0; k < gcp_nelems(cfields); k++) {
                v = json_object_get(c, cfields[k]);

                if (json_is_string(v) && json_string_length(v)) {
                    gcp_whr_str(b, cfields[k], json_string_value(v),
                                cfirst);
                    cfirst = 0;
                }
            }

            gcp_buf_addc(b, '}');
        }

        gcp_buf_addc(b, ']');
    }

    v = json_object_get(d, "retryAfterSeconds");

    if (json_is_integer(v) && json_integer_value(v)) {
        gcp_buf_printf(b, "%s\"retryAfterSeconds\":%lld", first ? "" : ",",
                       (long long) json_integer_value(v));
    }

    gcp_buf_addc(b, '}');
}


#define GCP_WEBHOOK_LOG_NS  1000000000LL


void
gcp_webhook_log_failure(gcp_webhook_plugin_t *p, const gcp_webhook_t *hook,
    const char *why)
{
    int64_t  now;

    now = gcp_time_mono_ns();

    if (p->logged_ns && now - p->logged_ns < GCP_WEBHOOK_LOG_NS) {
        p->unlogged++;
        return;
    }

    gcp_log(hook->ignore ? GCP_LOG_WARN : GCP_LOG_ERR,
            "failed calling webhook \"%s\", failing %s: %s (%llu more "
            "webhook failures since the last message)", hook->name,
            hook->ignore ? "open" : "closed", why ? why : "",
            (unsigned long long) p->unlogged);

    p->logged_ns = now;
    p->unlogged = 0;
}


int
gcp_webhook_failure_code(const gcp_webhook_reply_t *r, int mutating)
{
    if (r->status >= 300 && r->status < 1000) {
        return r->status;
    }

    return mutating ? 503 : 400;
}


int
gcp_webhook_deny_code(const json_t *status)
{
    json_int_t  code;

    code = json_integer_value(json_object_get(status, "code"));

    /* never a refusal below 400 */

    return code < 400 || code > 599 ? 400 : (int) code;
}


int
gcp_webhook_deny(gcp_admit_t *ad, const gcp_webhook_t *hook,
    const json_t *status)
{
    json_int_t    code;
    gcp_buf_t     b;
    gcp_op_t     *op = ad->op;
    const char   *reason, *message, *denied;
    const json_t *details;

    code = gcp_webhook_deny_code(status);
    reason = json_string_value(json_object_get(status, "reason"));
    message = json_string_value(json_object_get(status, "message"));
    details = json_object_get(status, "details");

    denied = gcp_sprintf(op->a, "admission webhook %s denied the request",
                         gcp_go_quote(op->a, hook->name,
                                      strlen(hook->name)));

    if (message && message[0]) {
        message = gcp_sprintf(op->a, "%s: %s", denied, message);

    } else if (reason && reason[0]) {
        message = gcp_sprintf(op->a, "%s: %s", denied, reason);

    } else {
        message = gcp_sprintf(op->a, "%s without explanation", denied);
    }

    gcp_buf_init(&b, op->a);
    gcp_buf_addstr(&b, "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                   "\"metadata\":{},\"status\":\"Failure\"");
    gcp_whr_str(&b, "message", message ? message : "", 0);

    if (reason && reason[0]) {
        gcp_whr_str(&b, "reason", reason, 0);
    }

    if (json_is_object(details)) {
        gcp_whr_details(&b, details);
    }

    gcp_buf_printf(&b, ",\"code\":%d}", (int) code);

    gcp_op_respond_status(op, (int) code, &b);

    return code == 422 ? GCP_EINVALID : GCP_EFORBIDDEN;
}


int
gcp_webhook_fail(gcp_admit_t *ad, const gcp_webhook_t *hook,
    const char *why)
{
    gcp_op_t              *op = ad->op;
    const char            *msg;
    gcp_status_details_t   d;
    gcp_status_cause_t     cause;

    msg = gcp_sprintf(op->a, "failed calling webhook %s: %s",
                      gcp_go_quote(op->a, hook->name, strlen(hook->name)),
                      why);

    memset(&d, 0, sizeof(d));
    memset(&cause, 0, sizeof(cause));

    cause.message = msg;
    d.cause = &cause;

    gcp_op_error(op, GCP_EINTERNAL,
                 gcp_sprintf(op->a, "Internal error occurred: %s", msg), &d);

    return GCP_EINTERNAL;
}


int
gcp_webhook_dry_run(gcp_admit_t *ad, const gcp_webhook_t *hook,
    const char **why)
{
    gcp_op_t  *op = ad->op;

    if (!ad->dry_run || hook->side_effects == GCP_WH_SE_NONE) {
        return GCP_OK;
    }

    if (hook->side_effects == GCP_WH_SE_NIL) {
        *why = "Webhook SideEffects is nil";
        return GCP_EUNAVAILABLE;
    }

    gcp_op_error(op, GCP_EBADREQUEST,
                 gcp_sprintf(op->a, "admission webhook %s does not support "
                             "dry run",
                             gcp_go_quote(op->a, hook->name,
                                          strlen(hook->name))),
                 NULL);

    return GCP_EBADREQUEST;
}


int
gcp_webhook_call(gcp_webhook_plugin_t *p, gcp_admit_t *ad,
    const gcp_webhook_invocation_t *inv, gcp_webhook_review_t *rv,
    json_t **sent, const char **why, gcp_webhook_reply_pt done, void *arg)
{
    int                   rc;
    gcp_str_t             body;
    gcp_op_t             *op = ad->op;
    const gcp_webhook_t  *h = inv->hook;

    *sent = NULL;
    *why = NULL;

    rc = gcp_webhook_dry_run(ad, h, why);
    if (rc != GCP_OK) {
        return rc;
    }

    if (h->conditions) {
        *why = "matchConditions are CEL expressions, which this server does "
               "not evaluate";

    } else if (h->review == NULL) {
        *why = "webhook does not accept known AdmissionReview versions (v1, "
               "v1beta1)";

    } else if (h->error) {
        *why = h->error;
    }

    if (*why) {
        return GCP_EUNAVAILABLE;
    }

    if (ad->obj && !h->mutating && inv->res == op->res) {
        /* read only, by validating webhooks that run after every change */
        *sent = ad->obj;

    } else if (ad->obj) {
        *sent = gcp_json_arena(op->a, gcp_webhook_convert(op, op->res,
                                                          inv->res, ad->obj));
        if (*sent == NULL) {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            return GCP_ENOMEM;
        }
    }

    body = gcp_webhook_review_body(ad, inv, *sent, rv);

    if (body.data == NULL
        || gcp_webhook_post(p->http, &op->api->conf, op->a, &h->client,
                            h->timeout, body, done, arg)
           != GCP_OK)
    {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    return GCP_OK;
}
