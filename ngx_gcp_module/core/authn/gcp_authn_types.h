
/*
 * The resources of authentication.k8s.io/v1: TokenReview
 * (gcp_type_tokenreview.c) and SelfSubjectReview
 * (gcp_type_selfsubjectreview.c).  TokenRequest is a subresource of
 * serviceaccounts (gcp_type_tokenrequest.c).
 */

#ifndef _GCP_AUTHN_TYPES_H_INCLUDED_
#define _GCP_AUTHN_TYPES_H_INCLUDED_


#include "gcp_registry.h"


extern const gcp_resource_t  gcp_type_selfsubjectreviews;
extern const gcp_resource_t  gcp_type_tokenreviews;


#endif /* _GCP_AUTHN_TYPES_H_INCLUDED_ */
