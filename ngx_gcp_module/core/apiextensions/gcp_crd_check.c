
/*
 * Checking a CRD version's openAPIV3Schema as kube-apiserver 1.32 does
 * (apiextensions-apiserver pkg/apis/apiextensions/validation:
 * validateCustomResourceDefinitionValidation and
 * ValidateCustomResourceDefinitionOpenAPISchema with specStandardValidatorV3;
 * the structural rules are in gcp_crd_structural.c, the defaults in
 * gcp_crd_check_defaults.c).  See gcp_crd_schema.h.
 */

#include "gcp_crd_int.h"
#include "gcp_crd_json.h"
#include "gcp_json.h"


/* specStandardValidatorV3 */
typedef struct {
    unsigned     allow_defaults:1;
    unsigned     inside_meta:1;
    unsigned     require_valid_type:1;
    const char  *reason;            /* why defaults are forbidden */
} gcp_crd_ssv_t;


typedef struct {
    gcp_ferrs_t                 *errs;      /* the schema errors */
    gcp_ferrs_t                 *cel;       /* the CEL refusals */
    const gcp_crd_check_opts_t  *opts;
    gcp_buf_t                    path;
} gcp_crd_cctx_t;


static const char  gcp_crd_types_supported[] =
    "supported values: \"array\", \"boolean\", \"integer\", \"number\", "
    "\"object\", \"string\"";


void
gcp_crd_check_opts_init(gcp_crd_check_opts_t *opts)
{
    memset(opts, 0, sizeof(gcp_crd_check_opts_t));

    opts->allow_defaults = 1;
    opts->require_valid_property_type = 1;
    opts->require_structural = 1;
    opts->require_pruned_defaults = 1;
    opts->require_atomic_set_type = 1;
    opts->require_map_list_keys = 1;
}


static void
gcp_crd_cerr(gcp_crd_cctx_t *c, gcp_ferrs_t *errs, gcp_ferr_type_t type,
    const char *child, const char *value, const char *detail)
{
    const char  *field;

    field = child ? gcp_sprintf(errs->arena, "%.*s.%s", (int) c->path.len,
                                c->path.data, child)
                  : gcp_strndup(errs->arena, c->path.data, c->path.len);
    if (field == NULL) {
        errs->nomem = 1;
        return;
    }

    gcp_ferrs_add(errs, type, field, value, "%s", detail ? detail : "");
}


/*
 * "type" of a schema that must be want because ext is set: Required when
 * the type is empty, else Invalid
 */
static void
gcp_crd_cerr_type(gcp_crd_cctx_t *c, gcp_ferrs_t *errs, const char *type,
    const char *want, const char *ext)
{
    const char  *detail;

    detail = gcp_sprintf(errs->arena, "must be %s if %s is specified", want,
                         ext);

    if (type[0] == '\0') {
        gcp_crd_cerr(c, errs, GCP_FERR_REQUIRED, "type", NULL, detail);

    } else {
        gcp_crd_cerr(c, errs, GCP_FERR_INVALID, "type",
                     gcp_ferr_quote(errs->arena, type), detail);
    }
}


static const char *
gcp_crd_json_text(gcp_arena_t *a, const json_t *v)
{
    return gcp_json_dump(a, v, 0).data;
}


/* ssv.validate() */
static void
gcp_crd_ssv_validate(gcp_crd_cctx_t *c, const json_t *s,
    const gcp_crd_ssv_t *ssv)
{
    json_t       *v;
    const char   *type, *detail;
    gcp_ferrs_t  *e = c->errs;
    gcp_arena_t  *a = e->arena;

    type = gcp_crd_js_str(s, "type");

    if (ssv->require_valid_type && type[0]
        && strcmp(type, "string") != 0 && strcmp(type, "number") != 0
        && strcmp(type, "integer") != 0 && strcmp(type, "boolean") != 0
        && strcmp(type, "array") != 0 && strcmp(type, "object") != 0)
    {
        gcp_crd_cerr(c, e, GCP_FERR_NOT_SUPPORTED, "type",
                     gcp_ferr_quote(a, type), gcp_crd_types_supported);
    }

    if (gcp_crd_js_has(s, "default") && !ssv->allow_defaults) {
        detail = ssv->reason ? gcp_sprintf(a, "must not be set %s",
                                           ssv->reason)
                             : "must not be set";
        gcp_crd_cerr(c, e, GCP_FERR_FORBIDDEN, "default", NULL, detail);
    }

    if (gcp_crd_js_str(s, "id")[0]) {
        gcp_crd_cerr(c, e, GCP_FERR_FORBIDDEN, "id", NULL,
                     "id is not supported");
    }

    if (gcp_crd_js_has(s, "additionalItems")) {
        gcp_crd_cerr(c, e, GCP_FERR_FORBIDDEN, "additionalItems", NULL,
                     "additionalItems is not supported");
    }

    if (json_object_size(gcp_crd_js_obj(s, "patternProperties"))) {
        gcp_crd_cerr(c, e, GCP_FERR_FORBIDDEN, "patternProperties", NULL,
                     "patternProperties is not supported");
    }

    if (json_object_size(gcp_crd_js_obj(s, "definitions"))) {
        gcp_crd_cerr(c, e, GCP_FERR_FORBIDDEN, "definitions", NULL,
                     "definitions is not supported");
    }

    if (gcp_crd_js_has(s, "dependencies")) {
        gcp_crd_cerr(c, e, GCP_FERR_FORBIDDEN, "dependencies", NULL,
                     "dependencies is not supported");
    }

    if (gcp_crd_js_has(s, "$ref")) {
        gcp_crd_cerr(c, e, GCP_FERR_FORBIDDEN, "$ref", NULL,
                     "$ref is not supported");
    }

    if (strcmp(type, "null") == 0) {
        gcp_crd_cerr(c, e, GCP_FERR_FORBIDDEN, "type", NULL,
                     "type cannot be set to null, use nullable as an "
                     "alternative");
    }

    v = json_object_get(s, "items");

    if (json_is_array(v) && json_array_size(v)) {
        gcp_crd_cerr(c, e, GCP_FERR_FORBIDDEN, "items", NULL,
                     "items must be a schema object and not an array");
    }

    if (ssv->inside_meta
        && gcp_crd_js_true(s, "x-kubernetes-embedded-resource"))
    {
        gcp_crd_cerr(c, e, GCP_FERR_FORBIDDEN,
                     "x-kubernetes-embedded-resource", NULL,
                     "must not be used inside of resource meta");
    }
}


/* validateMapListKeysMapSet() */
static void
gcp_crd_map_list_keys(gcp_crd_cctx_t *c, gcp_ferrs_t *e, const json_t *s)
{
    size_t       i;
    json_t      *items, *req, *k, *prop;
    const char  *lt, *key, *f;
    gcp_arena_t *a = e->arena;

    items = gcp_crd_js_obj(s, "items");
    lt = json_string_value(json_object_get(s, "x-kubernetes-list-type"));

    if (items == NULL || lt == NULL
        || (strcmp(lt, "set") != 0 && strcmp(lt, "map") != 0))
    {
        return;
    }

    if (gcp_crd_js_true(items, "nullable")) {
        gcp_crd_cerr(c, e, GCP_FERR_FORBIDDEN, "items.nullable", NULL,
                     gcp_sprintf(a, "cannot be nullable when "
                                 "x-kubernetes-list-type is %s", lt));
    }

    if (strcmp(lt, "map") != 0) {
        return;
    }

    req = json_object_get(items, "required");

    json_array_foreach(json_object_get(s, "x-kubernetes-list-map-keys"), i, k)
    {
        key = json_is_string(k) ? json_string_value(k) : "";
        prop = json_object_get(gcp_crd_js_obj(items, "properties"), key);

        if (prop == NULL) {
            continue;
        }

        if (!gcp_json_has_string(req, key) && !gcp_crd_js_has(prop, "default"))
        {
            f = gcp_sprintf(a, "items.properties[%s].default", key);
            gcp_crd_cerr(c, e, GCP_FERR_REQUIRED, f, NULL,
                         "this property is in x-kubernetes-list-map-keys, so "
                         "it must have a default or be a required property");
        }

        if (gcp_crd_js_true(prop, "nullable")) {
            f = gcp_sprintf(a, "items.properties[%s].nullable", key);
            gcp_crd_cerr(c, e, GCP_FERR_FORBIDDEN, f, NULL,
                         "this property is in x-kubernetes-list-map-keys, so "
                         "it cannot be nullable");
        }
    }
}


static void
gcp_crd_list_map_rules(gcp_crd_cctx_t *c, const json_t *s, const char *type)
{
    size_t       i, j;
    json_t      *lt, *keys, *items, *props, *k, *p, *is;
    const char  *key, *pt, *mt;
    gcp_ferrs_t *e = c->errs;
    gcp_arena_t *a = e->arena;

    lt = json_object_get(s, "x-kubernetes-list-type");
    if (json_is_null(lt)) {
        lt = NULL;
    }

    if (lt && strcmp(type, "array") != 0) {
        gcp_crd_cerr_type(c, e, type, "array", "x-kubernetes-list-type");

    } else if (c->opts->require_atomic_set_type && lt
               && strcmp(gcp_crd_js_str(s, "x-kubernetes-list-type"), "set")
                  == 0
               && (is = gcp_crd_js_obj(s, "items")) != NULL)
    {
        pt = gcp_crd_js_str(is, "type");
        p = json_object_get(is, "x-kubernetes-list-type");

        if (strcmp(pt, "array") == 0 && gcp_crd_js_has(is,
                                            "x-kubernetes-list-type")
            && strcmp(gcp_crd_js_str(is, "x-kubernetes-list-type"), "atomic")
               != 0)
        {
            gcp_crd_cerr(c, e, GCP_FERR_INVALID,
                         "items.x-kubernetes-list-type",
                         gcp_crd_go_value_str(a, p),
                         "must be atomic as item of a list with "
                         "x-kubernetes-list-type=set");

        } else if (strcmp(pt, "object") == 0) {
            mt = json_string_value(json_object_get(is,
                                                   "x-kubernetes-map-type"));

            /*
             * upstream shows the items' x-kubernetes-list-type here; a nil
             * *string is rendered as the string "null"
             */
            if (mt == NULL || strcmp(mt, "atomic") != 0) {
                gcp_crd_cerr(c, e, GCP_FERR_INVALID,
                             "items.x-kubernetes-map-type",
                             json_is_string(p) ? gcp_crd_go_value_str(a, p)
                                               : "\"null\"",
                             "must be atomic as item of a list with "
                             "x-kubernetes-list-type=set");
            }
        }
    }

    if (lt && strcmp(gcp_crd_js_str(s, "x-kubernetes-list-type"), "atomic")
              != 0
        && strcmp(gcp_crd_js_str(s, "x-kubernetes-list-type"), "set") != 0
        && strcmp(gcp_crd_js_str(s, "x-kubernetes-list-type"), "map") != 0)
    {
        gcp_crd_cerr(c, e, GCP_FERR_NOT_SUPPORTED, "x-kubernetes-list-type",
                     gcp_ferr_quote(a, gcp_crd_js_str(s,
                                               "x-kubernetes-list-type")),
                     "supported values: \"atomic\", \"set\", \"map\"");
    }

    keys = json_object_get(s, "x-kubernetes-list-map-keys");

    if (json_array_size(keys)) {
        if (lt == NULL) {
            gcp_crd_cerr(c, e, GCP_FERR_REQUIRED, "x-kubernetes-list-type",
                         NULL, "must be map if x-kubernetes-list-map-keys is "
                         "non-empty");

        } else if (strcmp(gcp_crd_js_str(s, "x-kubernetes-list-type"), "map")
                   != 0)
        {
            gcp_crd_cerr(c, e, GCP_FERR_INVALID, "x-kubernetes-list-type",
                         gcp_ferr_quote(a, gcp_crd_js_str(s,
                                               "x-kubernetes-list-type")),
                         "must be map if x-kubernetes-list-map-keys is "
                         "non-empty");
        }
    }

    if (lt == NULL
        || strcmp(gcp_crd_js_str(s, "x-kubernetes-list-type"), "map") != 0)
    {
        return;
    }

    if (json_array_size(keys) == 0) {
        gcp_crd_cerr(c, e, GCP_FERR_REQUIRED, "x-kubernetes-list-map-keys",
                     NULL, "must not be empty if x-kubernetes-list-type is "
                     "map");
    }

    items = json_object_get(s, "items");
    if (json_is_null(items)) {
        items = NULL;
    }

    if (items == NULL) {
        gcp_crd_cerr(c, e, GCP_FERR_REQUIRED, "items", NULL,
                     "must have a schema if x-kubernetes-list-type is map");
        return;
    }

    if (!json_is_object(items)) {
        gcp_crd_cerr(c, e, GCP_FERR_INVALID, "items",
                     gcp_crd_json_text(a, items),
                     "must only have a single schema if "
                     "x-kubernetes-list-type is map");
        return;
    }

    pt = gcp_crd_js_str(items, "type");

    if (strcmp(pt, "object") != 0) {
        gcp_crd_cerr(c, e, GCP_FERR_INVALID, "items.type",
                     gcp_ferr_quote(a, pt), "must be object if parent "
                     "array's x-kubernetes-list-type is map");
        return;
    }

    props = gcp_crd_js_obj(items, "properties");

    json_array_foreach(keys, i, k) {
        key = json_is_string(k) ? json_string_value(k) : "";
        p = json_object_get(props, key);

        if (p) {
            mt = gcp_crd_js_str(p, "type");

            if (strcmp(mt, "array") == 0 || strcmp(mt, "object") == 0) {
                gcp_crd_cerr(c, e, GCP_FERR_INVALID,
                             gcp_sprintf(a, "items.properties[%s].type", key),
                             gcp_ferr_quote(a, pt), "must be a scalar type "
                             "if parent array's x-kubernetes-list-type is "
                             "map");
            }

        } else {
            gcp_crd_cerr(c, e, GCP_FERR_INVALID, "x-kubernetes-list-map-keys",
                         gcp_go_strings(a, keys),
                         "entries must all be names of item properties");
        }

        for (j = 0; j < i; j++) {
            if (json_equal(k, json_array_get(keys, j))) {
                gcp_crd_cerr(c, e, GCP_FERR_INVALID,
                             "x-kubernetes-list-map-keys",
                             gcp_go_strings(a, keys),
                             "must not contain duplicate entries");
                break;
            }
        }
    }
}


static void gcp_crd_openapi(gcp_crd_cctx_t *c, const json_t *s,
    const gcp_crd_ssv_t *ssv, int root);


/* recursion into s at the path suffix (".items", ".allOf[0]", ...) */
static void
gcp_crd_openapi_child(gcp_crd_cctx_t *c, const json_t *s,
    const gcp_crd_ssv_t *ssv, const char *suffix)
{
    size_t  pop = c->path.len;

    if (suffix == NULL) {
        c->errs->nomem = 1;
        return;
    }

    gcp_buf_addstr(&c->path, suffix);
    gcp_crd_openapi(c, s, ssv, 0);
    gcp_crd_path_pop(&c->path, pop);
}


/* ValidateCustomResourceDefinitionOpenAPISchema() */
static void
gcp_crd_openapi(gcp_crd_cctx_t *c, const json_t *s, const gcp_crd_ssv_t *ssv,
    int root)
{
    void           *it;
    size_t          i, k;
    json_t         *v, *props, *e, *ap;
    const char     *type, *key, *mt;
    gcp_ferrs_t    *errs = c->errs;
    gcp_arena_t    *a = errs->arena;
    gcp_crd_ssv_t   sub;

    static const char  *lists[] = { "allOf", "oneOf", "anyOf" };

    if (!json_is_object(s) || c->path.len > 64 * 1024) {
        return;
    }

    gcp_crd_ssv_validate(c, s, ssv);

    if (gcp_crd_js_true(s, "uniqueItems")) {
        gcp_crd_cerr(c, errs, GCP_FERR_FORBIDDEN, "uniqueItems", NULL,
                     "uniqueItems cannot be set to true since the runtime "
                     "complexity becomes quadratic");
    }

    props = gcp_crd_js_obj(s, "properties");
    ap = json_object_get(s, "additionalProperties");

    if (ap && !json_is_null(ap)) {
        if (json_object_size(props) && (json_is_false(ap)
                                        || json_is_object(ap)))
        {
            gcp_crd_cerr(c, errs, GCP_FERR_FORBIDDEN, "additionalProperties",
                         NULL, "additionalProperties and properties are "
                         "mutual exclusive");
        }

        sub = *ssv;

        if (ssv->inside_meta) {
            sub.allow_defaults = 0;
            sub.reason = "inside additionalProperties applying to object "
                         "metadata";
        }

        gcp_crd_openapi_child(c, ap, &sub, ".additionalProperties");
    }

    for (it = json_object_iter(props); it;
         it = json_object_iter_next(props, it))
    {
        key = json_object_iter_key(it);
        sub = *ssv;

        if ((root || gcp_crd_js_true(s, "x-kubernetes-embedded-resource"))
            && (strcmp(key, "metadata") == 0 || strcmp(key, "kind") == 0
                || strcmp(key, "apiVersion") == 0))
        {
            sub.inside_meta = 1;

            if (root) {
                sub.allow_defaults = 0;
                sub.reason = gcp_sprintf(a, "in top-level %s", key);
            }
        }

        gcp_crd_openapi_child(c, json_object_iter_value(it), &sub,
                              gcp_sprintf(a, ".properties[%s]", key));
    }

    v = gcp_crd_js_obj(s, "not");
    if (v) {
        gcp_crd_openapi_child(c, v, ssv, ".not");
    }

    for (k = 0; k < gcp_nelems(lists); k++) {
        json_array_foreach(json_object_get(s, lists[k]), i, e) {
            gcp_crd_openapi_child(c, e, ssv,
                                  gcp_sprintf(a, ".%s[%zu]", lists[k], i));
        }
    }

    v = gcp_crd_js_obj(s, "definitions");

    for (it = json_object_iter(v); it; it = json_object_iter_next(v, it)) {
        gcp_crd_openapi_child(c, json_object_iter_value(it), ssv,
                              gcp_sprintf(a, ".definitions[%s]",
                                          json_object_iter_key(it)));
    }

    v = json_object_get(s, "items");

    if (json_is_object(v)) {
        gcp_crd_openapi_child(c, v, ssv, ".items");

    } else {
        json_array_foreach(v, i, e) {
            gcp_crd_openapi_child(c, e, ssv,
                                  gcp_sprintf(a, ".items[%zu]", i));
        }
    }

    v = gcp_crd_js_obj(s, "dependencies");

    for (it = json_object_iter(v); it; it = json_object_iter_next(v, it)) {
        if (json_is_object(json_object_iter_value(it))) {
            gcp_crd_openapi_child(c, json_object_iter_value(it), ssv,
                                  gcp_sprintf(a, ".dependencies[%s]",
                                              json_object_iter_key(it)));
        }
    }

    if (json_is_false(json_object_get(s,
                                      "x-kubernetes-preserve-unknown-fields")))
    {
        gcp_crd_cerr(c, errs, GCP_FERR_INVALID,
                     "x-kubernetes-preserve-unknown-fields", "false",
                     "must be true or undefined");
    }

    type = gcp_crd_js_str(s, "type");

    if (gcp_crd_js_has(s, "x-kubernetes-map-type")) {
        mt = gcp_crd_js_str(s, "x-kubernetes-map-type");

        if (strcmp(type, "object") != 0) {
            gcp_crd_cerr_type(c, errs, type, "object",
                              "x-kubernetes-map-type");
        }

        if (strcmp(mt, "atomic") != 0 && strcmp(mt, "granular") != 0) {
            gcp_crd_cerr(c, errs, GCP_FERR_NOT_SUPPORTED,
                         "x-kubernetes-map-type", gcp_ferr_quote(a, mt),
                         "supported values: \"atomic\", \"granular\"");
        }
    }

    gcp_crd_list_map_rules(c, s, type);

    if (c->opts->require_map_list_keys) {
        gcp_crd_map_list_keys(c, errs, s);
    }

    /* CEL rules are not evaluated here: one clear refusal per rule */

    json_array_foreach(json_object_get(s, "x-kubernetes-validations"), i, e) {
        gcp_crd_cerr(c, c->cel, GCP_FERR_FORBIDDEN,
                     gcp_sprintf(a, "x-kubernetes-validations[%zu].rule", i),
                     NULL, "CEL validation rules (x-kubernetes-validations) "
                     "are not supported by this server");
    }
}


/* the status subresource's rule on the root's fields */
static void
gcp_crd_status_root(gcp_crd_cctx_t *c, const json_t *s, const char *path)
{
    int          order, first, best;
    void        *it;
    size_t       i;
    json_t      *v;
    const char  *k, *go, *type;
    gcp_arena_t *a = c->errs->arena;

    static const char  *allowed[] = {
        "Description", "Type", "Format", "Title", "Maximum",
        "ExclusiveMaximum", "Minimum", "ExclusiveMinimum", "MaxLength",
        "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems",
        "MultipleOf", "Required", "Items", "Properties", "ExternalDocs",
        "Example", "XPreserveUnknownFields", "XValidations"
    };

    /* the first non-zero field, in the struct's order, that is refused */

    best = -1;
    first = 1;

    for (it = json_object_iter((json_t *) s); it;
         it = json_object_iter_next((json_t *) s, it))
    {
        k = json_object_iter_key(it);
        v = json_object_iter_value(it);
        go = gcp_crd_js_go_name(k, &order);

        if (go == NULL || gcp_crd_js_zero(k, v)) {
            continue;
        }

        if (strcmp(go, "Type") == 0) {
            type = gcp_crd_js_str(s, "type");

            if (strcmp(type, "object") == 0) {
                continue;
            }

        } else {
            for (i = 0; i < gcp_nelems(allowed); i++) {
                if (strcmp(allowed[i], go) == 0) {
                    break;
                }
            }

            if (i < gcp_nelems(allowed)) {
                continue;
            }
        }

        if (first || order < best) {
            best = order;
            first = 0;
        }
    }

    if (best < 0) {
        return;
    }

    for (it = json_object_iter((json_t *) s); it;
         it = json_object_iter_next((json_t *) s, it))
    {
        k = json_object_iter_key(it);
        go = gcp_crd_js_go_name(k, &order);

        if (order != best) {
            continue;
        }

        if (strcmp(go, "Type") == 0) {
            gcp_ferrs_add(c->errs, GCP_FERR_INVALID,
                          gcp_sprintf(a, "%s.openAPIV3Schema.type", path),
                          gcp_ferr_quote(a, gcp_crd_js_str(s, "type")),
                          "only \"object\" is allowed as the type at the "
                          "root of the schema if the status subresource is "
                          "enabled");

        } else {
            gcp_ferrs_add(c->errs, GCP_FERR_INVALID,
                          gcp_sprintf(a, "%s.openAPIV3Schema", path),
                          gcp_crd_json_text(a, s),
                          "only [Description Type Format Title Maximum "
                          "ExclusiveMaximum Minimum ExclusiveMinimum "
                          "MaxLength MinLength Pattern MaxItems MinItems "
                          "UniqueItems MultipleOf Required Items Properties "
                          "ExternalDocs Example XPreserveUnknownFields "
                          "XValidations] fields are allowed at the root of "
                          "the schema if the status subresource is enabled");
        }

        return;
    }
}


static void
gcp_crd_append(gcp_ferrs_t *to, const gcp_ferrs_t *from)
{
    const gcp_ferr_t  *e;

    for (e = from->first; e; e = e->next) {
        gcp_ferrs_add(to, e->type, e->field, e->value, "%s",
                      e->detail ? e->detail : "");
    }
}


int
gcp_crd_schema_check(gcp_ferrs_t *errs, const json_t *schema,
    const char *base, const gcp_crd_check_opts_t *opts,
    const gcp_schema_set_t *set)
{
    char               buf[256];
    const char        *path, *init;
    gcp_ferrs_t        all, cel;
    gcp_arena_t       *a = errs->arena;
    gcp_crd_ssv_t      ssv;
    gcp_crd_cctx_t     c;
    gcp_crd_schema_t  *cs;

    if (schema == NULL || json_is_null(schema)) {
        return GCP_OK;
    }

    gcp_ferrs_init(&all, a);
    gcp_ferrs_init(&cel, a);

    path = gcp_sprintf(a, "%s.openAPIV3Schema", base);
    if (path == NULL) {
        return GCP_ENOMEM;
    }

    c.errs = &all;
    c.cel = &cel;
    c.opts = opts;
    gcp_buf_init(&c.path, a);

    if (opts->status_enabled && json_is_object(schema)) {
        gcp_crd_status_root(&c, schema, base);
    }

    if (gcp_crd_js_true(schema, "nullable")) {
        gcp_ferrs_add(&all, GCP_FERR_FORBIDDEN,
                      gcp_sprintf(a, "%s.nullable", path), NULL,
                      "nullable cannot be true at the root");
    }

    init = NULL;

    if (opts->require_structural) {
        init = gcp_crd_structural_convert(schema);

        if (init == NULL
            && gcp_crd_structural_validate(&all, schema, path) == 0)
        {
            gcp_crd_defaults_validate(&all, schema, path,
                                      opts->require_pruned_defaults, set);
        }
    }

    memset(&ssv, 0, sizeof(ssv));
    ssv.allow_defaults = opts->allow_defaults;
    ssv.require_valid_type = opts->require_valid_property_type;

    gcp_buf_addstr(&c.path, path);
    gcp_crd_openapi(&c, schema, &ssv, 1);

    gcp_crd_append(&all, &cel);

    if (all.n == 0 && init) {
        gcp_ferrs_add(&all, GCP_FERR_INVALID, path, "\"\"", "%s", init);
    }

    if (all.n == 0) {
        cs = gcp_crd_schema_compile(schema, set, buf, sizeof(buf));

        if (cs == NULL) {
            if (strcmp(buf, "out of memory") == 0) {
                return GCP_ENOMEM;
            }

            gcp_ferrs_add(&all, GCP_FERR_INVALID, base, "\"\"",
                          "error building validator: %s", buf);
        }

        gcp_crd_schema_free(cs);
    }

    gcp_crd_append(errs, &all);

    if (all.nomem || cel.nomem || errs->nomem || gcp_buf_failed(&c.path)) {
        return GCP_ENOMEM;
    }

    return GCP_OK;
}


/* ---------------------------------------------------------- ratcheting */


typedef int (*gcp_crd_pred_pt)(const json_t *s);


/* SchemaHas(): pred on s or any schema it contains */
static int
gcp_crd_schema_has(const json_t *s, gcp_crd_pred_pt pred, int depth)
{
    size_t       i, k;
    void        *it;
    json_t      *v, *e;

    static const char  *lists[] = { "allOf", "anyOf", "oneOf" };
    static const char  *maps[] = { "properties", "patternProperties",
                                   "definitions", "dependencies" };

    if (!json_is_object(s) || depth > 1000) {
        return 0;
    }

    if (pred(s)) {
        return 1;
    }

    v = json_object_get(s, "items");

    if (json_is_object(v) && gcp_crd_schema_has(v, pred, depth + 1)) {
        return 1;
    }

    json_array_foreach(v, i, e) {
        if (gcp_crd_schema_has(e, pred, depth + 1)) {
            return 1;
        }
    }

    for (k = 0; k < gcp_nelems(lists); k++) {
        json_array_foreach(json_object_get(s, lists[k]), i, e) {
            if (gcp_crd_schema_has(e, pred, depth + 1)) {
                return 1;
            }
        }
    }

    if (gcp_crd_schema_has(gcp_crd_js_obj(s, "not"), pred, depth + 1)
        || gcp_crd_schema_has(gcp_crd_js_obj(s, "additionalProperties"),
                              pred, depth + 1)
        || gcp_crd_schema_has(gcp_crd_js_obj(s, "additionalItems"), pred,
                              depth + 1))
    {
        return 1;
    }

    for (k = 0; k < gcp_nelems(maps); k++) {
        v = gcp_crd_js_obj(s, maps[k]);

        for (it = json_object_iter(v); it; it = json_object_iter_next(v, it))
        {
            if (gcp_crd_schema_has(json_object_iter_value(it), pred,
                                   depth + 1))
            {
                return 1;
            }
        }
    }

    return 0;
}


static int
gcp_crd_has_invalid_type(const json_t *s)
{
    const char  *t = gcp_crd_js_str(s, "type");

    return t[0] && strcmp(t, "string") != 0 && strcmp(t, "number") != 0
           && strcmp(t, "integer") != 0 && strcmp(t, "boolean") != 0
           && strcmp(t, "array") != 0 && strcmp(t, "object") != 0;
}


static int
gcp_crd_has_non_atomic_set(const json_t *s)
{
    json_t      *is;
    const char  *t;

    is = gcp_crd_js_obj(s, "items");

    if (strcmp(gcp_crd_js_str(s, "x-kubernetes-list-type"), "set") != 0
        || is == NULL)
    {
        return 0;
    }

    t = gcp_crd_js_str(is, "type");

    if (strcmp(t, "array") == 0) {
        return gcp_crd_js_has(is, "x-kubernetes-list-type")
               && strcmp(gcp_crd_js_str(is, "x-kubernetes-list-type"),
                         "atomic") != 0;
    }

    if (strcmp(t, "object") == 0) {
        return strcmp(gcp_crd_js_str(is, "x-kubernetes-map-type"), "atomic")
               != 0;
    }

    return 0;
}


static int
gcp_crd_has_invalid_map_list_keys(const json_t *s)
{
    int             bad;
    gcp_arena_t    *a;
    gcp_ferrs_t     errs;
    gcp_crd_cctx_t  c;

    a = gcp_arena_create(0);
    if (a == NULL) {
        return 0;
    }

    gcp_ferrs_init(&errs, a);
    memset(&c, 0, sizeof(c));
    gcp_buf_init(&c.path, a);

    gcp_crd_map_list_keys(&c, &errs, s);
    bad = errs.n > 0;

    gcp_arena_destroy(a);
    return bad;
}


void
gcp_crd_check_opts_ratchet(gcp_crd_check_opts_t *opts,
    const json_t *old_schema, const gcp_schema_set_t *set)
{
    gcp_arena_t  *a;
    gcp_ferrs_t   errs;

    if (old_schema == NULL || !json_is_object(old_schema)) {
        return;
    }

    if (gcp_crd_schema_has(old_schema, gcp_crd_has_invalid_type, 0)) {
        opts->require_valid_property_type = 0;
    }

    if (gcp_crd_schema_has(old_schema, gcp_crd_has_non_atomic_set, 0)) {
        opts->require_atomic_set_type = 0;
    }

    if (gcp_crd_schema_has(old_schema, gcp_crd_has_invalid_map_list_keys, 0))
    {
        opts->require_map_list_keys = 0;
    }

    a = gcp_arena_create(0);
    if (a == NULL) {
        return;
    }

    gcp_ferrs_init(&errs, a);

    if (gcp_crd_structural_convert(old_schema) != NULL
        || gcp_crd_structural_validate(&errs, old_schema, "") != 0)
    {
        opts->require_structural = 0;

    } else if (gcp_crd_defaults_unpruned(old_schema, set)) {
        opts->require_pruned_defaults = 0;
    }

    gcp_arena_destroy(a);
}
