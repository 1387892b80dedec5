
/*
 * The resources of authorization: the four RBAC types
 * (rbac.authorization.k8s.io/v1, gcp_type_role*.c, gcp_type_cluster*.c)
 * and the access reviews (authorization.k8s.io/v1,
 * gcp_type_accessreview.c, gcp_type_selfsubjectrulesreview.c).
 */

#ifndef _GCP_AUTHZ_TYPES_H_INCLUDED_
#define _GCP_AUTHZ_TYPES_H_INCLUDED_


#include "gcp_registry.h"


extern const gcp_resource_t  gcp_type_clusterrolebindings;
extern const gcp_resource_t  gcp_type_clusterroles;
extern const gcp_resource_t  gcp_type_rolebindings;
extern const gcp_resource_t  gcp_type_roles;

extern const gcp_resource_t  gcp_type_selfsubjectaccessreviews;
extern const gcp_resource_t  gcp_type_subjectaccessreviews;
extern const gcp_resource_t  gcp_type_localsubjectaccessreviews;
extern const gcp_resource_t  gcp_type_selfsubjectrulesreviews;


#endif /* _GCP_AUTHZ_TYPES_H_INCLUDED_ */
