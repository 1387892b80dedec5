
/*
 * flowcontrol.apiserver.k8s.io PriorityLevelConfiguration, v1 (storage)
 * and v1beta3 (see gcp_fc_types.h for the nominalConcurrencyShares
 * annotation).
 */

#include "gcp_fc_types.h"
#include "gcp_fc_validation.h"
#include "gcp_table.h"


#define GCP_PL_HASH  "Kir5PVfvNeI="     /* of the storage version, v1 */


static void
gcp_pl_default_int(json_t *obj, const char *key, int64_t def)
{
    if (json_is_object(obj) && gcp_fc_int(obj, key, NULL, 0) == 0) {
        json_object_set_new(obj, key, json_integer(def));
    }
}


static void
gcp_pl_default_ptr(json_t *obj, const char *key, int64_t def)
{
    json_t  *v;

    v = json_object_get(obj, key);

    if (json_is_object(obj) && (v == NULL || json_is_null(v))) {
        json_object_set_new(obj, key, json_integer(def));
    }
}


static int
gcp_pl_preserve_zero(const json_t *obj)
{
    const char  *v;

    v = json_string_value(gcp_json_get(obj, "metadata", "annotations",
                                       GCP_FC_PRESERVE_ZERO, NULL));

    return v && strcmp(v, "true") == 0;
}


/* The defaulting of both versions (v1beta3: a 0 share is unset). */
static void
gcp_pl_defaults(gcp_op_t *op, json_t *obj)
{
    json_t  *spec, *limited, *exempt, *queuing;

    spec = json_object_get(obj, "spec");
    limited = json_object_get(spec, "limited");
    exempt = json_object_get(spec, "exempt");

    if (json_is_object(limited)) {
        if (strcmp(op->res->version, "v1beta3") == 0
            && !gcp_pl_preserve_zero(obj))
        {
            gcp_pl_default_int(limited, "nominalConcurrencyShares",
                               GCP_FC_DEFAULT_SHARES);

        } else {
            gcp_pl_default_ptr(limited, "nominalConcurrencyShares",
                               GCP_FC_DEFAULT_SHARES);
        }

        gcp_pl_default_ptr(limited, "lendablePercent", 0);

        if (!json_is_object(json_object_get(limited, "limitResponse"))) {
            json_object_set_new(limited, "limitResponse", json_object());
        }

        queuing = gcp_json_get(limited, "limitResponse", "queuing", NULL);

        gcp_pl_default_int(queuing, "queues", GCP_FC_DEFAULT_QUEUES);
        gcp_pl_default_int(queuing, "handSize", GCP_FC_DEFAULT_HAND_SIZE);
        gcp_pl_default_int(queuing, "queueLengthLimit",
                           GCP_FC_DEFAULT_QUEUE_LENGTH);
    }

    if (json_is_object(exempt)) {
        gcp_pl_default_ptr(exempt, "nominalConcurrencyShares", 0);
        gcp_pl_default_ptr(exempt, "lendablePercent", 0);
    }

    gcp_fc_go_order(spec, "PriorityLevelConfigurationSpec");
}


static int
gcp_pl_prepare_create(gcp_op_t *op, json_t *obj)
{
    gcp_fc_prepare_create(op, obj);
    gcp_pl_defaults(op, obj);

    return GCP_OK;
}


static int
gcp_pl_prepare_update(gcp_op_t *op, json_t *obj, const json_t *old)
{
    gcp_fc_keep_status(op, obj, old);
    gcp_pl_defaults(op, obj);

    return GCP_OK;
}


static void
gcp_pl_cell(json_t *cells, const json_t *v)
{
    json_array_append_new(cells, json_is_integer(v) ? json_copy((json_t *) v)
                                                    : json_string("<none>"));
}


static int
gcp_pl_cells(gcp_op_t *op, const json_t *obj, json_t *cells)
{
    json_t      *spec, *limited, *q;
    const char  *type;

    spec = json_object_get(obj, "spec");
    type = json_string_value(json_object_get(spec, "type"));
    limited = json_object_get(spec, "limited");
    q = gcp_json_get(limited, "limitResponse", "queuing", NULL);

    gcp_table_cell_name(cells, obj);
    json_array_append_new(cells, json_string(type ? type : ""));

    if (json_is_object(limited)) {
        gcp_pl_cell(cells, json_object_get(limited,
                                           "nominalConcurrencyShares"));

    } else {
        gcp_pl_cell(cells, NULL);
    }

    gcp_pl_cell(cells, json_object_get(q, "queues"));
    gcp_pl_cell(cells, json_object_get(q, "handSize"));
    gcp_pl_cell(cells, json_object_get(q, "queueLengthLimit"));
    gcp_table_cell_age(cells, obj);

    return GCP_OK;
}


/* v1 -> v1beta3: 0 shares travel with the annotation. */
static json_t *
gcp_pl_to_v1beta3(gcp_op_t *op, const json_t *stored)
{
    json_t  *obj, *meta, *notes, *ncs;

    obj = gcp_fc_convert(stored, "v1beta3");
    if (obj == NULL) {
        return NULL;
    }

    ncs = gcp_json_get(obj, "spec", "limited", "nominalConcurrencyShares",
                       NULL);

    if (json_is_integer(ncs) && json_integer_value(ncs) == 0) {
        meta = gcp_meta(obj);
        notes = json_object_get(meta, "annotations");

        if (!json_is_object(notes)) {
            notes = json_object();
            json_object_set_new(meta, "annotations", notes);
        }

        json_object_set_new(notes, GCP_FC_PRESERVE_ZERO,
                            json_string("true"));
    }

    return obj;
}


/* v1beta3 -> v1: the annotation goes. */
static json_t *
gcp_pl_to_v1(gcp_op_t *op, const json_t *in, const char **msg)
{
    json_t  *obj, *notes;

    obj = gcp_fc_convert(in, "v1");
    if (obj == NULL) {
        return NULL;
    }

    notes = gcp_json_get(obj, "metadata", "annotations", NULL);

    if (json_is_object(notes)) {
        json_object_del(notes, GCP_FC_PRESERVE_ZERO);

        if (json_object_size(notes) == 0) {
            json_object_del(json_object_get(obj, "metadata"), "annotations");
        }
    }

    return obj;
}


/* The hooks of both versions. */
#define GCP_PL_HOOKS                                                          \
    .field_order = gcp_fc_order,                                              \
    .prepare_create = gcp_pl_prepare_create,                                  \
    .prepare_update = gcp_pl_prepare_update,                                  \
    .prepare_status_update = gcp_fc_prepare_status,                           \
    .validate = gcp_fc_validate_prioritylevel,                                \
    .validate_update = gcp_fc_validate_prioritylevel_update,                  \
    .validate_status = gcp_fc_validate_status,                                \
    .table_cells = gcp_pl_cells,                                              \
    .generation = 1


static const gcp_strategy_t  gcp_pl_strategy = {
    GCP_PL_HOOKS,
};


static const gcp_strategy_t  gcp_pl_v1beta3_strategy = {
    GCP_PL_HOOKS,
    .storage_order = gcp_fc_order,
    .to_external = gcp_pl_to_v1beta3,
    .to_internal = gcp_pl_to_v1,
};


static const gcp_subresource_t  gcp_pl_subresources[] = {
    { "status", GCP_SUB_STATUS,
      GCP_VERB_GET | GCP_VERB_PATCH | GCP_VERB_UPDATE, NULL, NULL, NULL },
};


static const gcp_column_t  gcp_pl_columns[] = {
    GCP_COLUMN_NAME,
    { "Type", "string", "", "`type` indicates whether this priority level "
      "is subject to limitation on request execution.  A value of "
      "`\"Exempt\"` means that requests of this priority level are not "
      "subject to a limit (and thus are never queued) and do not detract "
      "from the capacity made available to other priority levels.  A value "
      "of `\"Limited\"` means that (a) requests of this priority level _are_ "
      "subject to limits and (b) some of the server's limited capacity is "
      "made available exclusively to this priority level. Required.", 0 },
    { "NominalConcurrencyShares", "string", "", "`nominalConcurrencyShares` "
      "(NCS) contributes to the computation of the NominalConcurrencyLimit "
      "(NominalCL) of this level. This is the number of execution seats "
      "available at this priority level. This is used both for requests "
      "dispatched from this priority level as well as requests dispatched "
      "from other priority levels borrowing seats from this level. The "
      "server's concurrency limit (ServerCL) is divided among the Limited "
      "priority levels in proportion to their NCS values:\n\n"
      "NominalCL(i)  = ceil( ServerCL * NCS(i) / sum_ncs ) sum_ncs = "
      "sum[priority level k] NCS(k)\n\nBigger numbers mean a larger nominal "
      "concurrency limit, at the expense of every other priority level.\n\n"
      "If not specified, this field defaults to a value of 30.\n\nSetting "
      "this field to zero supports the construction of a \"jail\" for this "
      "priority level that is used to hold some request(s)", 0 },
    { "Queues", "string", "", "`queues` is the number of queues for this "
      "priority level. The queues exist independently at each apiserver. "
      "The value must be positive.  Setting it to 1 effectively precludes "
      "shufflesharding and thus makes the distinguisher method of "
      "associated flow schemas irrelevant.  This field has a default value "
      "of 64.", 0 },
    { "HandSize", "string", "", "`handSize` is a small positive number that "
      "configures the shuffle sharding of requests into queues.  When "
      "enqueuing a request at this priority level the request's flow "
      "identifier (a string pair) is hashed and the hash value is used to "
      "shuffle the list of queues and deal a hand of the size specified "
      "here.  The request is put into one of the shortest queues in that "
      "hand. `handSize` must be no larger than `queues`, and should be "
      "significantly smaller (so that a few heavy flows do not saturate "
      "most of the queues).  See the user-facing documentation for more "
      "extensive guidance on setting this field.  This field has a default "
      "value of 8.", 0 },
    { "QueueLengthLimit", "string", "", "`queueLengthLimit` is the maximum "
      "number of requests allowed to be waiting in a given queue of this "
      "priority level at a time; excess requests are rejected.  This value "
      "must be positive.  If not specified, it will be defaulted to 50.",
      0 },
    GCP_COLUMN_AGE,
};


#define GCP_PL_RESOURCE(v, st, hash)                                          \
    .protobuf = 1,                                                            \
    .group = GCP_FC_GROUP,                                                    \
    .version = v,                                                             \
    .name = "prioritylevelconfigurations",                                    \
    .singular = "prioritylevelconfiguration",                                 \
    .kind = "PriorityLevelConfiguration",                                     \
    .list_kind = "PriorityLevelConfigurationList",                            \
    .verbs = GCP_VERBS_CRUD,                                                  \
    .subresources = gcp_pl_subresources,                                      \
    .nsubresources = gcp_nelems(gcp_pl_subresources),                         \
    .schema = "io.k8s.api.flowcontrol." v ".PriorityLevelConfiguration",      \
    .list_schema = "io.k8s.api.flowcontrol." v                                \
                   ".PriorityLevelConfigurationList",                         \
    .storage = GCP_FC_STORAGE_PL,                                             \
    .storage_version_hash = hash,                                             \
    .columns = gcp_pl_columns,                                                \
    .ncolumns = gcp_nelems(gcp_pl_columns),                                   \
    .strategy = st


const gcp_resource_t  gcp_type_prioritylevels = {
    GCP_PL_RESOURCE("v1", &gcp_pl_strategy, NULL),
};

const gcp_resource_t  gcp_type_prioritylevels_v1beta3 = {
    GCP_PL_RESOURCE("v1beta3", &gcp_pl_v1beta3_strategy, GCP_PL_HASH),
};
