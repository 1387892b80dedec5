
/*
 * rbac.authorization.k8s.io/v1 ClusterRole.  The rules of a ClusterRole
 * with an aggregationRule are written by the aggregation controller
 * (gcp_rbac_aggregate.c).
 */

#include "gcp_rbac_validation.h"
#include "gcp_authz_types.h"
#include "gcp_validation.h"


static const char * const  gcp_clusterrole_order[] = {
    "rules", "aggregationRule", NULL
};


static const gcp_strategy_t  gcp_clusterrole_strategy = {
    .field_order = gcp_clusterrole_order,
    .prepare_create = gcp_rbac_role_prepare,
    .prepare_update = gcp_rbac_role_prepare_update,
    .validate = gcp_rbac_validate_clusterrole,
    .create_on_update = 1,
};


const gcp_resource_t  gcp_type_clusterroles = {
    .protobuf = 1,
    .group = "rbac.authorization.k8s.io",
    .version = "v1",
    .name = "clusterroles",
    .singular = "clusterrole",
    .kind = "ClusterRole",
    .list_kind = "ClusterRoleList",
    .name_mode = GCP_NAME_PATH_SEGMENT,
    .verbs = GCP_VERBS_CRUD,
    .schema = "io.k8s.api.rbac.v1.ClusterRole",
    .list_schema = "io.k8s.api.rbac.v1.ClusterRoleList",
    .storage = "rbac.authorization.k8s.io/clusterroles",
    .storage_version_hash = "bYE5ZWDrJ44=",
    .strategy = &gcp_clusterrole_strategy,
};
