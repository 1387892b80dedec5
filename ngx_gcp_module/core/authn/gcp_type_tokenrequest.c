
/*
 * authentication.k8s.io/v1 TokenRequest, the serviceaccounts/NAME/token
 * subresource (kubectl create token): a signed service-account token for
 * spec.audiences (default: the API audiences), valid expirationSeconds
 * (default 3600, at least 600), optionally bound to a Secret whose
 * deletion invalidates it.  Nothing is stored.
 */

#include "gcp_auth_int.h"
#include "gcp_reg.h"
#include "gcp_time.h"
#include "gcp_types.h"


#define GCP_TOKENREQUEST_DEFAULT_EXP  3600
#define GCP_TOKENREQUEST_MIN_EXP      600
#define GCP_TOKENREQUEST_MAX_EXP      4294967296LL     /* 2^32 */


/* What the request body is decoded as (op->res while decoding). */
static const gcp_resource_t  gcp_tokenrequest_kind = {
    .protobuf = 1,
    .group = "authentication.k8s.io",
    .version = "v1",
    .name = "serviceaccounts",
    .singular = "",
    .kind = "TokenRequest",
    .namespaced = 1,
    .verbs = GCP_VERB_CREATE,
    .schema = "io.k8s.api.authentication.v1.TokenRequest",
    .storage = "serviceaccounts",
};


typedef struct {
    gcp_op_t              *op;
    json_t                *obj;         /* the request, answered back */
    gcp_auth_sa_claims_t   claims;
    int64_t                expiration;
    time_t                 now;
} gcp_tokenreq_t;


/* 422 on TokenRequest.authentication.k8s.io "name". */

static void
gcp_tokenreq_invalid(gcp_op_t *op, const char *name, const gcp_ferrs_t *errs)
{
    gcp_status_details_t  d;

    memset(&d, 0, sizeof(d));

    d.name = name;
    d.group = "authentication.k8s.io";
    d.kind = "TokenRequest";
    d.causes = errs;

    gcp_op_error(op, GCP_EINVALID,
                 gcp_ferrs_message(errs, "TokenRequest.authentication.k8s.io",
                                   name), &d);
}


static void
gcp_tokenreq_respond(gcp_tokenreq_t *t)
{
    json_t       *spec, *status, *out, *old, *ref;
    gcp_op_t     *op = t->op;
    const char   *token, *ts;

    static const char * const  order[] = { "spec", "status", NULL };

    token = gcp_auth_sa_issue(op->a, op->api->conf.auth, &t->claims);
    ts = gcp_time_str(op->a, t->now + (time_t) t->expiration);

    if (token == NULL || ts == NULL) {
        gcp_op_error(op, GCP_EINTERNAL, "failed to generate token", NULL);
        return;
    }

    status = json_pack("{s:s, s:s}", "token", token,
                       "expirationTimestamp", ts);

    /* TokenRequestSpec in Go's order */

    old = json_object_get(t->obj, "spec");
    ref = json_object_get(old, "boundObjectRef");

    spec = json_pack("{s:O, s:I, s:O}",
                     "audiences", json_object_get(old, "audiences"),
                     "expirationSeconds", (json_int_t) t->expiration,
                     "boundObjectRef", ref ? ref : json_null());

    if (status == NULL || spec == NULL
        || json_object_set_new(t->obj, "spec", spec)
        || json_object_set_new(t->obj, "status", status))
    {
        json_decref(status);
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    out = gcp_json_arena(op->a, gcp_object_canonical(t->obj, order));
    if (out == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    gcp_output_object(op, 201, NULL, out);
}


static void
gcp_tokenreq_got_secret(void *arg, gcp_store_result_t *res)
{
    json_t                *secret;
    const char            *uid;
    gcp_tokenreq_t        *t = arg;
    gcp_op_t              *op = t->op;
    gcp_status_details_t   d;

    if (res->rc == GCP_OK && res->nkvs == 0) {
        res->rc = GCP_ENOTFOUND;
    }

    if (res->rc == GCP_ENOTFOUND) {
        gcp_op_not_found(op, &gcp_type_secrets, t->claims.secret_name);
        return;
    }

    if (res->rc != GCP_OK) {
        gcp_reg_store_error(op, res, t->claims.secret_name);
        return;
    }

    secret = gcp_object_decode(op->a, res->kvs[0].value, 0);
    if (secret == NULL) {
        gcp_op_error(op, GCP_EINTERNAL, "stored object is corrupt", NULL);
        return;
    }

    uid = gcp_meta_str(secret, "uid");

    if (t->claims.secret_uid[0] && strcmp(uid, t->claims.secret_uid) != 0) {
        memset(&d, 0, sizeof(d));
        d.name = t->claims.secret_name;
        d.kind = "Secret";

        gcp_op_error(op, GCP_ECONFLICT,
                     gcp_sprintf(op->a, "Operation cannot be fulfilled on "
                                 "Secret \"%s\": the UID in the bound object "
                                 "reference (%s) does not match the UID in "
                                 "record. The object might have been deleted "
                                 "and then recreated", t->claims.secret_name,
                                 t->claims.secret_uid), &d);
        return;
    }

    t->claims.secret_uid = uid;

    gcp_tokenreq_respond(t);
}


/* spec.boundObjectRef: only Secrets exist in a generic control plane. */

static int
gcp_tokenreq_bound(gcp_tokenreq_t *t, const json_t *ref)
{
    gcp_str_t    key;
    gcp_op_t    *op = t->op;
    const char  *kind, *av, *name, *uid, *slash;

    kind = json_string_value(json_object_get(ref, "kind"));
    av = json_string_value(json_object_get(ref, "apiVersion"));
    name = json_string_value(json_object_get(ref, "name"));
    uid = json_string_value(json_object_get(ref, "uid"));

    kind = kind ? kind : "";
    av = av ? av : "";
    slash = strchr(av, '/');

    if (strcmp(kind, "Secret") != 0 || slash != NULL) {
        /* schema.GroupVersionKind.String() */
        gcp_op_error(op, GCP_EBADREQUEST,
                     gcp_sprintf(op->a, "cannot bind token to object of type "
                                 "%s%s, Kind=%s", slash ? "" : "/", av,
                                 kind), NULL);
        return GCP_EBADREQUEST;
    }

    t->claims.secret_name = name ? name : "";
    t->claims.secret_uid = uid ? uid : "";

    key = gcp_object_key(op->a, &gcp_type_secrets, op->ri.ns,
                         t->claims.secret_name);
    if (key.data == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    gcp_store_get(op->api->store, key, 0, op->a, gcp_tokenreq_got_secret, t);

    return GCP_OK;
}


/* Defaults and validation (ValidateTokenRequest). */

static int
gcp_tokenreq_spec(gcp_tokenreq_t *t, json_t *spec)
{
    json_t             *auds, *exp;
    gcp_op_t           *op = t->op;
    gcp_ferrs_t         errs;
    char              **p;
    const char        **v;
    const gcp_auth_t   *auth = op->api->conf.auth;
    size_t              i, n;

    auds = json_object_get(spec, "audiences");

    if (json_array_size(auds) == 0) {
        auds = json_array();

        for (p = auth->audiences; *p; p++) {
            json_array_append_new(auds, json_string(*p));
        }

        json_object_set_new(spec, "audiences", auds);
    }

    exp = json_object_get(spec, "expirationSeconds");

    t->expiration = json_is_integer(exp) ? json_integer_value(exp)
                                         : GCP_TOKENREQUEST_DEFAULT_EXP;

    gcp_ferrs_init(&errs, op->a);

    if (t->expiration < GCP_TOKENREQUEST_MIN_EXP) {
        gcp_ferrs_add(&errs, GCP_FERR_INVALID, "spec.expirationSeconds",
                      gcp_sprintf(op->a, "%lld", (long long) t->expiration),
                      "may not specify a duration less than 10 minutes");
    }

    if (t->expiration > GCP_TOKENREQUEST_MAX_EXP) {
        gcp_ferrs_add(&errs, GCP_FERR_INVALID, "spec.expirationSeconds",
                      gcp_sprintf(op->a, "%lld", (long long) t->expiration),
                      "may not specify a duration larger than 2^32 seconds");
    }

    if (errs.n) {
        gcp_tokenreq_invalid(op, "", &errs);
        return GCP_EINVALID;
    }

    if (auth->max_expiration > 0 && t->expiration > auth->max_expiration) {
        gcp_op_warning(op, gcp_sprintf(op->a, "requested expiration of %lld "
                                       "seconds shortened to %lld seconds",
                                       (long long) t->expiration,
                                       (long long) auth->max_expiration));
        t->expiration = auth->max_expiration;
    }

    n = json_array_size(auds);

    v = gcp_calloc(op->a, (n + 1) * sizeof(const char *));
    if (v == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    for (i = 0; i < n; i++) {
        v[i] = json_string_value(json_array_get(auds, i));
        v[i] = v[i] ? v[i] : "";
    }

    t->claims.audiences = v;

    return GCP_OK;
}


static void
gcp_tokenreq_got_account(void *arg, gcp_store_result_t *res)
{
    json_t          *sa, *spec, *ref;
    gcp_tokenreq_t  *t = arg;
    gcp_op_t        *op = t->op;

    if (res->rc == GCP_OK && res->nkvs == 0) {
        res->rc = GCP_ENOTFOUND;
    }

    if (res->rc != GCP_OK) {
        gcp_reg_store_error(op, res, op->ri.name);
        return;
    }

    sa = gcp_object_decode(op->a, res->kvs[0].value, 0);
    if (sa == NULL) {
        gcp_op_error(op, GCP_EINTERNAL, "stored object is corrupt", NULL);
        return;
    }

    t->claims.ns = op->ri.ns;
    t->claims.name = op->ri.name;
    t->claims.uid = gcp_meta_str(sa, "uid");

    /* metadata: name and namespace filled in, the time of issue */

    t->now = gcp_time_now().tv_sec;

    if (gcp_meta_str(t->obj, "name")[0] == '\0') {
        gcp_meta_set_str(t->obj, "name", op->ri.name);
    }

    if (gcp_meta_str(t->obj, "namespace")[0] == '\0') {
        gcp_meta_set_str(t->obj, "namespace", op->ri.ns);
    }

    gcp_meta_set_str(t->obj, "creationTimestamp",
                     gcp_time_str(op->a, t->now));

    json_object_del(t->obj, "status");

    spec = json_object_get(t->obj, "spec");
    if (!json_is_object(spec)) {
        spec = json_object();
        json_object_set_new(t->obj, "spec", spec);
    }

    if (gcp_tokenreq_spec(t, spec) != GCP_OK) {
        return;
    }

    t->claims.iat = (int64_t) t->now;
    t->claims.exp = (int64_t) t->now + t->expiration;

    ref = json_object_get(spec, "boundObjectRef");

    if (json_is_object(ref)) {
        gcp_tokenreq_bound(t, ref);
        return;
    }

    gcp_tokenreq_respond(t);
}


void
gcp_tokenrequest_create(gcp_op_t *op)
{
    json_t                *obj;
    gcp_str_t              key;
    gcp_ferrs_t            errs;
    const char            *name, *ns;
    gcp_tokenreq_t        *t;
    const gcp_auth_t      *auth = op->api->conf.auth;
    const gcp_resource_t  *res;
    gcp_status_details_t   d;

    if (auth == NULL || auth->signing_key == NULL) {
        /* without a signing key kube-apiserver serves no TokenRequest */
        memset(&d, 0, sizeof(d));
        gcp_op_error(op, GCP_ENOTFOUND, NULL, &d);
        return;
    }

    res = op->res;
    op->res = &gcp_tokenrequest_kind;
    obj = gcp_auth_decode_body(op);
    op->res = res;

    if (obj == NULL) {
        return;
    }

    /* the body may name the service account only as the URL does */

    name = gcp_meta_str(obj, "name");
    ns = gcp_meta_str(obj, "namespace");

    gcp_ferrs_init(&errs, op->a);

    if (name[0] && strcmp(name, op->ri.name) != 0) {
        gcp_ferrs_add(&errs, GCP_FERR_INVALID, "metadata.name",
                      gcp_ferr_quote(op->a, name),
                      "must match the service account name if specified");

    } else if (ns[0] && strcmp(ns, op->ri.ns) != 0) {
        gcp_ferrs_add(&errs, GCP_FERR_INVALID, "metadata.namespace",
                      gcp_ferr_quote(op->a, ns),
                      "must match the service account namespace if "
                      "specified");
    }

    if (errs.n) {
        gcp_tokenreq_invalid(op, op->ri.name, &errs);
        return;
    }

    t = gcp_calloc(op->a, sizeof(gcp_tokenreq_t));
    key = gcp_reg_key(op);

    if (t == NULL || key.data == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    t->op = op;
    t->obj = obj;

    gcp_store_get(op->api->store, key, 0, op->a, gcp_tokenreq_got_account,
                  t);
}
