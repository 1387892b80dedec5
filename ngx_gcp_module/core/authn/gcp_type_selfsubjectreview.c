
/*
 * authentication.k8s.io/v1 SelfSubjectReview (kubectl auth whoami):
 * create only, never stored; the answer is the requester's own identity,
 * after impersonation.
 */

#include "gcp_auth_int.h"
#include "gcp_reg.h"
#include "gcp_authn_types.h"
#include "gcp_types.h"


void
gcp_selfsubjectreview_create(gcp_op_t *op)
{
    json_t  *info, *out;

    if (gcp_auth_decode_body(op) == NULL) {
        return;
    }

    if (op->req->user == NULL) {
        gcp_op_error(op, GCP_EBADREQUEST, "no user present on request",
                     NULL);
        return;
    }

    info = gcp_user_info_json(op->req->user);
    if (info == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    out = json_pack("{s:s, s:s, s:{s:s}, s:{s:o}}",
                    "kind", "SelfSubjectReview",
                    "apiVersion", "authentication.k8s.io/v1",
                    "metadata", "creationTimestamp", gcp_reg_now(op),
                    "status", "userInfo", info);

    if (gcp_json_arena(op->a, out) == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    gcp_output_object(op, 201, NULL, out);
}


const gcp_resource_t  gcp_type_selfsubjectreviews = {
    .protobuf = 1,
    .group = "authentication.k8s.io",
    .version = "v1",
    .name = "selfsubjectreviews",
    .singular = "selfsubjectreview",
    .kind = "SelfSubjectReview",
    .namespaced = 0,
    .verbs = GCP_VERB_CREATE,
    .schema = "io.k8s.api.authentication.v1.SelfSubjectReview",
    .storage = "authentication.k8s.io/selfsubjectreviews",
};
