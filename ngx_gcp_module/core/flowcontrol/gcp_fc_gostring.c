
/*
 * The Go structs of the flowcontrol types: their fields in Go order (to
 * put what defaulting adds where kube-apiserver writes it), Go's %#v of
 * their values, and semantic equality (see gcp_fc_validation.h).
 * kube-apiserver's field errors print struct
 * values with %#v of the internal types: fields in struct order,
 * pointers as (*T)(nil) or (*T)(0xADDRESS), nil slices as []T(nil).
 * The address of a pointer is a Go heap address that differs on every
 * request; one fixed address of the same shape stands for it.
 */

#include "gcp_fc_validation.h"
#include "gcp_json.h"


#define GCP_FC_GO_ADDRESS  "0xc000a2c000"


typedef enum {
    GCP_GO_F_STRING = 0,
    GCP_GO_F_INT,               /* int32 */
    GCP_GO_F_BOOL,
    GCP_GO_F_STRUCT,            /* a struct value */
    GCP_GO_F_PTR,               /* a pointer to a struct */
    GCP_GO_F_PTRINT,            /* *int32 */
    GCP_GO_F_SLICE,             /* a slice of structs */
    GCP_GO_F_STRINGS            /* []string */
} gcp_go_field_kind_t;


typedef struct {
    const char           *json;
    const char           *go;
    gcp_go_field_kind_t   kind;
    const char           *type;     /* of structs, slices and pointers */
} gcp_go_field_t;


typedef struct {
    const char            *name;
    const gcp_go_field_t  *fields;
} gcp_go_type_t;


static const gcp_go_field_t  gcp_go_fs_spec[] = {
    { "priorityLevelConfiguration", "PriorityLevelConfiguration",
      GCP_GO_F_STRUCT, "PriorityLevelConfigurationReference" },
    { "matchingPrecedence", "MatchingPrecedence", GCP_GO_F_INT, NULL },
    { "distinguisherMethod", "DistinguisherMethod", GCP_GO_F_PTR,
      "FlowDistinguisherMethod" },
    { "rules", "Rules", GCP_GO_F_SLICE, "PolicyRulesWithSubjects" },
    { NULL, NULL, 0, NULL }
};

static const gcp_go_field_t  gcp_go_name[] = {
    { "name", "Name", GCP_GO_F_STRING, NULL },
    { NULL, NULL, 0, NULL }
};

static const gcp_go_field_t  gcp_go_type[] = {
    { "type", "Type", GCP_GO_F_STRING, NULL },
    { NULL, NULL, 0, NULL }
};

static const gcp_go_field_t  gcp_go_rules[] = {
    { "subjects", "Subjects", GCP_GO_F_SLICE, "Subject" },
    { "resourceRules", "ResourceRules", GCP_GO_F_SLICE,
      "ResourcePolicyRule" },
    { "nonResourceRules", "NonResourceRules", GCP_GO_F_SLICE,
      "NonResourcePolicyRule" },
    { NULL, NULL, 0, NULL }
};

static const gcp_go_field_t  gcp_go_subject[] = {
    { "kind", "Kind", GCP_GO_F_STRING, NULL },
    { "user", "User", GCP_GO_F_PTR, "UserSubject" },
    { "group", "Group", GCP_GO_F_PTR, "GroupSubject" },
    { "serviceAccount", "ServiceAccount", GCP_GO_F_PTR,
      "ServiceAccountSubject" },
    { NULL, NULL, 0, NULL }
};

static const gcp_go_field_t  gcp_go_resource_rule[] = {
    { "verbs", "Verbs", GCP_GO_F_STRINGS, NULL },
    { "apiGroups", "APIGroups", GCP_GO_F_STRINGS, NULL },
    { "resources", "Resources", GCP_GO_F_STRINGS, NULL },
    { "clusterScope", "ClusterScope", GCP_GO_F_BOOL, NULL },
    { "namespaces", "Namespaces", GCP_GO_F_STRINGS, NULL },
    { NULL, NULL, 0, NULL }
};

static const gcp_go_field_t  gcp_go_nonresource_rule[] = {
    { "verbs", "Verbs", GCP_GO_F_STRINGS, NULL },
    { "nonResourceURLs", "NonResourceURLs", GCP_GO_F_STRINGS, NULL },
    { NULL, NULL, 0, NULL }
};

static const gcp_go_field_t  gcp_go_pl_spec[] = {
    { "type", "Type", GCP_GO_F_STRING, NULL },
    { "limited", "Limited", GCP_GO_F_PTR,
      "LimitedPriorityLevelConfiguration" },
    { "exempt", "Exempt", GCP_GO_F_PTR, "ExemptPriorityLevelConfiguration" },
    { NULL, NULL, 0, NULL }
};

static const gcp_go_field_t  gcp_go_sa[] = {
    { "namespace", "Namespace", GCP_GO_F_STRING, NULL },
    { "name", "Name", GCP_GO_F_STRING, NULL },
    { NULL, NULL, 0, NULL }
};

static const gcp_go_field_t  gcp_go_limited[] = {
    { "nominalConcurrencyShares", "NominalConcurrencyShares", GCP_GO_F_INT,
      NULL },
    { "limitResponse", "LimitResponse", GCP_GO_F_STRUCT, "LimitResponse" },
    { "lendablePercent", "LendablePercent", GCP_GO_F_PTRINT, NULL },
    { "borrowingLimitPercent", "BorrowingLimitPercent", GCP_GO_F_PTRINT,
      NULL },
    { NULL, NULL, 0, NULL }
};

static const gcp_go_field_t  gcp_go_exempt[] = {
    { "nominalConcurrencyShares", "NominalConcurrencyShares",
      GCP_GO_F_PTRINT, NULL },
    { "lendablePercent", "LendablePercent", GCP_GO_F_PTRINT, NULL },
    { NULL, NULL, 0, NULL }
};

static const gcp_go_field_t  gcp_go_limit_response[] = {
    { "type", "Type", GCP_GO_F_STRING, NULL },
    { "queuing", "Queuing", GCP_GO_F_PTR, "QueuingConfiguration" },
    { NULL, NULL, 0, NULL }
};

static const gcp_go_field_t  gcp_go_queuing[] = {
    { "queues", "Queues", GCP_GO_F_INT, NULL },
    { "handSize", "HandSize", GCP_GO_F_INT, NULL },
    { "queueLengthLimit", "QueueLengthLimit", GCP_GO_F_INT, NULL },
    { NULL, NULL, 0, NULL }
};


static const gcp_go_type_t  gcp_go_types[] = {
    { "FlowSchemaSpec", gcp_go_fs_spec },
    { "PriorityLevelConfigurationReference", gcp_go_name },
    { "FlowDistinguisherMethod", gcp_go_type },
    { "PolicyRulesWithSubjects", gcp_go_rules },
    { "Subject", gcp_go_subject },
    { "ResourcePolicyRule", gcp_go_resource_rule },
    { "NonResourcePolicyRule", gcp_go_nonresource_rule },
    { "PriorityLevelConfigurationSpec", gcp_go_pl_spec },
    { "UserSubject", gcp_go_name },
    { "GroupSubject", gcp_go_name },
    { "ServiceAccountSubject", gcp_go_sa },
    { "LimitedPriorityLevelConfiguration", gcp_go_limited },
    { "ExemptPriorityLevelConfiguration", gcp_go_exempt },
    { "LimitResponse", gcp_go_limit_response },
    { "QueuingConfiguration", gcp_go_queuing },
};


static const gcp_go_field_t *
gcp_go_fields(const char *type)
{
    size_t  i;

    for (i = 0; i < gcp_nelems(gcp_go_types); i++) {
        if (strcmp(gcp_go_types[i].name, type) == 0) {
            return gcp_go_types[i].fields;
        }
    }

    return NULL;
}


static void
gcp_go_quote_into(gcp_buf_t *b, const json_t *v)
{
    const char  *s, *q;

    s = json_is_string(v) ? json_string_value(v) : "";
    q = gcp_go_quote(b->arena, s, json_is_string(v) ? json_string_length(v)
                                                    : 0);
    gcp_buf_addstr(b, q ? q : "\"\"");
}


/* Go's %#v of a []string; a missing list is a nil slice. */

static void
gcp_go_string_list(gcp_buf_t *b, const json_t *list)
{
    const char  *s;

    if (!json_is_array(list)) {
        gcp_buf_addstr(b, "[]string(nil)");
        return;
    }

    s = gcp_go_strings(b->arena, list);

    if (s == NULL) {
        b->failed = 1;
        return;
    }

    gcp_buf_addstr(b, s);
}


static void gcp_go_struct(gcp_buf_t *b, const char *type, const json_t *v,
    int depth);


static void
gcp_go_field(gcp_buf_t *b, const gcp_go_field_t *f, const json_t *v,
    int depth)
{
    size_t   i;
    json_t  *e;

    switch (f->kind) {

    case GCP_GO_F_STRING:
        gcp_go_quote_into(b, v);
        return;

    case GCP_GO_F_INT:
        gcp_buf_add_int(b, json_is_integer(v) ? json_integer_value(v) : 0);
        return;

    case GCP_GO_F_BOOL:
        gcp_buf_addstr(b, json_is_true(v) ? "true" : "false");
        return;

    case GCP_GO_F_STRUCT:
        gcp_go_struct(b, f->type, v, depth + 1);
        return;

    case GCP_GO_F_PTR:
        gcp_buf_printf(b, "(*flowcontrol.%s)(%s)", f->type,
                       v && !json_is_null(v) ? GCP_FC_GO_ADDRESS : "nil");
        return;

    case GCP_GO_F_PTRINT:
        gcp_buf_printf(b, "(*int32)(%s)",
                       v && !json_is_null(v) ? GCP_FC_GO_ADDRESS : "nil");
        return;

    case GCP_GO_F_STRINGS:
        gcp_go_string_list(b, v);
        return;

    case GCP_GO_F_SLICE:
        if (!json_is_array(v)) {
            gcp_buf_printf(b, "[]flowcontrol.%s(nil)", f->type);
            return;
        }

        gcp_buf_printf(b, "[]flowcontrol.%s{", f->type);

        json_array_foreach(v, i, e) {
            if (i) {
                gcp_buf_addstr(b, ", ");
            }

            gcp_go_struct(b, f->type, e, depth + 1);
        }

        gcp_buf_addc(b, '}');
        return;
    }
}


static void
gcp_go_struct(gcp_buf_t *b, const char *type, const json_t *v, int depth)
{
    size_t                 i;
    const gcp_go_field_t  *f;

    f = gcp_go_fields(type);

    gcp_buf_printf(b, "flowcontrol.%s{", type);

    for (i = 0; f && f[i].json && depth < 16; i++) {
        gcp_buf_printf(b, "%s%s:", i ? ", " : "", f[i].go);
        gcp_go_field(b, &f[i], json_object_get(v, f[i].json), depth);
    }

    gcp_buf_addc(b, '}');
}


const char *
gcp_fc_gostring(gcp_arena_t *a, const char *type, const json_t *v)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, a);
    gcp_go_struct(&b, type, v, 0);

    return gcp_buf_failed(&b) ? NULL : gcp_buf_cstr(&b);
}


const char *
gcp_fc_gostrings(gcp_arena_t *a, const json_t *list)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, a);
    gcp_go_string_list(&b, list);

    return gcp_buf_failed(&b) ? NULL : gcp_buf_cstr(&b);
}


/* Go order */


void
gcp_fc_go_order(json_t *v, const char *type)
{
    size_t                 i, j;
    json_t                *copy, *e;
    const char            *key;
    const gcp_go_field_t  *f;

    f = gcp_go_fields(type);

    if (f == NULL || !json_is_object(v)) {
        return;
    }

    copy = json_copy(v);
    if (copy == NULL) {
        return;
    }

    json_object_clear(v);

    for (i = 0; f[i].json; i++) {
        e = json_object_get(copy, f[i].json);

        if (e == NULL) {
            continue;
        }

        json_object_set(v, f[i].json, e);

        if (f[i].kind == GCP_GO_F_STRUCT || f[i].kind == GCP_GO_F_PTR) {
            gcp_fc_go_order(e, f[i].type);

        } else if (f[i].kind == GCP_GO_F_SLICE) {
            for (j = 0; j < json_array_size(e); j++) {
                gcp_fc_go_order(json_array_get(e, j), f[i].type);
            }
        }
    }

    json_object_foreach(copy, key, e) {
        if (json_object_get(v, key) == NULL) {
            json_object_set(v, key, e);
        }
    }

    json_decref(copy);
}


/* semantic equality */


/* absent, null, an empty list, or a map of such values only */
static int
gcp_fc_nil(const json_t *v)
{
    json_t      *e;
    const char  *key;

    if (v == NULL || json_is_null(v)) {
        return 1;
    }

    if (json_is_array(v)) {
        return json_array_size(v) == 0;
    }

    if (!json_is_object(v)) {
        return 0;
    }

    json_object_foreach((json_t *) v, key, e) {
        if (!gcp_fc_nil(e)) {
            return 0;
        }
    }

    return 1;
}


int
gcp_fc_semantic_equal(const json_t *a, const json_t *b)
{
    size_t       i;
    json_t      *v;
    const char  *key;

    if (gcp_fc_nil(a) || gcp_fc_nil(b)) {
        return gcp_fc_nil(a) && gcp_fc_nil(b);
    }

    if (json_is_object(a) && json_is_object(b)) {
        json_object_foreach((json_t *) a, key, v) {
            if (!gcp_fc_semantic_equal(v, json_object_get(b, key))) {
                return 0;
            }
        }

        json_object_foreach((json_t *) b, key, v) {
            if (json_object_get(a, key) == NULL && !gcp_fc_nil(v)) {
                return 0;
            }
        }

        return 1;
    }

    if (json_is_array(a) && json_is_array(b)) {
        if (json_array_size(a) != json_array_size(b)) {
            return 0;
        }

        json_array_foreach((json_t *) a, i, v) {
            if (!gcp_fc_semantic_equal(v, json_array_get(b, i))) {
                return 0;
            }
        }

        return 1;
    }

    return json_equal((json_t *) a, (json_t *) b);
}
