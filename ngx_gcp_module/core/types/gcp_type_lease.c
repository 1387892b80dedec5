
/*
 * coordination.k8s.io/v1 Lease (leader election).
 */

#include "gcp_types.h"
#include "gcp_table.h"
#include "gcp_validation_types.h"


static const char * const  gcp_lease_order[] = { "spec", NULL };


static int
gcp_lease_cells(gcp_op_t *op, const json_t *obj, json_t *cells)
{
    const char  *holder;

    holder = json_string_value(json_object_get(json_object_get(obj, "spec"),
                                               "holderIdentity"));

    gcp_table_cell_name(cells, obj);
    json_array_append_new(cells, json_string(holder ? holder : ""));
    gcp_table_cell_age(cells, obj);

    return GCP_OK;
}


static const gcp_strategy_t  gcp_lease_strategy = {
    .field_order = gcp_lease_order,
    .validate = gcp_validate_lease,
    .validate_update = gcp_validate_lease_update,
    .table_cells = gcp_lease_cells,
    .create_on_update = 1,
    .no_unconditional_update = 1,
};


static const gcp_column_t  gcp_lease_columns[] = {
    GCP_COLUMN_NAME,
    { "Holder", "string", "", "holderIdentity contains the identity of the "
      "holder of a current lease. If Coordinated Leader Election is used, "
      "the holder identity must be equal to the elected "
      "LeaseCandidate.metadata.name field.", 0 },
    GCP_COLUMN_AGE,
};


const gcp_resource_t  gcp_type_leases = {
    .protobuf = 1,
    .group = "coordination.k8s.io",
    .version = "v1",
    .name = "leases",
    .singular = "lease",
    .kind = "Lease",
    .list_kind = "LeaseList",
    .namespaced = 1,
    .verbs = GCP_VERBS_CRUD,
    .schema = "io.k8s.api.coordination.v1.Lease",
    .list_schema = "io.k8s.api.coordination.v1.LeaseList",
    .storage = "coordination.k8s.io/leases",
    .columns = gcp_lease_columns,
    .ncolumns = gcp_nelems(gcp_lease_columns),
    .strategy = &gcp_lease_strategy,
};
