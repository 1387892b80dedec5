
/*
 * rbac.authorization.k8s.io/v1 RoleBinding.
 */

#include "gcp_rbac_validation.h"
#include "gcp_table.h"
#include "gcp_authz_types.h"
#include "gcp_validation.h"


static const char * const  gcp_rolebinding_order[] = {
    "subjects", "roleRef", NULL
};


static const gcp_strategy_t  gcp_rolebinding_strategy = {
    .field_order = gcp_rolebinding_order,
    .prepare_create = gcp_rbac_binding_prepare,
    .prepare_update = gcp_rbac_binding_prepare_update,
    .validate = gcp_rbac_validate_rolebinding,
    .validate_update = gcp_rbac_validate_rolebinding_update,
    .table_cells = gcp_rbac_binding_cells,
    .create_on_update = 1,
};


static const gcp_column_t  gcp_rolebinding_columns[] = {
    GCP_COLUMN_NAME,
    { "Role", "string", "", "RoleRef can reference a Role in the current "
      "namespace or a ClusterRole in the global namespace. If the RoleRef "
      "cannot be resolved, the Authorizer must return an error.", 0 },
    GCP_COLUMN_AGE,
    { "Users", "string", "", "Users in the roleBinding", 1 },
    { "Groups", "string", "", "Groups in the roleBinding", 1 },
    { "ServiceAccounts", "string", "", "ServiceAccounts in the roleBinding",
      1 },
};


const gcp_resource_t  gcp_type_rolebindings = {
    .protobuf = 1,
    .group = "rbac.authorization.k8s.io",
    .version = "v1",
    .name = "rolebindings",
    .singular = "rolebinding",
    .kind = "RoleBinding",
    .list_kind = "RoleBindingList",
    .namespaced = 1,
    .name_mode = GCP_NAME_PATH_SEGMENT,
    .verbs = GCP_VERBS_CRUD,
    .schema = "io.k8s.api.rbac.v1.RoleBinding",
    .list_schema = "io.k8s.api.rbac.v1.RoleBindingList",
    .storage = "rbac.authorization.k8s.io/rolebindings",
    .storage_version_hash = "eGsCzGH6b1g=",
    .columns = gcp_rolebinding_columns,
    .ncolumns = gcp_nelems(gcp_rolebinding_columns),
    .strategy = &gcp_rolebinding_strategy,
};
