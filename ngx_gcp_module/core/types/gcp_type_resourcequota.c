
/*
 * core/v1 ResourceQuota, with /status.  spec.hard is what users set;
 * status (hard and used) belongs to the quota controller and the quota
 * admission plugin (controllers/gcp_ctl_quota.c,
 * admission/gcp_quota*.c).  Quantities are served in canonical
 * form, as kube-apiserver re-encodes them.  Validation after
 * pkg/apis/core/validation (v1.32).
 */

#include <stdio.h>

#include "gcp_quantity.h"
#include "gcp_table.h"
#include "gcp_types.h"
#include "gcp_validation.h"


#define GCP_RQ_NEGATIVE      "must be greater than or equal to 0"
#define GCP_RQ_NOT_INTEGER   "must be an integer"
#define GCP_RQ_NOT_STANDARD  "must be a standard resource type or fully " \
                             "qualified"
#define GCP_RQ_NOT_QUOTA     "must be a standard resource for quota"
#define GCP_RQ_SELECTOR_OPS  "must be 'Exist' when scope is any of "       \
    "ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, "     \
    "ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or "     \
    "ResourceQuotaScopeCrossNamespacePodAffinity"


static const char * const  gcp_rq_order[] = { "spec", "status", NULL };


/* helper.IsStandardResourceName's list (without the hugepages prefixes) */
static const char * const  gcp_rq_standard[] = {
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory",
    "limits.ephemeral-storage", "pods", "resourcequotas", "services",
    "replicationcontrollers", "secrets", "configmaps",
    "persistentvolumeclaims", "storage", "requests.storage",
    "services.nodeports", "services.loadbalancers", NULL
};

/* helper.IsStandardQuotaResourceName's list: the same without storage */
static const char * const  gcp_rq_integer[] = {
    "pods", "resourcequotas", "services", "replicationcontrollers",
    "secrets", "configmaps", "persistentvolumeclaims", "services.nodeports",
    "services.loadbalancers", NULL
};

static const char * const  gcp_rq_scopes[] = {
    "Terminating", "NotTerminating", "BestEffort", "NotBestEffort",
    "PriorityClass", "CrossNamespacePodAffinity", NULL
};

/* the resources pod scopes apply to */
static const char * const  gcp_rq_pod_resources[] = {
    "pods", "cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu",
    "requests.memory", NULL
};


static int
gcp_rq_in(const char * const *list, const char *s)
{
    size_t  i;

    for (i = 0; list[i]; i++) {
        if (strcmp(list[i], s) == 0) {
            return 1;
        }
    }

    return 0;
}


static int
gcp_rq_hugepages(const char *s)
{
    return strncmp(s, "hugepages-", 10) == 0
           || strncmp(s, "requests.hugepages-", 19) == 0;
}


/* ValidateResourceQuotaResourceName */
static void
gcp_rq_validate_name(gcp_ferrs_t *errs, const char *field, const char *name)
{
    int          qualified, standard;
    const char  *v;
    gcp_msgs_t   m;

    v = gcp_ferr_quote(errs->arena, name);
    qualified = gcp_is_qualified_name(name, strlen(name), &m) == 0;

    if (!qualified) {
        gcp_ferrs_add_msgs(errs, field, name, strlen(name), &m);
    }

    if (strchr(name, '/')) {
        return;
    }

    standard = gcp_rq_in(gcp_rq_standard, name) || gcp_rq_hugepages(name);

    if (qualified && !standard) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, field, v, GCP_RQ_NOT_STANDARD);
    }

    if (!standard || strcmp(name, "storage") == 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, field, v, GCP_RQ_NOT_QUOTA);
    }
}


/* IsIntegerResourceName: the object counts and extended resources */
static int
gcp_rq_integer_name(const char *name)
{
    const char  *slash;

    if (gcp_rq_in(gcp_rq_integer, name)) {
        return 1;
    }

    slash = strchr(name, '/');

    return slash && strstr(name, "kubernetes.io/") == NULL
           && strncmp(name, "requests.", 9) != 0;
}


/* A map of resource names to quantities (spec.hard, status.hard, ...). */
static void
gcp_rq_validate_list(gcp_ferrs_t *errs, const char *path, const json_t *map)
{
    char            buf[GCP_QUANTITY_BUFSIZE + 16];
    json_t         *v;
    const char     *key, *field, *err;
    gcp_quantity_t  q;

    json_object_foreach((json_t *) map, key, v) {
        field = gcp_sprintf(errs->arena, "%s[%s]", path, key);

        gcp_rq_validate_name(errs, field, key);

        if (gcp_quantity_parse_json(v, &q, &err) != GCP_OK) {
            continue;                   /* a decoding error already */
        }

        gcp_quantity_format(&q, buf);

        if (gcp_quantity_negative(&q)) {
            gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                          gcp_ferr_quote(errs->arena, buf), GCP_RQ_NEGATIVE);
        }

        if (gcp_rq_integer_name(key) && !gcp_quantity_integral(&q)) {
            gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                          gcp_ferr_quote(errs->arena, buf),
                          GCP_RQ_NOT_INTEGER);
        }
    }
}


/* []core.ResourceQuotaScope{"A", "B"}, as %#v renders the scopes */
static const char *
gcp_rq_scopes_value(gcp_arena_t *a, const json_t *scopes)
{
    size_t     i;
    json_t    *s;
    gcp_buf_t  b;

    gcp_buf_init(&b, a);
    gcp_buf_addstr(&b, "[]core.ResourceQuotaScope{");

    json_array_foreach(scopes, i, s) {
        gcp_buf_printf(&b, "%s%s", i ? ", " : "",
                       gcp_ferr_quote(a, json_string_value(s) ?: ""));
    }

    gcp_buf_addc(&b, '}');

    return gcp_buf_cstr(&b);
}


/* The hard resource names a scope does not apply to. */
static int
gcp_rq_scope_misapplied(const json_t *hard, const char *scope)
{
    json_t      *v;
    const char  *key;

    json_object_foreach((json_t *) hard, key, v) {
        if (!gcp_rq_in(gcp_rq_integer, key)
            && !gcp_rq_in(gcp_rq_standard, key) && !gcp_rq_hugepages(key))
        {
            continue;                   /* not a standard quota resource */
        }

        if (strcmp(key, "storage") == 0) {
            continue;
        }

        if (strcmp(scope, "BestEffort") == 0) {
            if (strcmp(key, "pods") != 0) {
                return 1;
            }

        } else if (gcp_rq_in(gcp_rq_scopes, scope)
                   && !gcp_rq_in(gcp_rq_pod_resources, key))
        {
            return 1;
        }
    }

    return 0;
}


static void
gcp_rq_conflicting(gcp_ferrs_t *errs, const char *field, const char *value,
    int seen[])
{
    /* BestEffort with NotBestEffort, Terminating with NotTerminating */

    if (seen[2] && seen[3]) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, field, value,
                      "conflicting scopes");
    }

    if (seen[0] && seen[1]) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, field, value,
                      "conflicting scopes");
    }
}


static void
gcp_rq_validate_scopes(gcp_ferrs_t *errs, const json_t *spec)
{
    int            seen[6];
    size_t         i, k;
    json_t        *s;
    const char    *name, *value;
    const json_t  *scopes, *hard;

    scopes = json_object_get(spec, "scopes");
    hard = json_object_get(spec, "hard");

    if (json_array_size(scopes) == 0) {
        return;
    }

    memset(seen, 0, sizeof(seen));
    value = gcp_rq_scopes_value(errs->arena, scopes);

    json_array_foreach(scopes, i, s) {
        name = json_string_value(s) ?: "";

        if (!gcp_rq_in(gcp_rq_scopes, name)) {
            gcp_ferrs_add(errs, GCP_FERR_INVALID, "spec.scopes", value,
                          "unsupported scope");
        }

        if (gcp_rq_scope_misapplied(hard, name)) {
            gcp_ferrs_add(errs, GCP_FERR_INVALID, "spec.scopes", value,
                          "unsupported scope applied to resource");
        }

        for (k = 0; k < 6; k++) {
            seen[k] |= strcmp(gcp_rq_scopes[k], name) == 0;
        }
    }

    gcp_rq_conflicting(errs, "spec.scopes", value, seen);
}


static void
gcp_rq_validate_selector(gcp_ferrs_t *errs, const json_t *spec)
{
    int            seen[6];
    size_t         i, k, nvalues;
    json_t        *req;
    gcp_arena_t   *a = errs->arena;
    const char    *scope, *op, *base;
    const json_t  *exprs;

    exprs = json_object_get(json_object_get(spec, "scopeSelector"),
                            "matchExpressions");

    if (!json_is_object(json_object_get(spec, "scopeSelector"))) {
        return;
    }

    memset(seen, 0, sizeof(seen));
    base = "spec.scopeSelector.matchExpressions";

    json_array_foreach(exprs, i, req) {
        scope = json_string_value(json_object_get(req, "scopeName")) ?: "";
        op = json_string_value(json_object_get(req, "operator")) ?: "";
        nvalues = json_array_size(json_object_get(req, "values"));

        if (!gcp_rq_in(gcp_rq_scopes, scope)) {
            gcp_ferrs_add(errs, GCP_FERR_INVALID,
                          gcp_sprintf(a, "%s.scopeName", base),
                          gcp_ferr_quote(a, scope), "unsupported scope");
        }

        if (gcp_rq_scope_misapplied(json_object_get(spec, "hard"), scope)) {
            gcp_ferrs_add(errs, GCP_FERR_INVALID, base, NULL,
                          "unsupported scope applied to resource");
        }

        if (gcp_rq_in(gcp_rq_scopes, scope)
            && strcmp(scope, "PriorityClass") != 0
            && strcmp(op, "Exists") != 0)
        {
            gcp_ferrs_add(errs, GCP_FERR_INVALID,
                          gcp_sprintf(a, "%s.operator", base),
                          gcp_ferr_quote(a, op), GCP_RQ_SELECTOR_OPS);
        }

        if (strcmp(op, "In") == 0 || strcmp(op, "NotIn") == 0) {
            if (nvalues == 0) {
                gcp_ferrs_add(errs, GCP_FERR_REQUIRED,
                              gcp_sprintf(a, "%s.values", base), NULL,
                              "must be at least one value when `operator` "
                              "is 'In' or 'NotIn' for scope selector");
            }

        } else if (strcmp(op, "Exists") == 0
                   || strcmp(op, "DoesNotExist") == 0)
        {
            if (nvalues) {
                gcp_ferrs_add(errs, GCP_FERR_INVALID,
                              gcp_sprintf(a, "%s.values", base), NULL,
                              "must be no value when `operator` is 'Exist' "
                              "or 'DoesNotExist' for scope selector");
            }

        } else {
            gcp_ferrs_add(errs, GCP_FERR_INVALID,
                          gcp_sprintf(a, "%s.operator", base),
                          gcp_ferr_quote(a, op),
                          "not a valid selector operator");
        }

        for (k = 0; k < 6; k++) {
            seen[k] |= strcmp(gcp_rq_scopes[k], scope) == 0;
        }
    }

    gcp_rq_conflicting(errs, base, "[]core.ResourceQuotaScope(nil)", seen);
}


static void
gcp_rq_validate_spec(gcp_ferrs_t *errs, const json_t *obj)
{
    const json_t  *spec;

    spec = json_object_get(obj, "spec");

    gcp_rq_validate_list(errs, "spec.hard", json_object_get(spec, "hard"));
    gcp_rq_validate_scopes(errs, spec);
    gcp_rq_validate_selector(errs, spec);
}


static void
gcp_rq_validate_status(gcp_ferrs_t *errs, const json_t *obj)
{
    const json_t  *status;

    status = json_object_get(obj, "status");

    gcp_rq_validate_list(errs, "status.hard",
                         json_object_get(status, "hard"));
    gcp_rq_validate_list(errs, "status.used",
                         json_object_get(status, "used"));
}


static void
gcp_rq_validate(gcp_ferrs_t *errs, const json_t *obj)
{
    gcp_rq_validate_spec(errs, obj);
    gcp_rq_validate_status(errs, obj);
}


/* The scopes as a set: same members, any order. */
static int
gcp_rq_same_scopes(const json_t *a, const json_t *b)
{
    size_t   i, j;
    json_t  *s, *t;

    json_array_foreach(a, i, s) {
        json_array_foreach(b, j, t) {
            if (json_equal(s, t)) {
                break;
            }
        }

        if (j == json_array_size(b)) {
            return 0;
        }
    }

    json_array_foreach(b, i, s) {
        json_array_foreach(a, j, t) {
            if (json_equal(s, t)) {
                break;
            }
        }

        if (j == json_array_size(a)) {
            return 0;
        }
    }

    return 1;
}


static void
gcp_rq_validate_update(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old)
{
    const json_t  *scopes, *oscopes;

    gcp_rq_validate_spec(errs, obj);

    scopes = json_object_get(json_object_get(obj, "spec"), "scopes");
    oscopes = json_object_get(json_object_get(old, "spec"), "scopes");

    if (!gcp_rq_same_scopes(scopes, oscopes)) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "spec.scopes",
                      json_array_size(scopes)
                      ? gcp_rq_scopes_value(errs->arena, scopes)
                      : "[]core.ResourceQuotaScope(nil)",
                      "field is immutable");
    }
}


/* Quantities that do not parse are a decoding error (400). */
static int
gcp_rq_decode_map(const json_t *map, const char **msg)
{
    json_t          *v;
    const char      *key;
    gcp_quantity_t   q;

    json_object_foreach((json_t *) map, key, v) {
        if (gcp_quantity_parse_json(v, &q, msg) != GCP_OK) {
            return GCP_EBADREQUEST;
        }
    }

    return GCP_OK;
}


static int
gcp_rq_decode(gcp_arena_t *a, const json_t *obj, const char **msg)
{
    const json_t  *spec, *status;

    spec = json_object_get(obj, "spec");
    status = json_object_get(obj, "status");

    if (gcp_rq_decode_map(json_object_get(spec, "hard"), msg) != GCP_OK
        || gcp_rq_decode_map(json_object_get(status, "hard"), msg) != GCP_OK
        || gcp_rq_decode_map(json_object_get(status, "used"), msg) != GCP_OK)
    {
        return GCP_EBADREQUEST;
    }

    return GCP_OK;
}


static void
gcp_rq_canonical(json_t *obj)
{
    gcp_quantity_canonical_map(json_object_get(obj, "spec"), "hard");
    gcp_quantity_canonical_map(json_object_get(obj, "status"), "hard");
    gcp_quantity_canonical_map(json_object_get(obj, "status"), "used");
}


static int
gcp_rq_prepare_create(gcp_op_t *op, json_t *obj)
{
    /* the status is the controller's: it starts empty */

    json_object_set_new(obj, "status", json_object());

    if (!json_is_object(json_object_get(obj, "spec"))) {
        json_object_set_new(obj, "spec", json_object());
    }

    gcp_rq_canonical(obj);

    return GCP_OK;
}


static int
gcp_rq_prepare_update(gcp_op_t *op, json_t *obj, const json_t *old)
{
    json_t  *status;

    status = json_object_get(old, "status");
    json_object_set(obj, "status", status ? status : json_object());

    if (!json_is_object(json_object_get(obj, "spec"))) {
        json_object_set_new(obj, "spec", json_object());
    }

    gcp_rq_canonical(obj);

    return GCP_OK;
}


static int
gcp_rq_prepare_status(gcp_op_t *op, json_t *obj, const json_t *old)
{
    if (!json_is_object(json_object_get(obj, "status"))) {
        json_object_set_new(obj, "status", json_object());
    }

    gcp_rq_canonical(obj);

    return GCP_OK;
}


/* "count/configmaps: 1/10, secrets: 0/5" for names not starting "limits." */
static const char *
gcp_rq_column(gcp_op_t *op, const json_t *status, int limits)
{
    size_t         i, j, n;
    json_t        *v;
    gcp_buf_t      b;
    const char    *key, **keys, *tmp, *used, *dot;
    const json_t  *hard;

    hard = json_object_get(status, "hard");
    n = json_object_size(hard);

    keys = gcp_alloc(op->a, (n + 1) * sizeof(const char *));
    if (keys == NULL) {
        return "";
    }

    i = 0;

    json_object_foreach((json_t *) hard, key, v) {
        keys[i++] = key;
    }

    for (i = 1; i < n; i++) {
        for (j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
            tmp = keys[j];
            keys[j] = keys[j - 1];
            keys[j - 1] = tmp;
        }
    }

    gcp_buf_init(&b, op->a);

    for (i = 0; i < n; i++) {
        dot = strchr(keys[i], '.');

        if ((dot && (size_t) (dot - keys[i]) == 6
             && strncmp(keys[i], "limits", 6) == 0) != limits)
        {
            continue;
        }

        used = json_string_value(json_object_get(json_object_get(status,
                                                                 "used"),
                                                 keys[i]));

        gcp_buf_printf(&b, "%s%s: %s/%s", b.len ? ", " : "", keys[i],
                       used ? used : "0",
                       json_string_value(json_object_get(hard, keys[i]))
                       ?: "0");
    }

    return gcp_buf_cstr(&b);
}


static int
gcp_rq_cells(gcp_op_t *op, const json_t *obj, json_t *cells)
{
    const json_t  *status;

    status = json_object_get(obj, "status");

    gcp_table_cell_name(cells, obj);
    json_array_append_new(cells, json_string(gcp_rq_column(op, status, 0)));
    json_array_append_new(cells, json_string(gcp_rq_column(op, status, 1)));
    gcp_table_cell_age(cells, obj);

    return GCP_OK;
}


static const gcp_strategy_t  gcp_rq_strategy = {
    .field_order = gcp_rq_order,
    .decode = gcp_rq_decode,
    .prepare_create = gcp_rq_prepare_create,
    .prepare_update = gcp_rq_prepare_update,
    .prepare_status_update = gcp_rq_prepare_status,
    .validate = gcp_rq_validate,
    .validate_update = gcp_rq_validate_update,
    .validate_status = gcp_rq_validate_status,
    .table_cells = gcp_rq_cells,
};


static const gcp_subresource_t  gcp_rq_subresources[] = {
    { "status", GCP_SUB_STATUS,
      GCP_VERB_GET | GCP_VERB_PATCH | GCP_VERB_UPDATE, NULL, NULL, NULL },
};


static const gcp_column_t  gcp_rq_columns[] = {
    GCP_COLUMN_NAME,
    { "Request", "string", "", "Request represents a minimum amount of "
      "cpu/memory that a container may consume.", 0 },
    { "Limit", "string", "", "Limits control the maximum amount of "
      "cpu/memory that a container may use independent of contention on "
      "the node.", 0 },
    GCP_COLUMN_AGE,
};


const gcp_resource_t  gcp_type_resourcequotas = {
    .protobuf = 1,
    .group = "",
    .version = "v1",
    .name = "resourcequotas",
    .singular = "resourcequota",
    .kind = "ResourceQuota",
    .list_kind = "ResourceQuotaList",
    .short_names = (const char * const []) { "quota", NULL },
    .namespaced = 1,
    .verbs = GCP_VERBS_CRUD,
    .subresources = gcp_rq_subresources,
    .nsubresources = gcp_nelems(gcp_rq_subresources),
    .schema = "io.k8s.api.core.v1.ResourceQuota",
    .list_schema = "io.k8s.api.core.v1.ResourceQuotaList",
    .storage = "resourcequotas",
    .columns = gcp_rq_columns,
    .ncolumns = gcp_nelems(gcp_rq_columns),
    .strategy = &gcp_rq_strategy,
};
