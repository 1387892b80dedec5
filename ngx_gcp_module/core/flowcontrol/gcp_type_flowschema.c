
/*
 * flowcontrol.apiserver.k8s.io FlowSchema, v1 (storage) and v1beta3.
 */

#include "gcp_fc_types.h"
#include "gcp_fc_validation.h"
#include "gcp_table.h"


#define GCP_FS_HASH  "GJVAJZSZBIw="     /* of the storage version, v1 */


/* SetDefaults_FlowSchemaSpec (both versions) */
static void
gcp_fs_defaults(json_t *obj)
{
    json_t  *spec;

    spec = json_object_get(obj, "spec");

    if (json_is_object(spec)
        && gcp_fc_int(spec, "matchingPrecedence", NULL, 0) == 0)
    {
        json_object_set_new(spec, "matchingPrecedence",
                            json_integer(GCP_FC_DEFAULT_PRECEDENCE));
    }

    gcp_fc_go_order(spec, "FlowSchemaSpec");
}


static int
gcp_fs_prepare_create(gcp_op_t *op, json_t *obj)
{
    gcp_fc_prepare_create(op, obj);
    gcp_fs_defaults(obj);

    return GCP_OK;
}


static int
gcp_fs_prepare_update(gcp_op_t *op, json_t *obj, const json_t *old)
{
    gcp_fc_keep_status(op, obj, old);
    gcp_fs_defaults(obj);

    return GCP_OK;
}


static int
gcp_fs_cells(gcp_op_t *op, const json_t *obj, json_t *cells)
{
    size_t       i;
    json_t      *spec, *c;
    const char  *pl, *dm, *missing;

    spec = json_object_get(obj, "spec");
    pl = json_string_value(gcp_json_get(spec, "priorityLevelConfiguration",
                                        "name", NULL));
    dm = json_string_value(gcp_json_get(spec, "distinguisherMethod", "type",
                                        NULL));
    missing = "?";

    json_array_foreach(gcp_json_get(obj, "status", "conditions", NULL), i,
                       c)
    {
        if (json_is_string(json_object_get(c, "type"))
            && strcmp(json_string_value(json_object_get(c, "type")),
                      "Dangling") == 0)
        {
            missing = json_string_value(json_object_get(c, "status"));
            missing = missing ? missing : "";
            break;
        }
    }

    gcp_table_cell_name(cells, obj);
    json_array_append_new(cells, json_string(pl ? pl : ""));
    json_array_append_new(cells,
                          json_integer(gcp_fc_int(spec, "matchingPrecedence",
                                                  NULL, 0)));
    json_array_append_new(cells, json_string(dm ? dm : "<none>"));
    gcp_table_cell_age(cells, obj);
    json_array_append_new(cells, json_string(missing));

    return GCP_OK;
}


/* FlowSchemaSequence: by matchingPrecedence, then by name. */
static int
gcp_fs_cmp(const void *a, const void *b)
{
    int64_t        pa, pb;
    const json_t  *x = *(const json_t * const *) a;
    const json_t  *y = *(const json_t * const *) b;

    pa = gcp_fc_int(json_object_get(x, "spec"), "matchingPrecedence", NULL,
                    0);
    pb = gcp_fc_int(json_object_get(y, "spec"), "matchingPrecedence", NULL,
                    0);

    if (pa != pb) {
        return pa < pb ? -1 : 1;
    }

    return strcmp(gcp_meta_str(x, "name"), gcp_meta_str(y, "name"));
}


static json_t *
gcp_fs_to_v1beta3(gcp_op_t *op, const json_t *stored)
{
    return gcp_fc_convert(stored, "v1beta3");
}


static json_t *
gcp_fs_to_v1(gcp_op_t *op, const json_t *obj, const char **msg)
{
    return gcp_fc_convert(obj, "v1");
}


/* The hooks of both versions. */
#define GCP_FS_HOOKS                                                          \
    .field_order = gcp_fc_order,                                              \
    .prepare_create = gcp_fs_prepare_create,                                  \
    .prepare_update = gcp_fs_prepare_update,                                  \
    .prepare_status_update = gcp_fc_prepare_status,                           \
    .validate = gcp_fc_validate_flowschema,                                   \
    .validate_update = gcp_fc_validate_flowschema_update,                     \
    .validate_status = gcp_fc_validate_status,                                \
    .table_cells = gcp_fs_cells,                                              \
    .table_cmp = gcp_fs_cmp,                                                  \
    .generation = 1


static const gcp_strategy_t  gcp_fs_strategy = {
    GCP_FS_HOOKS,
};


static const gcp_strategy_t  gcp_fs_v1beta3_strategy = {
    GCP_FS_HOOKS,
    .storage_order = gcp_fc_order,
    .to_external = gcp_fs_to_v1beta3,
    .to_internal = gcp_fs_to_v1,
};


static const gcp_subresource_t  gcp_fs_subresources[] = {
    { "status", GCP_SUB_STATUS,
      GCP_VERB_GET | GCP_VERB_PATCH | GCP_VERB_UPDATE, NULL, NULL, NULL },
};


static const gcp_column_t  gcp_fs_columns[] = {
    GCP_COLUMN_NAME,
    { "PriorityLevel", "string", "", "`name` is the name of the priority "
      "level configuration being referenced Required.", 0 },
    { "MatchingPrecedence", "string", "", "`matchingPrecedence` is used to "
      "choose among the FlowSchemas that match a given request. The chosen "
      "FlowSchema is among those with the numerically lowest (which we take "
      "to be logically highest) MatchingPrecedence.  Each "
      "MatchingPrecedence value must be ranged in [1,10000]. Note that if "
      "the precedence is not specified, it will be set to 1000 as "
      "default.", 0 },
    { "DistinguisherMethod", "string", "", "`distinguisherMethod` defines "
      "how to compute the flow distinguisher for requests that match this "
      "schema. `nil` specifies that the distinguisher is disabled and thus "
      "will always be the empty string.", 0 },
    GCP_COLUMN_AGE,
    { "MissingPL", "string", "", "references a broken or non-existent "
      "PriorityLevelConfiguration", 0 },
};


#define GCP_FS_RESOURCE(v, st, hash)                                          \
    .protobuf = 1,                                                            \
    .group = GCP_FC_GROUP,                                                    \
    .version = v,                                                             \
    .name = "flowschemas",                                                    \
    .singular = "flowschema",                                                 \
    .kind = "FlowSchema",                                                     \
    .list_kind = "FlowSchemaList",                                            \
    .verbs = GCP_VERBS_CRUD,                                                  \
    .subresources = gcp_fs_subresources,                                      \
    .nsubresources = gcp_nelems(gcp_fs_subresources),                         \
    .schema = "io.k8s.api.flowcontrol." v ".FlowSchema",                      \
    .list_schema = "io.k8s.api.flowcontrol." v ".FlowSchemaList",             \
    .storage = GCP_FC_STORAGE_FS,                                             \
    .storage_version_hash = hash,                                             \
    .columns = gcp_fs_columns,                                                \
    .ncolumns = gcp_nelems(gcp_fs_columns),                                   \
    .strategy = st


const gcp_resource_t  gcp_type_flowschemas = {
    GCP_FS_RESOURCE("v1", &gcp_fs_strategy, NULL),
};

const gcp_resource_t  gcp_type_flowschemas_v1beta3 = {
    GCP_FS_RESOURCE("v1beta3", &gcp_fs_v1beta3_strategy, GCP_FS_HASH),
};
