
/*
 * apiextensions.k8s.io/v1 CustomResourceDefinition, with /status, as
 * apiextensions-apiserver's registry strategy: status is the controllers'
 * (acceptedNames, conditions) except storedVersions, which the strategy
 * keeps; the generation follows spec changes; the first delete adds the
 * customresourcecleanup finalizer and a Terminating condition, so that
 * every custom resource goes before the definition does.
 */

#include <stdlib.h>

#include "gcp_crd.h"
#include "gcp_cr.h"
#include "gcp_json.h"
#include "gcp_object.h"
#include "gcp_reg.h"
#include "gcp_types.h"


/* Go struct orders of the CRD types (JSON field order on output). */

static const char * const  gcp_crd_spec_order[] = {
    "group", "names", "scope", "versions", "conversion",
    "preserveUnknownFields", NULL
};

static const char * const  gcp_crd_names_order[] = {
    "plural", "singular", "shortNames", "kind", "listKind", "categories",
    NULL
};

static const char * const  gcp_crd_version_order[] = {
    "name", "served", "storage", "deprecated", "deprecationWarning",
    "schema", "subresources", "additionalPrinterColumns",
    "selectableFields", NULL
};

static const char * const  gcp_crd_subresources_order[] = {
    "status", "scale", NULL
};

static const char * const  gcp_crd_scale_order[] = {
    "specReplicasPath", "statusReplicasPath", "labelSelectorPath", NULL
};

static const char * const  gcp_crd_column_order[] = {
    "name", "type", "format", "description", "priority", "jsonPath", NULL
};

static const char * const  gcp_crd_conversion_order[] = {
    "strategy", "webhook", NULL
};

static const char * const  gcp_crd_webhook_order[] = {
    "clientConfig", "conversionReviewVersions", NULL
};

static const char * const  gcp_crd_client_config_order[] = {
    "url", "service", "caBundle", NULL
};

static const char * const  gcp_crd_service_order[] = {
    "namespace", "name", "path", "port", NULL
};

static const char * const  gcp_crd_status_order[] = {
    "conditions", "acceptedNames", "storedVersions", NULL
};

static const char * const  gcp_crd_condition_order[] = {
    "type", "status", "lastTransitionTime", "reason", "message", NULL
};

static const char * const  gcp_crd_top_order[] = { "spec", "status", NULL };

/* JSONSchemaProps */
static const char * const  gcp_crd_schema_order[] = {
    "id", "$schema", "$ref", "description", "type", "format", "title",
    "default", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "maxItems", "minItems",
    "uniqueItems", "multipleOf", "enum", "maxProperties", "minProperties",
    "required", "items", "allOf", "oneOf", "anyOf", "not", "properties",
    "additionalProperties", "patternProperties", "dependencies",
    "additionalItems", "definitions", "externalDocs", "example",
    "nullable", "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource", "x-kubernetes-int-or-string",
    "x-kubernetes-list-map-keys", "x-kubernetes-list-type",
    "x-kubernetes-map-type", "x-kubernetes-validations", NULL
};

static const char * const  gcp_crd_rule_order[] = {
    "rule", "message", "messageExpression", "reason", "fieldPath",
    "optionalOldSelf", NULL
};


/* Reorders the members of obj: those of order first, the rest after. */

static void
gcp_crd_order_object(json_t *obj, const char * const *order)
{
    size_t       i;
    json_t      *tmp, *v;
    const char  *key;

    if (!json_is_object(obj)) {
        return;
    }

    tmp = json_object();
    if (tmp == NULL) {
        return;
    }

    for (i = 0; order[i]; i++) {
        v = json_object_get(obj, order[i]);
        if (v) {
            json_object_set(tmp, order[i], v);
        }
    }

    json_object_foreach(obj, key, v) {
        if (json_object_get(tmp, key) == NULL) {
            json_object_set(tmp, key, v);
        }
    }

    json_object_clear(obj);
    json_object_update(obj, tmp);
    json_decref(tmp);
}


static void
gcp_crd_order_each(json_t *arr, const char * const *order)
{
    size_t   i;
    json_t  *e;

    json_array_foreach(arr, i, e) {
        gcp_crd_order_object(e, order);
    }
}


static void gcp_crd_order_schema(json_t *s);


static void
gcp_crd_order_schema_map(json_t *m)
{
    json_t      *v;
    const char  *key;

    if (!json_is_object(m)) {
        return;
    }

    (void) gcp_json_sort_keys(m, 0);

    json_object_foreach(m, key, v) {
        gcp_crd_order_schema(v);
    }
}


static void
gcp_crd_order_schema_list(json_t *l)
{
    size_t   i;
    json_t  *e;

    json_array_foreach(l, i, e) {
        gcp_crd_order_schema(e);
    }
}


/* JSONSchemaProps, at any depth (the JSON values inside are left alone). */

static void
gcp_crd_order_schema(json_t *s)
{
    json_t  *v;

    if (!json_is_object(s)) {
        return;
    }

    gcp_crd_order_object(s, gcp_crd_schema_order);

    gcp_crd_order_schema_map(json_object_get(s, "properties"));
    gcp_crd_order_schema_map(json_object_get(s, "patternProperties"));
    gcp_crd_order_schema_map(json_object_get(s, "definitions"));

    v = json_object_get(s, "items");
    if (json_is_array(v)) {
        gcp_crd_order_schema_list(v);

    } else {
        gcp_crd_order_schema(v);
    }

    gcp_crd_order_schema_list(json_object_get(s, "allOf"));
    gcp_crd_order_schema_list(json_object_get(s, "oneOf"));
    gcp_crd_order_schema_list(json_object_get(s, "anyOf"));
    gcp_crd_order_schema(json_object_get(s, "not"));
    gcp_crd_order_schema(json_object_get(s, "additionalProperties"));
    gcp_crd_order_schema(json_object_get(s, "additionalItems"));

    v = json_object_get(s, "dependencies");

    if (json_is_object(v)) {
        const char  *key;
        json_t      *d;

        (void) gcp_json_sort_keys(v, 0);

        json_object_foreach(v, key, d) {
            gcp_crd_order_schema(d);
        }
    }

    gcp_crd_order_each(json_object_get(s, "x-kubernetes-validations"),
                       gcp_crd_rule_order);
}


/* The whole CRD in Go's field order. */

static void
gcp_crd_order(json_t *crd)
{
    size_t   i;
    json_t  *spec, *status, *v, *sub, *conv, *hook;

    spec = json_object_get(crd, "spec");
    gcp_crd_order_object(spec, gcp_crd_spec_order);
    gcp_crd_order_object(json_object_get(spec, "names"), gcp_crd_names_order);

    json_array_foreach(json_object_get(spec, "versions"), i, v) {
        gcp_crd_order_object(v, gcp_crd_version_order);
        gcp_crd_order_schema(json_object_get(json_object_get(v, "schema"),
                                             "openAPIV3Schema"));

        sub = json_object_get(v, "subresources");
        gcp_crd_order_object(sub, gcp_crd_subresources_order);
        gcp_crd_order_object(json_object_get(sub, "scale"),
                             gcp_crd_scale_order);
        gcp_crd_order_each(json_object_get(v, "additionalPrinterColumns"),
                           gcp_crd_column_order);
    }

    conv = json_object_get(spec, "conversion");
    gcp_crd_order_object(conv, gcp_crd_conversion_order);
    hook = json_object_get(conv, "webhook");
    gcp_crd_order_object(hook, gcp_crd_webhook_order);
    gcp_crd_order_object(json_object_get(hook, "clientConfig"),
                         gcp_crd_client_config_order);
    gcp_crd_order_object(json_object_get(json_object_get(hook,
                                                         "clientConfig"),
                                         "service"),
                         gcp_crd_service_order);

    status = json_object_get(crd, "status");
    gcp_crd_order_object(status, gcp_crd_status_order);
    gcp_crd_order_each(json_object_get(status, "conditions"),
                       gcp_crd_condition_order);
    gcp_crd_order_object(json_object_get(status, "acceptedNames"),
                         gcp_crd_names_order);
}


/* conditions */


json_t *
gcp_crd_condition(const json_t *crd, const char *type)
{
    size_t       i;
    json_t      *c;
    const char  *t;

    json_array_foreach(json_object_get(json_object_get(crd, "status"),
                                       "conditions"), i, c)
    {
        t = json_string_value(json_object_get(c, "type"));

        if (t && strcmp(t, type) == 0) {
            return c;
        }
    }

    return NULL;
}


int
gcp_crd_condition_true(const json_t *crd, const char *type)
{
    const char  *s;

    s = json_string_value(json_object_get(gcp_crd_condition(crd, type),
                                          "status"));

    return s && strcmp(s, "True") == 0;
}


static int
gcp_crd_str_eq(const json_t *obj, const char *key, const char *s)
{
    const char  *v;

    v = json_string_value(json_object_get(obj, key));

    if (v == NULL || v[0] == '\0') {
        return s == NULL || s[0] == '\0';
    }

    return s && strcmp(v, s) == 0;
}


static int
gcp_crd_set_str(json_t *obj, const char *key, const char *s)
{
    if (s == NULL || s[0] == '\0') {
        json_object_del(obj, key);
        return 0;
    }

    return json_object_set_new(obj, key, json_string(s));
}


int
gcp_crd_set_condition(json_t *crd, const char *type, const char *status,
    const char *reason, const char *message, const char *now)
{
    json_t  *st, *list, *c;

    c = gcp_crd_condition(crd, type);

    if (c && gcp_crd_str_eq(c, "status", status)
        && gcp_crd_str_eq(c, "reason", reason)
        && gcp_crd_str_eq(c, "message", message))
    {
        return 0;
    }

    if (c == NULL) {
        st = gcp_json_object_child(crd, "status");
        if (st == NULL) {
            return -1;
        }

        list = json_object_get(st, "conditions");

        if (!json_is_array(list)) {
            list = json_array();
            if (list == NULL || json_object_set_new(st, "conditions", list)) {
                return -1;
            }
        }

        c = json_object();
        if (c == NULL || json_array_append_new(list, c) != 0) {
            return -1;
        }

        json_object_set_new(c, "type", json_string(type));
        json_object_set_new(c, "lastTransitionTime", json_string(now));

    } else if (!gcp_crd_str_eq(c, "status", status)) {
        json_object_set_new(c, "lastTransitionTime", json_string(now));
    }

    if (json_object_set_new(c, "status", json_string(status)) != 0
        || gcp_crd_set_str(c, "reason", reason) != 0
        || gcp_crd_set_str(c, "message", message) != 0)
    {
        return -1;
    }

    gcp_crd_order_object(c, gcp_crd_condition_order);

    return 1;
}


int
gcp_crd_protected_group(const char *group)
{
    size_t  n;

    n = strlen(group);

#define gcp_crd_ends(s)                                                      \
    (n >= sizeof(s) - 1 && strcmp(group + n - (sizeof(s) - 1), s) == 0)

    if (strcmp(group, "k8s.io") == 0 || gcp_crd_ends(".k8s.io")) {
        return 1;
    }

    return strcmp(group, "kubernetes.io") == 0
           || gcp_crd_ends(".kubernetes.io");

#undef gcp_crd_ends
}


/* net/url.ParseRequestURI's acceptance, roughly: a scheme and more, or /. */

static int
gcp_crd_request_uri(const char *s)
{
    const char  *p;

    if (s[0] == '/') {
        return 1;
    }

    for (p = s; *p; p++) {
        if (*p == ':') {
            return p > s;
        }

        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')
              || (p > s && ((*p >= '0' && *p <= '9') || *p == '+'
                            || *p == '-' || *p == '.'))))
        {
            return 0;
        }
    }

    return 0;
}


int
gcp_crd_approval(gcp_arena_t *a, const json_t *crd, const char **reason)
{
    const char  *v;

    v = json_string_value(json_object_get(json_object_get(
            json_object_get(crd, "metadata"), "annotations"),
            GCP_CRD_APPROVAL));

    if (v == NULL || v[0] == '\0') {
        *reason = "protected groups must have approval annotation "
                  "\"" GCP_CRD_APPROVAL "\", see "
                  "https://github.com/kubernetes/enhancements/pull/1111";
        return 0;
    }

    if (strncmp(v, "unapproved", 10) == 0) {
        *reason = gcp_sprintf(a, "not approved: %s",
                              gcp_go_quote(a, v, strlen(v)));
        return 2;
    }

    if (!gcp_crd_request_uri(v)) {
        *reason = "protected groups must have approval annotation "
                  "\"" GCP_CRD_APPROVAL "\" with either a URL or a reason "
                  "starting with \"unapproved\", see "
                  "https://github.com/kubernetes/enhancements/pull/1111";
        return 1;
    }

    *reason = gcp_sprintf(a, "approved in %s", v);

    return 3;
}


/* strategy */


/* The version marked storage, or NULL. */

const char *
gcp_crd_storage_version(const json_t *crd)
{
    size_t   i;
    json_t  *v;

    json_array_foreach(json_object_get(json_object_get(crd, "spec"),
                                       "versions"), i, v)
    {
        if (json_is_true(json_object_get(v, "storage"))) {
            return json_string_value(json_object_get(v, "name"));
        }
    }

    return NULL;
}


/* Adds the storage version to status.storedVersions when missing. */

static int
gcp_crd_stored_versions(json_t *crd)
{
    size_t       i;
    json_t      *st, *list, *e;
    const char  *storage, *s;

    storage = gcp_crd_storage_version(crd);
    if (storage == NULL) {
        return GCP_OK;
    }

    st = gcp_json_object_child(crd, "status");
    if (st == NULL) {
        return GCP_ENOMEM;
    }

    list = json_object_get(st, "storedVersions");

    if (!json_is_array(list)) {
        list = json_array();
        if (list == NULL || json_object_set_new(st, "storedVersions", list)) {
            return GCP_ENOMEM;
        }
    }

    json_array_foreach(list, i, e) {
        s = json_string_value(e);

        if (s && strcmp(s, storage) == 0) {
            return GCP_OK;
        }
    }

    return json_array_append_new(list, json_string(storage)) == 0
           ? GCP_OK : GCP_ENOMEM;
}


/*
 * The v1 defaults (SetDefaults_CustomResourceDefinitionSpec and
 * SetDefaults_ServiceReference): names.singular is the lower-case kind,
 * names.listKind the kind + "List", conversion {"strategy": "None"}, a
 * conversion webhook's service port 443.
 */

static int
gcp_crd_defaults(json_t *crd)
{
    char        *low, *p;
    json_t      *spec, *names, *conv, *svc;
    const char  *kind;

    spec = json_object_get(crd, "spec");
    if (!json_is_object(spec)) {
        return GCP_OK;
    }

    names = json_object_get(spec, "names");
    kind = json_string_value(json_object_get(names, "kind"));

    if (json_is_object(names) && kind != NULL) {
        if (!json_is_string(json_object_get(names, "singular"))
            || json_string_length(json_object_get(names, "singular")) == 0)
        {
            low = strdup(kind);
            if (low == NULL) {
                return GCP_ENOMEM;
            }

            for (p = low; *p; p++) {
                if (*p >= 'A' && *p <= 'Z') {
                    *p = (char) (*p - 'A' + 'a');
                }
            }

            json_object_set_new(names, "singular", json_string(low));
            free(low);
        }

        if (*kind != '\0'
            && (!json_is_string(json_object_get(names, "listKind"))
                || json_string_length(json_object_get(names, "listKind"))
                   == 0))
        {
            json_object_set_new(names, "listKind",
                                json_sprintf("%sList", kind));
        }
    }

    conv = json_object_get(spec, "conversion");

    if (conv == NULL || json_is_null(conv)) {
        conv = json_pack("{s:s}", "strategy", "None");
        if (conv == NULL || json_object_set_new(spec, "conversion", conv)) {
            return GCP_ENOMEM;
        }
    }

    svc = json_object_get(json_object_get(json_object_get(conv, "webhook"),
                                          "clientConfig"), "service");

    if (json_is_object(svc) && json_object_get(svc, "port") == NULL) {
        json_object_set_new(svc, "port", json_integer(443));
    }

    return GCP_OK;
}


static int
gcp_crd_prepare_create(gcp_op_t *op, json_t *obj)
{
    json_t  *st;

    if (gcp_crd_defaults(obj) != GCP_OK) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    st = json_pack("{s:n, s:{s:s, s:s}, s:[]}", "conditions",
                   "acceptedNames", "plural", "", "kind", "",
                   "storedVersions");

    if (st == NULL || json_object_set_new(obj, "status", st) != 0
        || gcp_crd_stored_versions(obj) != GCP_OK)
    {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    gcp_crd_order(obj);

    return GCP_OK;
}


static int
gcp_crd_prepare_update(gcp_op_t *op, json_t *obj, const json_t *old)
{
    json_t  *st;

    if (gcp_crd_defaults(obj) != GCP_OK) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    st = json_object_get(old, "status");

    if (st) {
        json_object_set_new(obj, "status", json_deep_copy(st));

    } else {
        json_object_del(obj, "status");
    }

    if (gcp_crd_stored_versions(obj) != GCP_OK) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    gcp_crd_order(obj);

    return GCP_OK;
}


/*
 * A write through /status changes status and the metadata a status
 * writer owns (finalizers: the cleanup controller removes its own), not
 * the spec, labels, annotations, ownerReferences or generation.
 */

static json_t *
gcp_crd_status_build(gcp_op_t *op, const json_t *src, const json_t *old)
{
    size_t   i;
    json_t  *obj, *meta, *ometa, *v;

    static const char * const  keep[] = {
        "labels", "annotations", "ownerReferences", "generation", NULL
    };

    obj = gcp_type_status_keep_spec(op, src, old);
    if (obj == NULL) {
        return NULL;
    }

    meta = gcp_meta(obj);
    ometa = json_object_get(old, "metadata");

    for (i = 0; meta && keep[i]; i++) {
        v = json_object_get(ometa, keep[i]);

        if (v) {
            json_object_set_new(meta, keep[i], json_deep_copy(v));

        } else {
            json_object_del(meta, keep[i]);
        }
    }

    gcp_crd_order(obj);

    return obj;
}


static int
gcp_crd_prepare_delete(gcp_op_t *op, json_t *obj)
{
    size_t       i;
    json_t      *meta, *fin, *e;
    const char  *s;

    meta = gcp_meta(obj);
    fin = json_object_get(meta, "finalizers");

    if (!json_is_array(fin)) {
        fin = json_array();
        json_object_set_new(meta, "finalizers", fin);
    }

    json_array_foreach(fin, i, e) {
        s = json_string_value(e);

        if (s && strcmp(s, GCP_CRD_FINALIZER) == 0) {
            break;
        }
    }

    if (i == json_array_size(fin)) {
        json_array_append_new(fin, json_string(GCP_CRD_FINALIZER));
    }

    (void) gcp_crd_set_condition(obj, "Terminating", "True",
                                 "InstanceDeletionPending",
                                 "CustomResourceDefinition marked for "
                                 "deletion; CustomResource deletion will "
                                 "begin soon", gcp_reg_now(op));

    return 1;
}


static const gcp_strategy_t  gcp_crd_strategy = {
    .field_order = gcp_crd_top_order,
    .prepare_create = gcp_crd_prepare_create,
    .prepare_update = gcp_crd_prepare_update,
    .status_build = gcp_crd_status_build,
    .prepare_delete = gcp_crd_prepare_delete,
    .validate_request = gcp_crd_validate,
    .generation = 1,
    .no_unconditional_update = 1,
};


static const gcp_subresource_t  gcp_crd_subresources[] = {
    { "status", GCP_SUB_STATUS,
      GCP_VERB_GET | GCP_VERB_PATCH | GCP_VERB_UPDATE, NULL, NULL, NULL },
};


const gcp_resource_t  gcp_type_customresourcedefinitions = {
    .group = GCP_CRD_GROUP,
    .version = "v1",
    .name = "customresourcedefinitions",
    .singular = "customresourcedefinition",
    .kind = "CustomResourceDefinition",
    .list_kind = "CustomResourceDefinitionList",
    .short_names = (const char * const []) { "crd", "crds", NULL },
    .categories = (const char * const []) { "api-extensions", NULL },
    .protobuf = 1,
    .verbs = GCP_VERBS_CRUD,
    .subresources = gcp_crd_subresources,
    .nsubresources = gcp_nelems(gcp_crd_subresources),
    .schema = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1."
              "CustomResourceDefinition",
    .list_schema = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions."
                   "v1.CustomResourceDefinitionList",
    .storage = "apiextensions.k8s.io/customresourcedefinitions",
    .storage_version_hash = "jfWCUB31mvA=",
    .strategy = &gcp_crd_strategy,
};
