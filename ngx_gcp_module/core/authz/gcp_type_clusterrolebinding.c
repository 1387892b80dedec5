
/*
 * rbac.authorization.k8s.io/v1 ClusterRoleBinding.
 */

#include "gcp_rbac_validation.h"
#include "gcp_table.h"
#include "gcp_authz_types.h"
#include "gcp_validation.h"


static const char * const  gcp_clusterrolebinding_order[] = {
    "subjects", "roleRef", NULL
};


static const gcp_strategy_t  gcp_clusterrolebinding_strategy = {
    .field_order = gcp_clusterrolebinding_order,
    .prepare_create = gcp_rbac_binding_prepare,
    .prepare_update = gcp_rbac_binding_prepare_update,
    .validate = gcp_rbac_validate_clusterrolebinding,
    .validate_update = gcp_rbac_validate_clusterrolebinding_update,
    .table_cells = gcp_rbac_binding_cells,
    .create_on_update = 1,
};


static const gcp_column_t  gcp_clusterrolebinding_columns[] = {
    GCP_COLUMN_NAME,
    { "Role", "string", "", "RoleRef can only reference a ClusterRole in "
      "the global namespace. If the RoleRef cannot be resolved, the "
      "Authorizer must return an error.", 0 },
    GCP_COLUMN_AGE,
    { "Users", "string", "", "Users in the clusterRoleBinding", 1 },
    { "Groups", "string", "", "Groups in the clusterRoleBinding", 1 },
    { "ServiceAccounts", "string", "",
      "ServiceAccounts in the clusterRoleBinding", 1 },
};


const gcp_resource_t  gcp_type_clusterrolebindings = {
    .protobuf = 1,
    .group = "rbac.authorization.k8s.io",
    .version = "v1",
    .name = "clusterrolebindings",
    .singular = "clusterrolebinding",
    .kind = "ClusterRoleBinding",
    .list_kind = "ClusterRoleBindingList",
    .name_mode = GCP_NAME_PATH_SEGMENT,
    .verbs = GCP_VERBS_CRUD,
    .schema = "io.k8s.api.rbac.v1.ClusterRoleBinding",
    .list_schema = "io.k8s.api.rbac.v1.ClusterRoleBindingList",
    .storage = "rbac.authorization.k8s.io/clusterrolebindings",
    .storage_version_hash = "48tpQ8gZHFc=",
    .columns = gcp_clusterrolebinding_columns,
    .ncolumns = gcp_nelems(gcp_clusterrolebinding_columns),
    .strategy = &gcp_clusterrolebinding_strategy,
};
