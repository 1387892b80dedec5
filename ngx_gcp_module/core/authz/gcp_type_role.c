
/*
 * rbac.authorization.k8s.io/v1 Role.
 */

#include "gcp_rbac_validation.h"
#include "gcp_authz_types.h"
#include "gcp_validation.h"


static const char * const  gcp_role_order[] = { "rules", NULL };


static const gcp_strategy_t  gcp_role_strategy = {
    .field_order = gcp_role_order,
    .prepare_create = gcp_rbac_role_prepare,
    .prepare_update = gcp_rbac_role_prepare_update,
    .validate = gcp_rbac_validate_role,
    .create_on_update = 1,
};


const gcp_resource_t  gcp_type_roles = {
    .protobuf = 1,
    .group = "rbac.authorization.k8s.io",
    .version = "v1",
    .name = "roles",
    .singular = "role",
    .kind = "Role",
    .list_kind = "RoleList",
    .namespaced = 1,
    .name_mode = GCP_NAME_PATH_SEGMENT,
    .verbs = GCP_VERBS_CRUD,
    .schema = "io.k8s.api.rbac.v1.Role",
    .list_schema = "io.k8s.api.rbac.v1.RoleList",
    .storage = "rbac.authorization.k8s.io/roles",
    .storage_version_hash = "7FuwZcIIItM=",
    .strategy = &gcp_role_strategy,
};
