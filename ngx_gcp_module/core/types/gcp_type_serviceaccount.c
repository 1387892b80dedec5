
/*
 * core/v1 ServiceAccount.
 */

#include "gcp_types.h"
#include "gcp_table.h"


static const char * const  gcp_serviceaccount_order[] = {
    "secrets", "imagePullSecrets", "automountServiceAccountToken", NULL
};


static int
gcp_serviceaccount_cells(gcp_op_t *op, const json_t *obj, json_t *cells)
{
    gcp_table_cell_name(cells, obj);
    json_array_append_new(cells, json_integer((json_int_t)
        json_array_size(json_object_get(obj, "secrets"))));
    gcp_table_cell_age(cells, obj);

    return GCP_OK;
}


static const gcp_strategy_t  gcp_serviceaccount_strategy = {
    .field_order = gcp_serviceaccount_order,
    .table_cells = gcp_serviceaccount_cells,
};


/* serviceaccounts/NAME/token: TokenRequest (gcp_type_tokenrequest.c) */
static const gcp_subresource_t  gcp_serviceaccount_subresources[] = {
    { "token", GCP_SUB_OTHER, GCP_VERB_CREATE, "authentication.k8s.io", "v1",
      "TokenRequest" },
};


static const gcp_column_t  gcp_serviceaccount_columns[] = {
    GCP_COLUMN_NAME,
    { "Secrets", "string", "", "Secrets is a list of the secrets in the "
      "same namespace that pods running using this ServiceAccount are "
      "allowed to use. Pods are only limited to this list if this service "
      "account has a \"kubernetes.io/enforce-mountable-secrets\" annotation "
      "set to \"true\". The \"kubernetes.io/enforce-mountable-secrets\" "
      "annotation is deprecated since v1.32. Prefer separate namespaces to "
      "isolate access to mounted secrets. This field should not be used to "
      "find auto-generated service account token secrets for use outside "
      "of pods. Instead, tokens can be requested directly using the "
      "TokenRequest API, or service account token secrets can be manually "
      "created. More info: https://kubernetes.io/docs/concepts/"
      "configuration/secret", 0 },
    GCP_COLUMN_AGE,
};


const gcp_resource_t  gcp_type_serviceaccounts = {
    .protobuf = 1,
    .group = "",
    .version = "v1",
    .name = "serviceaccounts",
    .singular = "serviceaccount",
    .kind = "ServiceAccount",
    .list_kind = "ServiceAccountList",
    .short_names = (const char * const []) { "sa", NULL },
    .namespaced = 1,
    .verbs = GCP_VERBS_CRUD,
    .subresources = gcp_serviceaccount_subresources,
    .nsubresources = gcp_nelems(gcp_serviceaccount_subresources),
    .schema = "io.k8s.api.core.v1.ServiceAccount",
    .list_schema = "io.k8s.api.core.v1.ServiceAccountList",
    .storage = "serviceaccounts",
    .columns = gcp_serviceaccount_columns,
    .ncolumns = gcp_nelems(gcp_serviceaccount_columns),
    .strategy = &gcp_serviceaccount_strategy,
};
