
/*
 * events.k8s.io/v1 Event: served from the core/v1 events in storage,
 * converted field by field both ways.
 */

#include "gcp_type_event.h"
#include "gcp_validation_types.h"


/* core/v1 field <-> events.k8s.io/v1 field, in events.k8s.io order */

static const char * const  gcp_event_map[][2] = {
    { "eventTime", "eventTime" },
    { "series", "series" },
    { "reportingComponent", "reportingController" },
    { "reportingInstance", "reportingInstance" },
    { "action", "action" },
    { "reason", "reason" },
    { "involvedObject", "regarding" },
    { "related", "related" },
    { "message", "note" },
    { "type", "type" },
    { "source", "deprecatedSource" },
    { "firstTimestamp", "deprecatedFirstTimestamp" },
    { "lastTimestamp", "deprecatedLastTimestamp" },
    { "count", "deprecatedCount" },
};


static const char * const  gcp_event_v1_order[] = {
    "eventTime", "series", "reportingController", "reportingInstance",
    "action", "reason", "regarding", "related", "note", "type",
    "deprecatedSource", "deprecatedFirstTimestamp",
    "deprecatedLastTimestamp", "deprecatedCount", NULL
};


/* Series: core {count, lastObservedTime} = v1 {count, lastObservedTime} */

static json_t *
gcp_event_convert(const json_t *src, int to_v1, const char *api_version)
{
    size_t       i;
    json_t      *dst, *v;
    const char  *from, *to;

    dst = json_object();
    if (dst == NULL) {
        return NULL;
    }

    json_object_set_new(dst, "kind", json_string("Event"));
    json_object_set_new(dst, "apiVersion", json_string(api_version));

    v = json_object_get(src, "metadata");
    json_object_set_new(dst, "metadata", v ? json_deep_copy(v)
                                           : json_object());

    for (i = 0; i < gcp_nelems(gcp_event_map); i++) {
        from = gcp_event_map[i][to_v1 ? 0 : 1];
        to = gcp_event_map[i][to_v1 ? 1 : 0];

        v = json_object_get(src, from);

        if (v == NULL) {
            continue;
        }

        if (to_v1 && !json_is_null(v) && strcmp(from, "eventTime") != 0
            && ((json_is_string(v) && json_string_length(v) == 0)
                || (json_is_object(v) && json_object_size(v) == 0)
                || (json_is_integer(v) && json_integer_value(v) == 0)))
        {
            /* omitted when empty in events.k8s.io/v1 */
            continue;
        }

        if (to_v1 && json_is_null(v) && strcmp(from, "eventTime") != 0) {
            continue;
        }

        json_object_set(dst, to, v);
    }

    return dst;
}


static json_t *
gcp_event_to_external(gcp_op_t *op, const json_t *stored)
{
    return gcp_event_convert(stored, 1, "events.k8s.io/v1");
}


static json_t *
gcp_event_to_internal(gcp_op_t *op, const json_t *obj, const char **msg)
{
    json_t  *core;

    core = gcp_event_convert(obj, 0, "v1");

    if (core) {
        gcp_event_defaults(core);
    }

    return core;
}


static int
gcp_event_v1_cells(gcp_op_t *op, const json_t *ev, json_t *cells)
{
    int      rc;
    json_t  *core;

    core = gcp_event_convert(ev, 0, "v1");
    if (core == NULL) {
        return GCP_ENOMEM;
    }

    rc = gcp_event_cells_core(op, core, cells);
    json_decref(core);

    return rc;
}


static const char *
gcp_event_v1_field(gcp_op_t *op, const json_t *ev, const char *field)
{
    const char  *v;
    json_t      *core;
    gcp_arena_t  *a = op->a;

    core = gcp_event_convert(ev, 0, "v1");
    if (core == NULL) {
        return NULL;
    }

    v = gcp_event_field_core(a, core, field);
    v = v ? gcp_strdup(a, v) : NULL;

    json_decref(core);

    return v;
}


static const gcp_strategy_t  gcp_event_v1_strategy = {
    .field_order = gcp_event_v1_order,
    .storage_order = gcp_event_order,
    .validate = gcp_validate_event_v1,
    .validate_update = gcp_validate_event_v1_update,
    .table_cells = gcp_event_v1_cells,
    .field_value = gcp_event_v1_field,
    .to_external = gcp_event_to_external,
    .to_internal = gcp_event_to_internal,
    .create_on_update = 1,
};


const gcp_resource_t  gcp_type_events_k8s_io = {
    .protobuf = 1,
    .group = "events.k8s.io",
    .version = "v1",
    .name = "events",
    .singular = "event",
    .kind = "Event",
    .list_kind = "EventList",
    .short_names = (const char * const []) { "ev", NULL },
    .namespaced = 1,
    .verbs = GCP_VERBS_CRUD,
    .schema = "io.k8s.api.events.v1.Event",
    .list_schema = "io.k8s.api.events.v1.EventList",
    .storage = "events",
    .storage_version_hash = "r2yiGXH7wu8=",
    .columns = gcp_event_columns,
    .ncolumns = GCP_EVENT_NCOLUMNS,
    .field_labels = gcp_event_field_labels,
    .strategy = &gcp_event_v1_strategy,
};
