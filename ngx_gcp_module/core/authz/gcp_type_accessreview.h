
/*
 * What the authorization.k8s.io/v1 review resources share
 * (gcp_type_accessreview.c, gcp_type_selfsubjectrulesreview.c): they are
 * create-only and never stored; the strategy's prepare_create answers the
 * review and returns GCP_EEXISTS, which stops the registry's create.
 */

#ifndef _GCP_TYPE_ACCESSREVIEW_H_INCLUDED_
#define _GCP_TYPE_ACCESSREVIEW_H_INCLUDED_


#include "gcp_op.h"


/* The descriptor fields of a review resource of kind k. */
#define GCP_REVIEW_TYPE(plural, sing, k, ns, st)                             \
    .protobuf = 1,                                                           \
    .group = "authorization.k8s.io",                                         \
    .version = "v1",                                                         \
    .name = plural,                                                          \
    .singular = sing,                                                        \
    .kind = k,                                                               \
    .namespaced = ns,                                                        \
    .verbs = GCP_VERB_CREATE,                                                \
    .schema = "io.k8s.api.authorization.v1." k,                              \
    .storage = "authorization.k8s.io/" plural,                               \
    .strategy = st


/* Returns obj[field] as a string, "" when absent (borrowed). */
const char *gcp_review_str(const json_t *obj, const char *field);

/*
 * Answers 400 "no user present on request" (a review needs a user) and
 * returns GCP_EBADREQUEST.
 */
int gcp_review_no_user(gcp_op_t *op);

/*
 * Returns the answer to the review obj: kind and apiVersion of the
 * resource, metadata {namespace (namespaced reviews), creationTimestamp:
 * null}, spec and status (both references stolen), borrowed from op's
 * arena; NULL when out of memory.
 */
json_t *gcp_review_response(gcp_op_t *op, const json_t *obj, json_t *spec,
    json_t *status);


#endif /* _GCP_TYPE_ACCESSREVIEW_H_INCLUDED_ */
