
/*
 * core/v1 Event, and what events.k8s.io/v1 shares with it.
 */

#include <ctype.h>

#include "gcp_type_event.h"
#include "gcp_table.h"
#include "gcp_validation_types.h"


const char * const  gcp_event_order[] = {
    "involvedObject", "reason", "message", "source", "firstTimestamp",
    "lastTimestamp", "count", "type", "eventTime", "series", "action",
    "related", "reportingComponent", "reportingInstance", NULL
};


const char * const  gcp_event_field_labels[] = {
    "involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
    "involvedObject.uid", "involvedObject.apiVersion",
    "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason",
    "reportingComponent", "source", "type", "metadata.namespace",
    "metadata.name", NULL
};


const gcp_column_t  gcp_event_columns[GCP_EVENT_NCOLUMNS] = {
    { "Last Seen", "string", "", "The time at which the most recent "
      "occurrence of this event was recorded.", 0 },
    { "Type", "string", "", "Type of this event (Normal, Warning), new types "
      "could be added in the future", 0 },
    { "Reason", "string", "", "This should be a short, machine "
      "understandable string that gives the reason for the transition into "
      "the object's current status.", 0 },
    { "Object", "string", "", "The object that this event is about.", 0 },
    { "Subobject", "string", "", "If referring to a piece of an object "
      "instead of an entire object, this string should contain a valid "
      "JSON/Go field access statement, such as "
      "desiredState.manifest.containers[2]. For example, if the object "
      "reference is to a container within a pod, this would take on a value "
      "like: \"spec.containers{name}\" (where \"name\" refers to the name of "
      "the container that triggered the event) or if no container name is "
      "specified \"spec.containers[2]\" (container with index 2 in this "
      "pod). This syntax is chosen only to have some well-defined way of "
      "referencing a part of an object.", 1 },
    { "Source", "string", "", "The component reporting this event. Should be "
      "a short machine understandable string.", 1 },
    { "Message", "string", "", "A human-readable description of the status "
      "of this operation.", 0 },
    { "First Seen", "string", "", "The time at which the event was first "
      "recorded. (Time of server receipt is in TypeMeta.)", 1 },
    { "Count", "string", "", "The number of times this event has "
      "occurred.", 1 },
    GCP_COLUMN_NAME_PRIORITY(1),
};

static const char *
gcp_event_str(const json_t *obj, const char *a, const char *b)
{
    const json_t  *v;
    const char    *s;

    v = json_object_get(obj, a);

    if (b) {
        v = json_object_get(v, b);
    }

    s = json_string_value(v);

    return s ? s : "";
}


void
gcp_event_defaults(json_t *ev)
{
    size_t  i;

    static const char * const  nulls[] = {
        "firstTimestamp", "lastTimestamp", "eventTime", NULL
    };

    static const char * const  objects[] = {
        "involvedObject", "source", NULL
    };

    static const char * const  strings[] = {
        "reportingComponent", "reportingInstance", NULL
    };

    for (i = 0; nulls[i]; i++) {
        if (json_object_get(ev, nulls[i]) == NULL) {
            json_object_set_new(ev, nulls[i], json_null());
        }
    }

    for (i = 0; objects[i]; i++) {
        if (!json_is_object(json_object_get(ev, objects[i]))) {
            json_object_set_new(ev, objects[i], json_object());
        }
    }

    for (i = 0; strings[i]; i++) {
        if (!json_is_string(json_object_get(ev, strings[i]))) {
            json_object_set_new(ev, strings[i], json_string(""));
        }
    }
}


const char *
gcp_event_field_core(gcp_arena_t *a, const json_t *ev, const char *field)
{
    const char  *dot, *source;

    if (strcmp(field, "source") == 0) {
        /* events.k8s.io/v1 writes carry only the reporting controller */
        source = gcp_event_str(ev, "source", "component");
        return source[0] ? source : gcp_event_str(ev, "reportingComponent",
                                                  NULL);
    }

    dot = strchr(field, '.');

    if (dot) {
        char  head[32];

        if ((size_t) (dot - field) >= sizeof(head)) {
            return NULL;
        }

        memcpy(head, field, (size_t) (dot - field));
        head[dot - field] = '\0';

        return gcp_event_str(ev, head, dot + 1);
    }

    return gcp_event_str(ev, field, NULL);
}


static void
gcp_event_source(gcp_buf_t *b, const json_t *ev)
{
    const char  *component, *host;

    /* kubectl's formatEventSource: each falls back on its own */

    component = gcp_event_str(ev, "source", "component");
    host = gcp_event_str(ev, "source", "host");

    if (component[0] == '\0') {
        component = gcp_event_str(ev, "reportingComponent", NULL);
    }

    if (host[0] == '\0') {
        host = gcp_event_str(ev, "reportingInstance", NULL);
    }

    gcp_buf_addstr(b, component);

    if (host[0]) {
        gcp_buf_addstr(b, ", ");
        gcp_buf_addstr(b, host);
    }
}


int
gcp_event_cells_core(gcp_op_t *op, const json_t *ev, json_t *cells)
{
    size_t       i, n;
    json_int_t   count;
    gcp_buf_t    b;
    const char  *last, *first, *msg, *kind;
    json_t      *series;

    last = gcp_event_str(ev, "lastTimestamp", NULL);
    first = gcp_event_str(ev, "firstTimestamp", NULL);
    series = json_object_get(ev, "series");

    if (last[0] == '\0') {
        last = gcp_event_str(ev, "eventTime", NULL);
    }

    if (first[0] == '\0') {
        first = gcp_event_str(ev, "eventTime", NULL);
    }

    if (json_is_object(series)) {
        last = gcp_event_str(series, "lastObservedTime", NULL);
        count = json_integer_value(json_object_get(series, "count"));

    } else {
        count = json_integer_value(json_object_get(ev, "count"));
    }

    gcp_table_cell_since(cells, last);
    json_array_append_new(cells, json_string(gcp_event_str(ev, "type",
                                                           NULL)));
    json_array_append_new(cells, json_string(gcp_event_str(ev, "reason",
                                                           NULL)));

    gcp_buf_init(&b, op->a);
    kind = gcp_event_str(ev, "involvedObject", "kind");

    for (i = 0; kind[i]; i++) {
        gcp_buf_addc(&b, (char) tolower((unsigned char) kind[i]));
    }

    gcp_buf_addc(&b, '/');
    gcp_buf_addstr(&b, gcp_event_str(ev, "involvedObject", "name"));
    json_array_append_new(cells, json_string(gcp_buf_cstr(&b)));

    json_array_append_new(cells,
        json_string(gcp_event_str(ev, "involvedObject", "fieldPath")));

    gcp_buf_init(&b, op->a);
    gcp_event_source(&b, ev);
    json_array_append_new(cells, json_string(gcp_buf_cstr(&b)));

    msg = gcp_event_str(ev, "message", NULL);
    n = strlen(msg);

    while (n && isspace((unsigned char) msg[n - 1])) {
        n--;
    }

    while (n && isspace((unsigned char) *msg)) {
        msg++;
        n--;
    }

    json_array_append_new(cells, json_stringn(msg, n));
    gcp_table_cell_since(cells, first);
    json_array_append_new(cells, json_integer(count));
    gcp_table_cell_name(cells, ev);

    return GCP_OK;
}


static int
gcp_event_prepare(gcp_op_t *op, json_t *obj)
{
    gcp_event_defaults(obj);

    return GCP_OK;
}


static int
gcp_event_prepare_update(gcp_op_t *op, json_t *obj, const json_t *old)
{
    gcp_event_defaults(obj);

    return GCP_OK;
}


static const char *
gcp_event_field(gcp_op_t *op, const json_t *ev, const char *field)
{
    return gcp_event_field_core(op->a, ev, field);
}


static const gcp_strategy_t  gcp_event_strategy = {
    .field_order = gcp_event_order,
    .prepare_create = gcp_event_prepare,
    .prepare_update = gcp_event_prepare_update,
    .validate = gcp_validate_event,
    .validate_update = gcp_validate_event_update,
    .table_cells = gcp_event_cells_core,
    .field_value = gcp_event_field,
    .create_on_update = 1,
};


const gcp_resource_t  gcp_type_events = {
    .protobuf = 1,
    .group = "",
    .version = "v1",
    .name = "events",
    .singular = "event",
    .kind = "Event",
    .list_kind = "EventList",
    .short_names = (const char * const []) { "ev", NULL },
    .namespaced = 1,
    .name_mode = GCP_NAME_PATH_SEGMENT,
    .verbs = GCP_VERBS_CRUD,
    .schema = "io.k8s.api.core.v1.Event",
    .list_schema = "io.k8s.api.core.v1.EventList",
    .storage = "events",
    .columns = gcp_event_columns,
    .ncolumns = GCP_EVENT_NCOLUMNS,
    .field_labels = gcp_event_field_labels,
    .strategy = &gcp_event_strategy,
};
