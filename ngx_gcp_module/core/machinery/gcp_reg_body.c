
/*
 * Request bodies: from bytes to a checked object, with kube-apiserver's
 * decoding errors (400), media type errors (415) and field validation
 * (warnings or 400).
 */

#include <stdlib.h>

#include "gcp_reg.h"
#include "gcp_json.h"
#include "gcp_protobuf.h"
#include "gcp_schema_check.h"
#include "gcp_yaml_parse.h"


#define GCP_BODY_SNIPPET  30


/*
 * summarizeData() of the handlers: the body's first bytes as they are
 * when it starts with '{', in hex otherwise.
 */
static const char *
gcp_body_snippet(gcp_op_t *op)
{
    size_t      i, n;
    gcp_buf_t   b;
    gcp_str_t   body = op->req->body;

    static const char  hex[] = "0123456789abcdef";

    if (body.data == NULL || body.len == 0) {
        return "<empty>";
    }

    n = gcp_min(body.len, GCP_BODY_SNIPPET);

    gcp_buf_init(&b, op->a);

    if (body.data[0] == '{') {
        gcp_buf_add(&b, body.data, n);

    } else {
        for (i = 0; i < n; i++) {
            gcp_buf_addc(&b, hex[(unsigned char) body.data[i] >> 4]);
            gcp_buf_addc(&b, hex[(unsigned char) body.data[i] & 0x0f]);
        }
    }

    if (body.len > GCP_BODY_SNIPPET) {
        gcp_buf_add(&b, " ...", 4);
    }

    return gcp_buf_cstr(&b);
}


/* "the object provided is unrecognized (must be of type KIND): msg (body)" */

static void
gcp_body_unrecognized(gcp_op_t *op, const char *msg)
{
    gcp_op_error(op, GCP_EBADREQUEST,
                 gcp_sprintf(op->a, "the object provided is unrecognized "
                             "(must be of type %s): %s (%s)", op->res->kind,
                             msg, gcp_body_snippet(op)), NULL);
}


/* The JSON decoder's error for a body that is not an object. */

static const char *
gcp_body_not_object(gcp_op_t *op, const json_t *v)
{
    return gcp_sprintf(op->a, "couldn't get version/kind; json parse error: "
                       "json: cannot unmarshal %s into Go value of type "
                       "struct { APIVersion string \"json:\\\"apiVersion,"
                       "omitempty\\\"\"; Kind string \"json:\\\"kind,"
                       "omitempty\\\"\" }", gcp_json_go_kind(v));
}


/* "KIND in version "V" cannot be handled as a KIND: msg" */

static void
gcp_body_cannot_handle(gcp_op_t *op, const char *kind, const char *version,
    const char *msg)
{
    gcp_op_error(op, GCP_EBADREQUEST,
                 gcp_sprintf(op->a, "%s in version \"%s\" cannot be handled "
                             "as a %s: %s", kind, version, op->res->kind,
                             msg),
                 NULL);
}


/*
 * A custom resource's body must name its apiVersion and kind; the
 * apiVersion must be the request's (a wrong kind is a validation error).
 */

static int
gcp_body_typemeta_unstructured(gcp_op_t *op, json_t *obj)
{
    const char  *kind, *av, *want_av;

    kind = json_string_value(json_object_get(obj, "kind"));
    av = json_string_value(json_object_get(obj, "apiVersion"));
    want_av = gcp_reg_api_version(op);

    if (kind == NULL || kind[0] == '\0') {
        gcp_op_error(op, GCP_EBADREQUEST,
                     gcp_sprintf(op->a, "Object 'Kind' is missing in '%s'",
                                 gcp_json_dump(op->a, obj, 0).data), NULL);
        return GCP_EBADREQUEST;
    }

    if (av == NULL || av[0] == '\0') {
        gcp_op_error(op, GCP_EBADREQUEST,
                     gcp_sprintf(op->a, "Object 'apiVersion' is missing in "
                                 "'%s'", gcp_json_dump(op->a, obj, 0).data),
                     NULL);
        return GCP_EBADREQUEST;
    }

    if (strcmp(av, want_av) != 0) {
        gcp_op_error(op, GCP_EBADREQUEST,
                     gcp_sprintf(op->a, "the API version in the data (%s) "
                                 "does not match the expected API version "
                                 "(%s)", av, want_av), NULL);
        return GCP_EBADREQUEST;
    }

    return GCP_OK;
}


static int
gcp_body_typemeta(gcp_op_t *op, json_t *obj)
{
    const char  *kind, *av, *want_av, *slash, *version;

    if (op->res->unstructured) {
        return gcp_body_typemeta_unstructured(op, obj);
    }

    kind = json_string_value(json_object_get(obj, "kind"));
    av = json_string_value(json_object_get(obj, "apiVersion"));
    want_av = gcp_reg_api_version(op);

    if (kind == NULL || kind[0] == '\0') {
        kind = op->res->kind;
    }

    if (av == NULL || av[0] == '\0') {
        av = want_av;
    }

    slash = strrchr(av, '/');
    version = slash ? slash + 1 : av;

    if (strcmp(av, want_av) != 0) {
        gcp_body_cannot_handle(op, kind, version,
            gcp_sprintf(op->a, "no kind \"%s\" is registered for version "
                        "\"%s\" in scheme \"pkg/api/legacyscheme/"
                        "scheme.go:30\"", kind, av));
        return GCP_EBADREQUEST;
    }

    if (strcmp(kind, op->res->kind) != 0) {
        gcp_body_cannot_handle(op, kind, version,
            gcp_sprintf(op->a, "converting (%s.%s) to (%s): unknown "
                        "conversion", op->res->version, kind,
                        gcp_reg_internal_kind(op)));
        return GCP_EBADREQUEST;
    }

    json_object_set_new(obj, "kind", json_string(op->res->kind));
    json_object_set_new(obj, "apiVersion", json_string(want_av));

    return GCP_OK;
}


#define GCP_OBJECT_META  "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"


static int
gcp_body_path_cmp(const void *a, const void *b)
{
    return strcmp(*(const char * const *) a, *(const char * const *) b);
}


/*
 * The unknown fields of a custom resource: those of its metadata
 * (ObjectMeta's schema) and those the strategy prunes by the resource's
 * own schema, sorted; they are dropped from obj.
 */

static int
gcp_body_unknown_unstructured(gcp_op_t *op, json_t *obj,
    const char ***unknown, size_t *n)
{
    int                    rc;
    size_t                 i, nm, np;
    const char            *err;
    json_t                *meta;
    const json_t          *ms;
    const char           **mpaths, **ppaths, **all;
    const gcp_strategy_t  *st = op->res->strategy;

    nm = 0;
    np = 0;
    mpaths = NULL;
    ppaths = NULL;

    meta = json_object_get(obj, "metadata");
    ms = gcp_schema_get(op->api->schemas, GCP_OBJECT_META);

    if (json_is_object(meta)) {
        if (gcp_schema_unknown_fields(op->a, op->api->schemas, ms, meta,
                                      &mpaths, &nm) != GCP_OK)
        {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            return GCP_ENOMEM;
        }

        if (nm) {
            gcp_schema_prune_unknown(op->api->schemas, ms, meta);
        }
    }

    err = NULL;

    if (st && st->prune) {
        rc = st->prune(op, obj, &ppaths, &np, &err);

        if (rc == GCP_EBADREQUEST) {
            gcp_body_cannot_handle(op, op->res->kind, op->res->version,
                                   err ? err : "");
            return rc;
        }

        if (rc != GCP_OK) {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            return rc;
        }
    }

    all = gcp_alloc(op->a, (nm + np + 1) * sizeof(char *));
    if (all == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    for (i = 0; i < nm; i++) {
        all[i] = gcp_sprintf(op->a, "metadata.%s", mpaths[i]);
    }

    for (i = 0; i < np; i++) {
        all[nm + i] = ppaths[i];
    }

    qsort(all, nm + np, sizeof(char *), gcp_body_path_cmp);

    *unknown = all;
    *n = nm + np;

    return GCP_OK;
}


/* The unknown fields of a built-in type's object; dropped from obj. */

static int
gcp_body_unknown(gcp_op_t *op, json_t *obj, const char ***unknown,
    size_t *n)
{
    *unknown = NULL;
    *n = 0;

    if (op->res->unstructured) {
        return gcp_body_unknown_unstructured(op, obj, unknown, n);
    }

    if (gcp_schema_unknown_fields(op->a, op->api->schemas,
                                  gcp_schema_get(op->api->schemas,
                                                 op->res->schema),
                                  obj, unknown, n) != GCP_OK)
    {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    if (*n) {
        gcp_schema_prune_unknown(op->api->schemas,
                                 gcp_schema_get(op->api->schemas,
                                                op->res->schema), obj);
    }

    return GCP_OK;
}


/*
 * A strict decoding error as warnings: a YAML one ("yaml: unmarshal
 * errors:\n  line 6: ...", maybe after "error converting YAML to JSON: ")
 * line by line, as parseYAMLWarnings() of the handlers splits it.
 */

static void
gcp_body_warn_strict(gcp_op_t *op, const char *err)
{
    size_t       i, n;
    const char  *p, *end;

    static const char  *prefixes[] = {
        "yaml: unmarshal errors:\n",
        "error converting YAML to JSON: yaml: unmarshal errors:\n"
    };

    for (i = 0; i < gcp_nelems(prefixes); i++) {
        n = strlen(prefixes[i]);

        if (strncmp(err, prefixes[i], n) == 0) {
            break;
        }
    }

    if (i == gcp_nelems(prefixes)) {
        gcp_op_warning(op, err);
        return;
    }

    for (p = err + n; *p; p = *end ? end + 1 : end) {
        end = strchr(p, '\n');
        if (end == NULL) {
            end = p + strlen(p);
        }

        /* strings.TrimSpace() */

        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) {
            p++;
        }

        n = (size_t) (end - p);

        while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'
                     || p[n - 1] == '\r'))
        {
            n--;
        }

        if (n) {
            gcp_op_warning(op, gcp_strndup(op->a, p, n));
        }
    }
}


/*
 * Reports the strict decoding errors found while parsing (duplicate
 * fields) and the unknown fields per fv; drops unknown fields.
 */

static int
gcp_body_fields(gcp_op_t *op, json_t *obj, gcp_field_validation_t fv,
    const char **strict, size_t nstrict)
{
    size_t        i, n;
    gcp_buf_t     b;
    const char  **unknown;

    /* an error is answered already */

    if (gcp_body_unknown(op, obj, &unknown, &n) != GCP_OK) {
        return GCP_EBADREQUEST;
    }

    if (fv == GCP_FV_IGNORE || (n == 0 && nstrict == 0)) {
        return GCP_OK;
    }

    if (fv == GCP_FV_WARN) {
        for (i = 0; i < nstrict; i++) {
            gcp_body_warn_strict(op, strict[i]);
        }

        for (i = 0; i < n; i++) {
            gcp_op_warning(op, gcp_sprintf(op->a, "unknown field \"%s\"",
                                           unknown[i]));
        }

        return GCP_OK;
    }

    gcp_buf_init(&b, op->a);
    gcp_buf_addstr(&b, "strict decoding error: ");

    for (i = 0; i < nstrict; i++) {
        gcp_buf_printf(&b, "%s%s", i ? ", " : "", strict[i]);
    }

    for (i = 0; i < n; i++) {
        gcp_buf_printf(&b, "%sunknown field \"%s\"",
                       (i || nstrict) ? ", " : "", unknown[i]);
    }

    gcp_body_cannot_handle(op, op->res->kind, op->res->version,
                           gcp_buf_cstr(&b));

    return GCP_EBADREQUEST;
}


/*
 * kube-apiserver decodes a body into the Go type and stores and answers
 * what encoding that value gives, which is not always the JSON sent: a
 * field tagged omitempty (all but those the schema marks
 * x-gcp-proto-noomit) disappears when it holds its zero value ("", 0,
 * false, null, a map or slice without items); a field without omitempty
 * shows the zero value instead of null; a struct that is not a pointer
 * (x-gcp-proto-ptr marks pointers) is always written, even when absent or
 * null; a time is a struct too, written as null when zero.  Items and map
 * values that are null become their type's zero value.
 * gcp_body_normalize() gives obj that shape, driven by its schema.
 */

typedef enum {
    GCP_GO_OTHER = 0,           /* no or free-form schema: left alone */
    GCP_GO_STRING,
    GCP_GO_NUMBER,
    GCP_GO_BOOL,
    GCP_GO_TIME,
    GCP_GO_STRUCT,
    GCP_GO_MAP,
    GCP_GO_SLICE
} gcp_go_kind_t;


static gcp_go_kind_t
gcp_body_go_kind(const json_t *s)
{
    const char  *t, *format;

    if (s == NULL
        || json_is_true(json_object_get(s, "x-kubernetes-int-or-string"))
        || json_is_true(json_object_get(s,
                            "x-kubernetes-preserve-unknown-fields")))
    {
        return GCP_GO_OTHER;
    }

    t = json_string_value(json_object_get(s, "type"));
    format = json_string_value(json_object_get(s, "format"));

    if (t == NULL) {
        return GCP_GO_OTHER;
    }

    if (strcmp(t, "string") == 0) {
        return format && strcmp(format, "date-time") == 0 ? GCP_GO_TIME
                                                          : GCP_GO_STRING;
    }

    if (strcmp(t, "integer") == 0 || strcmp(t, "number") == 0) {
        return GCP_GO_NUMBER;
    }

    if (strcmp(t, "boolean") == 0) {
        return GCP_GO_BOOL;
    }

    if (strcmp(t, "array") == 0) {
        return GCP_GO_SLICE;
    }

    if (strcmp(t, "object") == 0) {
        if (json_is_object(json_object_get(s, "properties"))) {
            return GCP_GO_STRUCT;
        }

        if (json_is_object(json_object_get(s, "additionalProperties"))) {
            return GCP_GO_MAP;
        }
    }

    return GCP_GO_OTHER;
}


/* The zero value of a scalar kind, a new reference. */

static json_t *
gcp_body_go_zero(gcp_go_kind_t kind)
{
    switch (kind) {

    case GCP_GO_STRING:
        return json_string("");

    case GCP_GO_NUMBER:
        return json_integer(0);

    case GCP_GO_BOOL:
        return json_false();

    case GCP_GO_STRUCT:
        return json_object();

    default:
        return json_null();
    }
}


static int
gcp_body_go_empty(const json_t *v)
{
    switch (json_typeof(v)) {

    case JSON_STRING:
        return json_string_length(v) == 0;

    case JSON_INTEGER:
        return json_integer_value(v) == 0;

    case JSON_REAL:
        return json_real_value(v) == 0;

    case JSON_FALSE:
    case JSON_NULL:
        return 1;

    case JSON_OBJECT:
        return json_object_size(v) == 0;

    case JSON_ARRAY:
        return json_array_size(v) == 0;

    default:
        return 0;
    }
}


static void gcp_body_normalize(const gcp_schema_set_t *set,
    const json_t *node, json_t *v);


/* An item of a slice or a value of a map: null is the zero value. */

static json_t *
gcp_body_normalize_elem(const gcp_schema_set_t *set, const json_t *node,
    json_t *v)
{
    gcp_go_kind_t   kind;
    const json_t   *s;

    s = gcp_schema_resolve(set, node);
    kind = gcp_body_go_kind(s);

    if (json_is_null(v) && kind != GCP_GO_OTHER && kind != GCP_GO_TIME
        && kind != GCP_GO_MAP && kind != GCP_GO_SLICE)
    {
        return gcp_body_go_zero(kind);
    }

    gcp_body_normalize(set, node, v);

    return NULL;
}


static void
gcp_body_normalize_struct(const gcp_schema_set_t *set, const json_t *s,
    json_t *obj)
{
    int             ptr, noomit;
    json_t         *p, *v, *zero;
    const char     *key;
    gcp_go_kind_t   kind;

    json_object_foreach(json_object_get(s, "properties"), key, p) {
        kind = gcp_body_go_kind(gcp_schema_resolve(set, p));

        if (kind == GCP_GO_OTHER) {
            continue;
        }

        v = json_object_get(obj, key);
        ptr = json_is_true(json_object_get(p, "x-gcp-proto-ptr"));
        noomit = json_is_true(json_object_get(p, "x-gcp-proto-noomit"));

        if (v == NULL || json_is_null(v)) {

            if (ptr || kind == GCP_GO_MAP || kind == GCP_GO_SLICE) {
                /* nil */
                if (noomit) {
                    json_object_set_new(obj, key, json_null());

                } else {
                    json_object_del(obj, key);
                }

                continue;
            }

            zero = gcp_body_go_zero(kind);

            if (zero == NULL) {
                continue;
            }

            if (kind == GCP_GO_STRUCT || kind == GCP_GO_TIME || noomit) {
                json_object_set_new(obj, key, zero);
                gcp_body_normalize(set, p, zero);

            } else {
                json_decref(zero);
                json_object_del(obj, key);
            }

            continue;
        }

        if (!ptr && !noomit && kind != GCP_GO_STRUCT && kind != GCP_GO_TIME
            && gcp_body_go_empty(v))
        {
            json_object_del(obj, key);
            continue;
        }

        gcp_body_normalize(set, p, v);
    }
}


static void
gcp_body_normalize(const gcp_schema_set_t *set, const json_t *node,
    json_t *v)
{
    size_t          i;
    json_t         *e, *zero;
    const char     *key;
    const json_t   *s, *sub;

    s = gcp_schema_resolve(set, node);

    switch (gcp_body_go_kind(s)) {

    case GCP_GO_STRUCT:
        if (json_is_object(v)) {
            gcp_body_normalize_struct(set, s, v);
        }

        return;

    case GCP_GO_MAP:
        if (!json_is_object(v)) {
            return;
        }

        sub = json_object_get(s, "additionalProperties");

        json_object_foreach(v, key, e) {
            zero = gcp_body_normalize_elem(set, sub, e);

            if (zero) {
                json_object_set_new(v, key, zero);
            }
        }

        /* Go writes the keys of a map sorted (byte order) */

        (void) gcp_json_sort_keys(v, 0);

        return;

    case GCP_GO_SLICE:
        sub = gcp_schema_items(set, s);

        for (i = 0; i < json_array_size(v); i++) {
            zero = gcp_body_normalize_elem(set, sub, json_array_get(v, i));

            if (zero) {
                json_array_set_new(v, i, zero);
            }
        }

        return;

    default:
        return;
    }
}


/* Whether v holds (or is) one of the nbig values of big. */

static int
gcp_body_holds(const json_t *v, json_t * const *big, size_t nbig,
    int depth)
{
    size_t       i;
    json_t      *e;
    const char  *key;

    for (i = 0; i < nbig; i++) {
        if (big[i] == v) {
            return 1;
        }
    }

    if (depth > GCP_JSON_MAX_DEPTH) {
        return 0;
    }

    if (json_is_object(v)) {
        json_object_foreach((json_t *) v, key, e) {
            if (gcp_body_holds(e, big, nbig, depth + 1)) {
                return 1;
            }
        }

    } else if (json_is_array(v)) {
        json_array_foreach(v, i, e) {
            if (gcp_body_holds(e, big, nbig, depth + 1)) {
                return 1;
            }
        }
    }

    return 0;
}


/*
 * As gcp_reg_check_object(), with the numbers beyond float64 that the
 * JSON body held (big, nbig: gcp_json_parse_ex()'s): an error where a
 * field of the type reads one, nothing where the decode drops it (an
 * unknown field), as Go's typed decode.
 */

static int
gcp_reg_check_body(gcp_op_t *op, json_t *obj, gcp_field_validation_t fv,
    const char **strict, size_t nstrict, json_t * const *big, size_t nbig)
{
    int                    rc;
    const char            *msg;
    const gcp_strategy_t  *st = op->res->strategy;

    if (!json_is_object(obj)) {
        gcp_op_error(op, GCP_EBADREQUEST,
                     gcp_sprintf(op->a, "the object provided is "
                                 "unrecognized (must be of type %s)",
                                 op->res->kind), NULL);
        return GCP_EBADREQUEST;
    }

    rc = gcp_body_typemeta(op, obj);
    if (rc != GCP_OK) {
        return rc;
    }

    /* custom resources: wrong types are 422 validation errors */

    if (!op->res->unstructured) {
        rc = gcp_schema_check_types_big(op->a, op->api->schemas,
                                        gcp_schema_get(op->api->schemas,
                                                       op->res->schema),
                                        obj, big, nbig, &msg);
        if (rc != GCP_OK) {
            gcp_body_cannot_handle(op, op->res->kind, op->res->version, msg);
            return rc;
        }
    }

    rc = gcp_body_fields(op, obj, fv, strict, nstrict);
    if (rc != GCP_OK) {
        return rc;
    }

    if (nbig && gcp_body_holds(obj, big, nbig, 0)) {
        /* kept by a field that decodes itself: Go's number error */
        gcp_body_cannot_handle(op, op->res->kind, op->res->version,
                               gcp_sprintf(op->a, "json: cannot unmarshal "
                                           "number %s into Go value of "
                                           "type float64",
                                           json_string_value(big[0])));
        return GCP_EBADREQUEST;
    }

    if (op->res->unstructured) {
        /* ObjectMeta is typed; the rest is the resource's own schema's */

        gcp_body_normalize(op->api->schemas,
                           gcp_schema_get(op->api->schemas, GCP_OBJECT_META),
                           json_object_get(obj, "metadata"));

        if (st && st->defaults && st->defaults(op, obj) != GCP_OK) {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            return GCP_ENOMEM;
        }

    } else {
        gcp_body_normalize(op->api->schemas,
                           gcp_schema_get(op->api->schemas, op->res->schema),
                           obj);
    }

    if (st && st->decode) {
        rc = st->decode(op->a, obj, &msg);
        if (rc != GCP_OK) {
            gcp_body_cannot_handle(op, op->res->kind, op->res->version, msg);
            return rc;
        }
    }

    return GCP_OK;
}


int
gcp_reg_check_object(gcp_op_t *op, json_t *obj, gcp_field_validation_t fv,
    const char **strict, size_t nstrict)
{
    return gcp_reg_check_body(op, obj, fv, strict, nstrict, NULL, 0);
}


/*
 * Decodes the protobuf body into *obj; err is filled on failure.  Returns
 * as gcp_protobuf_decode_ex(), having responded to GCP_ENOMEM.
 */

static int
gcp_body_protobuf(gcp_op_t *op, json_t **obj, gcp_protobuf_error_t *err)
{
    int        rc;
    gcp_str_t  body = op->req->body;

    memset(err, 0, sizeof(gcp_protobuf_error_t));

    rc = gcp_protobuf_decode_ex(op->a, op->api->schemas, body.data,
                                body.len, obj, err);

    if (rc == GCP_ENOMEM) {
        gcp_op_error(op, rc, NULL, NULL);
    }

    return rc;
}


int
gcp_reg_decode_object(gcp_op_t *op, const gcp_resource_t *res, json_t *obj,
    const char **msg)
{
    int            rc;
    const char    *kind, *av, *want;
    const json_t  *schema;

    if (!json_is_object(obj)) {
        *msg = gcp_sprintf(op->a, "json: cannot unmarshal %s into Go value "
                           "of type struct", gcp_json_go_kind(obj));
        return GCP_EBADREQUEST;
    }

    kind = json_string_value(json_object_get(obj, "kind"));
    av = json_string_value(json_object_get(obj, "apiVersion"));
    want = gcp_resource_api_version(op->a, res);

    if (kind == NULL || av == NULL || want == NULL
        || strcmp(kind, res->kind) != 0 || strcmp(av, want) != 0)
    {
        *msg = gcp_sprintf(op->a, "unable to decode the object: kind %s "
                           "apiVersion %s is not %s", kind ? kind : "\"\"",
                           av ? av : "\"\"", res->kind);
        return GCP_EBADREQUEST;
    }

    schema = gcp_schema_get(op->api->schemas, res->schema);

    rc = gcp_schema_check_types(op->a, op->api->schemas, schema, obj, msg);
    if (rc != GCP_OK) {
        return rc;
    }

    gcp_schema_prune_unknown(op->api->schemas, schema, obj);
    gcp_body_normalize(op->api->schemas, schema, obj);

    return GCP_OK;
}


/* A protobuf body (kubectl's typed commands send them). */

static json_t *
gcp_reg_decode_protobuf(gcp_op_t *op, gcp_field_validation_t fv)
{
    int                    rc;
    json_t                *obj;
    gcp_protobuf_error_t   err;

    rc = gcp_body_protobuf(op, &obj, &err);

    if (rc == GCP_ENOMEM) {
        return NULL;
    }

    if (rc != GCP_OK) {
        if (err.kind && err.kind[0]) {
            const char  *slash = strrchr(err.api_version ? err.api_version
                                                         : "", '/');

            gcp_body_cannot_handle(op, err.kind,
                                   slash ? slash + 1
                                         : (err.api_version ? err.api_version
                                                            : ""),
                                   err.msg ? err.msg : "");

        } else {
            gcp_op_error(op, GCP_EBADREQUEST,
                         gcp_sprintf(op->a, "the object provided is "
                                     "unrecognized (must be of type %s): "
                                     "%s (%s)", op->res->kind,
                                     err.msg ? err.msg : "",
                                     err.summary ? err.summary : ""),
                         NULL);
        }

        return NULL;
    }

    if (gcp_reg_check_object(op, obj, fv, NULL, 0) != GCP_OK) {
        return NULL;
    }

    return obj;
}


/*
 * Parses a YAML body as kube-apiserver's YAML serializer does
 * (YAMLToJSON, then the JSON read for apiVersion and kind); with strict
 * checks, *strict gets YAMLToJSONStrict's error, if any.  Returns the
 * value (arena), or NULL after responding.
 */

static json_t *
gcp_reg_parse_yaml(gcp_op_t *op, gcp_field_validation_t fv,
    const char ***strict, size_t *nstrict)
{
    int              rc;
    json_t          *obj;
    gcp_str_t        body = op->req->body;
    gcp_yaml_info_t  info;

    rc = gcp_yaml_parse(op->a, body.data, body.len,
                        fv != GCP_FV_IGNORE ? GCP_YAML_STRICT : 0, &obj,
                        &info);

    if (rc == GCP_EBADREQUEST) {
        gcp_body_unrecognized(op, info.json
                              ? gcp_sprintf(op->a, "couldn't get "
                                            "version/kind; json parse "
                                            "error: %s", info.msg)
                              : info.msg);
        return NULL;
    }

    if (rc != GCP_OK) {
        gcp_op_error(op, rc, NULL, NULL);
        return NULL;
    }

    if (info.strict_msg) {
        *strict = gcp_alloc(op->a, sizeof(const char *));
        if (*strict == NULL) {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            return NULL;
        }

        (*strict)[0] = info.strict_msg;
        *nstrict = 1;
    }

    return obj;
}


/*
 * Parses a JSON body; with strict checks, *strict gets the duplicate
 * fields.  Returns the value (arena), or NULL after responding.
 */

static json_t *
gcp_reg_parse_json(gcp_op_t *op, gcp_field_validation_t fv,
    const char ***strict, size_t *nstrict, gcp_json_info_t *info)
{
    int           rc;
    size_t        i, ndups;
    json_t       *obj;
    gcp_str_t     body = op->req->body;
    const char  **dups;

    if (body.data == NULL || body.len == 0) {
        gcp_body_unrecognized(op, "couldn't get version/kind; json parse "
                              "error: unexpected end of JSON input");
        return NULL;
    }

    /*
     * a typed decode fails on a number beyond float64 only where a field
     * reads it; custom resources decode every value (unstructured)
     */

    rc = gcp_json_parse_ex(op->a, body.data, body.len,
                           op->res->unstructured ? 0 : GCP_JSON_BIG_NUMBERS,
                           &obj, info);

    if (rc == GCP_ENOMEM) {
        gcp_op_error(op, rc, NULL, NULL);
        return NULL;
    }

    if (rc != GCP_OK) {
        gcp_body_unrecognized(op, gcp_sprintf(op->a, "couldn't get "
                                              "version/kind; json parse "
                                              "error: %s", info->msg));
        return NULL;
    }

    if (info->nbig && obj == info->big[0]) {
        gcp_body_unrecognized(op, gcp_sprintf(op->a, "couldn't get "
                                              "version/kind; json parse "
                                              "error: json: cannot "
                                              "unmarshal number %s into Go "
                                              "value of type float64",
                                              json_string_value(obj)));
        return NULL;
    }

    dups = NULL;
    ndups = 0;

    if (fv != GCP_FV_IGNORE
        && gcp_json_duplicates(op->a, body.data, body.len, &dups, &ndups)
           != GCP_OK)
    {
        ndups = 0;
    }

    for (i = 0; i < ndups; i++) {
        dups[i] = gcp_sprintf(op->a, "duplicate field \"%s\"", dups[i]);
    }

    *strict = dups;
    *nstrict = ndups;

    return obj;
}


/*
 * An options body (DeleteOptions) as the delete handlers decode it: the
 * input serializer negotiated from the Content-Type (JSON, YAML or
 * protobuf; protobuf's envelope names the options kind in any group
 * version that registers it), the decoder's error as a 400 of its own.
 */

json_t *
gcp_reg_decode_options(gcp_op_t *op, const char *kind)
{
    int                    rc;
    json_t                *obj;
    gcp_str_t              body = op->req->body;
    const char            *ct, *msg;
    gcp_yaml_info_t        info;
    gcp_protobuf_error_t   err;

    ct = gcp_media_content_type(op->a, op->req->content_type);

    if (strcmp(ct, "application/vnd.kubernetes.protobuf") == 0) {
        rc = gcp_body_protobuf(op, &obj, &err);

        if (rc == GCP_ENOMEM) {
            return NULL;
        }

        if (rc != GCP_OK) {
            gcp_op_error(op, GCP_EBADREQUEST, err.msg ? err.msg : "", NULL);
            return NULL;
        }

        if (strcmp(json_string_value(json_object_get(obj, "kind")) ?: "",
                   kind) != 0)
        {
            gcp_reg_error_plain(op, 500, gcp_sprintf(op->a, "decoded object "
                                                     "cannot be converted "
                                                     "to %s", kind));
            return NULL;
        }

        return obj;
    }

    if (strcmp(ct, "application/yaml") == 0) {
        rc = gcp_yaml_parse(op->a, body.data, body.len, 0, &obj, &info);

        if (rc == GCP_EBADREQUEST) {
            gcp_op_error(op, rc, info.json
                         ? gcp_sprintf(op->a, "couldn't get version/kind; "
                                       "json parse error: %s", info.msg)
                         : info.msg, NULL);
            return NULL;
        }

        if (rc != GCP_OK) {
            gcp_op_error(op, rc, NULL, NULL);
            return NULL;
        }

        if (json_is_null(obj)) {
            obj = gcp_json_arena(op->a, json_object());
            if (obj == NULL) {
                gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
                return NULL;
            }
        }

    } else if (ct[0] == '\0' || strcmp(ct, "application/json") == 0
               || strcmp(ct, "*/*") == 0)
    {
        obj = gcp_json_parse(op->a, body.data, body.len, &msg);

        if (obj == NULL) {
            gcp_op_error(op, GCP_EBADREQUEST,
                         gcp_sprintf(op->a, "couldn't get version/kind; "
                                     "json parse error: %s", msg), NULL);
            return NULL;
        }

    } else {
        gcp_op_error(op, GCP_EMEDIATYPE,
                     "the body of the request was in an unknown format - "
                     "accepted media types include: application/json, "
                     "application/yaml, application/vnd.kubernetes.protobuf",
                     NULL);
        return NULL;
    }

    if (!json_is_object(obj)) {
        gcp_op_error(op, GCP_EBADREQUEST, gcp_body_not_object(op, obj),
                     NULL);
        return NULL;
    }

    return obj;
}


json_t *
gcp_reg_decode_body(gcp_op_t *op, gcp_field_validation_t fv)
{
    json_t           *obj;
    size_t            nstrict;
    const char       *ct, **strict;
    gcp_json_info_t   info;

    ct = gcp_media_content_type(op->a, op->req->content_type);

    if (strcmp(ct, "application/vnd.kubernetes.protobuf") == 0
        && op->req->body.len)
    {
        return gcp_reg_decode_protobuf(op, fv);
    }

    strict = NULL;
    nstrict = 0;
    memset(&info, 0, sizeof(gcp_json_info_t));

    if (strcmp(ct, "application/yaml") == 0) {
        obj = gcp_reg_parse_yaml(op, fv, &strict, &nstrict);

    } else if (ct[0] == '\0' || strcmp(ct, "application/json") == 0
               || strcmp(ct, "*/*") == 0)
    {
        obj = gcp_reg_parse_json(op, fv, &strict, &nstrict, &info);

    } else {
        gcp_op_error(op, GCP_EMEDIATYPE,
                     "the body of the request was in an unknown format - "
                     "accepted media types include: application/json, "
                     "application/yaml, application/vnd.kubernetes.protobuf",
                     NULL);
        return NULL;
    }

    if (obj == NULL) {
        return NULL;
    }

    if (json_is_null(obj)) {
        /* Go decodes null into the zero value of the type */
        obj = gcp_json_arena(op->a, json_object());
        if (obj == NULL) {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            return NULL;
        }
    }

    if (!json_is_object(obj)) {
        gcp_body_unrecognized(op, gcp_body_not_object(op, obj));
        return NULL;
    }

    if (gcp_reg_check_body(op, obj, fv, strict, nstrict, info.big, info.nbig)
        != GCP_OK)
    {
        return NULL;
    }

    return obj;
}
