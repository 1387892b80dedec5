
/*
 * core/v1 Secret: stringData is folded into data (base64) and never
 * stored; the type defaults to Opaque.
 */

#include "gcp_types.h"
#include "gcp_table.h"
#include "gcp_validation_types.h"


static const char * const  gcp_secret_order[] = {
    "immutable", "data", "stringData", "type", NULL
};

static const char * const  gcp_secret_fields[] = {
    "type", "metadata.namespace", "metadata.name", NULL
};


static int
gcp_secret_fold(gcp_op_t *op, json_t *obj)
{
    json_t      *sd, *data, *v;
    gcp_buf_t    b;
    const char  *key;

    sd = json_object_get(obj, "stringData");

    if (json_is_object(sd) && json_object_size(sd)) {
        data = json_object_get(obj, "data");

        if (!json_is_object(data)) {
            data = json_object();
            json_object_set_new(obj, "data", data);
        }

        json_object_foreach(sd, key, v) {
            gcp_buf_init(&b, op->a);
            gcp_base64_encode_buf(&b, json_string_value(v),
                                  json_string_length(v), GCP_BASE64_STD);

            if (gcp_buf_failed(&b)
                || json_object_set_new(data, key,
                                       json_stringn(b.data, b.len)) != 0)
            {
                gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
                return GCP_ENOMEM;
            }
        }
    }

    json_object_del(obj, "stringData");

    if (!json_is_string(json_object_get(obj, "type"))
        || json_string_length(json_object_get(obj, "type")) == 0)
    {
        json_object_set_new(obj, "type", json_string("Opaque"));
    }

    return GCP_OK;
}


static int
gcp_secret_prepare_update(gcp_op_t *op, json_t *obj, const json_t *old)
{
    return gcp_secret_fold(op, obj);
}


static int
gcp_secret_cells(gcp_op_t *op, const json_t *obj, json_t *cells)
{
    const char  *type;

    type = json_string_value(json_object_get(obj, "type"));

    gcp_table_cell_name(cells, obj);
    json_array_append_new(cells, json_string(type ? type : ""));
    json_array_append_new(cells,
        json_integer((json_int_t) gcp_type_map_size(obj, "data")));
    gcp_table_cell_age(cells, obj);

    return GCP_OK;
}


static const char *
gcp_secret_field(gcp_op_t *op, const json_t *obj, const char *field)
{
    if (strcmp(field, "type") == 0) {
        return json_string_value(json_object_get(obj, "type"));
    }

    return NULL;
}


static const gcp_strategy_t  gcp_secret_strategy = {
    .field_order = gcp_secret_order,
    .decode = gcp_decode_check_secret,
    .prepare_create = gcp_secret_fold,
    .prepare_update = gcp_secret_prepare_update,
    .validate = gcp_validate_secret,
    .validate_update = gcp_validate_secret_update,
    .table_cells = gcp_secret_cells,
    .field_value = gcp_secret_field,
};


static const gcp_column_t  gcp_secret_columns[] = {
    GCP_COLUMN_NAME,
    { "Type", "string", "", "Used to facilitate programmatic handling of "
      "secret data. More info: https://kubernetes.io/docs/concepts/"
      "configuration/secret/#secret-types", 0 },
    { "Data", "string", "", "Data contains the secret data. Each key must "
      "consist of alphanumeric characters, '-', '_' or '.'. The serialized "
      "form of the secret data is a base64 encoded string, representing the "
      "arbitrary (possibly non-string) data value here. Described in "
      "https://tools.ietf.org/html/rfc4648#section-4", 0 },
    GCP_COLUMN_AGE,
};


const gcp_resource_t  gcp_type_secrets = {
    .protobuf = 1,
    .group = "",
    .version = "v1",
    .name = "secrets",
    .singular = "secret",
    .kind = "Secret",
    .list_kind = "SecretList",
    .namespaced = 1,
    .verbs = GCP_VERBS_CRUD,
    .schema = "io.k8s.api.core.v1.Secret",
    .list_schema = "io.k8s.api.core.v1.SecretList",
    .storage = "secrets",
    .columns = gcp_secret_columns,
    .ncolumns = gcp_nelems(gcp_secret_columns),
    .field_labels = gcp_secret_fields,
    .strategy = &gcp_secret_strategy,
};
