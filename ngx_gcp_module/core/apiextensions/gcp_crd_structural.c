
/*
 * Structural schemas (apiextensions-apiserver pkg/apiserver/schema:
 * convert.go NewStructural, validation.go ValidateStructural, complete.go)
 * over the schema's JSON: the conversion's errors, the invariants, the
 * completeness of the root's value validations, sorted as upstream sorts
 * them.  A JSON null is an absent field, as Go decodes it.
 */

#include <stdlib.h>

#include "gcp_crd_int.h"
#include "gcp_crd_json.h"
#include "gcp_json.h"


typedef enum {
    GCP_CRD_LVL_ROOT = 0,
    GCP_CRD_LVL_ITEM,
    GCP_CRD_LVL_FIELD
} gcp_crd_level_t;


typedef struct {
    gcp_ferrs_t  *errs;         /* collected, sorted at the end */
    gcp_buf_t     path;
} gcp_crd_sctx_t;


/* ---------------------------------------------------------- NewStructural */


static const char *
gcp_crd_unsupported(const json_t *s)
{
    json_t  *v;

    if (gcp_crd_js_str(s, "id")[0]) {
        return "OpenAPIV3Schema 'id' is not supported";
    }

    if (gcp_crd_js_str(s, "$schema")[0]) {
        return "OpenAPIV3Schema 'schema' is not supported";
    }

    v = json_object_get(s, "$ref");
    if (json_is_string(v) && json_string_length(v)) {
        return "OpenAPIV3Schema '$ref' is not supported";
    }

    if (json_object_size(gcp_crd_js_obj(s, "patternProperties"))) {
        return "OpenAPIV3Schema 'patternProperties' is not supported";
    }

    if (json_object_size(gcp_crd_js_obj(s, "dependencies"))) {
        return "OpenAPIV3Schema 'dependencies' is not supported";
    }

    if (gcp_crd_js_has(s, "additionalItems")) {
        return "OpenAPIV3Schema 'additionalItems' is not supported";
    }

    if (json_object_size(gcp_crd_js_obj(s, "definitions"))) {
        return "OpenAPIV3Schema 'definitions' is not supported";
    }

    return NULL;
}


static const char *gcp_crd_convert(const json_t *s, int nested, int depth);


/* newValueValidation(): not, allOf, anyOf, oneOf */
static const char *
gcp_crd_convert_vv(const json_t *s, int depth)
{
    size_t        i, k;
    json_t       *v, *e;
    const char   *err;
    static const char  *lists[] = { "allOf", "anyOf", "oneOf" };

    v = gcp_crd_js_obj(s, "not");
    if (v && (err = gcp_crd_convert(v, 1, depth + 1)) != NULL) {
        return err;
    }

    for (k = 0; k < gcp_nelems(lists); k++) {
        v = json_object_get(s, lists[k]);

        json_array_foreach(v, i, e) {
            if ((err = gcp_crd_convert(e, 1, depth + 1)) != NULL) {
                return err;
            }
        }
    }

    return NULL;
}


static const char *
gcp_crd_convert(const json_t *s, int nested, int depth)
{
    void         *it;
    json_t       *v;
    const char   *err;

    if (!json_is_object(s)) {
        return NULL;
    }

    if (depth > 1000) {
        return "OpenAPIV3Schema nests too deeply";
    }

    if ((err = gcp_crd_unsupported(s)) != NULL) {
        return err;
    }

    if ((err = gcp_crd_convert_vv(s, depth)) != NULL) {
        return err;
    }

    /* newGenerics(): additionalProperties as a schema */

    v = gcp_crd_js_obj(s, "additionalProperties");
    if (v && (err = gcp_crd_convert(v, 0, depth + 1)) != NULL) {
        return err;
    }

    /* newExtensions() */

    v = json_object_get(s, "x-kubernetes-preserve-unknown-fields");
    if (json_is_false(v)) {
        return "internal error: 'x-kubernetes-preserve-unknown-fields' must "
               "be true or undefined";
    }

    v = json_object_get(s, "items");

    if (json_is_array(v) && json_array_size(v)) {
        return "OpenAPIV3Schema 'items' must be a schema, but is an array";
    }

    if (json_is_object(v) && (err = gcp_crd_convert(v, nested, depth + 1))) {
        return err;
    }

    v = gcp_crd_js_obj(s, "properties");

    for (it = json_object_iter(v); it; it = json_object_iter_next(v, it)) {
        err = gcp_crd_convert(json_object_iter_value(it), nested, depth + 1);
        if (err) {
            return err;
        }
    }

    return NULL;
}


const char *
gcp_crd_structural_convert(const json_t *schema)
{
    return gcp_crd_convert(schema, 0, 0);
}


/* ---------------------------------------------------------- helpers */


static void
gcp_crd_serr(gcp_crd_sctx_t *c, gcp_ferr_type_t type, const char *child,
    const char *value, const char *detail)
{
    size_t       pop;
    const char  *field;

    pop = c->path.len;

    if (child) {
        gcp_buf_addc(&c->path, '.');
        gcp_buf_addstr(&c->path, child);
    }

    field = gcp_strndup(c->errs->arena, c->path.data ? c->path.data : "",
                        c->path.len);
    gcp_crd_path_pop(&c->path, pop);

    if (field == NULL) {
        c->errs->nomem = 1;
        return;
    }

    gcp_ferrs_add(c->errs, type, field, value, "%s", detail ? detail : "");
}


static size_t
gcp_crd_spush(gcp_crd_sctx_t *c, const char *child)
{
    size_t  pop = c->path.len;

    gcp_buf_addc(&c->path, '.');
    gcp_buf_addstr(&c->path, child);
    return pop;
}


static size_t
gcp_crd_spush_key(gcp_crd_sctx_t *c, const char *child, const char *key)
{
    size_t  pop = gcp_crd_spush(c, child);

    gcp_buf_addc(&c->path, '[');
    gcp_buf_addstr(&c->path, key);
    gcp_buf_addc(&c->path, ']');
    return pop;
}


static size_t
gcp_crd_spush_index(gcp_crd_sctx_t *c, const char *child, size_t i)
{
    size_t  pop = gcp_crd_spush(c, child);

    gcp_crd_path_index(&c->path, i);
    return pop;
}


/*
 * Whether every field of s but the ones in skip (NULL-terminated) is Go's
 * zero value; slices built by append (enum, allOf, anyOf, oneOf) stay nil
 * when empty.
 */
static int
gcp_crd_zero_except(const json_t *s, const char *const *skip)
{
    void               *it;
    json_t             *v;
    const char         *k;
    const char *const  *sk;

    for (it = json_object_iter((json_t *) s); it;
         it = json_object_iter_next((json_t *) s, it))
    {
        k = json_object_iter_key(it);
        v = json_object_iter_value(it);

        for (sk = skip; *sk && strcmp(*sk, k) != 0; sk++) { /* void */ }

        if (*sk) {
            continue;
        }

        if ((strcmp(k, "enum") == 0 || strcmp(k, "allOf") == 0
             || strcmp(k, "anyOf") == 0 || strcmp(k, "oneOf") == 0)
            && json_array_size(v) == 0)
        {
            continue;
        }

        if (!gcp_crd_js_zero(k, v)) {
            return 0;
        }
    }

    return 1;
}


/*
 * Whether a node converted to a NestedValueValidation is exactly
 * {ForbiddenGenerics: {Type: type}} (reflect.DeepEqual with
 * intOrStringAnyOf): every other field it keeps is zero.
 */
static int
gcp_crd_only_type(const json_t *s, const char *type)
{
    static const char *const  skip[] = { "type", "example", NULL };

    return json_is_object(s)
           && strcmp(gcp_crd_js_str(s, "type"), type) == 0
           && gcp_crd_zero_except(s, skip);
}


static int
gcp_crd_int_or_string_anyof(const json_t *anyof)
{
    return json_array_size(anyof) == 2
           && gcp_crd_only_type(json_array_get(anyof, 0), "integer")
           && gcp_crd_only_type(json_array_get(anyof, 1), "string");
}


/* ---------------------------------------------------------- invariants */


static void gcp_crd_nested(gcp_crd_sctx_t *c, const json_t *v, int skip_anyof,
    int skip_allof_anyof, gcp_crd_level_t lvl);


/* validateValueValidation() */
static void
gcp_crd_value_validation(gcp_crd_sctx_t *c, const json_t *s, int skip_anyof,
    int skip_first_allof_anyof, gcp_crd_level_t lvl)
{
    size_t       i, pop;
    json_t      *e, *v;
    const char  *err, *q;
    gcp_arena_t *a = c->errs->arena;

    if (!skip_anyof) {
        json_array_foreach(json_object_get(s, "anyOf"), i, e) {
            pop = gcp_crd_spush_index(c, "anyOf", i);
            gcp_crd_nested(c, e, 0, 0, lvl);
            gcp_crd_path_pop(&c->path, pop);
        }
    }

    json_array_foreach(json_object_get(s, "allOf"), i, e) {
        pop = gcp_crd_spush_index(c, "allOf", i);
        gcp_crd_nested(c, e, skip_first_allof_anyof && i == 0, 0, lvl);
        gcp_crd_path_pop(&c->path, pop);
    }

    json_array_foreach(json_object_get(s, "oneOf"), i, e) {
        pop = gcp_crd_spush_index(c, "oneOf", i);
        gcp_crd_nested(c, e, 0, 0, lvl);
        gcp_crd_path_pop(&c->path, pop);
    }

    v = gcp_crd_js_obj(s, "not");

    if (v) {
        pop = gcp_crd_spush(c, "not");
        gcp_crd_nested(c, v, 0, 0, lvl);
        gcp_crd_path_pop(&c->path, pop);
    }

    v = json_object_get(s, "pattern");

    if (json_is_string(v) && json_string_length(v)) {
        err = gcp_crd_regex_check(a, json_string_value(v),
                                  json_string_length(v));
        if (err) {
            q = gcp_go_quote(a, json_string_value(v), json_string_length(v));
            err = gcp_sprintf(a, "must be a valid regular expression, but "
                              "isn't: %s", err);
            gcp_crd_serr(c, GCP_FERR_INVALID, "pattern", q, err);
        }
    }
}


/* validateNestedValueValidation() */
static void
gcp_crd_nested(gcp_crd_sctx_t *c, const json_t *v, int skip_anyof,
    int skip_allof_anyof, gcp_crd_level_t lvl)
{
    size_t       pop;
    void        *it;
    json_t      *props, *items;
    const char  *k;

    if (!json_is_object(v)) {
        return;
    }

    gcp_crd_value_validation(c, v, skip_anyof, skip_allof_anyof, lvl);

    items = gcp_crd_js_obj(v, "items");

    if (items) {
        pop = gcp_crd_spush(c, "items");
        gcp_crd_nested(c, items, 0, 0, lvl);
        gcp_crd_path_pop(&c->path, pop);
    }

    props = gcp_crd_js_obj(v, "properties");

    for (it = json_object_iter(props); it;
         it = json_object_iter_next(props, it))
    {
        k = json_object_iter_key(it);
        pop = gcp_crd_spush_key(c, "properties", k);
        gcp_crd_nested(c, json_object_iter_value(it), 0, 0, GCP_CRD_LVL_FIELD);
        gcp_crd_path_pop(&c->path, pop);
    }

    if (gcp_crd_js_str(v, "type")[0]) {
        gcp_crd_serr(c, GCP_FERR_FORBIDDEN, "type", NULL,
                     "must be empty to be structural");
    }

    if (gcp_crd_js_has(v, "additionalProperties")) {
        gcp_crd_serr(c, GCP_FERR_FORBIDDEN, "additionalProperties", NULL,
                     "must be undefined to be structural");
    }

    if (gcp_crd_js_has(v, "default")) {
        gcp_crd_serr(c, GCP_FERR_FORBIDDEN, "default", NULL,
                     "must be undefined to be structural");
    }

    if (gcp_crd_js_str(v, "title")[0]) {
        gcp_crd_serr(c, GCP_FERR_FORBIDDEN, "title", NULL,
                     "must be empty to be structural");
    }

    if (gcp_crd_js_str(v, "description")[0]) {
        gcp_crd_serr(c, GCP_FERR_FORBIDDEN, "description", NULL,
                     "must be empty to be structural");
    }

    if (gcp_crd_js_true(v, "nullable")) {
        gcp_crd_serr(c, GCP_FERR_FORBIDDEN, "nullable", NULL,
                     "must be false to be structural");
    }

    if (gcp_crd_js_has(v, "externalDocs")) {
        gcp_crd_serr(c, GCP_FERR_FORBIDDEN, "externalDocs", NULL,
                     "must be undefined to be structural");
    }

    if (gcp_crd_js_true(v, "x-kubernetes-preserve-unknown-fields")) {
        gcp_crd_serr(c, GCP_FERR_FORBIDDEN,
                     "x-kubernetes-preserve-unknown-fields", NULL,
                     "must be false to be structural");
    }

    if (gcp_crd_js_true(v, "x-kubernetes-embedded-resource")) {
        gcp_crd_serr(c, GCP_FERR_FORBIDDEN, "x-kubernetes-embedded-resource",
                     NULL, "must be false to be structural");
    }

    if (gcp_crd_js_true(v, "x-kubernetes-int-or-string")) {
        gcp_crd_serr(c, GCP_FERR_FORBIDDEN, "x-kubernetes-int-or-string",
                     NULL, "must be false to be structural");
    }

    if (json_array_size(json_object_get(v, "x-kubernetes-list-map-keys"))) {
        gcp_crd_serr(c, GCP_FERR_FORBIDDEN, "x-kubernetes-list-map-keys",
                     NULL, "must be empty to be structural");
    }

    if (gcp_crd_js_has(v, "x-kubernetes-list-type")) {
        gcp_crd_serr(c, GCP_FERR_FORBIDDEN, "x-kubernetes-list-type", NULL,
                     "must be undefined to be structural");
    }

    if (gcp_crd_js_has(v, "x-kubernetes-map-type")) {
        gcp_crd_serr(c, GCP_FERR_FORBIDDEN, "x-kubernetes-map-type", NULL,
                     "must be undefined to be structural");
    }

    if (json_array_size(json_object_get(v, "x-kubernetes-validations"))) {
        gcp_crd_serr(c, GCP_FERR_FORBIDDEN, "x-kubernetes-validations", NULL,
                     "must be empty to be structural");
    }

    if (json_object_get(props, "metadata")) {
        gcp_crd_serr(c, GCP_FERR_FORBIDDEN, "properties[metadata]", NULL,
                     "must not be specified in a nested context");
    }
}


/*
 * Whether the root's metadata schema, once reduced as
 * validateStructuralMetadataInvariants() reduces it (name and
 * generateName dropped, type and default ignored), is empty.
 */
static int
gcp_crd_meta_only_names(const json_t *m)
{
    size_t   n;
    json_t  *props;

    static const char *const  skip[] = {
        "properties", "type", "default", "example", NULL
    };

    props = gcp_crd_js_obj(m, "properties");

    if (props) {
        n = json_object_size(props);

        if (!(n == 2 && json_object_get(props, "name")
              && json_object_get(props, "generateName"))
            && !(n == 1 && (json_object_get(props, "name")
                            || json_object_get(props, "generateName"))))
        {
            return 0;
        }
    }

    return gcp_crd_zero_except(m, skip);
}


static void
gcp_crd_invariants(gcp_crd_sctx_t *c, const json_t *s, gcp_crd_level_t lvl)
{
    int          embedded, preserve, ios, check_meta;
    void        *it;
    size_t       pop;
    json_t      *props, *v, *ap;
    const char  *type, *k, *lt;
    gcp_arena_t *a = c->errs->arena;

    if (!json_is_object(s)) {
        return;
    }

    type = gcp_crd_js_str(s, "type");
    embedded = gcp_crd_js_true(s, "x-kubernetes-embedded-resource");
    preserve = gcp_crd_js_true(s, "x-kubernetes-preserve-unknown-fields");
    ios = gcp_crd_js_true(s, "x-kubernetes-int-or-string");

    v = gcp_crd_js_obj(s, "items");

    if (strcmp(type, "array") == 0 && v == NULL) {
        gcp_crd_serr(c, GCP_FERR_REQUIRED, "items", NULL, "must be specified");
    }

    if (v) {
        pop = gcp_crd_spush(c, "items");
        gcp_crd_invariants(c, v, GCP_CRD_LVL_ITEM);
        gcp_crd_path_pop(&c->path, pop);
    }

    props = gcp_crd_js_obj(s, "properties");

    for (it = json_object_iter(props); it;
         it = json_object_iter_next(props, it))
    {
        k = json_object_iter_key(it);
        pop = gcp_crd_spush_key(c, "properties", k);
        gcp_crd_invariants(c, json_object_iter_value(it), GCP_CRD_LVL_FIELD);
        gcp_crd_path_pop(&c->path, pop);
    }

    ap = json_object_get(s, "additionalProperties");
    if (json_is_null(ap)) {
        ap = NULL;
    }

    if (ap) {
        if (lvl == GCP_CRD_LVL_ROOT) {
            gcp_crd_serr(c, GCP_FERR_FORBIDDEN, "additionalProperties", NULL,
                         "must not be used at the root");
        }

        if (json_is_object(ap)) {
            pop = gcp_crd_spush(c, "additionalProperties");
            gcp_crd_invariants(c, ap, GCP_CRD_LVL_FIELD);
            gcp_crd_path_pop(&c->path, pop);
        }
    }

    /* validateExtensions() */

    if (ios && preserve) {
        gcp_crd_serr(c, GCP_FERR_INVALID,
                     "x-kubernetes-preserve-unknown-fields", "true",
                     "must be false if x-kubernetes-int-or-string is true");
    }

    if (ios && embedded) {
        gcp_crd_serr(c, GCP_FERR_INVALID, "x-kubernetes-embedded-resource",
                     "true",
                     "must be false if x-kubernetes-int-or-string is true");
    }

    v = json_object_get(s, "allOf");

    gcp_crd_value_validation(c, s,
        gcp_crd_int_or_string_anyof(json_object_get(s, "anyOf")),
        json_array_size(v) >= 1
        && gcp_crd_int_or_string_anyof(json_object_get(json_array_get(v, 0),
                                                        "anyOf")),
        lvl);

    check_meta = lvl == GCP_CRD_LVL_ROOT || embedded;

    if (embedded && strcmp(type, "object") != 0) {
        if (type[0] == '\0') {
            gcp_crd_serr(c, GCP_FERR_REQUIRED, "type", NULL,
                         "must be object if x-kubernetes-embedded-resource "
                         "is true");

        } else {
            gcp_crd_serr(c, GCP_FERR_INVALID, "type", gcp_ferr_quote(a, type),
                         "must be object if x-kubernetes-embedded-resource "
                         "is true");
        }

    } else if (type[0] == '\0' && !ios && !preserve) {
        gcp_crd_serr(c, GCP_FERR_REQUIRED, "type", NULL,
                     lvl == GCP_CRD_LVL_ROOT
                     ? "must not be empty at the root"
                     : lvl == GCP_CRD_LVL_ITEM
                     ? "must not be empty for specified array items"
                     : "must not be empty for specified object fields");
    }

    if (embedded && ap) {
        gcp_crd_serr(c, GCP_FERR_FORBIDDEN, "additionalProperties", NULL,
                     "must not be used if x-kubernetes-embedded-resource is "
                     "set");
    }

    if (lvl == GCP_CRD_LVL_ROOT && type[0] && strcmp(type, "object") != 0) {
        gcp_crd_serr(c, GCP_FERR_INVALID, "type", gcp_ferr_quote(a, type),
                     "must be object at the root");
    }

    if (check_meta) {
        v = json_object_get(props, "kind");
        lt = gcp_crd_js_str(v, "type");

        if (v && strcmp(lt, "string") != 0) {
            gcp_crd_serr(c, GCP_FERR_INVALID, "properties[kind].type",
                         gcp_ferr_quote(a, lt), "must be string");
        }

        v = json_object_get(props, "apiVersion");
        lt = gcp_crd_js_str(v, "type");

        if (v && strcmp(lt, "string") != 0) {
            gcp_crd_serr(c, GCP_FERR_INVALID, "properties[apiVersion].type",
                         gcp_ferr_quote(a, lt), "must be string");
        }
    }

    v = json_object_get(props, "metadata");

    if (v) {
        lt = gcp_crd_js_str(v, "type");

        if (check_meta && strcmp(lt, "object") != 0) {
            gcp_crd_serr(c, GCP_FERR_INVALID, "properties[metadata].type",
                         gcp_ferr_quote(a, lt), "must be object");
        }

        if (lvl == GCP_CRD_LVL_ROOT && !gcp_crd_meta_only_names(v)) {
            gcp_crd_serr(c, GCP_FERR_FORBIDDEN, "properties[metadata]", NULL,
                         "must not specify anything other than name and "
                         "generateName, but metadata is implicitly "
                         "specified");
        }
    }

    if (embedded && !preserve && json_object_size(props) == 0) {
        gcp_crd_serr(c, GCP_FERR_REQUIRED, "properties", NULL,
                     "must not be empty if x-kubernetes-embedded-resource is "
                     "true without x-kubernetes-preserve-unknown-fields");
    }
}


/* ---------------------------------------------------------- completeness */


static void gcp_crd_vv_complete(gcp_crd_sctx_t *c, const json_t *v,
    const json_t *s, gcp_buf_t *spath, gcp_buf_t *vpath);


static void
gcp_crd_required_because(gcp_crd_sctx_t *c, gcp_buf_t *spath,
    gcp_buf_t *vpath)
{
    const char  *field, *detail;
    gcp_arena_t *a = c->errs->arena;

    field = gcp_strndup(a, spath->data, spath->len);
    detail = gcp_sprintf(a, "because it is defined in %.*s",
                         (int) vpath->len, vpath->data);

    if (field == NULL || detail == NULL) {
        c->errs->nomem = 1;
        return;
    }

    gcp_ferrs_add(c->errs, GCP_FERR_REQUIRED, field, NULL, "%s", detail);
}


/* validateNestedValueValidationCompleteness() */
static void
gcp_crd_nested_complete(gcp_crd_sctx_t *c, const json_t *v, const json_t *s,
    gcp_buf_t *spath, gcp_buf_t *vpath)
{
    void        *it;
    size_t       spop, vpop;
    json_t      *props, *sprops, *sf;
    const char  *k;

    if (!json_is_object(v)) {
        return;
    }

    if (!json_is_object(s)) {
        gcp_crd_required_because(c, spath, vpath);
        return;
    }

    gcp_crd_vv_complete(c, v, s, spath, vpath);

    if (gcp_crd_js_obj(v, "items")) {
        spop = spath->len;
        vpop = vpath->len;
        gcp_buf_addstr(spath, ".items");
        gcp_buf_addstr(vpath, ".items");
        gcp_crd_nested_complete(c, gcp_crd_js_obj(v, "items"),
                                gcp_crd_js_obj(s, "items"), spath, vpath);
        gcp_crd_path_pop(spath, spop);
        gcp_crd_path_pop(vpath, vpop);
    }

    props = gcp_crd_js_obj(v, "properties");
    sprops = gcp_crd_js_obj(s, "properties");

    for (it = json_object_iter(props); it;
         it = json_object_iter_next(props, it))
    {
        k = json_object_iter_key(it);
        sf = json_object_get(sprops, k);

        spop = spath->len;
        vpop = vpath->len;
        gcp_buf_printf(spath, ".properties[%s]", k);
        gcp_buf_printf(vpath, ".properties[%s]", k);

        if (sf == NULL) {
            gcp_crd_required_because(c, spath, vpath);

        } else {
            gcp_crd_nested_complete(c, json_object_iter_value(it), sf, spath,
                                    vpath);
        }

        gcp_crd_path_pop(spath, spop);
        gcp_crd_path_pop(vpath, vpop);
    }
}


/* validateValueValidationCompleteness() */
static void
gcp_crd_vv_complete(gcp_crd_sctx_t *c, const json_t *v, const json_t *s,
    gcp_buf_t *spath, gcp_buf_t *vpath)
{
    size_t       i, k, vpop;
    json_t      *e;
    static const char  *lists[] = { "allOf", "anyOf", "oneOf" };

    e = gcp_crd_js_obj(v, "not");

    if (e) {
        vpop = vpath->len;
        gcp_buf_addstr(vpath, ".not");
        gcp_crd_nested_complete(c, e, s, spath, vpath);
        gcp_crd_path_pop(vpath, vpop);
    }

    for (k = 0; k < gcp_nelems(lists); k++) {
        json_array_foreach(json_object_get(v, lists[k]), i, e) {
            vpop = vpath->len;
            gcp_buf_printf(vpath, ".%s[%zu]", lists[k], i);
            gcp_crd_nested_complete(c, e, s, spath, vpath);
            gcp_crd_path_pop(vpath, vpop);
        }
    }
}


/* ---------------------------------------------------------- the check */


typedef struct {
    const char        *text;
    const gcp_ferr_t  *e;
} gcp_crd_sorted_t;


static int
gcp_crd_sorted_cmp(const void *a, const void *b)
{
    return strcmp(((const gcp_crd_sorted_t *) a)->text,
                  ((const gcp_crd_sorted_t *) b)->text);
}


int
gcp_crd_structural_validate(gcp_ferrs_t *errs, const json_t *schema,
    const char *path)
{
    size_t             i, n;
    gcp_buf_t          spath, vpath;
    gcp_ferrs_t        local;
    const gcp_ferr_t  *e;
    gcp_crd_sctx_t     c;
    gcp_crd_sorted_t  *sorted;

    gcp_ferrs_init(&local, errs->arena);

    c.errs = &local;
    gcp_buf_init(&c.path, errs->arena);
    gcp_buf_addstr(&c.path, path);

    gcp_crd_invariants(&c, schema, GCP_CRD_LVL_ROOT);

    gcp_buf_init(&spath, errs->arena);
    gcp_buf_init(&vpath, errs->arena);
    gcp_buf_addstr(&spath, path);
    gcp_buf_addstr(&vpath, path);

    if (json_is_object(schema)) {
        gcp_crd_vv_complete(&c, schema, schema, &spath, &vpath);
    }

    if (local.nomem || gcp_buf_failed(&c.path) || gcp_buf_failed(&spath)
        || gcp_buf_failed(&vpath))
    {
        errs->nomem = 1;
        return -1;
    }

    n = local.n;

    if (n == 0) {
        return 0;
    }

    /* sort.Slice by Error(): "FIELD: BODY" */

    sorted = gcp_alloc(errs->arena, n * sizeof(gcp_crd_sorted_t));
    if (sorted == NULL) {
        errs->nomem = 1;
        return -1;
    }

    for (e = local.first, i = 0; e; e = e->next, i++) {
        sorted[i].e = e;
        sorted[i].text = gcp_sprintf(errs->arena, "%s: %s", e->field,
                                     gcp_ferr_cause_message(errs->arena, e));
        if (sorted[i].text == NULL) {
            errs->nomem = 1;
            return -1;
        }
    }

    qsort(sorted, n, sizeof(gcp_crd_sorted_t), gcp_crd_sorted_cmp);

    for (i = 0; i < n; i++) {
        e = sorted[i].e;
        gcp_ferrs_add(errs, e->type, e->field, e->value, "%s",
                      e->detail ? e->detail : "");
    }

    return (int) n;
}
