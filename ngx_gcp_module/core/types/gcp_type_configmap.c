
/*
 * core/v1 ConfigMap.
 */

#include "gcp_types.h"
#include "gcp_table.h"
#include "gcp_validation_types.h"


static const char * const  gcp_configmap_order[] = {
    "immutable", "data", "binaryData", NULL
};


static int
gcp_configmap_cells(gcp_op_t *op, const json_t *obj, json_t *cells)
{
    gcp_table_cell_name(cells, obj);
    json_array_append_new(cells,
        json_integer((json_int_t) (gcp_type_map_size(obj, "data")
                                   + gcp_type_map_size(obj, "binaryData"))));
    gcp_table_cell_age(cells, obj);

    return GCP_OK;
}


static const gcp_strategy_t  gcp_configmap_strategy = {
    .field_order = gcp_configmap_order,
    .decode = gcp_decode_check_configmap,
    .validate = gcp_validate_configmap,
    .validate_update = gcp_validate_configmap_update,
    .table_cells = gcp_configmap_cells,
};


static const gcp_column_t  gcp_configmap_columns[] = {
    GCP_COLUMN_NAME,
    { "Data", "string", "", "Data contains the configuration data. Each key "
      "must consist of alphanumeric characters, '-', '_' or '.'. Values "
      "with non-UTF-8 byte sequences must use the BinaryData field. The "
      "keys stored in Data must not overlap with the keys in the BinaryData "
      "field, this is enforced during validation process.", 0 },
    GCP_COLUMN_AGE,
};


const gcp_resource_t  gcp_type_configmaps = {
    .protobuf = 1,
    .group = "",
    .version = "v1",
    .name = "configmaps",
    .singular = "configmap",
    .kind = "ConfigMap",
    .list_kind = "ConfigMapList",
    .short_names = (const char * const []) { "cm", NULL },
    .namespaced = 1,
    .verbs = GCP_VERBS_CRUD,
    .schema = "io.k8s.api.core.v1.ConfigMap",
    .list_schema = "io.k8s.api.core.v1.ConfigMapList",
    .storage = "configmaps",
    .columns = gcp_configmap_columns,
    .ncolumns = gcp_nelems(gcp_configmap_columns),
    .strategy = &gcp_configmap_strategy,
};
