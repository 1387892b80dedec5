
/*
 * authentication.k8s.io/v1 TokenReview: create only, never stored.  The
 * token of spec.token goes through the token authenticators for
 * spec.audiences (default: the API audiences); status says as whom.
 */

#include "gcp_auth_int.h"
#include "gcp_reg.h"
#include "gcp_authn_types.h"
#include "gcp_types.h"


typedef struct {
    gcp_op_t  *op;
    json_t    *obj;
} gcp_tokenreview_t;


static json_t *
gcp_tokenreview_strings(const char * const *v)
{
    json_t  *a;

    a = json_array();

    for ( /* void */ ; a && v && *v; v++) {
        json_array_append_new(a, json_string(*v));
    }

    return a;
}


static void
gcp_tokenreview_done(void *arg, const gcp_authn_result_t *res)
{
    json_t             *status, *user, *out;
    gcp_tokenreview_t  *tr = arg;
    gcp_op_t           *op = tr->op;

    static const char * const  order[] = { "spec", "status", NULL };

    status = json_object();
    user = res->user ? gcp_user_info_json(res->user) : json_object();

    if (status == NULL || user == NULL) {
        json_decref(status);
        json_decref(user);
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    /* TokenReviewStatus in Go order, empty fields omitted */

    if (res->user) {
        json_object_set_new(status, "authenticated", json_true());
    }

    json_object_set_new(status, "user", user);

    if (res->user && res->audiences && res->audiences[0]) {
        json_object_set_new(status, "audiences",
                            gcp_tokenreview_strings(res->audiences));
    }

    if (res->error) {
        json_object_set_new(status, "error", json_string(res->error));
    }

    json_object_set_new(tr->obj, "status", status);

    out = gcp_json_arena(op->a, gcp_object_canonical(tr->obj, order));
    if (out == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    gcp_output_object(op, 201, NULL, out);
}


void
gcp_tokenreview_create(gcp_op_t *op)
{
    size_t              i, n;
    json_t             *obj, *spec, *auds, *clean;
    const char        **v, *token;
    gcp_tokenreview_t  *tr;

    obj = gcp_auth_decode_body(op);
    if (obj == NULL) {
        return;
    }

    spec = json_object_get(obj, "spec");
    token = json_string_value(json_object_get(spec, "token"));

    if (token == NULL || token[0] == '\0') {
        gcp_op_error(op, GCP_EBADREQUEST, "token is required for TokenReview "
                     "in authentication", NULL);
        return;
    }

    /* the spec is replaced below */
    token = gcp_strdup(op->a, token);

    auds = json_object_get(spec, "audiences");
    n = json_array_size(auds);

    v = gcp_calloc(op->a, (n + 1) * sizeof(const char *));
    tr = gcp_calloc(op->a, sizeof(gcp_tokenreview_t));

    if (v == NULL || tr == NULL || token == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    for (i = 0; i < n; i++) {
        v[i] = json_string_value(json_array_get(auds, i));
        v[i] = v[i] ? v[i] : "";
    }

    /* the spec echoed in Go's field order */

    clean = json_pack("{s:s}", "token", token);

    if (clean && n) {
        json_object_set(clean, "audiences", auds);
    }

    if (clean == NULL || json_object_set_new(obj, "spec", clean) != 0) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    tr->op = op;
    tr->obj = obj;

    gcp_auth_token(op->api, op->a, token, v, gcp_tokenreview_done, tr);
}


const gcp_resource_t  gcp_type_tokenreviews = {
    .protobuf = 1,
    .group = "authentication.k8s.io",
    .version = "v1",
    .name = "tokenreviews",
    .singular = "tokenreview",
    .kind = "TokenReview",
    .namespaced = 0,
    .verbs = GCP_VERB_CREATE,
    .schema = "io.k8s.api.authentication.v1.TokenReview",
    .storage = "authentication.k8s.io/tokenreviews",
};
