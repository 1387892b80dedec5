
/*
 * Schema-driven body checks: unknown fields and Go decoding errors (see
 * gcp_schema_check.h).
 */

#include "gcp_json.h"
#include "gcp_schema_check.h"
#include "gcp_time.h"


/* ------------------------------------------------------ unknown fields */


typedef struct {
    gcp_arena_t             *arena;
    const gcp_schema_set_t  *set;
    gcp_buf_t                path;
    const char             **paths;
    size_t                   n;
    json_t                  *prune;     /* not NULL: remove instead */
    size_t                   removed;
    unsigned                 nomem:1;
} gcp_unknown_ctx_t;


static void gcp_unknown_walk(gcp_unknown_ctx_t *ctx, const json_t *node,
    json_t *v, int top);


static void
gcp_unknown_report(gcp_unknown_ctx_t *ctx)
{
    size_t       i;
    const char  *p;

    if (ctx->n == GCP_SCHEMA_MAX_UNKNOWN) {
        return;
    }

    p = gcp_buf_cstr(&ctx->path);
    if (p == NULL || gcp_buf_failed(&ctx->path)) {
        ctx->nomem = 1;
        return;
    }

    for (i = 0; i < ctx->n; i++) {
        if (strcmp(ctx->paths[i], p) == 0) {
            return;
        }
    }

    p = gcp_strdup(ctx->arena, p);
    if (p == NULL) {
        ctx->nomem = 1;
        return;
    }

    ctx->paths[ctx->n++] = p;
}


/* Whether a key of an object with schema s is known without a property. */
static int
gcp_unknown_allowed(const json_t *s, const char *key, int top)
{
    if (json_is_true(json_object_get(s,
                                     "x-kubernetes-preserve-unknown-fields")))
    {
        return 1;
    }

    if (strcmp(key, "apiVersion") == 0 || strcmp(key, "kind") == 0) {
        return top || json_is_true(json_object_get(s,
                                       "x-kubernetes-embedded-resource"));
    }

    return strcmp(key, "metadata") == 0
           && json_is_true(json_object_get(s,
                                           "x-kubernetes-embedded-resource"));
}


static void
gcp_unknown_object(gcp_unknown_ctx_t *ctx, const json_t *s, json_t *v,
    int top)
{
    size_t       len;
    json_t      *props, *ap, *p, *e;
    const char  *key;
    void        *tmp;

    props = json_object_get(s, "properties");
    ap = json_object_get(s, "additionalProperties");

    if (!json_is_object(props) && !json_is_object(ap)) {
        return;                                 /* free-form */
    }

    len = ctx->path.len;

    json_object_foreach_safe(v, tmp, key, e) {
        if (len) {
            gcp_buf_addc(&ctx->path, '.');
        }

        gcp_buf_addstr(&ctx->path, key);

        p = json_object_get(props, key);

        if (p == NULL && json_is_object(ap)) {
            p = ap;
        }

        if (p) {
            gcp_unknown_walk(ctx, p, e, 0);

        } else if (!gcp_unknown_allowed(s, key, top)) {
            if (ctx->prune) {
                json_object_del(v, key);
                ctx->removed++;

            } else {
                gcp_unknown_report(ctx);
            }
        }

        ctx->path.len = len;
    }
}


static void
gcp_unknown_walk(gcp_unknown_ctx_t *ctx, const json_t *node, json_t *v,
    int top)
{
    size_t         i, len;
    json_t        *e, *items;
    const json_t  *s;

    s = gcp_schema_resolve(ctx->set, node);
    if (s == NULL || ctx->nomem) {
        return;
    }

    if (json_is_object(v)) {
        gcp_unknown_object(ctx, s, v, top);
        return;
    }

    items = json_object_get(s, "items");

    if (!json_is_array(v) || !json_is_object(items)) {
        return;
    }

    len = ctx->path.len;

    json_array_foreach(v, i, e) {
        gcp_buf_printf(&ctx->path, "[%zu]", i);
        gcp_unknown_walk(ctx, items, e, 0);
        ctx->path.len = len;
    }
}


int
gcp_schema_unknown_fields(gcp_arena_t *a, const gcp_schema_set_t *set,
    const json_t *schema, const json_t *obj, const char ***paths, size_t *n)
{
    gcp_unknown_ctx_t  ctx;

    memset(&ctx, 0, sizeof(gcp_unknown_ctx_t));
    ctx.arena = a;
    ctx.set = set;
    gcp_buf_init(&ctx.path, a);

    ctx.paths = gcp_alloc(a, GCP_SCHEMA_MAX_UNKNOWN * sizeof(char *));
    if (ctx.paths == NULL) {
        return GCP_ENOMEM;
    }

    /* the walk does not modify obj unless pruning */
    gcp_unknown_walk(&ctx, schema, (json_t *) obj, 1);

    if (ctx.nomem) {
        return GCP_ENOMEM;
    }

    *paths = ctx.paths;
    *n = ctx.n;

    return GCP_OK;
}


size_t
gcp_schema_prune_unknown(const gcp_schema_set_t *set, const json_t *schema,
    json_t *obj)
{
    gcp_arena_t        *a;
    gcp_unknown_ctx_t   ctx;

    a = gcp_arena_create(0);
    if (a == NULL) {
        return 0;
    }

    memset(&ctx, 0, sizeof(gcp_unknown_ctx_t));
    ctx.arena = a;
    ctx.set = set;
    ctx.prune = obj;
    gcp_buf_init(&ctx.path, a);

    gcp_unknown_walk(&ctx, schema, obj, 1);

    gcp_arena_destroy(a);

    return ctx.removed;
}


/* ---------------------------------------------------- Go value helpers */


/*
 * Returns -1 when s is base64 Go's base64.StdEncoding accepts (padding
 * required, CR and LF ignored), else the offset its CorruptInputError
 * names.
 */
static long
gcp_go_base64_error(const unsigned char *s, size_t len)
{
    int            j;
    size_t         si;
    unsigned char  c;

    si = 0;

    while (si < len) {
        for (j = 0; j < 4; j++) {
            if (si == len) {
                return j == 0 ? -1 : (long) (si - j);
            }

            c = s[si++];

            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
                || (c >= '0' && c <= '9') || c == '+' || c == '/')
            {
                continue;
            }

            if (c == '\n' || c == '\r') {
                j--;
                continue;
            }

            if (c != '=' || j < 2) {
                return (long) (si - 1);
            }

            if (j == 2) {
                /* "==" expected: the first '=' is consumed */
                while (si < len && (s[si] == '\n' || s[si] == '\r')) {
                    si++;
                }

                if (si == len) {
                    return (long) len;
                }

                if (s[si] != '=') {
                    return (long) (si - 1);
                }

                si++;
            }

            while (si < len && (s[si] == '\n' || s[si] == '\r')) {
                si++;
            }

            return si < len ? (long) si : -1;
        }
    }

    return -1;
}


/* ---------------------------------------------------------- type check */


typedef struct {
    gcp_arena_t             *arena;
    const gcp_schema_set_t  *set;
    gcp_buf_t                field;     /* dotted struct field path */
    const char              *strct;     /* innermost struct, or NULL */
    const char              *error;     /* the first error */
    json_t * const          *big;       /* numbers beyond float64, */
    size_t                   nbig;      /* held as their literals */
    unsigned                 fatal:1;   /* error ends decoding */
    unsigned                 nomem:1;
} gcp_types_ctx_t;


static void gcp_types_walk(gcp_types_ctx_t *ctx, const json_t *node,
    const json_t *v);


/* The literal of v when it is a number beyond float64, else NULL. */
static const char *
gcp_types_big(gcp_types_ctx_t *ctx, const json_t *v)
{
    size_t  i;

    for (i = 0; i < ctx->nbig; i++) {
        if (ctx->big[i] == v) {
            return json_string_value(v);
        }
    }

    return NULL;
}


/* Go's name of v's JSON kind ("number" for a number beyond float64). */
static const char *
gcp_types_kind(gcp_types_ctx_t *ctx, const json_t *v)
{
    return gcp_types_big(ctx, v) ? "number" : gcp_json_go_kind(v);
}


/* A string, not the literal of a number beyond float64. */
static int
gcp_types_is_string(gcp_types_ctx_t *ctx, const json_t *v)
{
    return json_is_string(v) && gcp_types_big(ctx, v) == NULL;
}


/* Keeps the first error; a fatal one ends the walk and wins. */
static void
gcp_types_error(gcp_types_ctx_t *ctx, const char *msg, int fatal)
{
    if (msg == NULL) {
        ctx->nomem = 1;
        return;
    }

    if (ctx->error == NULL || fatal) {
        ctx->error = msg;
    }

    if (fatal) {
        ctx->fatal = 1;
    }
}


/* Go's UnmarshalTypeError, with the current struct and field. */
static void
gcp_types_mismatch(gcp_types_ctx_t *ctx, const char *value,
    const char *type, int fatal)
{
    const char  *field;

    if (ctx->error && !fatal) {
        return;
    }

    field = gcp_buf_cstr(&ctx->field);
    if (field == NULL || type == NULL || value == NULL) {
        ctx->nomem = 1;
        return;
    }

    if (ctx->strct || ctx->field.len) {
        gcp_types_error(ctx, gcp_sprintf(ctx->arena,
                             "json: cannot unmarshal %s into Go struct field "
                             "%s.%s of type %s", value,
                             ctx->strct ? ctx->strct : "", field, type),
                        fatal);
        return;
    }

    gcp_types_error(ctx, gcp_sprintf(ctx->arena,
                         "json: cannot unmarshal %s into Go value of type %s",
                         value, type),
                    fatal);
}


/* The type name of a definition: "v1.ObjectMeta" (package.Name). */
static const char *
gcp_types_def_type(const char *def)
{
    const char  *pkg;

    pkg = strrchr(def, '.');
    if (pkg == NULL) {
        return def;
    }

    while (pkg > def && pkg[-1] != '.') {
        pkg--;
    }

    return pkg;
}


/* The struct name of a definition: "ObjectMeta". */
static const char *
gcp_types_def_struct(const char *def)
{
    const char  *name;

    if (def == NULL) {
        return "";
    }

    name = strrchr(def, '.');

    return name ? name + 1 : def;
}


/* The Go type of the value node describes. */
static const char *
gcp_types_go_type(gcp_types_ctx_t *ctx, const json_t *node)
{
    const char    *t, *type, *def;
    const json_t  *s, *ap;

    t = gcp_schema_ext(ctx->set, node, "x-gcp-go-type");
    if (t) {
        return t;
    }

    s = gcp_schema_resolve(ctx->set, node);
    type = json_string_value(json_object_get(s, "type"));

    if (type == NULL) {
        return "interface {}";
    }

    if (strcmp(type, "string") == 0) {
        t = json_string_value(json_object_get(s, "format"));
        return t && strcmp(t, "byte") == 0 ? "[]uint8" : "string";
    }

    if (strcmp(type, "integer") == 0) {
        t = json_string_value(json_object_get(s, "format"));
        return t && strcmp(t, "int32") == 0 ? "int32" : "int64";
    }

    if (strcmp(type, "number") == 0) {
        return "float64";
    }

    if (strcmp(type, "boolean") == 0) {
        return "bool";
    }

    if (strcmp(type, "array") == 0) {
        t = gcp_types_go_type(ctx, json_object_get(s, "items"));
        return t ? gcp_sprintf(ctx->arena, "[]%s", t) : NULL;
    }

    if (json_is_object(json_object_get(s, "properties"))) {
        def = gcp_schema_def_name(ctx->set, node);
        return def ? gcp_types_def_type(def) : "struct {}";
    }

    ap = json_object_get(s, "additionalProperties");

    if (json_is_object(ap)) {
        t = gcp_types_go_type(ctx, ap);
        return t ? gcp_sprintf(ctx->arena, "map[string]%s", t) : NULL;
    }

    return "map[string]interface {}";
}


/*
 * "number N": Go prints the literal; an integer reads back the same, a
 * real as strconv.FormatFloat(f, 'g', -1, 64) ("1.5", "1e+30").
 */
static const char *
gcp_types_number(gcp_types_ctx_t *ctx, const json_t *v)
{
    char  buf[64];

    if (json_is_integer(v)) {
        return gcp_sprintf(ctx->arena, "number %" JSON_INTEGER_FORMAT,
                           json_integer_value(v));
    }

    gcp_json_format_float(json_real_value(v), 'g', buf);

    return gcp_sprintf(ctx->arena, "number %s", buf);
}


/* A number into a Go integer of bits bits (8: uint8). */
static void
gcp_types_integer(gcp_types_ctx_t *ctx, const json_t *v, int bits,
    const char *type, int fatal)
{
    json_int_t   n;
    const char  *big;

    big = gcp_types_big(ctx, v);

    if (big) {
        gcp_types_mismatch(ctx, gcp_sprintf(ctx->arena, "number %s", big),
                           type, fatal);
        return;
    }

    if (!json_is_number(v)) {
        gcp_types_mismatch(ctx, gcp_json_go_kind(v), type, fatal);
        return;
    }

    if (json_is_integer(v)) {
        n = json_integer_value(v);

        if (bits == 64 || (bits == 32 && n >= INT32_MIN && n <= INT32_MAX)
            || (bits == 8 && n >= 0 && n <= 255))
        {
            return;
        }
    }

    gcp_types_mismatch(ctx, gcp_types_number(ctx, v), type, fatal);
}


/* metav1.Time and MicroTime decode themselves: a string, or fatal. */
static void
gcp_types_time(gcp_types_ctx_t *ctx, const json_t *v, int micro)
{
    int               rc;
    const char       *msg;
    struct timespec   ts;

    if (!gcp_types_is_string(ctx, v)) {
        gcp_types_mismatch(ctx, gcp_types_kind(ctx, v), "string", 1);
        return;
    }

    msg = NULL;

    if (micro) {
        rc = gcp_time_parse_micro(ctx->arena, json_string_value(v),
                                  json_string_length(v), &ts, &msg);
    } else {
        rc = gcp_time_parse(ctx->arena, json_string_value(v),
                            json_string_length(v), &ts, &msg);
    }

    if (rc != GCP_OK) {
        gcp_types_error(ctx, msg, 1);
    }
}


/* A format "byte" string: base64, or an array of uint8 numbers. */
static void
gcp_types_bytes(gcp_types_ctx_t *ctx, const json_t *node, const json_t *v)
{
    long     off;
    size_t   i;
    json_t  *e;

    if (json_is_array(v)) {
        json_array_foreach(v, i, e) {
            if (!json_is_null(e)) {
                gcp_types_integer(ctx, e, 8, "uint8", 0);
            }
        }

        return;
    }

    if (!gcp_types_is_string(ctx, v)) {
        gcp_types_mismatch(ctx, gcp_types_kind(ctx, v),
                           gcp_types_go_type(ctx, node), 0);
        return;
    }

    off = gcp_go_base64_error((const unsigned char *) json_string_value(v),
                              json_string_length(v));

    if (off >= 0 && ctx->error == NULL) {
        gcp_types_error(ctx, gcp_sprintf(ctx->arena,
                             "illegal base64 data at input byte %ld", off),
                        0);
    }
}


static void
gcp_types_struct(gcp_types_ctx_t *ctx, const json_t *node, const json_t *s,
    const json_t *v)
{
    size_t       len;
    json_t      *e, *p;
    const char  *key, *strct, *name;

    name = gcp_types_def_struct(gcp_schema_def_name(ctx->set, node));
    strct = ctx->strct;
    len = ctx->field.len;

    json_object_foreach((json_t *) v, key, e) {
        p = json_object_get(json_object_get(s, "properties"), key);
        if (p == NULL) {
            continue;                   /* unknown: skipped */
        }

        if (len) {
            gcp_buf_addc(&ctx->field, '.');
        }

        gcp_buf_addstr(&ctx->field, key);
        ctx->strct = name;

        gcp_types_walk(ctx, p, e);

        if (ctx->fatal || ctx->nomem) {
            return;                     /* context kept, as Go does */
        }

        ctx->field.len = len;
        ctx->strct = strct;
    }
}


static void
gcp_types_walk(gcp_types_ctx_t *ctx, const json_t *node, const json_t *v)
{
    size_t         i;
    json_t        *e, *ap;
    const char    *def, *type, *format, *key;
    const json_t  *s;

    if (json_is_null(v) || ctx->fatal || ctx->nomem) {
        return;
    }

    /* Time and MicroTime are only reached by reference */
    def = gcp_schema_ref_name(node) ? gcp_schema_def_name(ctx->set, node)
                                    : NULL;

    if (def && strcmp(def, "io.k8s.apimachinery.pkg.apis.meta.v1.Time")
               == 0)
    {
        gcp_types_time(ctx, v, 0);
        return;
    }

    if (def && strcmp(def, "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime")
               == 0)
    {
        gcp_types_time(ctx, v, 1);
        return;
    }

    s = gcp_schema_resolve(ctx->set, node);
    if (s == NULL) {
        return;
    }

    type = json_string_value(json_object_get(s, "type"));
    format = json_string_value(json_object_get(s, "format"));

    if (json_is_true(json_object_get(s, "x-kubernetes-int-or-string"))
        || (format && strcmp(format, "int-or-string") == 0))
    {
        /* IntOrString: a string, else an int32 (fatal) */
        if (!gcp_types_is_string(ctx, v)) {
            gcp_types_integer(ctx, v, 32, "int32", 1);
        }

        return;
    }

    if (type == NULL) {
        return;
    }

    if (strcmp(type, "object") == 0) {
        ap = json_object_get(s, "additionalProperties");

        if (!json_is_object(json_object_get(s, "properties"))
            && !json_is_object(ap))
        {
            return;                     /* decodes itself: anything goes */
        }

        if (!json_is_object(v)) {
            gcp_types_mismatch(ctx, gcp_types_kind(ctx, v),
                               gcp_types_go_type(ctx, node), 0);
            return;
        }

        if (json_is_object(json_object_get(s, "properties"))) {
            gcp_types_struct(ctx, node, s, v);
            return;
        }

        json_object_foreach((json_t *) v, key, e) {
            gcp_types_walk(ctx, ap, e);
        }

        return;
    }

    if (strcmp(type, "array") == 0) {
        if (!json_is_array(v)) {
            gcp_types_mismatch(ctx, gcp_types_kind(ctx, v),
                               gcp_types_go_type(ctx, node), 0);
            return;
        }

        json_array_foreach(v, i, e) {
            gcp_types_walk(ctx, json_object_get(s, "items"), e);
        }

        return;
    }

    if (strcmp(type, "string") == 0) {
        if (format && strcmp(format, "byte") == 0) {
            gcp_types_bytes(ctx, node, v);

        } else if (!gcp_types_is_string(ctx, v)) {
            gcp_types_mismatch(ctx, gcp_types_kind(ctx, v),
                               gcp_types_go_type(ctx, node), 0);
        }

        return;
    }

    if (strcmp(type, "integer") == 0) {
        gcp_types_integer(ctx, v, format && strcmp(format, "int32") == 0
                                  ? 32 : 64,
                          gcp_types_go_type(ctx, node), 0);
        return;
    }

    if (strcmp(type, "number") == 0 && gcp_types_big(ctx, v)) {
        gcp_types_mismatch(ctx, gcp_sprintf(ctx->arena, "number %s",
                                            gcp_types_big(ctx, v)),
                           gcp_types_go_type(ctx, node), 0);
        return;
    }

    if ((strcmp(type, "number") == 0 && !json_is_number(v))
        || (strcmp(type, "boolean") == 0 && !json_is_boolean(v)))
    {
        gcp_types_mismatch(ctx, gcp_types_kind(ctx, v),
                           gcp_types_go_type(ctx, node), 0);
    }
}


int
gcp_schema_check_types(gcp_arena_t *a, const gcp_schema_set_t *set,
    const json_t *schema, const json_t *obj, const char **msg)
{
    return gcp_schema_check_types_big(a, set, schema, obj, NULL, 0, msg);
}


int
gcp_schema_check_types_big(gcp_arena_t *a, const gcp_schema_set_t *set,
    const json_t *schema, const json_t *obj, json_t * const *big,
    size_t nbig, const char **msg)
{
    gcp_types_ctx_t  ctx;

    memset(&ctx, 0, sizeof(gcp_types_ctx_t));
    ctx.arena = a;
    ctx.set = set;
    ctx.big = big;
    ctx.nbig = nbig;
    gcp_buf_init(&ctx.field, a);

    gcp_types_walk(&ctx, schema, obj);

    if (ctx.nomem || gcp_buf_failed(&ctx.field)) {
        return GCP_ENOMEM;
    }

    if (ctx.error) {
        *msg = ctx.error;
        return GCP_EBADREQUEST;
    }

    return GCP_OK;
}
